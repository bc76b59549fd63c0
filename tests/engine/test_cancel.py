"""A game nobody joined can end before it starts (issue 12, items 9 and 19): cancelled by the
seat that waits, or expired by the server. It ends like any game (``GameCancelled``, the
``Checkpoint`` and ``GameEnded`` of every end, ``SeedRevealed``) so that ``verify`` re-derives
it from the log; a game that has started cannot be cancelled."""

from __future__ import annotations

import pytest

from skirmish.engine import events as ev
from skirmish.engine.codec import encode_event
from skirmish.engine.commands import Cancel, Resign, Start
from skirmish.engine.errors import AlreadyStarted, GameOver, MalformedCommand
from skirmish.engine.log import chain_hashes
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server import missions
from skirmish.server.game import LiveGame
from skirmish.server.store import MemoryStore


async def _stored(store, game_id):
    return [LoggedEvent(s.seq, s.data, s.hash) for s in await store.read(game_id)]


@pytest.mark.parametrize("mission", ["ridge", "knives"])
@pytest.mark.parametrize("how", ["cancelled", "expired", "expired-no-seat"])
async def test_a_game_nobody_joined_ends_and_verifies(mission, how):
    store = MemoryStore()
    game = await LiveGame.create(store, missions.load(mission), token_key=b"k" * 32)
    if how != "expired-no-seat":
        await game.take_seat("a", "alice", "alice-seed")
    command = Cancel(reason="cancelled", seat="a") if how == "cancelled" else Cancel(reason="expired")
    events = await game.submit(command)
    assert [type(e) for e in events] == [ev.GameCancelled, ev.Checkpoint, ev.GameEnded, ev.SeedRevealed]
    assert events[0] == ev.GameCancelled(reason=command.reason, seat=command.seat)
    assert game.state.outcome.winner is None
    assert game.state.outcome.reason == ("cancelled by seat a before anyone joined" if how == "cancelled"
                                         else "expired: nobody joined in time")
    report = verify_log(game.game_id, await _stored(store, game.game_id))
    assert report.ok, report.summary()
    assert report.finished and report.seed_verified and report.commands_rerun == 1
    assert report.outcome == game.state.outcome.reason
    with pytest.raises(GameOver):
        await game.submit(Cancel(reason="cancelled", seat="a"))


async def test_a_started_game_cannot_be_cancelled():
    store = MemoryStore()
    game = await LiveGame.create(store, missions.load("ridge"), token_key=b"k" * 32)
    await game.take_seat("a", "alice")
    await game.take_seat("b", "bob")
    await game.submit(Start())
    before = game.state.seq
    for command in (Cancel(reason="cancelled", seat="a"), Cancel(reason="expired")):
        with pytest.raises(AlreadyStarted) as err:
            await game.submit(command)
        assert err.value.code == "game.started"
    assert game.state.seq == before and game.state.outcome is None
    await game.submit(Resign("a"))  # resigning is how a started game ends early


@pytest.mark.parametrize("command", [Cancel(reason="bored", seat="a"), Cancel(reason="expired", seat="a"),
                                     Cancel(reason="cancelled", seat=""), Cancel(reason="cancelled", seat="c")])
async def test_a_malformed_cancel_is_refused(command):
    game = await LiveGame.create(MemoryStore(), missions.load("ridge"), token_key=b"k" * 32)
    with pytest.raises(MalformedCommand):
        await game.submit(command)
    assert game.state.outcome is None


async def test_a_forged_cancellation_fails_verification():
    """A server that rewrites who cancelled (or cancels a started game) is caught by re-running the rules."""
    store = MemoryStore()
    game = await LiveGame.create(store, missions.load("ridge"), token_key=b"k" * 32)
    await game.take_seat("a", "alice")
    await game.submit(Cancel(reason="cancelled", seat="a"))
    stored = await _stored(store, game.game_id)
    datas = [s.data for s in stored]
    at = next(i for i, s in enumerate(stored) if b"GameCancelled" in s.data)
    datas[at] = encode_event(ev.GameCancelled(reason="expired"))
    forged = [LoggedEvent(i + 1, d, h) for i, (d, h) in enumerate(zip(datas, chain_hashes(game.game_id, datas)))]
    report = verify_log(game.game_id, forged)
    assert not report.ok and report.bad_seq == at + 3, report.summary()  # seq at+1; the GameEnded after its Checkpoint differs
    assert "GameEnded" in report.problem

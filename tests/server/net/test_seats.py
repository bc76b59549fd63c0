"""Seats without a network: SeatTaken in the engine, the stored secret, token checks."""

from __future__ import annotations

import secrets

import pytest

from skirmish.engine.commands import Choose, Resign, Start
from skirmish.engine.decide import default_option
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.events import OptionChosen, Resigned, SeatTaken
from skirmish.engine.evolve import evolve
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server import missions
from skirmish.server.game import LiveGame, decode_secret
from skirmish.server.store import MemoryStore


async def new_game(store, token_key=b""):
    return await LiveGame.create(store, missions.load("ridge"), token_key=token_key)


async def test_seats_are_logged_once_each_and_only_before_the_start():
    store = MemoryStore()
    game = await new_game(store)
    await game.take_seat("a", "alice", "seed-a")
    with pytest.raises(ValueError):
        await game.take_seat("a", "again")
    with pytest.raises(ValueError):
        await game.take_seat("b", "bob", "bad:seed")  # nothing stored for a bad seed
    assert game.state.seats == {"a": "alice"} and game.state.seq == 3
    await game.take_seat("b", "bob")
    await game.submit(Start())
    with pytest.raises(InvalidEvent):
        evolve(game.state, SeatTaken("a", "late"))
    for bad in (SeatTaken("c", "x"),):
        with pytest.raises(InvalidEvent):
            evolve(game.state, bad)
    assert game.state.client_seeds == {"a": "seed-a"}


async def test_timeouts_and_forfeits_verify_and_are_rerun():
    store = MemoryStore()
    game = await new_game(store)
    for seat in "ab":
        await game.take_seat(seat, seat)
    await game.submit(Start())
    p = game.state.pending
    events = await game.submit(Choose(p.id, default_option(p), p.side, timeout=True))
    assert events[0] == OptionChosen(p.id, p.side, default_option(p), timeout=True)
    events = await game.submit(Resign("a", reason="forfeit: 3 time-outs"))
    assert events[0] == Resigned("a", "forfeit: 3 time-outs")
    assert game.state.outcome.winner == "b" and "forfeit: 3 time-outs" in game.state.outcome.reason
    stored = await store.read(game.game_id)
    report = verify_log(game.game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
    assert report.ok and report.finished and report.commands_rerun == 3, report.summary()


async def test_the_secret_holds_the_seed_and_the_token_key_never_tokens():
    store = MemoryStore()
    key = secrets.token_bytes(32)
    game = await new_game(store, key)
    tokens = {s: game.token_for(s) for s in "ab"}
    blob = await store.load_secret(game.game_id)
    secret = decode_secret(blob)
    assert secret.seed.hex() == game.dice.server_seed_hex and secret.token_key == key
    assert all(t.encode() not in blob for t in tokens.values()) and tokens["a"] != tokens["b"]
    loaded = await LiveGame.load(store, game.game_id)  # as after a restart
    assert {s: loaded.token_for(s) for s in "ab"} == tokens
    assert loaded.seat_of_token(tokens["a"]) == "a" and loaded.seat_of_token(tokens["b"]) == "b"
    for wrong in ("", tokens["a"] + "x", secrets.token_urlsafe(32), None, 5):
        assert loaded.seat_of_token(wrong) is None
    other = await new_game(store, key)  # the same key in another game gives other tokens
    assert other.seat_of_token(tokens["a"]) is None
    # a bare 32-byte seed (games of `skirmish match`) still reads, with no seats
    assert decode_secret(secret.seed).seed == secret.seed and decode_secret(secret.seed).token_key == b""
    assert (await new_game(store)).seat_of_token(tokens["a"]) is None

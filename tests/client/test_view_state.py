"""The client's own view state, without a network: pushes fed straight to the dispatcher.

The stream of a real game (played in-process) is delivered with every frame twice, the way a
misbehaving server or a resume overlapping what already arrived would: the client drops the
duplicates by seq, counts them, and reduces exactly the game's state."""

from __future__ import annotations

import asyncio

from skirmish.bots import make_bot
from skirmish.client.connection import Client, DecisionUpdate, EventUpdate, GameOverUpdate
from skirmish.engine.codec import decode_event, state_hash
from skirmish.engine.evolve import replay
from skirmish.engine.events import Event
from skirmish.protocol import messages as m
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore


async def a_game(seed: int = 4) -> tuple[list[Event], object]:
    """The whole log of a random game of ridge, and its result."""
    store = MemoryStore()
    result = await play_match(store, missions.load("ridge"),
                              {"a": make_bot("random", seed), "b": make_bot("random", seed + 1)}, seed=seed)
    return [decode_event(s.data) for s in await store.read(result.game_id)], result


async def test_duplicates_are_dropped_and_the_view_is_the_game():
    events, result = await a_game()
    gid = result.game_id
    c = Client("ws://unused")
    c._dispatch(m.Seated(game_id=gid, seat="a", token="t"))
    clock = m.Clock(move_ms=1000, reserve_ms=2000, timeouts=0)
    seq = 0
    for e in events:
        seq += 1
        frame = m.EventMsg(game_id=gid, seq=seq, event=e)
        c._dispatch(frame)
        c._dispatch(frame)  # again
        if type(e).__name__ == "DecisionRequested":
            c._dispatch(m.DecisionMsg(game_id=gid, seq=seq, decision=e.decision, clock=clock))
    c._dispatch(m.GameOverMsg(game_id=gid, outcome=result.outcome))
    g = c.game(gid)
    assert g.duplicates == seq and g.gaps == [] and g.seqs == list(range(1, seq + 1))
    assert g.outcome == result.outcome and c.view(gid).outcome == result.outcome
    assert state_hash(c.view(gid)) == state_hash(replay(events))  # the core rules hide nothing
    kinds = [type(u) async for u in c.updates(gid)]
    assert kinds.count(EventUpdate) == seq and kinds[-1] is GameOverUpdate and DecisionUpdate in kinds


async def test_a_jump_in_seqs_is_recorded_as_a_gap():
    events, result = await a_game(7)
    gid = result.game_id
    c = Client("ws://unused")
    for seq, e in enumerate(events[:5], start=1):
        c._dispatch(m.EventMsg(game_id=gid, seq=seq if seq < 4 else seq + 10, event=e))
    g = c.game(gid)
    assert g.gaps == [(4, 14)] and g.last_seq == 15


def test_pending_and_clock_follow_the_view():
    c = Client("ws://unused")
    events, result = asyncio.run(a_game(9))
    gid = result.game_id
    c._dispatch(m.Seated(game_id=gid, seat="b", token="t"))
    for seq, e in enumerate(events, start=1):
        c._dispatch(m.EventMsg(game_id=gid, seq=seq, event=e))
        if type(e).__name__ == "DecisionRequested":
            assert c.pending(gid) == (e.decision, None)  # the clock has not come yet
            assert (c.my_decision(gid) is not None) == (e.decision.side == "b")
            c._dispatch(m.DecisionMsg(game_id=gid, seq=seq, decision=e.decision,
                                      clock=m.Clock(move_ms=5000, reserve_ms=1000, timeouts=1)))
            move, reserve, timeouts = c.clock_left(gid)
            assert 4000 < move <= 5000 and reserve == 1000 and timeouts == 1
            break

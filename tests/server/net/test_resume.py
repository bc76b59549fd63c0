"""Resuming a seat: exactly the events missed, in the seat's view, then the game carries on."""

from __future__ import annotations

import asyncio
import random

from skirmish.protocol import messages as m

from .helpers import RawClient, play, seated_pair, verify_store, viewed


def last_seq(client: RawClient, game_id: str) -> int:
    seqs = [seq for seq, _ in client.events(game_id)]
    return max(seqs) if seqs else 0


async def test_a_seat_disconnects_misses_events_resumes_and_finishes(server):
    a, b, sa, sb = await seated_pair(server.url)
    game = sa.game_id
    rng = random.Random(5)
    # Play a while, then b leaves when it is a's turn to decide.
    def stop(d):
        return d.decision.id >= 12 and d.decision.side == "a"

    await asyncio.gather(play(a, game, "a", rng=rng, stop=stop), play(b, game, "b", rng=rng, stop=stop))
    pending = await server.store.last_seq(game)
    await b.close()
    seen_by_b = last_seq(b, game)
    assert seen_by_b == pending

    # a answers its decisions until one is b's: b misses those events.
    a_decision = next(x for x in reversed(a.msgs) if isinstance(x, m.DecisionMsg))
    assert a_decision.decision.side == "a"
    ack = await a.call(m.Command(game_id=game, decision_id=a_decision.decision.id,
                                 option=a_decision.decision.options[0], command_id="x1"))
    assert isinstance(ack, m.Ack)
    await play(a, game, "a", stop=lambda d: d.decision.side == "b")
    missed_until = await server.store.last_seq(game)

    b2 = await RawClient.open(server.url, name="bob-again")
    resumed = await b2.call(m.Resume(game_id=game, token=sb.token, last_seq=seen_by_b))
    assert resumed == m.Seated(game_id=game, seat="b", token=sb.token, id=resumed.id)
    decision = await b2.next_of(m.DecisionMsg)
    assert decision.decision.side == "b" and decision.seq == missed_until
    # exactly the seqs missed, in b's view: no gap, no duplicate
    assert b2.events(game) == await viewed(server.store, game, "b", after_seq=seen_by_b)
    assert [s for s, _ in b2.events(game)] == list(range(seen_by_b + 1, missed_until + 1))
    assert missed_until > seen_by_b

    # b2 answers the pending decision (already in its queue), then both play on to the end.
    b2.queue.put_nowait(decision)
    over = await asyncio.gather(play(a, game, "a", rng=rng), play(b2, game, "b", rng=rng))
    assert over[0] == over[1]
    assert (await verify_store(server.store, game)).ok
    # the old and the new connection together saw every event of b's view once
    both = [e for e in b.events(game)] + b2.events(game)
    assert both == await viewed(server.store, game, "b")


async def test_resume_on_a_live_connection_takes_the_seat_over(server):
    a, b, sa, sb = await seated_pair(server.url)
    b2 = await RawClient.open(server.url, name="bob-2")
    reply = await b2.call(m.Resume(game_id=sa.game_id, token=sb.token, last_seq=0))
    assert isinstance(reply, m.Seated)
    note = await b.next_of(m.Error)
    assert note.code == "auth.not_seated"
    # the old connection holds no seat any more; the new one does
    d = await b2.next_of(m.DecisionMsg)
    stale = await b.call(m.Command(game_id=sa.game_id, decision_id=d.decision.id, option=d.decision.options[0]))
    assert isinstance(stale, m.Error) and stale.code == "auth.not_seated"
    assert b2.events(sa.game_id) == await viewed(server.store, sa.game_id, "b")


async def test_spectators_catch_up_from_any_seq(server):
    a, b, sa, _ = await seated_pair(server.url)
    await asyncio.gather(play(a, sa.game_id, "a", stop=lambda d: d.decision.id >= 6),
                         play(b, sa.game_id, "b", stop=lambda d: d.decision.id >= 6))
    s = await RawClient.open(server.url)
    reply = await s.call(m.Spectate(game_id=sa.game_id, after_seq=7))
    assert reply.viewer == "spectator"
    await s.next_of(m.DecisionMsg)
    assert s.events(sa.game_id) == await viewed(server.store, sa.game_id, "spectator", after_seq=7)
    # a seat that spectates its own game sees its own view
    again = await a.call(m.Spectate(game_id=sa.game_id, after_seq=await server.store.last_seq(sa.game_id)))
    assert again.viewer == "a"

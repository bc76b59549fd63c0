"""Clocks: an idle seat gets the default played (a logged time-out) and forfeits at the limit."""

from __future__ import annotations

import asyncio

from skirmish.engine.codec import decode_event
from skirmish.engine.decide import default_option
from skirmish.engine.events import DecisionRequested, OptionChosen, Resigned
from skirmish.protocol import messages as m
from skirmish.server.clock import GameClock

from .helpers import CLOSED, play, seated_pair, verify_store


async def test_an_idle_seat_times_out_then_forfeits(make_server):
    async with make_server(move_ms=100, reserve_ms=100, max_timeouts=3) as server:
        a, b, sa, sb = await seated_pair(server.url)
        over_b = asyncio.create_task(play(b, sa.game_id, "b"))  # b answers at once; a never does
        over = await a.next_of(m.GameOverMsg, timeout=15)
        assert over == await over_b
        assert over.forfeit == "a"
        assert over.outcome.winner == "b" and "forfeit: 3 time-outs" in over.outcome.reason

        events = [decode_event(s.data) for s in await server.store.read(sa.game_id)]
        requested = {e.decision.id: e.decision for e in events if isinstance(e, DecisionRequested)}
        timed_out = [e for e in events if isinstance(e, OptionChosen) and e.timeout]
        assert [e.side for e in timed_out] == ["a", "a", "a"]
        for e in timed_out:  # the documented default of each decision
            assert e.option == default_option(requested[e.decision_id])
        resigned = [e for e in events if isinstance(e, Resigned)]
        assert resigned == [Resigned(side="a", reason="forfeit: 3 time-outs")]
        report = await verify_store(server.store, sa.game_id)
        assert report.ok and report.finished, report.summary()

        # the clocks a's decisions carried: the full move time, the reserve, then none of it
        clocks = [x.clock for x in a.msgs if isinstance(x, m.DecisionMsg) and x.decision.side == "a"]
        assert clocks[0].reserve_ms == 100 and clocks[0].timeouts == 0
        assert clocks[-1].reserve_ms == 0 and clocks[-1].timeouts == 2
        assert [c.timeouts for c in clocks] == sorted(c.timeouts for c in clocks)


async def test_a_seat_that_answers_in_time_keeps_its_reserve(make_server):
    async with make_server(move_ms=2_000, reserve_ms=1_000) as server:
        a, b, sa, sb = await seated_pair(server.url)
        stop = lambda d: d.decision.id >= 10  # noqa: E731
        await asyncio.gather(play(a, sa.game_id, "a", stop=stop), play(b, sa.game_id, "b", stop=stop))
        last = next(x for x in reversed(a.msgs) if isinstance(x, m.DecisionMsg))
        assert last.clock.reserve_ms == 1_000 and last.clock.timeouts == 0
        events = [decode_event(s.data) for s in await server.store.read(sa.game_id)]
        assert not any(isinstance(e, OptionChosen) and e.timeout for e in events)


async def test_no_forfeit_with_max_timeouts_zero_and_the_game_still_ends(make_server):
    async with make_server(move_ms=1, reserve_ms=0, max_timeouts=0) as server:
        a, b, sa, sb = await seated_pair(server.url)
        over = await a.next_of(m.GameOverMsg, timeout=30)  # nobody plays: the clock plays every default
        assert over.forfeit == ""
        assert (await verify_store(server.store, sa.game_id)).ok
        assert all(x is CLOSED or not isinstance(x, m.Error) for x in a.msgs)


def test_clock_arithmetic():
    c = GameClock(move_ms=1000, reserve_ms=5000, max_timeouts=2)
    assert c.start(1, "a", now=10.0) == 16.0
    assert c.show("a", now=10.5).move_ms == 500 and c.show("a", now=10.5).reserve_ms == 5000
    shown = c.show("a", now=12.0)
    assert (shown.move_ms, shown.reserve_ms) == (0, 4000)
    assert c.show("b", now=12.0).reserve_ms == 5000
    c.stop(now=13.0)  # 2 s over the move time
    assert c.seats["a"].reserve_ms == 3000
    assert c.start(2, "a", now=20.0) == 24.0
    c.stop(now=20.2)  # within the move time: the reserve is untouched
    assert c.seats["a"].reserve_ms == 3000
    c.start(3, "b", now=30.0)
    assert c.time_out() == ("b", 1) and c.seats["b"].reserve_ms == 0 and not c.forfeits("b")
    c.start(4, "b", now=40.0)
    assert c.time_out() == ("b", 2) and c.forfeits("b")

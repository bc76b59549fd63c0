"""Bots the server hosts (``skirmish serve --house-bots``) on the skills module's missions (issue 16
with issue 14): each plays dropzone and uplink to the end -- its deployment placements, its skills'
options and the rest -- against a client bot, from its own view, and the stored game verifies."""

from __future__ import annotations

import asyncio

import pytest

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.client.connection import connect
from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameEnded, OptionChosen, SeatTaken
from skirmish.engine.rules.skills.events import DeploymentEnded, UnitDeployed
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.housebots import parse_names
from skirmish.server.store import MemoryStore

from tests.server.net.test_web_http import get


@pytest.mark.parametrize("mission, house, seat", [("dropzone", "random", "a"), ("uplink", "greedy", "a"),
                                                  ("dropzone", "mcts:20", "b"), ("uplink", "mcts:20", "b")])
async def test_a_house_bot_plays_a_skills_mission_to_the_end(make_server, mission, house, seat):
    async with make_server(house_bots="random,greedy,mcts:20", move_ms=60000) as srv:
        loop = asyncio.get_running_loop()
        seated = loop.create_future()
        player = asyncio.create_task(run_bot(srv.url, make_bot("random", 7), mission=mission, seat=seat,
                                             on_seated=seated.set_result))
        me = await seated
        status, _, body = await get(srv.port, f"/api/games/{me.game_id}/house-bot?bot={house}",
                                    {"X-Skirmish-Token": me.token})
        assert status == 200, body
        async with asyncio.timeout(600):
            await player
        stored = await srv.store.read(me.game_id)
    events = [decode_event(s.data) for s in stored]
    bot_side = "b" if seat == "a" else "a"
    assert any(isinstance(e, SeatTaken) and e.seat == bot_side and e.name == f"house {house}" for e in events)
    ended = [e for e in events if isinstance(e, GameEnded)]
    assert ended and "forfeit" not in ended[0].outcome.reason, ended  # played to the end, not forfeited
    assert sum(isinstance(e, UnitDeployed) for e in events) == 6 and any(isinstance(e, DeploymentEnded) for e in events)
    chosen = [e for e in events if isinstance(e, OptionChosen) and e.side == bot_side]
    assert any(e.option[0] == "deploy" for e in chosen) and any(e.option[0] != "deploy" for e in chosen)
    assert not any(e.timeout for e in chosen)  # the bot answered every decision itself
    report = verify_log(me.game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
    assert report.ok and report.finished, report


def test_house_bot_names_take_an_mcts_budget():
    assert parse_names("random, mcts:50,greedy,random") == ["random", "mcts:50", "greedy"]
    for bad in ("mcts:x", "mcts:0", "alphago"):
        with pytest.raises(ValueError):
            parse_names(bad)


async def test_a_house_bot_takes_its_seat_again_after_a_restart(make_server):
    """A server restarted in the middle of a game against a hosted bot (mid-deployment here) starts
    that bot again on its seat: the game is played to its end by both, not forfeited."""
    store = MemoryStore()
    async with make_server(store=store, house_bots="random", move_ms=60000) as srv:
        async with connect(srv.url, codec="json") as c:
            me = await c.create_game("dropzone", seat="a")
            gid = me.game_id
            assert (await get(srv.port, f"/api/games/{gid}/house-bot?bot=random", {"X-Skirmish-Token": me.token}))[0] == 200
            async with asyncio.timeout(60):
                async for _ in c.updates(gid):
                    d = c.my_decision(gid)
                    if d is not None and d.kind == "deploy":
                        if any(u.deployed for u in c.view(gid).units.values() if u.side == "b"):
                            break  # the bot has placed one
                        await c.choose(d, d.options[0], game_id=gid)
    before = await store.last_seq(gid)  # the server stopped; its hosted bot with it
    async with make_server(store=store, house_bots="random", move_ms=60000) as srv:
        async with asyncio.timeout(600):
            outcome = await run_bot(srv.url, make_bot("random", 5), game_id=gid, token=me.token)
        assert srv.house.names == ["random"]
    assert "forfeit" not in outcome.reason
    events = [decode_event(s.data) for s in await store.read(gid)]
    after = [e for e in events[before:] if isinstance(e, OptionChosen) and e.side == "b"]
    assert after and not any(e.timeout for e in after)  # the bot played on after the restart
    assert isinstance(events[-2], GameEnded) or any(isinstance(e, GameEnded) for e in events[-3:])

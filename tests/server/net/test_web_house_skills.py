"""Bots the server hosts (``skirmish serve --house-bots``) on the skills module's missions (issue 16
with issue 14): each plays dropzone and uplink to the end -- its deployment placements, its skills'
options and the rest -- against a client bot, from its own view, and the stored game verifies."""

from __future__ import annotations

import asyncio

import pytest

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameEnded, OptionChosen, SeatTaken
from skirmish.engine.rules.skills.events import DeploymentEnded, UnitDeployed
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.housebots import parse_names

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

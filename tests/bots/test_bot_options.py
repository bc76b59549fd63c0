"""Every built-in bot answers every kind of decision with one of the options offered."""

from __future__ import annotations

import asyncio

import pytest

from skirmish.bots import STRATEGIES, make_bot
from skirmish.bots.greedy import GreedyBot
from skirmish.bots.mcts import MctsBot
from skirmish.engine.rules.core import ANSWERS
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore


def quick_bots():
    return {"random": make_bot("random", 1), "greedy": GreedyBot(2), "mcts": MctsBot(3, iterations=12)}


def test_the_strategies_are_registered():
    assert {"random", "greedy", "mcts"} <= set(STRATEGIES)
    assert isinstance(make_bot("greedy", 1), GreedyBot)
    bot = make_bot("mcts", 1)
    assert isinstance(bot, MctsBot) and bot.budget_ms == 200
    assert make_bot("mcts:100", 1).budget_ms == 100
    for bad in ("mcts:fast", "mcts:0", "mcts:-5"):
        with pytest.raises(ValueError, match="budget"):
            make_bot(bad)


def test_every_kind_of_decision_gets_an_offered_option(decisions_by_kind):
    assert set(ANSWERS) <= set(decisions_by_kind), "the playouts should reach every kind of decision"
    for kind, samples in decisions_by_kind.items():
        for view, decision in samples:
            for name, bot in quick_bots().items():
                bot.new_game(decision.side)
                option = bot.choose(view, decision)
                assert option in decision.options, f"{name} answered {kind} with {option!r}"


@pytest.mark.parametrize("mission_id", sorted(missions.bundled()))
def test_greedy_and_mcts_play_whole_games_through_a_match(mission_id):
    mission = missions.load(mission_id)

    async def run():
        store = MemoryStore()
        out = []
        for seed, (a, b) in enumerate([("greedy", "mcts"), ("mcts", "random")]):
            bots = {"a": quick_bots()[a], "b": quick_bots()[b]}
            out.append(await play_match(store, mission, bots, seed=seed))
        return out

    for result in asyncio.run(run()):
        assert result.outcome is not None and result.decisions > 0

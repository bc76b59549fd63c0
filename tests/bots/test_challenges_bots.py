"""The built-in bots play the challenges module's mission (seed 002) from their own views."""

from __future__ import annotations

import random

import pytest

from skirmish.bots.greedy import GreedyBot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.random_bot import RandomBot

from tests.bots.bot_helpers import SideViews

CHALLENGE_KINDS = {"prerogative", "respond", "threshold"}


def bots(name: str, seed: int):
    if name == "greedy":
        return GreedyBot(seed, samples=2, budget_ms=20)
    if name == "mcts":
        return MctsBot(seed, iterations=8)
    return RandomBot(seed)


@pytest.mark.parametrize("names", [("random", "random"), ("greedy", "random"), ("random", "mcts"),
                                   ("mcts", "greedy")])
def test_a_knives_game_is_played_to_the_end_from_the_views(names):
    met = set()
    for seed in range(2):
        sv = SideViews("knives", 30 + seed)
        players = {"a": bots(names[0], seed), "b": bots(names[1], seed)}
        for side, bot in players.items():
            bot.new_game(side)
        while not sv.over:
            p = sv.state.pending
            view = sv.views[p.side]
            assert view.pending == p  # a side's own decision reaches its view unredacted
            option = players[p.side].choose(view, view.pending)
            assert option in p.options
            met.add(p.kind)
            sv.play(option)
        assert sv.state.outcome is not None
    assert "act" in met


def test_random_games_meet_every_kind_of_challenge_decision():
    met = set()
    ops = set()
    rng = random.Random(3)
    for seed in range(40):
        sv = SideViews("knives", seed)
        while not sv.over:
            p = sv.state.pending
            met.add(p.kind)
            ops |= {o[0] for o in p.options}
            # lean towards the operations so that the test sees them (random play rarely walks up)
            special = [o for o in p.options if o[0] in ("assassinate", "sabotage", "create")]
            sv.play(rng.choice(special) if special and rng.random() < 0.8 else rng.choice(p.options))
        if CHALLENGE_KINDS <= met and {"assassinate", "create", "stealth"} <= ops:
            break
    assert CHALLENGE_KINDS <= met and {"assassinate", "create", "stealth"} <= ops, (met, ops)

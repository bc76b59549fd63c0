"""What the built-in bots play: in constructed positions, and reproducibly."""

from __future__ import annotations

import random

import pytest

from skirmish.bots.evaluate import evaluate, reward, task_odds
from skirmish.bots.greedy import GreedyBot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.simulate import clone
from skirmish.engine import events as ev
from skirmish.engine.rules.core.tasks import count_successes

from tests.bots.bot_helpers import SideViews
from tests.engine.rules.scenario import Scenario

# a1 (a hero with a phaser and a knife) against b1, a lone grunt with no Stress left: any damage
# is an Injury (seed 001 step 7C), a grunt cannot avoid it, and b has nobody else -- a hit wins.
LONE = [("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 4, 4)]


def lone_enemy_at_zero_stress(moved: bool = False) -> Scenario:
    """a1 to act; with ``moved``, a1 has already moved this turn (to (2, 2)), so the win is to
    attack now: putting it off ends the turn or spends the Task on something else."""
    s = Scenario(LONE).given(ev.StressLost(unit="b1", amount=99)).play_to_turn("a1")
    if moved:
        s.when("move", 2, 2)
    assert s.pending.kind == "act" and any(o[:2] == ("attack", "b1") for o in s.pending.options)
    assert any(o[0] == "move" for o in s.pending.options) != moved
    return s


@pytest.mark.parametrize("seed", range(3))
def test_greedy_takes_the_attack_that_wins_the_game(seed):
    s = lone_enemy_at_zero_stress()
    option = GreedyBot(seed).choose(clone(s.state), s.pending)
    assert option[:2] == ("attack", "b1")


@pytest.mark.parametrize("seed", range(3))
def test_mcts_finds_the_one_move_win(seed):
    s = lone_enemy_at_zero_stress(moved=True)
    option = MctsBot(seed, iterations=150).choose(clone(s.state), s.pending)
    assert option[:2] == ("attack", "b1")


def test_greedy_prefers_the_wounded_target_it_can_finish():
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 4, 4), ("b2", "b", "grunt", 4, 1),
             ("b3", "b", "grunt", 7, 7)]
    s = Scenario(units).given(ev.StressLost(unit="b1", amount=99)).play_to_turn("a1")
    option = GreedyBot(1).choose(clone(s.state), s.pending)
    assert option[:2] == ("attack", "b1")


def test_a_seeded_iteration_budget_search_is_reproducible():
    def run() -> list:
        sv = SideViews("ridge", 4)
        bot = MctsBot(9, iterations=25)
        bot.new_game("a")
        rng = random.Random(1)
        chosen = []
        while not sv.over and len(chosen) < 20:
            p = sv.state.pending
            if p.side == "a":
                option = bot.choose(sv.views["a"], sv.views["a"].pending)
                chosen.append(option)
            else:
                option = rng.choice(p.options)
            sv.play(option)
        return chosen

    first = run()
    assert len(first) == 20
    assert run() == first


def test_task_odds_match_the_engine_counting_every_pair_of_d20():
    for target, disc, focus, difficulty in [(12, 2, False, 2), (13, 3, True, 1), (9, 0, False, 3), (11, 2, True, 0)]:
        passed = 0
        momentum: dict[int, int] = {}
        for r1 in range(1, 21):
            for r2 in range(1, 21):
                r = count_successes((r1, r2), target, disc, focus, difficulty)
                if r.passed:
                    passed += 1
                    momentum[r.momentum] = momentum.get(r.momentum, 0) + 1
        p, dist = task_odds(target, disc, focus, difficulty, 2)
        assert p == pytest.approx(passed / 400)
        assert dict(dist) == pytest.approx({m: c / 400 for m, c in momentum.items()})


def test_the_evaluation_is_zero_sum_and_its_reward_a_probability():
    s = lone_enemy_at_zero_stress()
    assert evaluate(s.state, "a") == pytest.approx(-evaluate(s.state, "b"))
    assert evaluate(s.state, "a") > 0  # b's last unit is about to fall
    r = reward(s.state, "a")
    assert 0.5 < r < 1 and reward(s.state, "b") == pytest.approx(1 - r)

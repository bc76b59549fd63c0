"""``skirmish.bots.simulate.step`` runs the engine's own rules: it reaches exactly what decide + evolve reach."""

from __future__ import annotations

import random

import pytest

from skirmish.bots.simulate import clone, settle, step
from skirmish.engine.codec import state_hash
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.server import missions


@pytest.mark.parametrize("mission_id", sorted(missions.bundled()))
def test_step_reaches_the_same_state_as_decide_and_evolve(mission_id):
    for seed in range(3):
        rng = random.Random(seed)
        state = initial_state(game_created("g", missions.load(mission_id), "local", ""))
        for e in decide(state, Start(), LocalDice(seed)):
            evolve(state, e)
        fast = clone(state)
        dice_a, dice_b = LocalDice(100 + seed), LocalDice(100 + seed)
        while state.outcome is None:
            p = state.pending
            option = rng.choice(p.options)
            events = decide(state, Choose(p.id, option, p.side), dice_a)
            for e in events:
                evolve(state, e)
            rolled = step(fast, option, dice_b)
            assert rolled == any(type(e).__name__ == "DiceRolled" for e in events)
            assert state_hash(fast) == state_hash(state)


def test_settle_answers_only_the_decisions_inside_a_procedure():
    state = initial_state(game_created("g", missions.load("ridge"), "local", ""))
    dice = LocalDice(1)
    for e in decide(state, Start(), dice):
        evolve(state, e)
    rng = random.Random(2)
    seen = 0
    while state.outcome is None and seen < 200:
        settle(state, dice)
        if state.outcome is not None:
            break
        assert state.pending.kind not in ("buy_dice", "aim", "avoid_injury", "melee_won", "bystander", "ready",
                                           "recover_stress")
        step(state, rng.choice(state.pending.options), dice)
        seen += 1

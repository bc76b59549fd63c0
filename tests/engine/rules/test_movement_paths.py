"""Every way a unit moves respects seed 004's Fear: "Units with Fear Tokens cannot make any move
actions" (issue 12 #22). given -> when -> then, in games with the morale module and the capture
module both on, in either order; and a guard that no new way of moving slips past the rule."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.rules.morale import events as mev

from tests.engine.rules.morale.conftest import ModulesScenario, MoraleScenario
from tests.engine.rules.scenario import of_type

ROOT = Path(__file__).resolve().parents[3]
CAPTURE = '\n[capture]\ncaptor = "a"\n'


def BothScenario(units, modules=("morale", "capture")):
    """The morale scenario with the capture module on too, in the order given."""
    return ModulesScenario(units, modules, extra=CAPTURE)


UNITS = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 9, 5, True)]


def afraid_with_bonus_actions(modules):
    s = BothScenario(UNITS, modules=modules)
    s.given(mev.FearTaken(unit="a2"), mev.ActionCounterRemoved(unit="a2"), cev.BonusActionsGained(unit="a2", count=2))
    s.start()
    s.tokens(0, 0)
    s.when("first", "a")
    s.when("unit", "a2")
    return s


@pytest.mark.parametrize("modules", [("morale", "capture"), ("capture", "morale")])
def test_a_unit_with_a_fear_token_cannot_spend_a_bonus_action_on_a_move(modules):
    s = afraid_with_bonus_actions(modules)
    assert s.pending.kind == "act" and s.pending.unit == "a2"
    bonus = [o for o in s.pending.options if o[0] == "bonus"]
    assert bonus and not [o for o in bonus if o[1] == "move"]  # other bonus actions stay (prone: stand)
    assert not [o for o in s.pending.options if o[0] in ("move", "sprint", "boost")]


@pytest.mark.parametrize("modules", [("morale", "capture"), ("capture", "morale")])
def test_without_fear_the_same_unit_may_spend_a_bonus_action_on_a_move(modules):
    s = BothScenario(UNITS, modules=modules)
    s.given(cev.BonusActionsGained(unit="a2", count=1))
    s.start()
    s.tokens(0, 0)
    s.when("first", "a")
    s.when("unit", "a2")
    assert [o for o in s.pending.options if o[:2] == ("bonus", "move")]


def test_a_unit_with_a_fear_token_that_wins_a_melee_may_strike_but_not_fend_off():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 5, 5), ("b1", "b", "mech", 2, 1, True)]
    s = MoraleScenario(units)
    s.given(mev.FearTaken(unit="a1"), mev.ActionCounterRemoved(unit="a1"))
    s.start()
    s.tokens(0, 0)
    s.when("first", "a")
    s.when("unit", "a1")
    # a1 wins (two successes against none) and, unable to step away, deals its damage at once
    events = s.task("attack", "b1", 1, 0, dice=(3, 5, 15, 18, 1, 3, 3, 3, 6, 6, 6))
    assert not [e for e in of_type(events, ev.DecisionRequested) if e.decision.kind == "melee_won"]
    assert [r.purpose for r in of_type(events, ev.DiceRolled)][:3] == ["task:attack", "defence:attack", "damage"]
    assert not of_type(events, ev.UnitMoved)


def test_without_fear_the_melee_winner_may_fend_off():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 5, 5), ("b1", "b", "mech", 2, 1, True)]
    s = MoraleScenario(units).play_to_turn("a1").tokens(0, 0)
    s.task("attack", "b1", 1, 0, dice=(3, 5, 15, 18))
    assert s.pending.kind == "melee_won" and [o for o in s.pending.options if o[0] == "fend"]


def test_a_unit_with_a_fear_token_makes_no_breakaway_move_when_its_side_retreats():
    # seed 004 "Courage Test": "All units in base contact to opposing units are treated as making a
    # Breakaway Move action" -- a move action, which a unit with a Fear Token cannot make.
    units = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 6, 4), ("s1", "a", "scout", 0, 4),
             ("s2", "a", "scout", 0, 6), ("b1", "b", "mech", 7, 4, True)]  # a: 7 VP, 25% = 2
    s = MoraleScenario(units)
    s.given(mev.FearTaken(unit="a2"), mev.ActionCounterRemoved(unit="a2"))
    s.start()
    s.tokens(a=0, b=0)
    s.when("first", "a")
    s.out_of_action("s1", "s2")
    events = s.finish_round(dice=(6, 6, 6, 5))  # a2's End Phase Morale Test fails (12 > 7): Fear stays; Courage 11 > 9
    assert s.unit("a2").fear and mev.CourageFailed(side="a") in events
    assert not of_type(events, ev.UnitMoved) and (s.unit("a2").x, s.unit("a2").y) == (6, 4)


# -- the guard: every emitter of UnitMoved is a way of moving checked above ---------------------------

# (file, function) -> how it respects the registry's ``can_move`` (seed 004's Fear Token)
MOVERS = {
    ("engine/rules/core/actions.py", "take_minor"): "Movement: minor_options offers no move",
    ("engine/rules/core/actions.py", "answer_spend"): "Sprint: task_options offers no sprint (Direct too)",
    ("engine/rules/core/attack.py", "answer_melee_won"): "fending off: fend_off_cells is empty",
    ("engine/rules/capture/actions.py", "act_bonus"): "a bonus Movement: bonus_options offers no move",
    ("engine/rules/capture/actions.py", "follow"): "a dragged captive is moved by its dragger, which moved",
    ("engine/rules/morale/courage.py", "retreat"): "the Breakaway Move skips units that may not move",
    ("engine/rules/skills/guts.py", "seek_cover"): "a failed Guts Roll's move: a unit that may not move goes Prone "
                                                    "(test_skills_command.py: ..._fear_with_the_morale_module)",
    ("engine/rules/skills/reactions.py", "answer_react"): "Engage: _cells is empty (test_skills_reactions)",
    ("engine/rules/skills/reactions.py", "answer_dodge_move"): "a won Dodge: no Dodge offered (test_skills_reactions)",
}


def emitters_of_unit_moved() -> set[tuple[str, str]]:
    found = set()
    for path in sorted((ROOT / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "UnitMoved":
                    found.add((path.relative_to(ROOT).as_posix(), fn.name))
    return found


def test_every_way_of_moving_is_one_this_file_holds_to_fear():
    # A new emitter of UnitMoved is a new way of moving: make it ask registry.allows(state,
    # "can_move", unit), test it here, and add it to MOVERS.
    assert emitters_of_unit_moved() == set(MOVERS)

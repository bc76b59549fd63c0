"""seed 000 "NEW STATE - CAPTURED", bogeys: given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.model import TaskFrame

from tests.engine.rules.capture.capture_scenario import capture_scenario
from tests.engine.rules.scenario import of_type


def held(tier: str, x: int = 5, y: int = 5):
    """a1 stands at (1, 1); b1, a captured bogey of ``tier``, at (x, y); b2 is free."""
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("b1", "b", tier, x, y), ("b2", "b", "grunt", 7, 7)])
    return s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"))


def to_b1(s, dice):
    s.start()
    s.when("first", "b")
    return s.when("unit", "b1", dice=dice)


def test_a_captured_bogey_is_not_dead_nor_down_and_may_be_activated():
    # "A captured bogey has a chance of escaping, if activated, but doesn't count as dead or down."
    s = held("grunt")
    s.start()
    s.when("first", "b")
    assert ("unit", "b1") in s.pending.options
    assert not s.unit("b1").dead and not s.unit("b1").incapacitated


def test_a_grunt_rolls_one_d12_instead_of_its_primary_action_and_escapes_on_10():
    # "ignore the primary action and, instead, roll ... 1 for a Grunt ... If any of the dice is a
    # 10+, the bogey has escaped and loses its captured state."
    s = held("grunt")
    events = to_b1(s, dice=(10,))
    roll = of_type(events, ev.DiceRolled)[0]
    assert (roll.sides, roll.results, roll.target) == (12, (10,), 10)
    assert ev.TaskAttempted(unit="b1", task="escape") in events
    assert cev.CaptiveEscaped(unit="b1") in events and not s.unit("b1").captured


def test_the_escaped_bogey_immediately_performs_one_secondary_action():
    # "The bogey immediately performs a secondary action." (house rule: one Minor Action, no Task)
    s = held("grunt")
    to_b1(s, dice=(11,))
    kinds = {o[0] for o in s.pending.options}
    assert s.pending.kind == "act" and "move" in kinds and "end" in kinds
    assert not kinds & {"attack", "recover", "sprint", "guard"}
    events = s.when("move", 5, 3)
    assert ev.UnitMoved(unit="b1", x=5, y=3) in events
    assert ev.TurnEnded(unit="b1") in events  # one secondary action, then the turn is over


def test_a_bogey_that_fails_to_escape_does_nothing_else():
    s = held("grunt")
    events = to_b1(s, dice=(9,))
    assert not of_type(events, cev.CaptiveEscaped) and s.unit("b1").captured
    assert ev.TurnEnded(unit="b1") in events


def test_an_elite_rolls_two_dice_and_a_boss_three():
    # "1 for a Grunt, 2 for an Elite or 3 for a Boss"
    s = held("elite")
    events = to_b1(s, dice=(3, 10))
    assert of_type(events, ev.DiceRolled)[0].results == (3, 10) and cev.CaptiveEscaped(unit="b1") in events
    s = held("boss")
    events = to_b1(s, dice=(9, 9, 9))
    assert of_type(events, ev.DiceRolled)[0].results == (9, 9, 9) and not of_type(events, cev.CaptiveEscaped)


def test_engaged_with_a_character_only_a_12_escapes():
    # "A captured bogey that is engaged with a character will escape only if any of the dice is a 12."
    s = held("boss", 2, 1)
    events = to_b1(s, dice=(11, 10, 11))
    assert of_type(events, ev.DiceRolled)[0].target == 12
    assert not of_type(events, cev.CaptiveEscaped) and s.unit("b1").captured


def test_escaping_while_engaged_starts_an_immediate_cqb_with_the_character():
    # "If a bogey escapes whilst engaged with a character, immediately resolve a CQB between the
    # character and the bogey." CQB = seed 001's melee attack, the escaper attacking, non-lethal.
    s = held("grunt", 2, 1)
    events = to_b1(s, dice=(12, 1, 1, 20, 20))  # escape; the bogey's 2d20 attack; the hero's 2d20 defence
    assert cev.CaptiveEscaped(unit="b1") in events
    started = of_type(events, ev.ProcedureStarted)[-1].frame
    assert isinstance(started, TaskFrame)
    assert (started.task, started.unit, started.target, started.lethal) == ("attack", "b1", "a1", False)
    rolls = of_type(events, ev.DiceRolled)
    assert [r.purpose for r in rolls] == ["capture:bogey_escape", "task:attack", "defence:attack"]
    assert s.pending.kind == "melee_won" and s.pending.unit == "b1"  # the bogey won the CQB


def test_a_captive_far_from_any_character_escapes_on_10_even_near_its_friends():
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 5, 5), ("b2", "b", "grunt", 5, 6)])
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"))
    events = to_b1(s, dice=(10,))
    assert cev.CaptiveEscaped(unit="b1") in events


def test_a_down_character_holds_nobody_so_10_still_escapes():
    # house rule: "engaged with a character" means one able to hold it (not down, not captured)
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 5, 1), ("b1", "b", "grunt", 2, 1),
                          ("b2", "b", "grunt", 7, 7)])
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"),
            ev.InjurySuffered(unit="a1", lethal=False, result="nonlethal"))  # a1 is stunned next to b1
    events = to_b1(s, dice=(10,))
    assert of_type(events, ev.DiceRolled)[0].target == 10 and cev.CaptiveEscaped(unit="b1") in events

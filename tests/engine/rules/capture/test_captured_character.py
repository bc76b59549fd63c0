"""seed 000 "NEW STATE - CAPTURED", characters: escaping and freeing. given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.model import TaskFrame

from tests.engine.rules.capture.capture_scenario import capture_scenario
from tests.engine.rules.scenario import of_type

WOUNDED = ev.StressLost(unit="a1", amount=9)  # a runner (Stress 13) at 4: wounded(3), not injured


def captive(units):
    s = capture_scenario(units, capture='captor = "b"')
    return s.given(WOUNDED, cev.UnitCaptured(unit="a1", by="b1"))


def test_a_captured_character_may_only_attempt_to_escape_when_activated():
    # "A captured character, if activated, may attempt to escape"
    s = captive([("a1", "a", "runner", 1, 1), ("b1", "b", "hero", 6, 6)]).play_to_turn("a1")
    assert s.pending.options == (("end",), ("escape",))


def test_alone_one_success_against_d16_escapes_and_surplus_buys_bonus_actions():
    # "Otherwise, they escape with a single success and any surplus successes may be spent on
    # bonus actions as normal." The runner's Mobility is 5 (Fitness 11).
    s = captive([("a1", "a", "runner", 1, 1), ("b1", "b", "hero", 6, 6)]).play_to_turn("a1")
    events = s.when("escape", dice=(12, 4, 9, 8, 1))  # (12, 4) and (9, 8): two successes against D(16)
    test = of_type(events, cev.D12Tested)[0]
    assert (test.test, test.difficulty, test.needed, test.successes) == ("escape", 16, 1, 2)
    assert cev.CaptiveEscaped(unit="a1") in events and not s.unit("a1").captured
    assert cev.BonusActionsGained(unit="a1", count=1) in events
    kinds = {o[0] for o in s.pending.options}
    assert "move" in kinds and "bonus" in kinds and "attack" not in kinds  # the escape was its Task


def test_a_failed_escape_leaves_it_captured():
    s = captive([("a1", "a", "runner", 1, 1), ("b1", "b", "hero", 6, 6)]).play_to_turn("a1")
    events = s.when("escape", dice=(3, 3, 3, 3, 3))
    assert not of_type(events, cev.CaptiveEscaped) and s.unit("a1").captured
    assert ev.TurnEnded(unit="a1") in events  # nothing else a captive can do


def test_engaged_with_an_enemy_character_two_successes_are_needed():
    # "If the character is engaged with an enemy character, they must achieve two successes to escape."
    s = captive([("a1", "a", "runner", 1, 1), ("b1", "b", "hero", 2, 1), ("b2", "b", "grunt", 6, 6)])
    s.play_to_turn("a1")
    events = s.when("escape", dice=(12, 9, 3, 2, 1))  # one group (12, 9): one success of two
    test = of_type(events, cev.D12Tested)[0]
    assert (test.needed, test.successes, test.passed) == (2, 1, False)
    assert s.unit("a1").captured


def test_escaping_while_engaged_with_an_enemy_character_starts_an_immediate_cqb():
    # "If a captured character escapes whilst engaged with an enemy character, immediately
    # resolve a CQB between the two characters."
    s = captive([("a1", "a", "runner", 1, 1), ("b1", "b", "hero", 2, 1), ("b2", "b", "grunt", 6, 6)])
    s.play_to_turn("a1")
    events = s.task("escape", dice=(12, 4, 9, 8, 1, 1, 1, 20, 20))
    assert of_type(events, cev.D12Tested)[0].successes == 2 and cev.CaptiveEscaped(unit="a1") in events
    frame = of_type(events, ev.ProcedureStarted)[-1].frame
    assert isinstance(frame, TaskFrame) and (frame.task, frame.unit, frame.target, frame.lethal) == \
        ("attack", "a1", "b1", False)
    assert s.pending.kind == "melee_won" and s.pending.unit == "a1"


def test_a_friend_engaged_with_a_captive_frees_it_with_an_interact_d13_test():
    # "A character may attempt to free a captured character with which they are engaged by making
    # an interact (D(13)) test. If the test is successful, remove the captured state from the
    # target character. Any surplus successes may be spent on bonus actions as normal."
    s = captive([("a1", "a", "runner", 1, 1), ("a2", "a", "runner", 2, 2), ("b1", "b", "hero", 6, 6)])
    s.play_to_turn("a2")
    assert ("free", "a1") in s.pending.options
    events = s.when("free", "a1", dice=(12, 1, 7, 6))  # Acuity 4 (Insight 10): (12, 1) and (7, 6)
    test = of_type(events, cev.D12Tested)[0]
    assert (test.test, test.difficulty, test.groups) == ("free", 13, ((12, 1), (7, 6)))
    assert cev.BonusActionsGained(unit="a2", count=1) in events
    assert cev.CaptiveFreed(unit="a1", by="a2") in events and not s.unit("a1").captured


def test_a_failed_attempt_to_free_changes_nothing():
    s = captive([("a1", "a", "runner", 1, 1), ("a2", "a", "runner", 2, 2), ("b1", "b", "hero", 6, 6)])
    s.play_to_turn("a2")
    events = s.when("free", "a1", dice=(3, 3, 3, 3))
    assert not of_type(events, cev.CaptiveFreed) and s.unit("a1").captured
    assert not of_type(events, ev.StressLost)


def test_a_stunned_captive_cannot_act_and_so_cannot_escape():
    s = capture_scenario([("a1", "a", "runner", 1, 1), ("a2", "a", "hero", 4, 4), ("b1", "b", "hero", 6, 6)],
                         capture='captor = "b"')
    s.given(ev.InjurySuffered(unit="a1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="a1", by="b1"))
    s.start()
    s.when("first", "a")
    assert s.pending.options == (("unit", "a2"),)

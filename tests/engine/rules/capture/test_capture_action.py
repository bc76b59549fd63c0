"""seed 000 "NEW ACTION - CAPTURE": given -> when -> then."""

from __future__ import annotations

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.rules.capture import conditions as cond
from skirmish.engine.model import TaskFrame

from tests.engine.rules.capture.capture_scenario import capture_scenario
from tests.engine.rules.scenario import of_type

DOWN = ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal")
UNITS = [("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 2, 1), ("b2", "b", "grunt", 6, 6)]


def test_a_hero_engaged_with_a_down_bogey_may_capture_it():
    # "A bogey in the down state ... can be placed into the captured state by a hero engaged with them."
    s = capture_scenario(UNITS).given(DOWN).play_to_turn("a1")
    assert ("capture", "b1") in s.pending.options
    # "If it is passed, the bogey loses its down state and becomes captured"
    events = s.when("capture", "b1", dice=(12, 5))  # Acuity 2 (Insight 8): 17 against D(16)
    assert ev.TaskAttempted(unit="a1", task="capture") in events
    assert cev.UnitCaptured(unit="b1", by="a1") in events
    b1 = s.unit("b1")
    assert b1.captured and b1.injury == "" and not b1.dead and not b1.incapacitated
    assert not any(o[0] in ("capture", "attack") for o in s.pending.options)  # the Task is spent


def test_capture_is_offered_only_against_a_down_bogey_and_only_when_engaged():
    s = capture_scenario(UNITS).play_to_turn("a1")  # b1 is not down
    assert not [o for o in s.pending.options if o[0] == "capture"]
    far = capture_scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 3, 1), ("b2", "b", "grunt", 6, 6)])
    far.given(DOWN).play_to_turn("a1")
    assert not [o for o in far.pending.options if o[0] == "capture"]  # distance 2: not engaged


def test_only_heroes_of_the_captor_side_capture():
    # "by a hero": a bogey does not capture; and the mission names the side that captures
    s = capture_scenario([("a1", "a", "grunt", 1, 1), ("a2", "a", "hero", 5, 5), ("b1", "b", "hero", 2, 1),
                          ("b2", "b", "hero", 6, 6)], capture='captor = "both"')
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal")).play_to_turn("a1")
    assert not [o for o in s.pending.options if o[0] == "capture"]
    t = capture_scenario(UNITS, capture='captor = "b"').given(DOWN).play_to_turn("a1")
    assert not [o for o in t.pending.options if o[0] == "capture"]


def test_a_failed_capture_leaves_the_target_and_wounds_the_hero_by_one_step():
    # "If the test is failed, the target's state doesn't change and the active hero becomes wounded(+1)."
    s = capture_scenario(UNITS).given(DOWN).play_to_turn("a1")
    events = s.when("capture", "b1", dice=(8, 7))  # 15 against D(16): no success
    test = of_type(events, cev.D12Tested)[0]
    assert (test.successes, test.passed, test.groups) == (0, False, ())
    assert ev.StressLost(unit="a1", amount=3) in events  # ceil(11 / 4): wounded(0) -> wounded(1)
    assert not s.unit("b1").captured and s.unit("b1").injury == "nonlethal"
    assert not of_type(events, cev.UnitCaptured)


def test_wounded_plus_one_at_low_stress_causes_an_injury_as_usual():
    # RULES-BRIEF: "becomes wounded(+1)" ... "which can cause an Injury as usual"
    s = capture_scenario(UNITS).given(DOWN, ev.StressLost(unit="a1", amount=9)).play_to_turn("a1")
    events = s.when("capture", "b1", dice=(2, 3))
    assert ev.StressLost(unit="a1", amount=2) in events and s.unit("a1").stress == 0  # wounded(3) -> wounded(4)
    assert isinstance(s.state.stack[-1], TaskFrame) and s.state.stack[-1].step == "injury"
    assert s.pending.kind == "avoid_injury" and s.pending.unit == "a1"
    events = s.when("accept")
    assert ev.InjurySuffered(unit="a1", lethal=False, result="nonlethal") in events


def test_an_enemy_character_stunned_is_captured_against_its_fxm_and_keeps_its_wounds():
    # "... or an enemy character who is stunned, wounded(3) or wounded(4) ... D(target's FxM)"
    # "a character gains the captured state in addition to its wounded state"
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1), ("b2", "b", "grunt", 6, 6)]
    s = capture_scenario(units).given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"))
    s.play_to_turn("a1")
    events = s.when("capture", "b1", dice=(7, 5))  # 12 against D(FxM = 4 x 3 = 12)
    assert of_type(events, cev.D12Tested)[0].difficulty == 12
    b1 = s.unit("b1")
    assert b1.captured and b1.injury == "nonlethal"


def test_an_enemy_character_at_wounded_3_or_4_may_be_captured_but_not_at_wounded_2():
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1), ("b2", "b", "grunt", 6, 6)]
    for lost, offered in ((3, False), (5, False), (6, False), (8, False), (9, True), (10, True), (11, True)):
        # Stress 11: n = floor(4 x lost / 11): 6-8 lost is wounded(2), 9-10 wounded(3), 11 (0 Stress) wounded(4)
        s = capture_scenario(units).given(ev.StressLost(unit="b1", amount=lost)).play_to_turn("a1")
        assert (("capture", "b1") in s.pending.options) is offered, lost


def test_surplus_successes_buy_bonus_actions_each_an_extra_free_minor_action():
    # "Any surplus successes may be spent on bonus actions as normal." (one = one extra Minor Action)
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "rookie", 2, 1), ("b2", "b", "grunt", 6, 6)]
    s = capture_scenario(units).given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"))
    s.play_to_turn("a1")
    s.when("move", 1, 0)  # the free Minor Action
    events = s.when("capture", "b1", dice=(3, 1))  # D(FxM = 1 x 1): two successes, one needed
    assert cev.BonusActionsGained(unit="a1", count=1) in events
    assert ("bonus", "move", 0, 0) in s.pending.options  # Movement again, though already taken
    events = s.when("bonus", "move", 0, 0)
    assert events[1:3] == [cev.BonusActionTaken(unit="a1", action="move"), ev.UnitMoved(unit="a1", x=0, y=0)]
    assert not of_type(events, ev.PoolChanged)  # free
    assert s.unit("a1").bonus_actions == 0 and not [o for o in s.pending.options if o[0] == "bonus"]


def test_unspent_bonus_actions_are_lost_in_the_end_phase():
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "rookie", 2, 1), ("b2", "b", "grunt", 6, 6)]
    s = capture_scenario(units).given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"))
    s.play_to_turn("a1")
    s.when("capture", "b1", dice=(3, 1))
    s.when("end")
    events = s.when("unit", "b2") + s.when("end", dice=(10, 1))
    assert cev.BonusActionsLost(unit="a1") in events and s.unit("a1").bonus_actions == 0


def test_a_captive_is_not_a_target_for_attacks():
    # house rule: its captors hold it, its friends free it
    s = capture_scenario(UNITS).given(DOWN, cev.UnitCaptured(unit="b1", by="a1")).play_to_turn("a1")
    assert not [o for o in s.pending.options if o[0] in ("attack", "create_advantage") and o[1] == "b1"]
    assert [o for o in s.pending.options if o[0] == "attack" and o[1] == "b2"]


def test_a_directed_ally_may_not_attack_a_captive_either():
    units = [("a1", "a", "hero", 1, 1, True), ("a2", "a", "hero", 3, 1), ("b1", "b", "grunt", 2, 1),
             ("b2", "b", "grunt", 6, 6)]
    s = capture_scenario(units).given(DOWN, cev.UnitCaptured(unit="b1", by="a1")).play_to_turn("a1")
    s.when("direct", "a2")
    assert s.pending.kind == "directed" and s.pending.unit == "a2"
    assert not [o for o in s.pending.options if o[0] == "attack" and o[1] == "b1"]  # the can_target hook
    assert [o for o in s.pending.options if o[0] == "attack" and o[1] == "b2"]


def test_without_the_module_nothing_of_it_is_offered():
    from tests.engine.rules.scenario import Scenario

    s = Scenario(UNITS).given(DOWN).play_to_turn("a1")
    assert not [o for o in s.pending.options if o[0] in ("capture", "free", "drag", "exit", "bonus", "escape")]


# -- wounded(n) on the Stress track (RULES-BRIEF "Conditions", as docs/rules.md fixes it: issue 12 #24) --


def _hero_at(stress_lost: int, stress_max: int = 11):
    u = capture_scenario(UNITS).unit("a1")
    return msgspec.structs.replace(u, stress_max=stress_max, stress=stress_max - stress_lost)


def test_wounded_n_counts_whole_quarters_of_the_stress_track_and_wounded_4_is_exactly_0_stress():
    # max Stress 11: 0-2 lost wounded(0), 3-5 wounded(1), 6-8 wounded(2), 9-10 wounded(3), 11 wounded(4)
    assert [cond.wounded(_hero_at(lost)) for lost in range(12)] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4]
    for stress_max in range(1, 25):
        for lost in range(stress_max + 1):
            n = cond.wounded(_hero_at(lost, stress_max))
            assert (n == 4) == (lost == stress_max), (stress_max, lost)  # wounded(4) iff 0 Stress


def test_wounded_plus_one_is_exactly_one_step_whatever_the_max_stress():
    for stress_max in range(4, 25):
        for lost in range(stress_max):
            u = _hero_at(lost, stress_max)
            n, step = cond.wounded(u), cond.wound_step(u)
            assert step >= 1 and cond.wounded(_hero_at(lost + step, stress_max)) == n + 1, (stress_max, lost)
            if step > 1:  # the least Stress that does it
                assert cond.wounded(_hero_at(lost + step - 1, stress_max)) == n, (stress_max, lost)
    assert cond.wound_step(_hero_at(11)) == 0  # at 0 Stress there is none left to lose: an Injury (7C)


def test_a_failed_capture_from_wounded_0_goes_to_wounded_1_not_2():
    # max Stress 11, 1 lost (wounded(0)): the failed test costs 2 Stress, to 3 lost: wounded(1)
    s = capture_scenario(UNITS).given(DOWN, ev.StressLost(unit="a1", amount=1)).play_to_turn("a1")
    events = s.when("capture", "b1", dice=(8, 7))
    assert ev.StressLost(unit="a1", amount=2) in events
    assert cond.wounded(s.unit("a1")) == 1 and s.unit("a1").stress == 8

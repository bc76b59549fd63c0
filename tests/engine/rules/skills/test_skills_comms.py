"""Comms Attacks (docs/rules.md, seed 003, "Comms Attacks"): the minimal hacking (Spotlight, Total
Control), Non-Hackable, Immunity (Possession), Manned's requirement, Forward Observer, Sensor,
Sat-Lock, the Targeted and Possessed states. Given units with these skills, when one makes a
Comms Attack with scripted dice, then this roll and this state."""

from __future__ import annotations

import pytest

from skirmish.engine.events import TurnEnded
from skirmish.engine.mission import MissionError, parse_mission
from skirmish.engine.model import TaskFrame
from skirmish.engine.rules.skills import marksmanship
from skirmish.engine.rules.skills.events import CommsAttacked, SkillRolled, StateChanged

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text

EXTRA = """
[profiles.hacker]
kind = "hero"
control = 10
presence = 9
command = 2
security = 2
weapons = ["phaser"]
skills = ["hacker"]

[profiles.fo]
kind = "hero"
control = 10
presence = 9
command = 2
security = 2
weapons = ["phaser"]
skills = ["forward observer"]

[profiles.satlock]
kind = "hero"
control = 10
presence = 9
command = 2
security = 2
weapons = ["phaser"]
skills = ["sat-lock", "forward observer", "sensor"]

[profiles.tag]
kind = "hero"
control = 10
security = 2
weapons = ["phaser"]
troop_type = "TAG"

[profiles.tag_nh]
kind = "hero"
control = 10
security = 2
weapons = ["phaser"]
troop_type = "TAG"
skills = ["non-hackable"]

[profiles.tag_ip]
kind = "hero"
control = 10
security = 2
weapons = ["phaser"]
troop_type = "TAG"
skills = ["immunity possession"]

[profiles.manned_li]
kind = "hero"
control = 10
security = 2
weapons = ["phaser"]
skills = ["manned"]
"""

# 12 x 8; blocking cells at (0,2) and (1,2): no LoF from (0,0) to (0,4)
MAP = "\n".join(["............", "............", "##..........", *["............"] * 5])


def game(a1: str, b1: str = "tag", at=(0, 4)) -> SkillsScenario:
    sc = SkillsScenario([("a1", "a", a1, 0, 0), ("b1", "b", b1, *at), ("b2", "b", "hero", 11, 7)], map=MAP,
                        extra=EXTRA)
    return sc.play_to_turn("a1")


def comms(sc, kind="hack"):
    return sorted(o for o in sc.pending.options if o[0] == kind)


# -- hacking ----------------------------------------------------------------------------------------------------


def test_a_hacker_may_run_both_programs_at_a_tag_in_its_hacking_area_without_lof():
    assert comms(game("hacker")) == [("hack", "spotlight", "b1"), ("hack", "total control", "b1")]


@pytest.mark.parametrize("target", ["hero", "tag_nh", "tag_ip"])
def test_total_control_needs_a_tag_or_rem_that_is_hackable_and_not_immune_to_possession(target):
    # Non-Hackable: "cannot be the target of Hacking Attacks whose Requirements include ... a
    # specific Troop Type"; still of Spotlight, which names none (the seed's Kazak example)
    assert comms(game("hacker", target)) == [("hack", "spotlight", "b1")]


def test_a_manned_unit_is_a_target_of_the_program_with_that_requirement():
    assert ("hack", "total control", "b1") in comms(game("hacker", "manned_li"))


def test_no_program_out_of_the_hacking_area_and_none_without_the_skill():
    assert not [o for o in comms(game("hacker")) if o[2] == "b2"]  # (11,7): 11 cells away
    assert comms(game("fo")) == []


def test_total_control_is_a_wip_minus_3_roll_and_passed_the_target_is_possessed_and_not_activated():
    sc = game("hacker")
    ev = sc.when("hack", "total control", "b1", dice=(8,))
    roll = of_type(ev, SkillRolled)[0]
    assert (roll.attribute, roll.base, roll.mods, roll.target) == ("wip", 11, (("Total Control", -3),), 8)
    assert of_type(ev, StateChanged)[0] == StateChanged(unit="b1", state="possessed", on=True)
    assert "b1" in sc.state.possessed and sc.state.turn.task == "comms"
    sc.when("end")
    assert ("unit", "b1") not in (sc.pending.options if sc.pending.kind == "activate" else [])


def test_a_failed_program_changes_nothing():
    sc = game("hacker")
    ev = sc.when("hack", "spotlight", "b1", dice=(12,))
    assert not of_type(ev, StateChanged) and "b1" not in sc.state.targeted


# -- Targeted ------------------------------------------------------------------------------------------------------


def test_spotlight_targets_and_a_bs_attack_at_a_targeted_unit_takes_plus_3():
    sc = game("hacker", at=(3, 0))
    sc.when("hack", "spotlight", "b1", dice=(5,))
    assert "b1" in sc.state.targeted
    f = TaskFrame(unit="a1", task="attack", target="b1", weapon=0)
    assert marksmanship.mods(sc.state, f) == [("Targeted", 3)] and marksmanship.difficulty([("Targeted", 3)]) == -1


def test_targeted_ends_in_the_end_phase():
    sc = game("hacker", at=(3, 0))
    sc.when("hack", "spotlight", "b1", dice=(5,))
    sc.when("end")
    while sc.state.round == 1:
        p = sc.pending
        opt = ("end",) if p.kind == "act" else p.options[0]
        sc.when(*opt, dice=(10, 1) * 3)
    assert "b1" not in sc.state.targeted


# -- Forward Observer, Sensor, Sat-Lock -----------------------------------------------------------------------


def test_forward_observer_needs_lof_and_targets():
    assert comms(game("fo"), "observe") == [("observe", "b2")]  # b1 behind the wall; b2 in LoF, at any range
    sc = game("fo", at=(3, 0))
    assert ("observe", "b1") in comms(sc, "observe")
    ev = sc.when("observe", "b1", dice=(11,))
    assert of_type(ev, SkillRolled)[0].mods == () and "b1" in sc.state.targeted


def test_sat_lock_a_wip_minus_6_roll_in_the_sensor_area_no_lof_no_other_mods_an_entire_order():
    sc = game("satlock")
    assert comms(sc, "sat_lock") == [("sat_lock", "b1")]  # not b2, 11 cells away
    ev = sc.when("sat_lock", "b1", dice=(5,))
    assert of_type(ev, CommsAttacked)[0].attack == "sat_lock"
    roll = of_type(ev, SkillRolled)[0]
    assert roll.mods == (("Sat-Lock", -6),) and roll.target == 5
    assert "b1" in sc.state.targeted and of_type(ev, TurnEnded)


def test_sat_lock_is_not_offered_after_another_action():
    sc = game("satlock")
    sc.when("move", *next(o for o in sc.pending.options if o[0] == "move")[1:])
    assert comms(sc, "sat_lock") == []


def test_sat_lock_without_forward_observer_and_sensor_is_a_mission_error():
    text = skills_text([("a1", "a", "satlock", 0, 0)], extra=EXTRA.replace('"sat-lock", "forward observer", "sensor"',
                                                                            '"sat-lock", "sensor"'))
    with pytest.raises(MissionError, match=r"profiles\.satlock\.skills.*forward observer and sensor"):
        parse_mission(text, "test")

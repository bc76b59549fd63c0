"""Paramedic (seed 003, "PARAMEDIC"; docs/rules.md, seed 003, "Paramedic"): MediKits through seed
001's First Aid. Given a Paramedic next to an Injured ally, when it uses a MediKit with scripted
dice, then the ally is healed (passed) or not (failed)."""

from __future__ import annotations

from skirmish.engine.events import InjurySuffered, TaskAttempted
from skirmish.engine.rules.skills.events import MediKitUsed, WoundRegained

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario

EXTRA = """
[profiles.paramedic]
kind = "hero"
daring = 10
control = 10
fitness = 9
security = 2
medicine = 2
weapons = ["phaser"]
skills = ["paramedic"]
"""


def game(medic: str = "paramedic", injury: str = "nonlethal", at=(1, 0)) -> SkillsScenario:
    sc = SkillsScenario([("a1", "a", medic, 0, 0), ("a2", "a", "hero", *at), ("b1", "b", "hero", 0, 7)], extra=EXTRA)
    sc.given(InjurySuffered(unit="a2", lethal=injury == "lethal", result=injury))
    return sc.play_to_turn("a1")


def test_a_paramedic_may_use_a_medikit_on_an_injured_ally_in_reach_even_a_non_lethal_injury():
    sc = game()
    assert ("medikit", "a2") in sc.pending.options
    assert ("first_aid", "a2") not in sc.pending.options  # the core's First Aid treats a Lethal Injury only


def test_not_out_of_reach_and_not_without_the_skill():
    assert ("medikit", "a2") not in game(at=(4, 0)).pending.options
    assert not [o for o in game(medic="hero").pending.options if o[0] == "medikit"]


def test_a_passed_first_aid_with_a_medikit_heals_the_injury():
    sc = game(injury="lethal")
    ev = sc.task("medikit", "a2", dice=(1, 1))
    assert of_type(ev, TaskAttempted)[0].task == "first_aid" and of_type(ev, MediKitUsed)[0].ally == "a2"
    assert of_type(ev, WoundRegained) and sc.unit("a2").injury == "" and sc.state.medikit == ""


def test_a_failed_one_heals_nothing_and_the_supply_is_unlimited():
    sc = game()
    ev = sc.task("medikit", "a2", dice=(15, 16))
    assert not of_type(ev, WoundRegained) and sc.unit("a2").injury == "nonlethal" and sc.state.medikit == ""

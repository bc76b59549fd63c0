"""Regeneration (seed 003, "REGENERATION"; docs/rules.md, seed 003, "Regeneration"). Given an
Unconscious (Injured) unit with Regeneration, when it is activated and regenerates with scripted
dice, then its Injury heals or it dies, and the Entire Order ends its turn."""

from __future__ import annotations

from skirmish.engine.events import InjurySuffered, TurnEnded
from skirmish.engine.rules.skills.events import SkillRolled, WoundRegained

from tests.engine.rules.scenario import Scenario, of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario

EXTRA = """
[profiles.regen]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["regeneration"]
"""

# regen: PH = Fitness 9 + Security 2 = 11


def game(a1: str = "regen", injury: str = "lethal", stabilised: bool = False) -> SkillsScenario:
    sc = SkillsScenario([("a1", "a", a1, 0, 0), ("a2", "a", "hero", 1, 0), ("b1", "b", "hero", 0, 7)], extra=EXTRA)
    if injury:
        sc.given(InjurySuffered(unit="a1", lethal=injury == "lethal", result=injury))
    if stabilised:
        sc.state.units["a1"].stabilised = True
    sc.start()
    sc.when("first", "a")
    return sc


def test_an_unconscious_unit_with_regeneration_is_activated_and_may_only_regenerate_or_end():
    sc = game()
    assert ("unit", "a1") in sc.pending.options
    sc.when("unit", "a1")
    assert sc.pending.kind == "act" and sorted(sc.pending.options) == [("end",), ("regenerate",)]


def test_an_unconscious_unit_without_regeneration_is_not_activated():
    sc = game(a1="hero")
    assert ("unit", "a1") not in sc.pending.options


def test_a_unit_with_no_injury_has_no_wound_to_regain_and_is_not_offered_regeneration():
    sc = game(injury="")
    sc.when("unit", "a1")
    assert ("regenerate",) not in sc.pending.options and ("end",) in sc.pending.options


def test_passing_the_ph_roll_heals_the_injury_and_ends_the_turn():
    sc = game()
    sc.when("unit", "a1")
    ev = sc.when("regenerate", dice=(11,))
    roll = of_type(ev, SkillRolled)[0]
    assert (roll.attribute, roll.base, roll.mods, roll.result) == ("ph", 11, (), "critical")
    assert of_type(ev, WoundRegained) and of_type(ev, TurnEnded)
    assert sc.unit("a1").injury == "" and not sc.unit("a1").incapacitated


def test_failing_while_unconscious_it_dies():
    sc = game(injury="nonlethal")
    sc.when("unit", "a1")
    ev = sc.when("regenerate", dice=(12,))
    assert [e.result for e in of_type(ev, InjurySuffered)] == ["dead"] and of_type(ev, TurnEnded)
    assert sc.unit("a1").dead


def test_regeneration_is_compatible_with_a_medikit_a_stabilised_unit_still_regenerates():
    sc = game(stabilised=True)
    sc.when("unit", "a1")
    assert ("regenerate",) in sc.pending.options
    sc.when("regenerate", dice=(3,))
    assert sc.unit("a1").injury == ""


def test_without_the_skills_module_an_injured_unit_is_never_activated():
    sc = Scenario([("a1", "a", "hero", 0, 0), ("a2", "a", "hero", 1, 0), ("b1", "b", "hero", 0, 7)])
    sc.given(InjurySuffered(unit="a1", lethal=True, result="lethal"))
    sc.start()
    sc.when("first", "a")
    assert ("unit", "a1") not in sc.pending.options

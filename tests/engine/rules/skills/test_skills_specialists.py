"""Paramedics as Specialist Troopers (seed 003, "PARAMEDIC": "In certain missions and scenarios,
Paramedics are considered Specialist Troopers"; docs/rules.md, seed 003, "Manned and Pilot,
Specialists"). Given a mission whose ``[skills]`` table names specialist objectives, when a unit
stands by one, then only a Paramedic is offered to secure it."""

from __future__ import annotations

import pytest

from skirmish.engine.events import ObjectiveSecured
from skirmish.engine.mission import MissionError, parse_mission

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text

EXTRA = """
[profiles.paramedic]
kind = "hero"
control = 9
daring = 10
security = 2
medicine = 3
weapons = ["phaser"]
skills = ["paramedic"]

[[objectives]]
id = "console"
name = "Console"
at = [2, 3]

[[objectives]]
id = "crate"
name = "Crate"
at = [5, 3]

[[objectives]]
id = "terminal"
name = "Terminal"
at = [0, 4]
task = { attribute = "reason", discipline = "engineering", difficulty = 1 }
"""
OPEN = "\n".join(["........"] * 8)
TABLE = '\n[skills]\nspecialist_objectives = ["console"]\n'


def turn(profile: str, at=(2, 2), table: str = TABLE) -> SkillsScenario:
    sc = SkillsScenario([("a1", "a", profile, *at), ("b1", "b", "hero", 7, 7)], map=OPEN, extra=EXTRA + table)
    return sc.play_to_turn("a1")


def test_only_a_paramedic_is_offered_to_secure_a_specialist_objective():
    assert ("interact", "console") in turn("paramedic").pending.options
    assert ("interact", "console") not in turn("hero").pending.options


def test_other_objectives_are_secured_by_anyone():
    sc = turn("hero", at=(5, 2))
    assert ("interact", "crate") in sc.pending.options
    ev = sc.when("interact", "crate")
    assert of_type(ev, ObjectiveSecured)[0].objective == "crate"


def test_the_paramedic_secures_it():
    sc = turn("paramedic")
    ev = sc.when("interact", "console")
    assert of_type(ev, ObjectiveSecured) == [ObjectiveSecured(objective="console", side="a", unit="a1")]
    assert sc.state.objectives["console"].holder == "a"


def test_without_the_table_everybody_may_secure_it():
    assert ("interact", "console") in turn("hero", table="").pending.options


@pytest.mark.parametrize("table, field", [
    ('\n[skills]\nspecialist_objectives = ["vault"]\n', "skills.specialist_objectives[0]"),
    ('\n[skills]\nspecialist_objectives = ["terminal"]\n', "skills.specialist_objectives[0]"),
])
def test_a_bad_specialist_objective_is_a_mission_error_naming_it(table, field):
    with pytest.raises(MissionError) as err:
        parse_mission(skills_text([("a1", "a", "hero", 2, 2), ("b1", "b", "hero", 7, 7)], map=OPEN,
                                  extra=EXTRA + table), "m.toml")
    assert err.value.field == field


def test_the_table_without_the_module_is_refused():
    text = skills_text([("a1", "a", "hero", 2, 2), ("b1", "b", "hero", 7, 7)], map=OPEN, extra=EXTRA + TABLE,
                       modules=())
    text = text.replace('skills = ["infiltrate 1", "immunity shock"]\ntroop_type = "MI"\n', "")
    text = text.replace('skills = ["marksmanship x", "marksmanship l2"]\nbs = 15\narm = 1\n', "")
    text = text.replace('skills = ["paramedic"]\n', "")
    with pytest.raises(MissionError) as err:
        parse_mission(text, "m.toml")
    assert err.value.field == "skills"

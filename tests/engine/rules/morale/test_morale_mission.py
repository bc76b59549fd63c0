"""The morale module's mission data (docs/missions.md) and its switch."""

from __future__ import annotations

import pytest

from skirmish.engine.rules.morale import events as mev
from skirmish.engine.errors import MissionError
from skirmish.engine.mission import parse_mission
from skirmish.server import missions

from tests.engine.rules.morale.conftest import MECHS, morale_text
from tests.engine.rules.scenario import Scenario, mission_text

UNITS = [("a1", "a", "chief", 0, 0, True), ("b1", "b", "mech", 7, 7, True)]


def test_profiles_carry_the_pilot_and_the_size_onto_the_units():
    m = parse_mission(morale_text(UNITS), "m.toml")
    a1 = next(u for u in m.units if u.id == "a1")
    assert (a1.endurance, a1.endurance_max, a1.morale, a1.size, a1.command_unit) == (3, 3, 8, 3, True)
    assert m.modules == ("morale",)


def test_morale_fields_without_the_module_are_refused():
    text = mission_text(UNITS, extra=MECHS)
    with pytest.raises(MissionError, match=r"profiles\.chief\.endurance.*add \"morale\" to \[mission\] modules"):
        parse_mission(text, "m.toml")


@pytest.mark.parametrize("field, value, message", [
    ("endurance = 3", "endurance = 0", r"profiles\.chief\.endurance: .*every unit has a pilot"),
    ("endurance = 3", "endurance = 11", r"profiles\.chief\.endurance"),
    ("morale = 8", "morale = 1", r"profiles\.chief\.morale: .*2\.\.12"),
    ("morale = 8", "morale = 13", r"profiles\.chief\.morale"),
    ("size = 3", "size = -1", r"profiles\.chief\.size: a Size Class is 0\.\.10"),
    ("command_unit = true", 'command_unit = "yes"', r"profiles\.chief\.command_unit"),
])
def test_bad_morale_data_gets_a_mission_error_naming_the_field(field, value, message):
    text = morale_text(UNITS).replace(field, value, 1)
    with pytest.raises(MissionError, match=message):
        parse_mission(text, "m.toml")


def test_a_profile_no_unit_uses_needs_no_pilot():
    parse_mission(morale_text(UNITS), "m.toml")  # the core profiles (hero, elite...) have none


def test_the_bundled_mech_mission_turns_the_module_on_and_every_unit_has_a_pilot():
    m = missions.load("foundry")
    assert m.modules == ("morale",)
    assert all(u.endurance >= 1 and u.morale >= 2 and u.size >= 1 for u in m.units)
    assert sum(u.command_unit for u in m.units) == 2 and sum(u.commander for u in m.units) == 2


def test_a_game_without_the_module_has_no_tokens_pilots_or_tests():
    s = Scenario([("a1", "a", "hero", 1, 1, True), ("b1", "b", "elite", 2, 1, True)]).play_to_turn("a1")
    s.task("attack", "b1", 0, 0, dice=(20, 20))
    kinds = {type(e) for e in s.log}
    assert not kinds & {mev.TokensChanged, mev.EnduranceChanged, mev.FearDue, mev.CourageTestDue}
    assert not any(o[0] in ("rest", "boost", "counter") for o in s.pending.options)
    assert s.state.tokens == {"a": 0, "b": 0}

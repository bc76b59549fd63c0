"""The skills module's mission data (seed 003; docs/missions.md "Skills module fields"): skills with
levels, Troop Type, Silhouette, Training, seed 003's attributes, Burst, and which units deploy."""

from __future__ import annotations

import pytest

from skirmish.engine.errors import MissionError
from skirmish.engine.mission import parse_mission
from skirmish.engine.model import Stats, Unit, Weapon
from skirmish.engine.rules.skills import attributes, catalog
from skirmish.server import missions

from tests.engine.rules.scenario import mission_text
from tests.engine.rules.skills.skills_scenario import SMALL, ZONES, skills_text

UNITS = [("a1", "a", "trooper", 0, 1), ("a2", "a", "sniper", 1, 1), ("b1", "b", "hero", 0, 6)]


def units_of(text: str) -> dict[str, Unit]:
    return {u.id: u for u in parse_mission(text, "m.toml").units}


def test_the_catalog_holds_the_nineteen_special_skills_of_seed_003_in_its_order():
    assert list(catalog.SKILLS) == [
        "heavyweight", "impersonation", "infiltrate", "immunity", "inspiring leadership", "kinematika", "lieutenant",
        "manned", "marksmanship", "mechanized deployment", "metachemistry", "morat", "multiterrain", "non-hackable",
        "paramedic", "pilot", "regeneration", "religious troop", "sat-lock"]
    assert catalog.SKILLS["infiltrate"].levels == ("0", "1", "2")
    assert catalog.SKILLS["marksmanship"].levels == ("1", "2", "x")
    assert all(not s.seed for s in catalog.REFERRED.values())


def test_profiles_carry_skills_troop_type_silhouette_training_and_attributes_onto_the_units():
    u = units_of(skills_text(UNITS))
    assert u["a1"].skills == ("immunity shock", "infiltrate 1")  # canonical, sorted
    assert (u["a1"].troop_type, u["a1"].silhouette, u["a1"].training) == ("MI", 2, "regular")
    assert u["a2"].skills == ("marksmanship 2", "marksmanship x")
    assert (u["a2"].bs, u["a2"].arm, u["a2"].wip) == (15, 1, None)  # given, given, derived
    assert u["b1"].skills == () and u["b1"].troop_type == "LI"  # a profile that says nothing


def test_seed_003_attributes_are_seed_001_pairs_unless_the_profile_gives_them():
    """WIP = Presence + Command, PH = Fitness + Security, BS = Control + Security, CC = Daring +
    Security, ARM = Resistance (docs/rules.md, seed 003, "The attributes")."""
    u = units_of(skills_text(UNITS))
    a1, a2 = u["a1"], u["a2"]  # trooper: control 10, daring 9, fitness 9, presence 9, command 2, security 2
    assert [attributes.value(a1, a) for a in attributes.ATTRIBUTES] == [9 + 2, 9 + 2, 10 + 2, 9 + 2, 0]
    assert attributes.value(a2, "bs") == 15 and attributes.derived(a2, "bs") == 11 + 3
    assert attributes.value(a2, "arm") == 1 and attributes.value(a2, "ph") == 8 + 3
    assert attributes.value(a1, "wip") == Stats(presence=9, command=2).presence + 2


def test_weapons_carry_a_burst_default_one():
    text = skills_text(UNITS).replace('[weapons.rifle]\nkind = "ranged"', '[weapons.rifle]\nburst = 3\nkind = "ranged"')
    u = units_of(text)
    assert u["a2"].weapons[0].burst == 3 and u["a1"].weapons[0].burst == 1
    assert Weapon("Unarmed Strike", "melee", 1).burst == 1


def test_units_that_deploy_start_off_the_table_the_others_where_the_map_puts_them():
    u = units_of(skills_text(UNITS, deploy=("a1",)))
    assert not u["a1"].deployed and u["a2"].deployed and u["b1"].deployed


@pytest.mark.parametrize("entry, canonical", [
    ("Infiltrate L2", "infiltrate 2"), ("infiltrate level 0", "infiltrate 0"), ("lieutenant", "lieutenant 1"),
    ("Mechanized  Deployment", "mechanized deployment 1"), ("marksmanship LX", "marksmanship x"),
    ("multiterrain", "multiterrain"), ("multiterrain jungle/water", "water/jungle"), ("V: Courage", "v: courage"),
    ("sat-lock", "sat-lock"), ("non-hackable", "non-hackable"), ("veteran 1", "veteran 1"),
])
def test_skill_entries_are_read_in_the_seeds_spellings(entry, canonical):
    name, level = catalog.parse(entry)
    assert catalog.canonical(name, level).endswith(canonical)


def test_several_immunities_and_a_marksmanship_level_besides_lx_are_allowed():
    assert catalog.check_list(["immunity shock", "immunity possession"]) == ("immunity possession", "immunity shock")
    assert catalog.check_list(["marksmanship x", "marksmanship 1"]) == ("marksmanship 1", "marksmanship x")


@pytest.mark.parametrize("entry, message", [
    ("stealth", r"'stealth' is not a skill; the Special Skills are: heavyweight, impersonation"),
    ("infiltrate 3", r"infiltrate has no level '3': its levels are 0, 1, 2"),
    ("kinematika", r"kinematika needs a level: its levels are 1, 2"),
    ("heavyweight 1", r"heavyweight has no level '1': it has no levels"),
    ("immunity", r"immunity needs a level: its levels are possession, shock, total"),
    ("multiterrain lava", r"multiterrain 'lava': the level is one or more of water, desert, mountain, jungle, zero-g"),
])
def test_a_bad_skill_name_or_level_is_a_mission_error_naming_the_file_and_the_entry(entry, message):
    text = skills_text(UNITS).replace('skills = ["infiltrate 1", "immunity shock"]',
                                      f'skills = ["infiltrate 1", "{entry}"]')
    with pytest.raises(MissionError, match=r"^m\.toml: profiles\.trooper\.skills\[1\]: " + message):
        parse_mission(text, "m.toml")


@pytest.mark.parametrize("entries, message", [
    ('"infiltrate 1", "infiltrate 1"', r"'infiltrate 1' is listed twice"),
    ('"infiltrate 1", "infiltrate 2"', r"infiltrate is listed twice \('infiltrate 1' and 'infiltrate 2'\)"),
    ('"marksmanship 1", "marksmanship 2"', r"marksmanship has one numbered level"),
    ('"lieutenant", "lieutenant 1"', r"'lieutenant 1' is listed twice"),
])
def test_a_bad_combination_is_a_mission_error(entries, message):
    text = skills_text(UNITS).replace('"infiltrate 1", "immunity shock"', entries)
    with pytest.raises(MissionError, match=r"profiles\.trooper\.skills\[1\]: " + message):
        parse_mission(text, "m.toml")


@pytest.mark.parametrize("old, new, message", [
    ('troop_type = "MI"', 'troop_type = "XX"', r"profiles\.trooper\.troop_type: a Troop Type is one of LI, MI, HI, TAG, REM, SK, WB"),
    ('troop_type = "MI"', 'silhouette = 9', r"profiles\.trooper\.silhouette: a Silhouette is 1\.\.8, not 9"),
    ('troop_type = "MI"', 'training = "veteran"', r"profiles\.trooper\.training: Training is 'regular' or 'irregular'"),
    ('bs = 15', 'bs = 0', r"profiles\.sniper\.bs: BS is 1\.\.30, not 0"),
    ('arm = 1', 'arm = 21', r"profiles\.sniper\.arm: ARM is 0\.\.20, not 21"),
    ('skills = ["infiltrate 1", "immunity shock"]', 'skills = "infiltrate 1"', r"profiles\.trooper\.skills"),
    ('[weapons.rifle]\n', '[weapons.rifle]\nburst = 0\n', r"weapons\.rifle\.burst: a Burst \(B\) is 1\.\.6, not 0"),
])
def test_bad_troop_type_silhouette_training_attribute_or_burst_is_a_mission_error(old, new, message):
    text = skills_text(UNITS)
    assert old in text
    with pytest.raises(MissionError, match=r"^m\.toml: " + message):
        parse_mission(text.replace(old, new, 1), "m.toml")


@pytest.mark.parametrize("old, new, field", [
    ('weapons = ["phaser", "knife"]\n\n[profiles.medic]', 'weapons = ["phaser", "knife"]\nskills = ["paramedic"]\n\n[profiles.medic]',
     r"profiles\.hero\.skills"),
    ('medicine = 2\nweapons', 'medicine = 2\ntroop_type = "HI"\nweapons', r"profiles\.hero\.troop_type"),
    ('medicine = 2\nweapons', 'medicine = 2\nwip = 12\nweapons', r"profiles\.hero\.wip"),
    ('[weapons.rifle]\n', '[weapons.rifle]\nburst = 2\n', r"weapons\.rifle\.burst"),
])
def test_the_modules_fields_without_the_module_are_refused(old, new, field):
    text = mission_text([("a1", "a", "hero", 0, 1), ("b1", "b", "hero", 0, 6)])
    assert old in text
    with pytest.raises(MissionError, match=field + r': only the skills module reads it: add "skills" to \[mission\] modules'):
        parse_mission(text.replace(old, new, 1), "m.toml")


def test_deploying_without_the_module_is_refused():
    text = mission_text([("a1", "a", "hero", 0, 1), ("b1", "b", "hero", 0, 6)], map=ZONES)
    text = text.replace('id = "a1"\n', 'id = "a1"\ndeploy = true\n')
    with pytest.raises(MissionError, match=r"units\[0\]\.deploy: only the skills module reads it"):
        parse_mission(text, "m.toml")


def test_a_side_that_deploys_needs_a_zone_with_a_free_cell_for_each_unit():
    open_map = "\n".join(["........"] * 8)
    with pytest.raises(MissionError, match=r"units\[1\]\.deploy: side b deploys units, but the map has no deployment zone 'b'"):
        parse_mission(skills_text([("a1", "a", "hero", 0, 1), ("b1", "b", "hero", 0, 6)], open_map, deploy=("b1",)), "m")
    units = [("a1", "a", "hero", 0, 0), ("a2", "a", "hero", 1, 0), ("a3", "a", "hero", 2, 0), ("b1", "b", "hero", 7, 7)]
    with pytest.raises(MissionError, match=r"units\[0\]\.deploy: side a deploys 2 units, but its deployment zone has 1 free cells"):
        parse_mission(skills_text(units, SMALL, deploy=("a1", "a3")), "m")  # a2 holds one of the two cells
    assert parse_mission(skills_text(units[:2] + units[3:], SMALL, deploy=("a1", "a2")), "m")


def test_the_bundled_mission_has_the_module_on_and_units_that_deploy():
    m = missions.load("dropzone")
    assert m.modules == ("skills",)
    assert {u.id for u in m.units if not u.deployed} == {"a1", "a2", "a3", "b1", "b2", "b3"}
    assert {(u.id, u.troop_type) for u in m.units if u.troop_type != "LI"} >= {("a4", "HI"), ("b4", "REM")}
    assert sum("lieutenant 1" in u.skills for u in m.units) == 2

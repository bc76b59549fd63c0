"""MetaChemistry (docs/rules.md, seed 003, "The Deployment Skills"): given a unit with the skill just
placed, when its side rolls (scripted d20) or declines, then the row is recorded and what it grants
works in play."""

from __future__ import annotations

import pytest

from skirmish.bots import make_bot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.simulate import clone
from skirmish.client import render
from skirmish.client.narrate import describe
from skirmish.engine.decide import default_option
from skirmish.engine.events import DiceRolled, StressLost
from skirmish.engine.model import TaskFrame
from skirmish.engine.rules.core import attack
from skirmish.engine.rules.skills import ammunition, attributes, metachemistry
from skirmish.engine.rules.skills.events import MetaChemistryRolled, SkillRolled

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario

EXTRA = """
[profiles.meta]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["metachemistry"]

[profiles.hacker]
kind = "hero"
control = 10
presence = 10
command = 2
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["hacker"]
"""


def placed(dice=()) -> tuple[SkillsScenario, list]:
    """a1 (MetaChemistry) is placed at (2,1); its side is asked for the roll."""
    sc = SkillsScenario([("a1", "a", "meta", 2, 1), ("b1", "b", "hero", 0, 7)], deploy=("a1",), extra=EXTRA)
    sc.start()
    ev = sc.when("deploy", 2, 1)
    return sc, ev


def test_after_placing_the_unit_its_side_may_roll_on_the_table_the_time_out_rolls():
    sc, ev = placed()
    assert (sc.pending.side, sc.pending.kind, sc.pending.unit) == ("a", "metachemistry", "a1")
    assert sc.pending.options == (("roll",), ("decline",)) and default_option(sc.pending) == ("roll",)


def test_a_roll_is_a_d20_and_its_row_is_granted_natural_armor_plus_one_resistance():
    sc, _ = placed()
    before = sc.unit("a1").resistance
    ev = sc.when("roll", dice=(2, 10, 1))
    d = of_type(ev, DiceRolled)[0]
    assert (d.purpose, d.sides, d.results) == ("metachemistry", 20, (2,))  # then the initiative
    assert of_type(ev, MetaChemistryRolled)[0] == MetaChemistryRolled(unit="a1", die=2, row="natural armor")
    assert sc.unit("a1").resistance == before + 1 and attributes.value(sc.unit("a1"), "arm") == before + 1
    assert sc.state.metachemistry == (("a1", "natural armor"),) and sc.pending.kind == "first"  # once


def test_declining_records_it_and_grants_nothing():
    sc, _ = placed()
    ev = sc.when("decline", dice=(10, 1))
    assert [d.purpose for d in of_type(ev, DiceRolled)] == ["initiative"] * 2 and of_type(ev, MetaChemistryRolled)[0].row == ""
    assert sc.state.metachemistry == (("a1", ""),) and sc.unit("a1").skills == ("metachemistry",)


OPEN = "\n".join(["........"] * 8)
SEED_TABLE = {  # the seed's table, die by die
    1: "natural armor", 3: "natural armor", 4: "v: dogged", 5: "v: dogged", 6: "bioimmunity",
    7: "enhanced mobility", 8: "enhanced mobility", 9: "reinforced biotech", 10: "enhanced physique",
    11: "enhanced physique", 12: "v: no wound incapacitation", 13: "v: no wound incapacitation",
    14: "sixth sense 2", 15: "regeneration", 16: "regeneration", 17: "super-jump", 18: "super-jump",
    19: "climbing plus", 20: "immunity total",
}


@pytest.mark.parametrize("die", sorted(SEED_TABLE))
def test_each_die_gives_the_seeds_row(die):
    assert metachemistry.row_of(die) == SEED_TABLE[die]


@pytest.mark.parametrize("die, skill", [(4, "v: dogged"), (6, "bioimmunity"), (12, "v: no wound incapacitation"),
                                        (14, "sixth sense 2"), (15, "regeneration"), (17, "super-jump"),
                                        (19, "climbing plus"), (20, "immunity total"), (7, "enhanced mobility"),
                                        (9, "reinforced biotech")])
def test_a_skill_row_adds_the_skill_to_the_unit_and_shows_it(die, skill):
    sc, _ = placed()
    ev = sc.when("roll", dice=(die, 10, 1))
    assert skill in sc.unit("a1").skills
    assert skill in render.units(sc.state, "a")
    assert metachemistry.TABLE[skill].name in describe(of_type(ev, MetaChemistryRolled)[0], sc.state)


def test_enhanced_physique_is_plus_3_ph():
    sc, _ = placed()
    sc.when("roll", dice=(10, 10, 1))
    assert attributes.value(sc.unit("a1"), "ph") == 11 + 3


def test_bioimmunity_and_total_immunity_treat_shock_as_normal():
    sc, _ = placed()
    sc.when("roll", dice=(6, 10, 1))
    assert "shock" in ammunition.immune_to(sc.unit("a1"))


def test_enhanced_mobility_moves_two_cells_further():
    sc = SkillsScenario([("a1", "a", "meta", 0, 0), ("b1", "b", "hero", 7, 7)], extra=EXTRA)
    sc.start()
    sc.when("roll", dice=(7, 10, 1))
    sc.when("first", "a")
    sc.when("unit", "a1")
    far = {(o[1], o[2]) for o in sc.pending.options if o[0] == "move"}
    assert (6, 0) in far and (7, 0) not in far  # Medium 4 + 2


def test_super_jump_and_climbing_plus_cross_a_wall_the_core_movement_cannot():
    wall = "\n".join(["..#....."] * 8)
    for die, cost in ((17, 1), (19, 2)):
        sc = SkillsScenario([("a1", "a", "meta", 0, 3), ("b1", "b", "hero", 7, 7)], map=wall, extra=EXTRA)
        sc.start()
        sc.when("decline", dice=(10, 1))
        sc.when("first", "a")
        sc.when("unit", "a1")
        plain = {(o[1], o[2]) for o in sc.pending.options if o[0] == "move"}
        assert not any(x > 2 for x, _ in plain)
        sc.state.units["a1"].skills += (metachemistry.row_of(die),)  # as if rolled
        moves = {(o[1], o[2]) for o in metachemistry.turn_options(sc.state, sc.unit("a1"), []) if o[0] == "move"}
        reach = 4 - 2 - cost  # to x = 1 (1), over the wall (cost), then on
        assert (3 + reach, 3) in moves and (4 + reach, 3) not in moves and (2, 3) not in moves


def test_sixth_sense_l2_an_attack_gains_nothing_from_a_create_advantage_against_it():
    sc = SkillsScenario([("a1", "a", "hero", 0, 0), ("b1", "b", "meta", 0, 3)], map=OPEN, extra=EXTRA)
    sc.start()
    sc.when("decline", dice=(10, 1))
    sc.when("first", "a")
    sc.when("unit", "a1")
    sc.state.units["b1"].exposed = True
    frame = TaskFrame(unit="a1", task="attack", target="b1", weapon=0, lethal=True)
    exposed = attack.spec(sc.state, frame).difficulty
    sc.state.units["b1"].skills += ("sixth sense 2",)
    assert attack.spec(sc.state, frame).difficulty == exposed + 1
    sc.state.units["b1"].exposed = False
    assert attack.spec(sc.state, frame).difficulty == exposed + 1  # as if no advantage was created


def test_reinforced_biotech_a_hacking_program_at_the_unit_rolls_at_minus_6():
    sc = SkillsScenario([("a1", "a", "hacker", 0, 0), ("b1", "b", "meta", 0, 3)], map=OPEN, extra=EXTRA)
    sc.start()
    sc.when("roll", dice=(9, 10, 1))
    sc.when("first", "a")
    sc.when("unit", "a1")
    ev = sc.when("hack", "spotlight", "b1", dice=(1,))
    assert of_type(ev, SkillRolled)[0].mods == (("Reinforced Biotech", -6),)


def test_a_unit_the_mission_places_rolls_before_round_1():
    sc = SkillsScenario([("a1", "a", "meta", 0, 0), ("b1", "b", "hero", 7, 7)], extra=EXTRA)
    sc.start()
    assert (sc.pending.kind, sc.pending.unit, sc.state.round) == ("metachemistry", "a1", 0)


def test_without_metachemistry_nothing_is_asked_and_the_new_state_fields_keep_their_defaults():
    """(At their defaults the fields are left out of the state hash: a game without these skills hashes as before.)"""
    sc = SkillsScenario([("a1", "a", "hero", 0, 0), ("b1", "b", "hero", 7, 7)], extra=EXTRA)
    sc.start()
    assert sc.pending.kind == "first"
    s = sc.state
    assert (s.metachemistry, s.dogged, s.unfazed, s.infiltration_failed) == ((), (), (), ())


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
def test_the_bots_answer_the_metachemistry_decision(bot):
    sc, _ = placed()
    player = MctsBot(3, iterations=30) if bot == "mcts" else make_bot(bot, 3)
    player.new_game("a")
    assert player.choose(clone(sc.state), sc.pending) in sc.pending.options


def test_the_roll_and_its_options_are_narrated_and_labelled():
    sc, _ = placed()
    assert render.label(("roll",), sc.state, sc.pending).startswith("roll on the MetaChemistry Table for a1")
    assert render.label(("decline",), sc.state, sc.pending).startswith("do not roll")
    before = clone(sc.state)
    ev = sc.when("roll", dice=(15, 10, 1))
    lines = [describe(e, before) for e in ev]
    assert "  a1 [a1]'s MetaChemistry: 15, Regeneration" in lines
    assert any("MetaChemistry Table" in (line or "") for line in lines)
    assert "a1: MetaChemistry Regeneration" in render.status(sc.state, "a")
    assert not of_type(ev, StressLost)

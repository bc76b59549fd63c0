"""Heavyweight and Multiterrain (docs/rules.md, seed 003, "Reactions and movement skills"): how a
unit moves over gates and difficult terrain. Given a board with gates or difficult terrain, when
the unit may move, then these cells (the Movement's budget is the Medium band, 4 cells)."""

from __future__ import annotations

import pytest

from skirmish.engine import board as geo
from skirmish.engine.mission import MissionError, parse_mission
from skirmish.engine.rules.skills import terrain
from skirmish.engine.rules.skills.events import TerrainChosen

from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text

EXTRA = """
[profiles.walker]
kind = "hero"
fitness = 9
weapons = ["phaser"]

[profiles.heavy]
kind = "hero"
fitness = 9
weapons = ["phaser"]
skills = ["heavyweight"]
troop_type = "TAG"

[profiles.swimmer]
kind = "hero"
fitness = 9
weapons = ["phaser"]
skills = ["multiterrain water"]

[profiles.ranger]
kind = "hero"
fitness = 9
weapons = ["phaser"]
skills = ["multiterrain"]

[profiles.picky]
kind = "hero"
fitness = 9
weapons = ["phaser"]
skills = ["multiterrain water/jungle"]
"""

# a wall across row 2 with a narrow gate at (2,2) and a wide gate at (5,2)
GATES = "........\n........\n##n##w##\n........\n........\n........\n........\n........"
# water in rows 2-4, jungle in row 5
WET = "........\n........\n~~~~~~~~\n~~~~~~~~\n~~~~~~~~\n%%%%%%%%\n........\n........"
ZONED = "aaaaaaaa" + WET[8:-8] + "bbbbbbbb"  # the same with deployment zones in rows 0 and 7


def moves(profile: str, x: int, y: int, map: str) -> set:
    sc = SkillsScenario([("a1", "a", profile, x, y), ("b1", "b", "walker", 0, 7)], map=map, extra=EXTRA)
    sc.play_to_turn("a1")
    return {(o[1], o[2]) for o in sc.pending.options if o[0] == "move"}


# -- Heavyweight --------------------------------------------------------------------------------------


def test_a_heavyweight_cannot_cross_a_narrow_gate():
    assert (2, 2) in moves("walker", 2, 1, GATES) and (2, 3) in moves("walker", 2, 1, GATES)
    heavy = moves("heavy", 2, 1, GATES)
    assert (2, 2) not in heavy and (2, 3) not in heavy


def test_a_heavyweights_movement_ends_just_beyond_a_wide_gate_never_in_it():
    walker, heavy = moves("walker", 5, 1, GATES), moves("heavy", 5, 1, GATES)
    assert {(5, 4), (5, 5)} <= walker and (5, 2) in walker
    below = {c for c in heavy if c[1] > 2}
    assert below == {(4, 3), (5, 3), (6, 3)}  # in base contact with the gate, on its far side
    assert (5, 2) not in heavy


def test_the_same_board_without_gates_changes_nothing_for_a_heavyweight():
    open_map = GATES.replace("n", ".").replace("w", ".").replace("#", ".")
    assert moves("heavy", 5, 1, open_map) == moves("walker", 5, 1, open_map)


# -- Multiterrain --------------------------------------------------------------------------------------


def test_multiterrain_moves_normally_through_its_terrain_where_others_pay_double():
    walker, swimmer = moves("walker", 3, 1, WET), moves("swimmer", 3, 1, WET)
    assert (3, 3) in walker and (3, 4) not in walker  # water: 2 a cell
    assert (3, 4) in swimmer and (3, 5) not in swimmer  # 3 cells of water at 1, then jungle at 2: 5 > 4


def test_a_multiterrain_choice_is_declared_when_the_unit_deploys():
    sc = SkillsScenario([("a1", "a", "ranger", 3, 0), ("b1", "b", "walker", 0, 7)], map=ZONED, deploy=("a1",), extra=EXTRA)
    sc.start()
    assert sc.pending.kind == "deploy"
    sc.when("deploy", 3, 0)
    assert sc.pending.kind == "terrain" and sc.pending.side == "a"
    assert [o[2] for o in sc.pending.options] == ["water", "desert", "mountain", "jungle", "zero-g"]
    events = sc.when("terrain", "a1", "jungle", dice=(10, 1))  # the last placement: round 1 follows
    assert TerrainChosen(unit="a1", terrain="jungle") in events
    assert sc.state.terrains == (("a1", "jungle"),)
    assert terrain.gait(sc.state, sc.unit("a1")) == geo.Gait(easy=frozenset("%"))


def test_a_profiles_list_narrows_the_choice():
    sc = SkillsScenario([("a1", "a", "picky", 3, 0), ("b1", "b", "walker", 0, 7)], map=ZONED, deploy=("a1",), extra=EXTRA)
    sc.start()
    sc.when("deploy", 3, 0)
    assert [o[2] for o in sc.pending.options] == ["water", "jungle"]


def test_a_multiterrain_choice_needs_the_unit_to_deploy():
    with pytest.raises(MissionError, match=r"units\[0\]\.deploy"):
        parse_mission(skills_text([("a1", "a", "ranger", 0, 0), ("b1", "b", "walker", 0, 7)], map=WET, extra=EXTRA), "t")


def test_the_gait_search_with_no_gait_is_the_boards():
    b = parse_mission(skills_text([("a1", "a", "walker", 0, 0), ("b1", "b", "walker", 0, 7)], map=GATES, extra=EXTRA),
                      "t").board
    assert geo.reachable_gait(b, (5, 1), 5, set(), geo.Gait()) == geo.reachable(b, (5, 1), 5, set())

"""The mission format (docs/missions.md): the bundled missions load, and every mistake is a
``MissionError`` naming the field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skirmish.engine import board as geo
from skirmish.engine.errors import MissionError
from skirmish.engine.mission import Mission, game_created, parse_mission
from skirmish.engine.model import Weapon
from skirmish.server import missions

# A small mission using every part of the format (the example in docs/missions.md).
SMALL = """
[mission]
id = "depot"
name = "Depot"
rounds = 4

[board]
midline = "y"
map = '''
aa..~~
..*.+.
.##n##
.+.*..
..:.bb
'''

[board.bands]
reach = 1
close = 2
medium = 3
long = 6

[scoring]
midline = 2

[sides.a]
name = "Defenders"

[sides.b]
name = "Raiders"

[weapons.pistol]
kind = "ranged"
damage = 3

[weapons.rifle]
name = "Plasma rifle"
kind = "ranged"
damage = 5

[weapons.knife]
kind = "melee"
damage = 2

[profiles.guard]
kind = "hero"
fitness = 10
security = 2
weapons = ["pistol", "knife"]
stowed = ["knife"]

[profiles.thug]
kind = "bogey"
tier = "grunt"
weapons = ["knife", "pistol"]
stowed = ["pistol"]
stress = 6

[[units]]
id = "a1"
side = "a"
profile = "guard"
at = [0, 0]
commander = true

[[units]]
id = "b1"
side = "b"
profile = "thug"
at = [5, 4]

[[objectives]]
id = "door"
name = "Door switch"
at = [2, 1]

[[objectives]]
id = "safe"
name = "Safe"
at = [3, 3]
points = 3
task = { attribute = "control", discipline = "engineering", difficulty = 2 }

[[items]]
id = "rifle"
name = "Rifle on a rack"
at = [0, 3]
weapon = "rifle"

[[items]]
id = "kit"
name = "Medkit"
at = [5, 1]
"""


def parse(text: str = SMALL) -> Mission:
    return parse_mission(text, "small")


def test_the_small_mission_loads_with_everything() -> None:
    m = parse()
    assert (m.board.width, m.board.height, m.board.midline) == (6, 5, "y")
    assert (m.board.reach, m.board.close, m.board.medium, m.board.long) == (1, 2, 3, 6)
    assert m.midline_points == 2
    door, safe = m.objectives
    assert (door.id, door.x, door.y, door.points, door.attribute, door.difficulty) == ("door", 2, 1, 1, "", 0)
    assert (safe.x, safe.y, safe.points) == (3, 3, 3)
    assert (safe.attribute, safe.discipline, safe.difficulty) == ("control", "engineering", 2)
    rifle, kit = m.items
    assert rifle.weapon == Weapon("Plasma rifle", "ranged", 5) and (rifle.x, rifle.y) == (0, 3)
    assert kit.weapon is None and kit.carrier == ""
    a1, b1 = m.units
    assert a1.stowed == (1,) and [w.name for w in a1.weapons] == ["pistol", "knife"]
    assert b1.stowed == (1,) and [w.name for w in b1.weapons] == ["knife", "pistol"]
    assert a1.stress_max == 10 + 2  # derived: Fitness + Security
    assert b1.stress_max == 6  # given


def test_the_example_in_the_docs_loads() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "missions.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```toml\n(.*?)```", doc, re.S)
    m = parse_mission(example, "docs/missions.md")
    assert m.id == "depot" and len(m.objectives) == 2 and len(m.items) == 2 and m.midline_points == 2
    assert [u.stress_max for u in m.units] == [12, 6]


def test_game_created_carries_objectives_items_and_scoring() -> None:
    m = parse()
    e = game_created("g", m, "local", "")
    assert e.objectives == m.objectives and e.items == m.items and e.midline_points == 2
    assert e.board.midline == "y"


def test_defaults() -> None:
    text = SMALL.replace('midline = "y"\n', "").replace("[scoring]\nmidline = 2\n", "")
    text = text.replace("[board.bands]\nreach = 1\nclose = 2\nmedium = 3\nlong = 6\n", "")
    m = parse(text)
    assert m.board.midline == "y" and m.midline_points == 0
    assert (m.board.reach, m.board.close, m.board.medium, m.board.long) == (1, 2, 4, 8)


def test_without_markers_objectives_may_stand_on_any_open_cell() -> None:
    m = parse(SMALL.replace("..*.+.", "....+.").replace(".+.*..", ".+....").replace("at = [2, 1]", "at = [5, 0]"))
    assert [(o.x, o.y) for o in m.objectives] == [(5, 0), (3, 3)]


def test_midline_across_columns() -> None:
    text = SMALL.replace('midline = "y"', 'midline = "x"').replace("aa..~~", "a...~~").replace("..:.bb", "..:..b")
    m = parse(text)
    assert m.board.midline == "x"
    assert geo.half(m.board, 0, 0) == "a" and geo.half(m.board, 5, 0) == "b"


@pytest.mark.parametrize("name", ["ridge", "outpost"])
def test_bundled_missions_load(name: str) -> None:
    m = missions.bundled()[name]
    assert missions.load(name) == m
    assert m.modules == ()
    assert m.objectives, "every bundled mission has objectives"
    markers = {(i % m.board.width, i // m.board.width) for i, ch in enumerate(m.board.cells) if ch == "*"}
    assert markers == {(o.x, o.y) for o in m.objectives}
    for side in "ab":
        assert sum(u.commander for u in m.units if u.side == side) == 1


def test_ridge_keeps_its_units() -> None:
    m = missions.load("ridge")
    assert (m.board.width, m.board.height, len(m.units), m.rounds) == (12, 9, 8, 6)
    assert [(u.id, u.x, u.y) for u in m.units] == [
        ("a1", 1, 0), ("a2", 2, 1), ("a3", 3, 0), ("a4", 0, 1),
        ("b1", 10, 8), ("b2", 9, 7), ("b3", 8, 8), ("b4", 11, 7),
    ]
    # The objectives stand on the mid-line row: in nobody's half.
    assert all(geo.half(m.board, o.x, o.y) is None for o in m.objectives)


def test_outpost_is_the_core_rules_showcase() -> None:
    m = missions.load("outpost")
    assert (m.board.width, m.board.height, m.rounds, m.midline_points) == (14, 12, 6, 1)
    cells = set(m.board.cells)
    assert {"~", "%", "^", "+", "#", "n", "w", "a", "b", "*"} <= cells
    for side in "ab":
        side_units = [u for u in m.units if u.side == side]
        assert 4 <= len(side_units) <= 5
    assert {u.kind for u in m.units} == {"hero", "bogey"}
    assert {u.tier for u in m.units if u.kind == "bogey"} == {"grunt", "elite", "boss"}
    assert any(u.stowed for u in m.units)
    assert any(o.attribute == "reason" and o.discipline == "engineering" and o.difficulty == 2
               for o in m.objectives)
    assert any(i.weapon is not None for i in m.items)
    # Every open cell can be reached from side a's deployment zone, so every objective and item can.
    a1 = m.units[0]
    reach = geo.reachable(m.board, (a1.x, a1.y), 1000, set())
    assert len(reach) == sum(ch != "#" for ch in m.board.cells) - 1


# ---------------------------------------------------------------------------- errors

ERRORS = [
    # objectives
    ("unknown key in an objective", 'name = "Safe"', 'name = "Safe"\ncolour = "red"', "objectives[1]", "colour"),
    ("objective off the board", "at = [2, 1]", "at = [2, 9]", "objectives[0].at", "off the 6x5 board"),
    ("objective on blocking terrain", "at = [2, 1]", "at = [1, 2]", "objectives[0].at", "blocking"),
    ("objective off a marker", "at = [2, 1]", "at = [1, 1]", "objectives[0].at", "not an objective marker"),
    ("marker without objective", '[[objectives]]\nid = "door"\nname = "Door switch"\nat = [2, 1]\n', "",
     "board.map", "row 2, column 3 (at = [2, 1])"),
    ("duplicate objective id", 'id = "safe"', 'id = "door"', "objectives[1].id", "duplicate"),
    ("bad task attribute", 'attribute = "control"', 'attribute = "luck"', "objectives[1].task.attribute", "luck"),
    ("bad task discipline", 'discipline = "engineering"', 'discipline = "hacking"',
     "objectives[1].task.discipline", "hacking"),
    ("task difficulty too high", "difficulty = 2", "difficulty = 6", "objectives[1].task.difficulty", "0..5"),
    ("task missing its discipline", 'discipline = "engineering", ', "", "objectives[1].task", "discipline"),
    ("unknown key in a task", "difficulty = 2 }", "difficulty = 2, bonus = 1 }", "objectives[1].task", "bonus"),
    ("objective points", "points = 3", "points = 0", "objectives[1].points", "1..10"),
    ("objective at is not a pair", "at = [2, 1]", "at = [2]", "objectives[0].at", "length 2"),
    # items
    ("unknown item weapon", 'weapon = "rifle"', 'weapon = "railgun"', "items[0].weapon", "railgun"),
    ("item on blocking terrain", "at = [0, 3]", "at = [1, 2]", "items[0].at", "blocking"),
    ("item off the board", "at = [0, 3]", "at = [-1, 3]", "items[0].at", "off the"),
    ("unknown key in an item", 'name = "Medkit"', 'name = "Medkit"\nheals = 2', "items[1]", "heals"),
    ("item id shared with an objective", 'id = "kit"', 'id = "safe"', "items[1].id", "duplicate"),
    ("two items in one cell", "at = [5, 1]", "at = [0, 3]", "items[1].at", "already holds item"),
    # profiles
    ("stowed weapon not carried", 'stowed = ["knife"]', 'stowed = ["rifle"]', "profiles.guard.stowed", "rifle"),
    ("stowed twice", 'stowed = ["knife"]', 'stowed = ["knife", "knife"]', "profiles.guard.stowed", "more often"),
    ("stowed is a list", 'stowed = ["pistol"]', 'stowed = "pistol"', "profiles.thug.stowed", "array"),
    # board
    ("bad midline value", 'midline = "y"', 'midline = "z"', "board.midline", "not 'z'"),
    ("midline is a string", 'midline = "y"', "midline = 1", "board.midline", "Expected `str`"),
    ("zone in the enemy half", "..:.bb", "..:.ba", "board.map", "row 5, column 6"),
    ("reach below 1", "reach = 1", "reach = 0", "board.bands.reach", "at least 1"),
    ("close not above reach", "close = 2", "close = 1", "board.bands.close", "greater than reach"),
    ("medium not above close", "medium = 3", "medium = 2", "board.bands.medium", "greater than close"),
    ("long not above medium", "long = 6", "long = 3", "board.bands.long", "greater than medium"),
    ("long too long", "long = 6", "long = 101", "board.bands.long", "at most 100"),
    ("unknown band", "long = 6", "long = 6\nextreme = 12", "board.bands", "extreme"),
    ("unknown terrain", "..:.bb", "..X.bb", "board.map", "row 5, column 3"),
    ("ragged map", "..:.bb", "..:.b", "board.map", "row 5 has 5 cells"),
    # scoring and the rest
    ("negative midline points", "midline = 2", "midline = -1", "scoring.midline", "0..10"),
    ("unknown scoring key", "midline = 2", "midline = 2\nkills = 1", "scoring", "kills"),
    ("unknown module", 'rounds = 4', 'rounds = 4\nmodules = ["nope"]', "mission.modules", "nope"),
]


@pytest.mark.parametrize("old, new, field, problem", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_name_the_field(old: str, new: str, field: str, problem: str) -> None:
    assert old in SMALL
    with pytest.raises(MissionError) as exc:
        parse(SMALL.replace(old, new, 1))
    err = exc.value
    assert err.source == "small"
    assert err.field == field, str(err)
    assert problem in err.problem, str(err)


def test_an_objective_on_a_blocking_cell_without_markers() -> None:
    text = SMALL.replace("..*.+.", "....+.").replace(".+.*..", ".+....").replace("at = [2, 1]", "at = [2, 2]")
    with pytest.raises(MissionError) as exc:
        parse(text)
    assert (exc.value.field, "blocking" in exc.value.problem) == ("objectives[0].at", True)


def test_two_objectives_in_one_cell() -> None:
    text = SMALL.replace("..*.+.", "....+.").replace(".+.*..", ".+....").replace("at = [2, 1]", "at = [3, 3]")
    with pytest.raises(MissionError) as exc:
        parse(text)
    assert exc.value.field == "objectives[1].at" and "already holds objective" in exc.value.problem

"""The research API's fixed action table (skirmish.bots.research.actions, docs/research.md)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.bots.research_helpers import need

need("pettingzoo", "research")

from skirmish.bots.research.actions import markers, HEADS, ActionTable, UnknownOption, words  # noqa: E402
from skirmish.bots.research.match import Match  # noqa: E402
from skirmish.server import missions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MISSIONS = sorted(missions.bundled())


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_every_option_the_engine_offers_is_one_action_and_back(mission_id):
    """Over random games of the mission, each option of each pending decision (as the deciding
    side's own view shows it) encodes to one action that decodes to the very same option, and
    the options of one decision get distinct actions."""
    mission = missions.load(mission_id)
    table = ActionTable(mission)
    kinds = set()
    for seed in range(4):
        match, rng = Match(mission, seed), random.Random(seed)
        while not match.over:
            d = match.decision(match.to_move)
            actions = table.legal(d.options)
            assert len(set(actions)) == len(d.options), (d.kind, d.options)
            for option in d.options:
                action = table.encode(option)
                assert 0 <= action < table.n
                assert table.decode(action) == option
            kinds.add(d.kind)
            match.play(rng.choice(d.options))
    assert {"act", "activate"} <= kinds


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_the_table_is_fixed_by_the_mission(mission_id):
    mission = missions.load(mission_id)
    a, b = ActionTable(mission), ActionTable(missions.load(mission_id))
    assert a.options == b.options and a.n == len(a.options) == len(a.index)
    assert a.options[0] == ("end",)
    b_ = mission.board
    moves = [o for o in a.options if o[0] == "move"]
    assert len(moves) == b_.width * b_.height
    units = [u.id for u in mission.units] + list(markers(mission))  # a marker stands for its unit
    assert [o[1] for o in a.options if o[0] == "unit"] == units
    assert set(words(mission)).isdisjoint(units)


def test_an_option_outside_the_table_is_refused():
    table = ActionTable(missions.load("ridge"))
    for bad in [("move", 99, 0), ("teleport",), ("attack", "nobody", 0, 0), ("move", 1)]:
        with pytest.raises(UnknownOption):
            table.encode(bad)
    for bad in (-1, table.n):
        with pytest.raises(UnknownOption):
            table.decode(bad)


def test_the_doc_lists_every_option_name():
    """docs/research.md's table of options names each entry of HEADS with its domains."""
    text = (ROOT / "docs" / "research.md").read_text()
    rows = set(re.findall(r"^\| `\(([a-z_]+)(?:, ([a-z|, ]+))?\)` \|", text, re.M))
    documented = {(name, tuple(s.strip() for s in slots.split(",")) if slots else ()) for name, slots in rows}
    expected = {(name, slots) for (name, _), slots in HEADS.items()}
    assert documented == expected, (sorted(expected - documented), sorted(documented - expected))


def test_make_test_installs_the_research_extras():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {e: {re.split(r"[<>=\[ ]", d)[0] for d in deps} for e, deps in extras.items()}
    assert {"numpy", "gymnasium", "pettingzoo"} <= names["research"]
    assert names["openspiel"] == {"open_spiel"}
    install = re.search(r"pip install --quiet -e '\.\[([a-z,]+)\]'", (ROOT / "Makefile").read_text())
    assert install and {"research", "openspiel"} <= set(install.group(1).split(","))


def test_the_capture_modules_options_are_actions():
    """snatch's rarer options (a random api_test run met ``("drag", "b1")`` once, which had no
    action): freeing, escaping, dragging, the exit and every bonus Minor Action map to one action
    and back."""
    table = ActionTable(missions.load("snatch"))
    options = [("free", "a2"), ("escape",), ("drag", "b1"), ("exit", "b5"), ("bonus", "stand"),
               ("bonus", "move", 3, 4), ("bonus", "draw", 0), ("bonus", "draw", -1)]
    actions = [table.encode(o) for o in options]
    assert len(set(actions)) == len(options)
    assert [table.decode(a) for a in actions] == options

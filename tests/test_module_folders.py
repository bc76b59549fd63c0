"""A rules module is one folder (issue 13): no shared file names a module or what it owns.

The shared files -- the engine's model, events, evolve, view, mission, decide, codec and base,
the core's rules (``engine/rules/core``), and every client and bot file -- reach a module only
through the registry (``skirmish.engine.rules.registry``: its ``Module`` and the parts the shared types
gather). This test reads their code (identifiers, attribute names, imported names and string
constants) for each bundled module's name, its events, its procedure frames, its decision kinds
and the fields it adds to units, the state and mission profiles.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import msgspec
import pytest

from skirmish.engine.events import ProcedureStarted
from skirmish.engine.rules import registry

ROOT = Path(__file__).resolve().parents[1]
SHARED = {
    "engine": sorted([*(ROOT / "engine" / f for f in ("model.py", "events.py", "evolve.py", "view.py", "mission.py",
                                                      "decide.py", "codec.py", "base.py")),
                      *(ROOT / "engine" / "rules" / "core").glob("*.py")]),
    "client and bots": sorted([*(ROOT / "client").glob("*.py"), *(ROOT / "bots").glob("*.py")]),
}
# (module, shared files) that no longer name the module: each must pass; the others are still to
# move (issue 13 item 1), and fail until they do (strict xfail: moving one makes the test say so).
ONE_FOLDER = {("morale", "engine"), ("morale", "client and bots"),  # adding a module: it joins here
              ("capture", "engine"), ("capture", "client and bots"),
              ("challenges", "engine"), ("challenges", "client and bots"),
              ("skills", "engine"), ("skills", "client and bots")}
# Words the core uses too: the core's Aim option is ("reroll", i), as is the morale module's decision kind.
COMMON = {"reroll"}


def owned(name: str) -> dict[str, set[str]]:
    """What module ``name`` owns: its types (events, frames) and package name as identifiers, its
    fields as attributes and keywords, its decision and option kinds and its name as strings."""
    module = registry.CATALOG.module(name)
    types = {*(t.__name__ for t in module.events), *(t.__name__ for t in module.frame_steps)}
    fields: set[str] = set()
    package = registry.BUNDLED[name]
    for part, tables in (("fields", ("UNIT", "STATE", "WEAPON")), ("mission", ("PROFILE", "UNIT_SPEC", "WEAPON_SPEC"))):
        try:
            loaded = importlib.import_module(f"{package}.{part}")
        except ModuleNotFoundError:
            continue
        fields |= {f[0] for table in tables for f in getattr(loaded, table, ())}
    return {"identifier": types | {name}, "attribute": fields,
            "string": {name, *module.answers, *module.acts} - COMMON}


def named_in(path: Path) -> dict[str, set[str]]:
    """The identifiers (names, imported names and their dotted parts), the attributes (and keyword
    arguments) and the string constants of ``path``."""
    found: dict[str, set[str]] = {"identifier": set(), "attribute": set(), "string": set()}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Name):
            found["identifier"].add(node.id)
        elif isinstance(node, ast.Attribute):
            found["attribute"].add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            found["attribute"].add(node.arg)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found["identifier"] |= set(node.module.split(".")) | {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            found["identifier"] |= {part for a in node.names for part in a.name.split(".")}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found["string"].add(node.value)
    return found


def _hits(path: Path, mine: dict[str, set[str]]) -> set[str]:
    there = named_in(path)
    return {f"{what} {n}" for what in mine for n in there[what] & mine[what]}


@pytest.mark.parametrize("name, area", [
    pytest.param(m, area, marks=() if (m, area) in ONE_FOLDER else pytest.mark.xfail(
        strict=True, reason="not yet moved into its own folder (issue 13 item 1)"))
    for m in sorted(registry.BUNDLED) for area in SHARED])
def test_no_shared_file_names_a_module_or_what_it_owns(name, area):
    mine = owned(name)
    bad = [f"{path.relative_to(ROOT)}: {', '.join(sorted(hits))}"
           for path in SHARED[area] if (hits := _hits(path, mine))]
    assert not bad, f"shared files name the {name} module or what it owns:\n" + "\n".join(bad)


def test_the_shared_types_hold_the_modules_parts():
    """The log's union, the frames, the units, the state and the profiles are built from the modules'
    folders: the morale module's events decode, its fields are the model's."""
    from skirmish.engine.codec import decode_event, encode_event
    from skirmish.engine.mission import ProfileSpec
    from skirmish.engine.model import State, Unit
    from skirmish.engine.rules.morale.events import FearDue

    assert decode_event(encode_event(FearDue(unit="a1", enemy="b1"))) == FearDue(unit="a1", enemy="b1")
    assert {"endurance", "fear", "resting"} <= {f.name for f in msgspec.structs.fields(Unit)}
    assert {"tokens", "retreated", "fear_due"} <= {f.name for f in msgspec.structs.fields(State)}
    assert {"endurance", "command_unit"} <= {f.name for f in msgspec.structs.fields(ProfileSpec)}


def test_the_challenges_modules_parts_are_the_shared_types_too():
    """The challenges module's events decode from the log's union, its frame is a frame, its unit,
    state and profile fields and its ``[challenges]`` table are the shared types' (issue 13 item 1),
    its mission data is a field of ``GameCreated`` and ``Mission``, and a mission's cards reach the
    game's first state."""
    from skirmish.engine.codec import decode_event, encode_event
    from skirmish.engine.events import GameCreated
    from skirmish.engine.evolve import initial_state
    from skirmish.engine.mission import Mission, MissionSpec, ProfileSpec, game_created
    from skirmish.engine.model import State, Unit
    from skirmish.engine.rules.challenges.events import CardDrawn
    from skirmish.engine.rules.challenges.frames import ChallengeFrame
    from skirmish.engine.rules.challenges.fields import ChallengeSetup
    from skirmish.server import missions

    assert decode_event(encode_event(CardDrawn(side="a", card="jam"))) == CardDrawn(side="a", card="jam")
    started = decode_event(encode_event(ProcedureStarted(frame=ChallengeFrame(op="create", attacker="a1"))))
    assert started.frame == ChallengeFrame(op="create", attacker="a1")
    assert {"fate", "abilities", "stealthed"} <= {f.name for f in msgspec.structs.fields(Unit)}
    assert {"challenges", "hands", "decks", "salt"} <= {f.name for f in msgspec.structs.fields(State)}
    assert {"fate", "abilities", "stealthed"} <= {f.name for f in msgspec.structs.fields(ProfileSpec)}
    assert "challenges" in {f.name for f in msgspec.structs.fields(MissionSpec)}
    for struct in (GameCreated, Mission):  # after the core's fields and the capture module's, as stored
        names = [f.name for f in msgspec.structs.fields(struct)]
        assert names.index("midline_points") < names.index("capture") < names.index("challenges")
    created = game_created("g-1", missions.load("knives"), "local", "")
    assert isinstance(created.challenges, ChallengeSetup) and created.challenges.cards
    state = initial_state(created)
    assert state.challenges == created.challenges and state.hands == {"a": [], "b": []}
    assert sorted(state.decks["a"]) == sorted(created.challenges.decks["a"])


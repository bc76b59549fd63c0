"""Every recorded game of every engine version verifies, at every later commit (issue 13, item 4).

``tests/corpus/<ENGINE_VERSION>/`` holds games recorded by that engine (``tests/corpus/record.py``):
every bundled mission, so every rules module, and two games with two modules on. A rules change
that forgets to keep the old rules for the old versions fails here, naming the file and the event.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameCreated
from skirmish.engine.mission import ENGINE_VERSION
from skirmish.server.missions import bundled
from skirmish.server.replayfile import read_file, verify_file

CORPUS = Path(__file__).resolve().parent
FILES = sorted(CORPUS.glob("*/*.skr"))
VERSIONS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
BUNDLED = sorted(p.stem for p in (CORPUS.parents[1] / "server" / "missions").glob("*.toml"))
# the engine version each bundled mission came with, where later than the first (dropzone and uplink
# came with the skills module in 0.2.0; 0.2.0's games of them were recorded afterwards, by that engine)
SINCE = {"dropzone": "0.2.0", "uplink": "0.2.0", "landing": "0.3.0", "holdout": "0.3.0", "breach": "0.3.0",
         "hangar": "0.3.0", "cabal": "0.3.0", "ambush": "0.3.0",
         "masquerade": "0.3.0", "nightfall": "0.3.0"}


def _level(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in version.split("."))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_game_verifies(path):
    rf = read_file(path.read_bytes())
    report = verify_file(rf)
    assert report.ok, f"{path.parent.name}/{path.name}: event {report.bad_seq}: {report.problem}"
    assert report.finished and report.seed_verified and report.rolls_checked == report.rolls > 0
    assert rf.header.engine_version == path.parent.name  # recorded by the engine the folder names


@pytest.mark.parametrize("version", VERSIONS)
def test_each_version_covers_every_bundled_mission_and_module_and_two_modules(version):
    created = [decode_event(read_file(p.read_bytes()).events[0]) for p in FILES if p.parent.name == version]
    assert all(isinstance(e, GameCreated) for e in created)
    missions = {e.mission for e in created}
    modules = {m for e in created for m in e.modules}
    assert {"capture", "challenges", "morale"} <= modules
    # every bundled mission the version could play: one with a module newer than the version's
    # corpus (the skills module, seed 003, came with 0.2.0: 0.1.0 has none) or a mission newer than
    # the version (SINCE) has no game of it
    playable = {m for m, mission in bundled().items() if set(mission.modules) <= modules
                and _level(SINCE.get(m, VERSIONS[0])) <= _level(version)}
    assert set(BUNDLED) - playable <= {m for m, mission in bundled().items() if "skills" in mission.modules}
    assert playable <= missions, f"{version}: no game of {sorted(playable - missions)}"
    assert any(len(e.modules) >= 2 for e in created)


def test_the_current_engine_has_a_corpus():
    assert ENGINE_VERSION in VERSIONS, f"record tests/corpus/{ENGINE_VERSION}/ with tests/corpus/record.py"

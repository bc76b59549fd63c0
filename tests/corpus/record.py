"""Record the corpus of games that must verify at every later commit (issue 13, item 4).

Usage, from the repository's top level with the project's venv::

    python tests/corpus/record.py                 # into tests/corpus/<ENGINE_VERSION>/
    python tests/corpus/record.py --out DIR       # somewhere else
    python tests/corpus/record.py --only dropzone uplink   # only these missions

Every bundled mission (``server/missions/*.toml``: one without modules, one per module) and the
two-module games of ``tests/engine/rules/test_two_module_playouts.py`` (foundry with capture,
knives with morale) are played to the end by seeded bots on provably fair dice (``play_match``
with ``seed``), and each game is written as a replay file (``docs/replay-format.md``, version 2:
header, the exact stored bytes of each event, the chain hash stored with each).

The corpus of a version is recorded ONCE, by the engine of that version, and never recorded again:
its files are the games as that engine played them, and ``tests/corpus/test_corpus.py`` requires
every one of them to verify at every later commit. When the rules change (and so
``skirmish.engine.mission.ENGINE_VERSION`` is raised), record the new version's corpus with this script
at the commit that raises it, and commit the new folder beside the old ones.

The script uses only what every engine version since 0.1.0 has (``skirmish.server.match.play_match``,
``skirmish.server.store.MemoryStore``, ``skirmish.bots.make_bot``, ``skirmish.engine.mission.parse_mission``), so it runs
unchanged at an old commit: ``git archive OLD | tar -x -C /tmp/old``, make a venv there, and run
``python /path/to/this/record.py --out /path/to/tests/corpus/OLD_VERSION`` from /tmp/old (it
imports the engine from the current folder, not from beside this file).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from pathlib import Path

import importlib

import msgspec

sys.path.insert(0, os.getcwd())  # the engine of the checkout the script is run from (an old one's bare names)


def _module(name: str):
    """``skirmish.X``; at a commit from before the one import name (issue 13 item 6), plain ``X``."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != "skirmish":
            raise
        return importlib.import_module(name.removeprefix("skirmish."))


make_bot = _module("skirmish.bots").make_bot
decode_event = _module("skirmish.engine.codec").decode_event
GameCreated = _module("skirmish.engine.events").GameCreated
GameEnded = _module("skirmish.engine.events").GameEnded
ENGINE_VERSION = _module("skirmish.engine.mission").ENGINE_VERSION
parse_mission = _module("skirmish.engine.mission").parse_mission
play_match = _module("skirmish.server.match").play_match
MemoryStore = _module("skirmish.server.store").MemoryStore

MISSIONS = Path("server/missions")


def _text(mission_id: str) -> str:
    return (MISSIONS / f"{mission_id}.toml").read_text(encoding="utf-8")


def foundry_with_capture():
    text = _text("foundry").replace('modules = ["morale"]', 'modules = ["morale", "capture"]')
    text = text.replace('id = "foundry"', 'id = "foundry-capture"', 1)
    return parse_mission(text + '\n[capture]\ncaptor = "both"\ncaptive_points = 2\n', "foundry-capture")


def knives_with_morale():
    text = _text("knives").replace('modules = ["challenges"]', 'modules = ["challenges", "morale"]')
    text = text.replace('id = "knives"', 'id = "knives-morale"', 1)
    text = re.sub(r"^(\[profiles\.\w+\]\n)", r"\1endurance = 3\nmorale = 7\nsize = 2\n", text, flags=re.M)
    return parse_mission(text, "knives-morale")


def bundled(mission_id: str):
    return lambda: parse_mission(_text(mission_id), mission_id)


# (mission, builder); each is played with every (bot a, bot b, seed) of GAMES
MISSION_SET = [(m, bundled(m)) for m in ("ridge", "outpost", "snatch", "knives", "foundry")] + [
    ("foundry-capture", foundry_with_capture), ("knives-morale", knives_with_morale)]
# the skills module's missions (seed 003, since 0.2.0), those the checkout the script runs from has
SKILLS_MISSIONS = ("dropzone", "uplink", "landing", "holdout", "breach", "hangar", "cabal", "ambush", "masquerade",
                   "nightfall")
MISSION_SET += [(m, bundled(m)) for m in SKILLS_MISSIONS if (MISSIONS / f"{m}.toml").exists()]
# two games each keep the corpus small (about 2 MB a version): greedy against greedy, random against greedy
GAMES = [("greedy", "greedy", 1), ("random", "greedy", 3)]


async def record(out: Path, only: set[str] | None = None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in MISSION_SET:
        if only and name not in only:
            continue
        mission = build()
        for bot_a, bot_b, seed in GAMES:
            store = MemoryStore()
            bots = {"a": make_bot(bot_a, 2 * seed), "b": make_bot(bot_b, 2 * seed + 1)}
            result = await play_match(store, mission, bots, seed=seed, game_id=f"g-corpus-{name}-{seed}")
            stored = await store.read(result.game_id)
            first = decode_event(stored[0].data)
            assert isinstance(first, GameCreated) and first.engine_version == ENGINE_VERSION
            finished = any(isinstance(decode_event(s.data), GameEnded) for s in stored)
            header = {"format": "skirmish-replay", "version": 2, "engine_version": ENGINE_VERSION,
                      "game_id": result.game_id, "mission": first.mission, "events": len(stored),
                      "head_hash": stored[-1].hash.hex(), "finished": finished}
            path = out / f"{name}-{seed}-{bot_a}-{bot_b}.skr"
            path.write_bytes(msgspec.msgpack.encode([header, [s.data for s in stored], [s.hash for s in stored]]))
            written.append(path)
            print(f"{path}: {len(stored)} events, {path.stat().st_size} bytes, outcome {result.outcome}")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / ENGINE_VERSION,
                        help="the folder to write into (default: tests/corpus/<ENGINE_VERSION>)")
    parser.add_argument("--only", nargs="+", metavar="MISSION",
                        help="record only these missions (e.g. a later-added mission into an old version's folder)")
    args = parser.parse_args(argv)
    asyncio.run(record(args.out, set(args.only) if args.only else None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

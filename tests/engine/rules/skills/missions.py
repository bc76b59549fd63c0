"""The bundled skills missions with other modules on, and seeded games of them played and verified:
what the mission test files share (test_skills_uplink, _landing, _holdout, _breach, _hangar)."""

from __future__ import annotations

import asyncio
import re
from importlib import resources

from skirmish.bots import make_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.mission import parse_mission
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore

# the other modules each skills mission is played with: alone, with each, with all three
OTHERS = [(), ("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")]


def others_id(others: tuple[str, ...]) -> str:
    return "+".join(others) or "alone"


def bundled_with(mission_id: str, *others: str):
    """The bundled mission ``mission_id`` (a skills mission) with the modules ``others`` on too;
    with morale every profile is a pilot (seed 004)."""
    text = (resources.files("skirmish.server.missions") / f"{mission_id}.toml").read_text(encoding="utf-8")
    if others:
        modules = ", ".join(f'"{m}"' for m in ("skills", *others))
        text = text.replace('modules = ["skills"]', f"modules = [{modules}]")
        text = text.replace(f'id = "{mission_id}"', f'id = "{mission_id}-{"-".join(others)}"', 1)
    if "morale" in others:
        text = re.sub(r"^(\[profiles\.\w+\]\n)", r"\1endurance = 3\nmorale = 7\nsize = 2\n", text, flags=re.M)
    return parse_mission(text, mission_id)


def play(mission, names, seeds):
    """``(result, events, verify report)`` of each seeded game of ``mission`` between the bots
    ``names`` (a's, b's), played over the match runner and verified from its stored log."""
    async def run():
        store = MemoryStore()
        out = []
        for seed in seeds:
            bots = {"a": make_bot(names[0], 7 * seed), "b": make_bot(names[1], 7 * seed + 1)}
            result = await play_match(store, mission, bots, seed=seed)
            stored = await store.read(result.game_id)
            report = verify_log(result.game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
            out.append((result, [decode_event(s.data) for s in stored], report))
        return out

    return asyncio.run(run())

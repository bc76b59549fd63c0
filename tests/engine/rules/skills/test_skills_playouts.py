"""The skills module with each other module on, in one game (issue 14, "With the rest of the game"):
random playouts of dropzone with capture, with challenges, with morale, and with all four, end with
an outcome, deploy every unit first, and replay and verify."""

from __future__ import annotations

import asyncio
import re
from importlib import resources

import pytest

from skirmish.bots import make_bot
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event
from skirmish.engine.mission import parse_mission
from skirmish.engine.rules.skills.events import DeploymentEnded, UnitDeployed
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore

PLAYOUTS = 4


def dropzone_with(*others: str):
    text = (resources.files("skirmish.server.missions") / "dropzone.toml").read_text(encoding="utf-8")
    modules = ", ".join(f'"{m}"' for m in ("skills", *others))
    text = text.replace('modules = ["skills"]', f"modules = [{modules}]")
    text = text.replace('id = "dropzone"', f'id = "dropzone-{"-".join(others)}"', 1)
    if "morale" in others:  # every profile a pilot (seed 004)
        text = re.sub(r"^(\[profiles\.\w+\]\n)", r"\1endurance = 3\nmorale = 7\nsize = 2\n", text, flags=re.M)
    return parse_mission(text, f"dropzone-{'-'.join(others)}")


@pytest.mark.parametrize("others", [("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")],
                         ids=lambda o: "+".join(o))
def test_dropzone_with_another_module_plays_to_the_end_and_verifies(others):
    mission = dropzone_with(*others)

    async def run():
        store = MemoryStore()
        out = []
        for seed in range(PLAYOUTS):
            bots = {"a": make_bot("random", 5 * seed), "b": make_bot("random", 5 * seed + 1)}
            result = await play_match(store, mission, bots, seed=seed)
            stored = await store.read(result.game_id)
            out.append((result, stored, verify_log(result.game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])))
        return out

    for result, stored, report in asyncio.run(run()):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok, f"{result.game_id}: {report.problem} at {report.bad_seq}"
        assert report.finished and report.seed_verified
        events = [decode_event(s.data) for s in stored]
        kinds = [type(e) for e in events]
        assert kinds.count(UnitDeployed) == 6
        assert kinds.index(DeploymentEnded) < kinds.index(ev.RoundStarted)

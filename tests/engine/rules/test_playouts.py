"""Random-vs-random playouts of every bundled mission end with an outcome and verify."""

from __future__ import annotations

import asyncio

import pytest

from skirmish.bots import make_bot
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore

PLAYOUTS = 12  # per mission


@pytest.mark.parametrize("mission_id", sorted(missions.bundled()))
def test_random_playouts_end_with_an_outcome_and_verify(mission_id):
    mission = missions.load(mission_id)

    async def run():
        store = MemoryStore()
        results = []
        for seed in range(PLAYOUTS):
            bots = {"a": make_bot("random", 2 * seed), "b": make_bot("random", 2 * seed + 1)}
            result = await play_match(store, mission, bots, seed=seed)
            stored = await store.read(result.game_id)
            results.append((result, verify_log(result.game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])))
        return results

    for result, report in asyncio.run(run()):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok, f"{result.game_id}: {report.problem} at {report.bad_seq}"
        assert report.finished and report.seed_verified and report.rolls_checked == report.rolls > 0

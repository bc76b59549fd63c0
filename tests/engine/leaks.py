"""Random playouts checked for leaks, many at a time (issue 15: "at least 10,000 random playouts ...
zero leaks is the only pass"): what ``bench/bench_leaks.py`` (10,000 by default) and
``tests/engine/test_leak_playouts.py`` (1,000 in CI) share.

A playout is a random game followed by ``tests.engine.views_check.Follow``: after every event,
every secret the game's modules declare for each live viewer is looked up in what that viewer
folded from the events as ``skirmish.engine.view`` showed them. The missions are every bundled
mission whose modules declare ``secrets`` (``hiding_missions``): a new module with hidden facts
joins by declaring them. ``"<mission>+probe"`` is a mission with the test probe module on
(``tests/engine/views_probe.py``: one unit of side b hidden under a handle).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import msgspec

from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.mission import game_created
from skirmish.engine.rules import registry
from skirmish.server import missions

from tests.engine.views_check import Follow
from tests.engine.views_probe import PROBE

PROBE_SUFFIX = "+probe"


def hiding_missions() -> list[str]:
    """The bundled missions whose modules declare secrets, sorted."""
    return sorted(mid for mid, m in missions.bundled().items() if registry.rules_for(tuple(m.modules)).secrets)


def mission_of(mission_id: str, rounds: int | None = None):
    """The bundled mission (``"<id>+probe"``: with the probe on, the probe installed in this
    process's catalog for good), shortened to ``rounds`` rounds if given."""
    if mission_id.endswith(PROBE_SUFFIX):
        try:
            registry.CATALOG.module(PROBE.name)
        except KeyError:
            registry.CATALOG = registry.CATALOG.with_modules(PROBE)
        mission = missions.bundled()[mission_id[: -len(PROBE_SUFFIX)]]
        mission = msgspec.structs.replace(mission, modules=(*mission.modules, PROBE.name))
    else:
        mission = missions.bundled()[mission_id]
    return mission if rounds is None else msgspec.structs.replace(mission, rounds=min(rounds, mission.rounds))


def play(created, seed: int, limit: int = 4000) -> Follow:
    """A random playout, followed (options drawn from the full state's decisions: this is not a
    test of the bots); ``AssertionError`` if the game did not end."""
    f = Follow(created)
    dice, rng = LocalDice(seed), random.Random(seed)
    events = decide(f.truth.state, Start(), dice)
    for _ in range(limit):
        f.apply(events)
        p = f.truth.state.pending
        if p is None:
            break
        events = decide(f.truth.state, Choose(p.id, rng.choice(p.options), p.side), dice)
    assert f.truth.state.outcome is not None, "the game did not end"
    return f


@dataclass
class Tally:
    """What the playouts found: ``leaks`` holds (mission, seed, leak) for every leak (each leak:
    (seq, viewer, what, where)), ``events`` and ``checked`` (secrets looked up) in all."""

    playouts: int = 0
    events: int = 0
    checked: int = 0
    seconds: float = 0.0
    leaks: list = field(default_factory=list)
    by_mission: dict = field(default_factory=dict)  # mission -> playouts

    def add(self, other: Tally) -> None:
        self.playouts += other.playouts
        self.events += other.events
        self.checked += other.checked
        self.seconds += other.seconds
        self.leaks += other.leaks
        for k, n in other.by_mission.items():
            self.by_mission[k] = self.by_mission.get(k, 0) + n


def check_playouts(jobs, rounds: int | None = None) -> Tally:
    """Play and check each ``(mission_id, seed)`` of ``jobs``."""
    tally, made = Tally(), {}
    start = time.perf_counter()
    for mission_id, seed in jobs:
        if mission_id not in made:
            made[mission_id] = mission_of(mission_id, rounds)
        f = play(game_created(f"leak-{mission_id}-{seed}", made[mission_id], "local", ""), seed)
        tally.playouts += 1
        tally.events += f.seq
        tally.checked += f.checked
        tally.leaks += [(mission_id, seed, leak) for leak in f.leaks]
        tally.by_mission[mission_id] = tally.by_mission.get(mission_id, 0) + 1
    tally.seconds = time.perf_counter() - start
    return tally


def jobs_for(mission_ids: list[str], games: int, first_seed: int = 0) -> list[tuple[str, int]]:
    """``games`` playouts spread round-robin over the missions, each with its own seed."""
    return [(mission_ids[i % len(mission_ids)], first_seed + i) for i in range(games)]

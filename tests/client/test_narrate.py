"""skirmish.client.narrate: every event of random games of every bundled mission, as side a sees them,
narrated in one escaped line; every roll explained (issue 12, item 33)."""

from __future__ import annotations

import random
import re

import pytest

from skirmish.client.narrate import describe
from skirmish.engine import events as ev
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.view import view
from skirmish.server import missions

EXPLAINED = re.compile(r"rolls \d+d\d+ \[[\d, ]+\]( vs \d+)?: \S")


def narrate_random_game(mission_id: str, seed: int, viewer: str = "a") -> list[tuple[ev.Event, str | None]]:
    mission = missions.load(mission_id)
    rng, dice = random.Random(seed), LocalDice(seed)
    created = game_created("g-narrate", mission, "local", "")
    state, seen_state = initial_state(created), initial_state(created)
    lines = []
    for e in (ev.SeatTaken(seat="a", name="A"), ev.SeatTaken(seat="b", name="B")):
        evolve(state, e)
        evolve(seen_state, e)
    events = decide(state, Start(), dice)
    for _ in range(5000):
        for e in events:
            seen = view(state, e, viewer)
            evolve(state, e)
            if seen is not None:
                lines.append((seen, describe(seen, seen_state)))
                evolve(seen_state, seen)
        if state.pending is None:
            break
        d = state.pending
        events = decide(state, Choose(decision_id=d.id, option=rng.choice(d.options), side=d.side), dice)
    assert state.pending is None, "the game did not end"
    return lines


@pytest.mark.parametrize("mission,seed", [("ridge", 1), ("outpost", 2), ("snatch", 3), ("knives", 4),
                                          ("foundry", 5), ("snatch", 6), ("knives", 7)])
def test_every_event_is_one_line_and_every_roll_is_explained(mission, seed):
    purposes = set()
    for event, line in narrate_random_game(mission, seed):
        if line is None:
            continue
        assert "\n" not in line and "\x1b" not in line
        assert line != type(event).__name__, f"{type(event).__name__} has no narration"
        if isinstance(event, ev.DiceRolled):
            purposes.add(event.purpose.split(":")[0])
            assert "[]" not in line and "rolls 0d" not in line, line
            if "salt" not in line and "hidden" not in line:
                assert EXPLAINED.search(line), line
        if isinstance(event, ev.OptionChosen):
            assert re.match(r"side [ab] chooses: \S", line), line
            assert not re.search(r"chooses: (fate \d|card \w)", line), line
    assert {"initiative", "task"} <= purposes


def test_a_task_roll_reads_successes_complications_and_momentum():
    lines = [line for _, line in narrate_random_game("ridge", 1) if line]
    tasks = [line for line in lines if "(task:" in line]
    assert tasks and all(re.search(r": \d+ success(es)?, (no|\d+) Complications?", t) for t in tasks)
    results = [line for line in lines if "=> " in line]
    assert results and all(re.search(r"against Difficulty \d+: (passed|failed)", r) for r in results)
    assert any("Momentum" in r for r in results)
    damage = [line for line in lines if "(damage," in line]
    assert damage and all(re.search(r": \d+ damage", d) for d in damage)

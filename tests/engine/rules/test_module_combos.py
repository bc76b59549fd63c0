"""Modules compose: a mission may switch on more than one (RULES-BRIEF "Modules"). The bundled
capture and challenges missions with the morale module added play random games to the end, and
each log replays to the live state."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from skirmish.engine.codec import state_hash
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice.local import LocalDice
from skirmish.engine.evolve import evolve, initial_state, replay
from skirmish.engine.mission import game_created, parse_mission

MISSIONS = Path(__file__).resolve().parents[3] / "server" / "missions"


def with_morale(name: str):
    """A bundled mission with ``morale`` added to its modules and a pilot in every profile."""
    text = (MISSIONS / f"{name}.toml").read_text()
    text, n = re.subn(r'modules = \["(\w+)"\]', r'modules = ["\1", "morale"]', text, count=1)
    assert n == 1
    text = re.sub(r"(\[profiles\.\w+\]\n)", lambda m: m.group(1) + "endurance = 3\nmorale = 7\nsize = 1\n", text)
    return parse_mission(text, f"{name}+morale")


@pytest.mark.parametrize("name, module", [("snatch", "capture"), ("knives", "challenges")])
def test_two_modules_on_at_once_play_to_the_end_and_replay(name, module):
    mission = with_morale(name)
    assert mission.modules == (module, "morale")
    kinds: set[str] = set()
    names: set[str] = set()
    for g in range(4):
        created = game_created(f"g{g}", mission, "local", "")
        state, log = initial_state(created), [created]
        dice, rng = LocalDice(g), random.Random(g)
        events = decide(state, Start(), dice)
        while True:
            for e in events:
                evolve(state, e)
            log += events
            names.update(type(e).__name__ for e in events)
            if state.outcome is not None:
                break
            p = state.pending
            kinds.add(p.kind)
            events = decide(state, Choose(p.id, rng.choice(p.options), p.side), dice)
        assert state_hash(replay(log)) == state_hash(state)
    assert "TokensChanged" in names and kinds & {"reroll", "test_reroll", "initiative_reroll"}  # morale took part
    if module == "challenges":
        assert {"CardDrawn", "ActionPointsChanged"} <= names

"""Scenarios with the skills module on (seed 003): profiles with skills and seed 003's numbers,
a board with deployment zones, and units that deploy."""

from __future__ import annotations

import re

from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created, parse_mission

from tests.engine.rules.scenario import Scenario, mission_text

PROFILES = """
[profiles.trooper]
kind = "hero"
control = 10
daring = 9
fitness = 9
presence = 9
command = 2
security = 2
weapons = ["phaser", "knife"]
skills = ["infiltrate 1", "immunity shock"]
troop_type = "MI"

[profiles.sniper]
kind = "hero"
control = 11
fitness = 8
security = 3
weapons = ["rifle"]
skills = ["marksmanship x", "marksmanship l2"]
bs = 15
arm = 1
"""

# 8 x 8: side a's zone in rows 0-1 (a blocking cell at (3,0)), side b's in rows 6-7
ZONES = "aaa#aaaa\naaaaaaaa\n........\n........\n........\n........\nbbbbbbbb\nbbbbbbbb"
# the same with small zones: two cells for a, two for b
SMALL = "aa......\n........\n........\n........\n........\n........\n........\n......bb"


def skills_text(units, map: str = ZONES, deploy=(), extra: str = "", modules=("skills",), rounds: int = 3) -> str:
    """A mission with ``modules`` on; ``units`` as ``scenario.mission_text`` takes them; the ids in
    ``deploy`` deploy. With the morale module, every profile has a pilot."""
    text = mission_text(units, map, rounds, PROFILES + extra, modules)
    if "morale" in modules:  # every profile a pilot (seed 004)
        text = re.sub(r"^(\[profiles\.\w+\]\n)", r"\1endurance = 3\nmorale = 7\n", text, flags=re.M)
    for uid in deploy:
        text, n = re.subn(rf'(\nid = "{uid}"\n)', r'\1deploy = true\n', text)
        assert n == 1, uid
    return text


class SkillsScenario(Scenario):
    """``Scenario`` on ``skills_text``."""

    def __init__(self, units, map: str = ZONES, deploy=(), extra: str = "", modules=("skills",), rounds: int = 3):
        self.mission = parse_mission(skills_text(units, map, deploy, extra, modules, rounds), "test")
        self.first = game_created("t", self.mission, "local", "")
        self.state = initial_state(self.first)
        self.log = [self.first]

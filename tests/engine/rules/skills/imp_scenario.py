"""Impersonation scenarios (seed 003; skills/impersonation.py): an 8 x 8 board with deployment
zones (side a's rows 0-1, side b's rows 6-7), an impersonator of side b that deploys, and troopers."""

from __future__ import annotations

from tests.engine.rules.skills.skills_scenario import ZONES, SkillsScenario

EXTRA = """
[profiles.fusilier]
kind = "hero"
control = 10
daring = 9
fitness = 9
command = 1
security = 2
weapons = ["phaser", "knife"]
wip = 12
skills = ["dodge", "change facing"]

[profiles.fiday]
kind = "hero"
control = 11
fitness = 9
security = 2
weapons = ["phaser", "knife"]
wip = 13
cc = 18
skills = ["impersonation 2"]

[profiles.basic]
kind = "hero"
control = 11
fitness = 9
security = 2
weapons = ["phaser", "knife"]
wip = 13
skills = ["impersonation 1"]
"""
SALT = (7,) * 8  # the secrecy salt's 8 d65536
# a1 a Fusilier at (2,1) in side a's zone; b1 the impersonator, deploying; b2 a Fusilier of side b
UNITS = [("a1", "a", "fusilier", 2, 1), ("b1", "b", "fiday", 4, 7), ("b2", "b", "fusilier", 7, 7)]


def imp_game(units=UNITS, deploy=("b1",), alien: str = "", map: str = ZONES, salt=SALT) -> SkillsScenario:
    """Started: the salt drawn, the markers assigned; side b's placement of its impersonator pending."""
    extra = EXTRA + (f'\n[skills]\nalien = ["{alien}"]\n' if alien else "")
    s = SkillsScenario(units, map=map, deploy=deploy, extra=extra)
    s.start(*salt)
    return s


def marker(s, uid: str = "b1") -> str:
    return next(m for m, u in s.state.imp_markers.items() if u == uid)


def placed(s, x: int, y: int, *dice, uid: str = "b1", first: str = "b"):
    """``uid`` placed as a marker at (x, y) (``dice``: its WIP Roll if in the enemy zone), then the
    initiative (side a 10, side b 1) and side a's choice that ``first`` acts first."""
    s.when("impersonate", x, y, dice=(*dice, 10, 1))
    s.when("first", first)
    return s

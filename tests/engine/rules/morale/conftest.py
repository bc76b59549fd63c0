"""Scenarios with the morale module on: mech profiles with pilots, and a wide board so that
10" (10 cells) can be out of reach."""

from __future__ import annotations

import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.morale import events as mev

from tests.engine.rules.scenario import Scenario, mission_text

MECHS = """
[profiles.chief]
kind = "hero"
daring = 10
control = 10
fitness = 9
command = 3
security = 2
weapons = ["phaser", "knife"]
points = 3
endurance = 3
morale = 8
size = 3
command_unit = true

[profiles.heavy]
kind = "hero"
daring = 10
control = 10
fitness = 10
command = 1
security = 2
weapons = ["phaser", "knife"]
points = 4
endurance = 4
morale = 8
size = 4

[profiles.mech]
kind = "hero"
daring = 10
control = 10
fitness = 9
command = 2
security = 2
medicine = 2
weapons = ["phaser", "knife"]
points = 2
endurance = 3
morale = 7
size = 2

[profiles.scout]
kind = "hero"
daring = 10
control = 10
fitness = 8
command = 1
security = 2
weapons = ["phaser", "knife"]
points = 1
endurance = 2
morale = 6
size = 1
"""

WIDE_MAP = "\n".join(["................"] * 8)  # 16 x 8


def morale_text(units, map: str = WIDE_MAP, rounds: int = 3) -> str:
    return mission_text(units, map, rounds, MECHS, modules=("morale",))


class MoraleScenario(Scenario):
    def __init__(self, units, map: str = WIDE_MAP, rounds: int = 3):
        super().__init__(units, map, rounds, extra=MECHS, modules=("morale",))

    def when(self, *option, dice=()) -> list:
        """As ``Scenario.when``; an initiative re-roll window the test does not answer itself
        (it answers with another option) is kept first."""
        events = []
        p = self.pending
        if p is not None and p.kind == "initiative_reroll" and tuple(option) not in p.options:
            events += super().when("keep")
        return events + super().when(*option, dice=dice)

    def start(self, *dice: int) -> list:
        events = super().start(*dice)
        if self.pending is not None and self.pending.kind == "initiative_reroll":
            events += super().when("keep")  # the tests' default: the loser keeps the dice
        return events

    def tokens(self, a: int | None = None, b: int | None = None) -> "MoraleScenario":
        """Given: set the sides' Command Tokens."""
        for side, n in (("a", a), ("b", b)):
            if n is not None and n != self.state.tokens[side]:
                self.given(mev.TokensChanged(side=side, delta=n - self.state.tokens[side], reason="test"))
        return self

    def out_of_action(self, *uids: str) -> "MoraleScenario":
        for uid in uids:
            self.given(ev.InjurySuffered(unit=uid, lethal=False, result="nonlethal"))
        return self

    def unconscious(self, uid: str) -> "MoraleScenario":
        u = self.unit(uid)
        self.given(mev.EnduranceChanged(unit=uid, delta=-u.endurance, reason="test"), mev.PilotUnconscious(unit=uid))
        return self

    def finish_round(self, dice=()) -> list:
        """Every unit still to act ends its turn at once; the End Phase runs with ``dice``."""
        events = []
        while self.pending is not None and self.pending.kind in ("activate", "act", "keep_initiative"):
            p = self.pending
            option = {"activate": p.options[0], "act": ("end",), "keep_initiative": ("pass",)}[p.kind]
            events += self.when(*option, dice=dice)
        return events


@pytest.fixture
def scenario():
    return MoraleScenario


class ModulesScenario(MoraleScenario):
    """The morale scenario with other modules on too (``modules``, in that order), ``extra`` the
    other modules' mission data and profiles; ``start`` dice default as the modules need."""

    def __init__(self, units, modules=("morale",), extra: str = "", map: str = WIDE_MAP, rounds: int = 3):
        Scenario.__init__(self, units, map, rounds, extra=MECHS + extra, modules=modules)

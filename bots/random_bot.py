"""``random``: picks uniformly among the options offered. The baseline every bot must beat."""

from __future__ import annotations

from skirmish.bots.base import Bot
from skirmish.engine.model import Decision, Option, State


class RandomBot(Bot):
    name = "random"

    def choose(self, view: State, decision: Decision) -> Option:
        return self.rng.choice(decision.options)

"""The bot interface: one small class to subclass (DESIGN.md section 7).

A bot sees only its own side's view: ``view`` is the state its client has reduced from the
events the server showed that side (``skirmish.engine.view``), never the true state. It answers the
pending ``decision`` with one of ``decision.options``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from skirmish.engine.model import Decision, Option, State


class Bot(ABC):
    """Subclass and implement ``choose``. ``name`` shows in tournaments and logs."""

    name = "bot"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def new_game(self, side: str) -> None:
        """Called before the first decision of a game, with the side this bot plays."""
        self.side = side

    @abstractmethod
    def choose(self, view: State, decision: Decision) -> Option:
        """Return one of ``decision.options``."""

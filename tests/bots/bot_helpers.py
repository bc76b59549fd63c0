"""Helpers for the bot tests.

``SideViews`` keeps a game's true state and each side's view of it; ``sample_decisions``
collects (view, decision) pairs from random playouts of a bundled mission, each with the
deciding side's view state: what a bot is handed in a match.
"""

from __future__ import annotations

import random

from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.model import Decision, State
from skirmish.engine.view import view
from skirmish.server import missions


class SideViews:
    """The true state and each side's view of it, reduced from the events as ``view`` shows them."""

    def __init__(self, mission_id: str, dice_seed: int):
        first = game_created(f"g-{mission_id}-{dice_seed}", missions.load(mission_id), "local", "")
        self.state = initial_state(first)
        self.views = {}
        for side in ("a", "b"):
            seen = view(self.state, first, side)  # GameCreated: its view sees the state it creates
            self.views[side] = initial_state(seen)
        self.dice = LocalDice(dice_seed)
        self.apply(decide(self.state, Start(), self.dice))

    def apply(self, events) -> None:
        for e in events:
            for side, v in self.views.items():
                seen = view(self.state, e, side)  # in the state before the event
                if seen is not None:
                    evolve(v, seen)
            evolve(self.state, e)

    def play(self, option) -> None:
        p = self.state.pending
        self.apply(decide(self.state, Choose(p.id, option, p.side), self.dice))

    @property
    def over(self) -> bool:
        return self.state.outcome is not None


def sample_decisions(mission_id: str, games: int, per_kind: int, seed: int = 0) -> dict[str, list[tuple[State, Decision]]]:
    """Up to ``per_kind`` decisions of each kind met in ``games`` random playouts (a uniform
    sample of each kind), each with a copy of the deciding side's view."""
    from skirmish.bots.simulate import clone

    rng = random.Random(seed)
    seen: dict[str, int] = {}
    out: dict[str, list] = {}
    for g in range(games):
        sv = SideViews(mission_id, seed + g)
        while not sv.over:
            p = sv.state.pending
            k = seen[p.kind] = seen.get(p.kind, 0) + 1
            slot = k - 1 if k <= per_kind else rng.randrange(k)
            if slot < per_kind:
                v = sv.views[p.side]
                kept = out.setdefault(p.kind, [])
                item = (clone(v), v.pending)
                if slot < len(kept):
                    kept[slot] = item
                else:
                    kept.append(item)
            sv.play(rng.choice(p.options))
    return out

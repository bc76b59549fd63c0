"""One game of a mission run locally for learning agents: the true state and each side's view.

``Match`` holds the game's true state, which only the engine reads (``decide`` and ``evolve``), and
each side's view: the state that side folds from the events as ``skirmish.engine.view`` shows them
to it, exactly what a client of the server holds. Everything an agent is given (observations,
the pending decision, its options) comes from its own view; the true state only moves the game
on and says when it is over.

Chance is the engine's: every roll goes through the game's ``Dice``, here ``LocalDice(seed)``
(seeded, replayable: the same seed and the same choices give the same game).
"""

from __future__ import annotations

from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.events import DiceRolled, Event
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import Mission, game_created
from skirmish.engine.model import SIDES, Decision, Option, Outcome, State
from skirmish.engine.rules.core.flow import points
from skirmish.engine.view import view


class Match:
    """A game of ``mission`` with dice seeded by ``seed``, started and waiting for its first decision."""

    def __init__(self, mission: Mission, seed: int):
        self.mission = mission
        self.seed = seed
        first = game_created(f"research-{mission.id}-{seed}", mission, "local", "")
        self._state = initial_state(first)
        # GameCreated's view sees the state it creates; each side starts from its own view of it
        self.views: dict[str, State] = {s: initial_state(view(self._state, first, s)) for s in SIDES}
        self.dice = LocalDice(seed)
        self.rolls: list[DiceRolled] = []  # the rolls of the last transition, as the engine logged them
        self.decisions = 0
        self._apply(decide(self._state, Start(), self.dice))

    def _apply(self, events: list[Event]) -> None:
        self.rolls = [e for e in events if type(e) is DiceRolled]
        for e in events:
            for side, v in self.views.items():
                seen = view(self._state, e, side)  # each side's view, given the state before the event
                if seen is not None:
                    evolve(v, seen)
            evolve(self._state, e)

    @property
    def outcome(self) -> Outcome | None:
        return self._state.outcome

    @property
    def over(self) -> bool:
        return self._state.outcome is not None

    @property
    def to_move(self) -> str | None:
        """The side whose decision is pending (None: the game is over)."""
        p = self._state.pending
        return None if p is None or self.over else p.side

    def decision(self, side: str) -> Decision | None:
        """The pending decision as ``side`` sees it (its own view), None unless it is ``side``'s."""
        p = self.views[side].pending
        return p if p is not None and p.side == side and not self.over else None

    def play(self, option: Option) -> None:
        """The side to move answers its pending decision with ``option`` (one of its options)."""
        p = self._state.pending
        self._apply(decide(self._state, Choose(p.id, tuple(option), p.side), self.dice))
        self.decisions += 1

    def points(self, side: str) -> dict[str, int]:
        """Victory points as ``side``'s view counts them (``skirmish.engine.rules.core.flow.points``)."""
        return points(self.views[side])

    def result(self, side: str) -> float:
        """+1 if ``side`` won, -1 if it lost, 0 for a draw or a game not over."""
        o = self._state.outcome
        if o is None or o.winner is None:
            return 0.0
        return 1.0 if o.winner == side else -1.0

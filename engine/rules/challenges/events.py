"""The challenges module's events (seed 002): part of the log's closed union (``skirmish.engine.events.AnyEvent``).

What of them is hidden, and from whom: ``skirmish.engine.rules.challenges.hidden``.
"""

from __future__ import annotations

from skirmish.engine.base import Event, Hidden


class SaltDrawn(Event):
    """Secret dice mixed into the state, so that a Checkpoint's hash cannot be searched for the
    hidden hands (``Hidden`` in every view until the game is over)."""

    salt: tuple[int, ...] | Hidden


class ActionPointsChanged(Event):
    side: str
    delta: int
    reason: str


class CardDrawn(Event):
    """``side`` drew ``card`` from its deck (the other side and spectators see a ``Hidden``)."""

    side: str
    card: str | Hidden


class CardPlayed(Event):
    side: str
    card: str
    unit: str = ""


class CardCreated(Event):
    """A threshold challenge won: ``card`` is added to ``side``'s hand (public: the ability says
    what it creates)."""

    side: str
    card: str
    unit: str = ""


class FateChanged(Event):
    unit: str
    delta: int
    reason: str


class ChallengeResolved(Event):
    """The damage assessment's dialogue: who rolled what and what it came to."""

    op: str
    attacker: str
    target: str
    attacker_successes: int
    defender_successes: int  # the threshold, for a threshold challenge
    result: str  # "wounds" | "damage" | "duel" | "created" | "failed" | "none"
    amount: int = 0


class FacilityDamaged(Event):
    facility: str
    amount: int


class FacilityDestroyed(Event):
    facility: str


class StealthChanged(Event):
    unit: str
    stealthed: bool
    reason: str = ""


EVENTS = (SaltDrawn, ActionPointsChanged, CardDrawn, CardPlayed, CardCreated, FateChanged, ChallengeResolved,
          FacilityDamaged, FacilityDestroyed, StealthChanged,)

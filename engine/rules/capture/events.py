"""The capture module's events (seed 000): part of the log's closed union (``skirmish.engine.events.AnyEvent``)."""

from __future__ import annotations

from skirmish.engine.base import Event


class D12Tested(Event):
    """A seed 000 test: the d12 just rolled (the ``DiceRolled`` before this event, ``nonce``)
    against D(``difficulty``), grouped into the most disjoint sets whose totals each reach it.
    ``groups`` are the dice of each set (one success each); ``needed`` successes pass."""

    unit: str
    test: str  # "capture" | "free" | "escape"
    nonce: int
    difficulty: int
    groups: tuple[tuple[int, ...], ...]
    successes: int
    needed: int
    passed: bool


class UnitCaptured(Event):
    unit: str  # the captive
    by: str  # the hero who captured it


class CaptiveEscaped(Event):
    unit: str


class CaptiveFreed(Event):
    unit: str  # the captive
    by: str  # the friend who freed it


class BonusActionsGained(Event):
    unit: str
    count: int


class BonusActionTaken(Event):
    """One bonus action spent on an extra Minor Action (whose own events follow)."""

    unit: str
    action: str


class BonusActionsLost(Event):
    """Bonus actions not spent by the end of the round are gone."""

    unit: str


class DragStarted(Event):
    unit: str
    captive: str


class DragEnded(Event):
    unit: str


class CaptiveRemoved(Event):
    """``unit`` took the captive it drags off the table by the mission's exit."""

    unit: str
    captive: str
    xp: int


EVENTS = (D12Tested, UnitCaptured, CaptiveEscaped, CaptiveFreed, BonusActionsGained, BonusActionTaken, BonusActionsLost, DragStarted, DragEnded, CaptiveRemoved,)

"""The morale module's events (seed 004): part of the log's closed union (``skirmish.engine.events.AnyEvent``)."""

from __future__ import annotations

from skirmish.engine.base import Event


class TokensChanged(Event):
    """A side's Command Tokens change: the TCV at the start, spent, or lost with the commander."""

    side: str
    delta: int
    reason: str


class EnduranceChanged(Event):
    unit: str
    delta: int  # -1 for a failed Endurance test, +1 for End Phase recovery
    reason: str


class PilotUnconscious(Event):
    unit: str


class PilotWoke(Event):
    """An Unconscious pilot rolled a 6: conscious again with one Endurance."""

    unit: str


class FearDue(Event):
    """An enemy two or more Size Classes bigger moved within 10": a Morale Test at the end of the phase."""

    unit: str
    enemy: str


class FearTestsTaken(Event):
    """The phase ended: the Fear tests due are taken now (each a MoraleTestFrame)."""


class FearTaken(Event):
    """A failed Morale Test for Fear: a Fear Token and an action counter."""

    unit: str


class FearRemoved(Event):
    unit: str
    reason: str  # "morale test" | "unconscious"


class MoveBoosted(Event):
    """A Command Token adds one to the unit's Movement until the end of the turn."""

    unit: str


class MoveBoostsEnded(Event):
    pass


class ActionCounterRemoved(Event):
    unit: str


class UnitRested(Event):
    """The unit stood down its activation without an action: its action counter is removed and
    it is not activated again this round (so its pilot recovers in the End Phase)."""

    unit: str


class RestsEnded(Event):
    pass


class CommanderLost(Event):
    """The Team Commander's unit is out of action (its side loses two Command Tokens)."""

    side: str


class CourageTestDue(Event):
    side: str
    lost_units: int  # the side's units out of action now


class CourageFailed(Event):
    """The side retreats: it loses the game once the End Phase is over."""

    side: str


EVENTS = (TokensChanged, EnduranceChanged, PilotUnconscious, PilotWoke, FearDue, FearTestsTaken, FearTaken, FearRemoved, MoveBoosted, MoveBoostsEnded, ActionCounterRemoved, UnitRested, RestsEnded, CommanderLost, CourageTestDue, CourageFailed,)

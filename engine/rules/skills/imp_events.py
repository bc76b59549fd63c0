"""The events of Impersonation and Discover (seed 003, "IMPERSONATION"; issue 15;
skills/impersonation.py, skills/discover.py, skills/markers.py for what each viewer sees)."""

from __future__ import annotations

from skirmish.engine.base import Event, Hidden


class ImpersonatorsAssigned(Event):
    """At the game's start, after the secrecy salt: ``side``'s impersonators that deploy, each
    given a marker id (``markers``, sorted) in an order drawn from the salt; ``units`` the unit
    behind each, in the same order: each a ``Hidden("unit")`` for the other side and spectators.
    The side places them last of its units, in this order (skills/deploy.py)."""

    side: str
    markers: tuple[str, ...]
    units: tuple[str | Hidden, ...]


class MarkerPlaced(Event):
    """An Impersonation-1 Marker (IMP-1) is on the table at (``x``, ``y``): deployed as one, or
    regained by an Entire Order (``why`` "deployed" / "regained"). ``unit``, the impersonator, is a
    ``Hidden("unit")`` for the other side and spectators until the marker is revealed;
    ``silhouette`` is the profile's (public: "IMP-1 Markers retain the Silhouette")."""

    marker: str
    side: str
    unit: str | Hidden
    x: int
    y: int
    silhouette: int
    why: str = "deployed"


class MarkerDiscovered(Event):
    """A passed Discover Roll against an IMP-1 marker: it is an IMP-2 marker now (still a marker:
    who is behind it stays hidden)."""

    marker: str
    by: str


class ImpersonationRevealed(Event):
    """The marker is replaced by the impersonator's figure at (``x``, ``y``) and the unit is public
    from now on. ``why``: "deployed as a figure", "failed deployment roll", "discovered",
    "declared" (a Skill that cancels the state), "surprise attack", "surprise shot", "base contact",
    "retreat!"."""

    marker: str
    unit: str
    x: int
    y: int
    why: str


class ImpersonatorDispersed(Event):
    """A failed deployment roll's Dispersion (skills/impersonation.py, "the grid's circular
    template"): the figure moves to (``x``, ``y``); ``direction`` 1-16 on the template's rim, 0
    when it fell back to its own Deployment Zone at a table edge."""

    unit: str
    direction: int
    x: int
    y: int


class ImpersonationLost(Event):
    """The unit has lost the use of Impersonation: ``why`` "burnt" (Fire Special Ammunition, a
    Burnt marker, until repaired: no repair exists in this game)."""

    unit: str
    why: str


class DiscoverFailed(Event):
    """``unit`` failed its Discover Roll against ``marker``: it may not try to Discover that
    impersonator again until the end of this Turn (``order``, the activation it failed in)."""

    unit: str
    marker: str
    order: str


IMP_EVENTS = (ImpersonatorsAssigned, MarkerPlaced, MarkerDiscovered, ImpersonationRevealed, ImpersonatorDispersed,
              ImpersonationLost, DiscoverFailed)

"""The evolve handlers of Impersonation and Discover (skills/imp_events.py).

The same handlers fold the full log and a view of it. In the view of a side that may not know
who is behind a marker (skills/markers.py), a ``MarkerPlaced`` holds a ``Hidden("unit")``: the
handler then keeps the marker as a unit of its own, under the marker's id (a *shadow*: no name,
the profile's Silhouette, nothing else of the profile), which the events the view renames to the
marker move and activate; an ``ImpersonationRevealed`` puts the real unit where the shadow
stood and drops the shadow. The full state never holds a shadow.
"""

from __future__ import annotations

from skirmish.engine.base import Hidden
from skirmish.engine.base import unit_of as _unit
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import Stats, State, Unit
from skirmish.engine.rules.skills import imp_events as ev


def _impersonators_assigned(s: State, e: ev.ImpersonatorsAssigned) -> None:
    if len(e.markers) != len(e.units) or any(m in s.imp_markers for m in e.markers):
        raise InvalidEvent("markers assigned twice, or without their units")
    s.imp_markers = {**s.imp_markers, **dict(zip(e.markers, e.units))}


def shadow(marker: str, side: str, x: int, y: int, silhouette: int) -> Unit:
    """The unit a view keeps for a marker it cannot name."""
    return Unit(id=marker, side=side, name=Hidden("name"), stats=Stats(), stress_max=0, stress=0, resistance=0,
                weapons=(), x=x, y=y, silhouette=silhouette, deployed=True)


def _marker_placed(s: State, e: ev.MarkerPlaced) -> None:
    if not (0 <= e.x < s.board.width and 0 <= e.y < s.board.height):
        raise InvalidEvent(f"({e.x},{e.y}) is off the board")
    if e.marker in s.imp_states:
        raise InvalidEvent(f"marker {e.marker} is already on the table")
    if isinstance(e.unit, Hidden):
        s.units[e.marker] = shadow(e.marker, e.side, e.x, e.y, e.silhouette)
    else:
        u = _unit(s, e.unit)
        if u.side != e.side:
            raise InvalidEvent(f"{e.unit} is not side {e.side}'s")
        u.x, u.y, u.deployed = e.x, e.y, True
        known = s.imp_markers.get(e.marker)
        if known is not None and not isinstance(known, Hidden) and known != e.unit:
            raise InvalidEvent(f"marker {e.marker} is not {e.unit}'s")
    s.imp_markers = {**s.imp_markers, e.marker: e.unit if e.marker not in s.imp_markers
                     or not isinstance(e.unit, Hidden) else s.imp_markers[e.marker]}
    s.imp_states = {**s.imp_states, e.marker: "imp1"}
    if e.why == "deployed":
        s.deployer = e.side


def _marker_discovered(s: State, e: ev.MarkerDiscovered) -> None:
    if s.imp_states.get(e.marker) != "imp1":
        raise InvalidEvent(f"no IMP-1 marker {e.marker} on the table")
    s.imp_states = {**s.imp_states, e.marker: "imp2"}


# the skills fields naming units (skills/fields.py) that a view may have filled with a shadow's name
# while the marker stood (a Lieutenant Order by a unit behind it, its Change Facing, ...); the sorted ones
_NAMES = ("coordinated", "reacted", "infiltration_failed")
_SORTED_NAMES = ("targeted", "possessed", "dogged", "unfazed", "guts_due")
_PAIRS = ("metachemistry",)
_SORTED_PAIRS = ("facings", "terrains")


def rename_shadow(s: State, marker: str, uid: str) -> None:
    """Every unit field of the skills state naming the shadow ``marker`` names ``uid`` instead (a
    view's reveal; the search's sampler, skills/markers.py): a name left behind would point at no
    unit, and a later event of that field (a Lieutenant Order) would fail to fold."""
    one = lambda x: uid if x == marker else x  # noqa: E731
    for f in _NAMES + _SORTED_NAMES:
        names = tuple(one(x) for x in getattr(s, f))
        setattr(s, f, tuple(sorted(names)) if f in _SORTED_NAMES else names)
    for f in _PAIRS + _SORTED_PAIRS:
        pairs = tuple((one(p[0]), *p[1:]) for p in getattr(s, f))
        setattr(s, f, tuple(sorted(pairs)) if f in _SORTED_PAIRS else pairs)
    if marker in s.lieutenants.values():
        s.lieutenants = {side: one(x) if isinstance(x, str) else x for side, x in s.lieutenants.items()}


def _revealed(s: State, e: ev.ImpersonationRevealed) -> None:
    known = s.imp_markers.get(e.marker)
    if known is None or (not isinstance(known, Hidden) and known != e.unit):
        raise InvalidEvent(f"{e.unit} is not behind marker {e.marker}")
    u = _unit(s, e.unit)
    ghost = s.units.pop(e.marker, None)  # a view's shadow: the unit takes its place
    if ghost is not None:
        u.deployed, u.acted, u.prone = True, ghost.acted, ghost.prone
        if s.turn is not None and s.turn.unit == e.marker:
            s.turn.unit = e.unit
        rename_shadow(s, e.marker, e.unit)
    if e.marker in s.imp_states or ghost is not None:
        u.x, u.y = e.x, e.y
    s.imp_markers = {**s.imp_markers, e.marker: e.unit}
    s.imp_states = {m: v for m, v in s.imp_states.items() if m != e.marker}
    s.imp_known = tuple(sorted({*s.imp_known, e.marker}))
    if u.deployed:
        s.imp_facing = (*s.imp_facing, e.unit)
    if e.why in ("surprise attack", "surprise shot") and s.turn is not None:
        s.imp_surprise = f"{s.round}:{e.unit}"


def _dispersed(s: State, e: ev.ImpersonatorDispersed) -> None:
    u = _unit(s, e.unit)
    if not (0 <= e.x < s.board.width and 0 <= e.y < s.board.height):
        raise InvalidEvent(f"({e.x},{e.y}) is off the board")
    u.x, u.y, u.deployed = e.x, e.y, True


def _lost(s: State, e: ev.ImpersonationLost) -> None:
    _unit(s, e.unit)
    s.imp_lost = tuple(sorted({*s.imp_lost, e.unit}))


def _discover_failed(s: State, e: ev.DiscoverFailed) -> None:
    if e.marker not in s.imp_states:
        raise InvalidEvent(f"no marker {e.marker} on the table")
    s.imp_barred = (*(b for b in s.imp_barred if b[2] == e.order), (e.unit, e.marker, e.order))


HANDLERS = {
    ev.ImpersonatorsAssigned: _impersonators_assigned,
    ev.MarkerPlaced: _marker_placed,
    ev.MarkerDiscovered: _marker_discovered,
    ev.ImpersonationRevealed: _revealed,
    ev.ImpersonatorDispersed: _dispersed,
    ev.ImpersonationLost: _lost,
    ev.DiscoverFailed: _discover_failed,
}

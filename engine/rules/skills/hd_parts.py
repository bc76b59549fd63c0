"""Hidden Deployment's data parts (seed 003, "the Hidden Deployment option granted by the Camouflage
and Hiding (CH) Special Skill"; issue 15; the rules are ``hidden_deployment.py``): its events, its
reveal window's frame and their evolve handlers, gathered by the skills module's ``events.py``,
``frames.py`` and ``evolve.py``. Imports only ``skirmish.engine.base`` and the model, like every data part.

The truth keeps a unit in Hidden Deployment off the table, in ``State.hidden`` (by id), like a
Pilot aboard (``State.aboard``): it is in no core computation (no cell held, no target, no
activation) until it is revealed. A view of the other side holds it under its handle
(``State.hidden_handles``: id -> handle, "hidden-b1"), its name and position ``Hidden``.
"""

from __future__ import annotations

from skirmish.engine.base import Event, Frame, Hidden
from skirmish.engine.errors import InvalidEvent
State = object  # the model imports this file (its frames): annotations only


class HiddenPlaced(Event):
    """``side`` placed its unit ``unit`` in Hidden Deployment at (``x``, ``y``), in private: the
    other side and spectators see its handle as ``unit`` and a ``Hidden("position")``."""

    side: str
    unit: str
    x: int | Hidden
    y: int | Hidden


class HiddenRevealed(Event):
    """``side``'s unit in Hidden Deployment, shown until now as ``handle``, reveals itself: it is
    ``unit``, named ``name``, at (``x``, ``y``), on the table from now on (public)."""

    side: str
    unit: str
    handle: str
    name: str | Hidden
    x: int
    y: int


class OrderDisrupted(Event):
    """``unit``'s Order fails its Requirements once ``by`` revealed itself: it cannot be carried
    out and the Order is lost (seed 003's Impersonation example; ``hidden_deployment.REQUIREMENTS``)."""

    unit: str
    by: str


class CamouflageDiscovered(Event):
    """``side``'s Camouflage marker ``handle`` is Discovered (``why``: "sat-lock"): the marker is
    replaced with the model, ``unit`` named ``name``, on the same cell (public)."""

    side: str
    handle: str
    unit: str
    name: str
    why: str


class HiddenFrame(Frame, tag="hidden_window"):
    """A reveal window (``hidden_deployment.py``): ``side`` may reveal one of its hidden units to
    declare an ARO against ``actor``'s Order, just declared (a move made or an attack declared)."""

    actor: str
    side: str


EVENTS = (HiddenPlaced, HiddenRevealed, OrderDisrupted, CamouflageDiscovered)
FRAMES = (HiddenFrame,)


def handles(created) -> dict[str, str]:
    """id -> handle for each unit that deploys hidden, "hidden-<side><n>" in the mission's order
    of the side's hidden units (a view lists them under their handles in the same order)."""
    out, count = {}, {}
    for u in created.units:
        if getattr(u, "hidden_deploy", False):
            count[u.side] = count.get(u.side, 0) + 1
            out[u.id] = f"hidden-{u.side}{count[u.side]}"
    return out


def marker_handles(created) -> dict[str, str]:
    """id -> handle for each unit that deploys as a Camouflage marker, "camo-<side><n>" in the
    mission's order of the side's markers (a view lists them under their handles in the same order)."""
    out, count = {}, {}
    for u in created.units:
        if getattr(u, "camouflaged", False):
            count[u.side] = count.get(u.side, 0) + 1
            out[u.id] = f"camo-{u.side}{count[u.side]}"
    return out


def initial(s: State, created) -> None:
    """Each unit that deploys hidden starts off the table, in ``State.hidden``; each Camouflage
    marker is on the table under its handle (every event names it so until it is Discovered), its
    id kept in ``State.markers`` (handle -> id; the other side's view: handle -> handle)."""
    s.hidden_handles = handles(created)
    for uid in [u for u in s.units if u in s.hidden_handles]:
        s.hidden[uid] = s.units.pop(uid)
    camo = marker_handles(created)
    for uid, handle in camo.items():
        u = s.units.pop(uid)
        u.id = handle
        s.units[handle] = u
        s.markers[handle] = uid
    if camo:
        s.units = dict(sorted(s.units.items()))


def _placed(s: State, e: HiddenPlaced) -> None:
    u = s.hidden.get(e.unit)
    if u is None or u.side != e.side or u.deployed:
        raise InvalidEvent(f"{e.unit!r} is not a unit of side {e.side} waiting to deploy hidden")
    if not isinstance(e.x, Hidden) and not (0 <= e.x < s.board.width and 0 <= e.y < s.board.height):
        raise InvalidEvent(f"({e.x},{e.y}) is off the board")
    u.x, u.y, u.deployed = e.x, e.y, True


def _revealed(s: State, e: HiddenRevealed) -> None:
    key = e.unit if e.unit in s.hidden else e.handle  # the truth keys it by id, the other side's view by handle
    u = s.hidden.pop(key, None)
    if u is None or u.side != e.side:
        raise InvalidEvent(f"{e.unit!r} is not a hidden unit of side {e.side}")
    if any(o.x == e.x and o.y == e.y and not o.dead for o in s.units.values()):
        raise InvalidEvent(f"({e.x},{e.y}) is taken: {e.unit} cannot reveal itself there")
    u.id, u.name, u.x, u.y, u.deployed = e.unit, e.name, e.x, e.y, True
    s.units[e.unit] = u
    s.units = dict(sorted(s.units.items()))  # as a clone orders them (skirmish.engine.clone)


def _disrupted(s: State, e: OrderDisrupted) -> None:
    if e.unit not in s.units:
        raise InvalidEvent(f"no unit {e.unit!r}")


def _discovered(s: State, e: CamouflageDiscovered) -> None:
    u = s.units.get(e.handle)
    if e.handle not in s.markers or u is None or u.side != e.side:
        raise InvalidEvent(f"{e.handle!r} is not a Camouflage marker of side {e.side}")
    del s.units[e.handle]
    del s.markers[e.handle]
    u.id, u.name = e.unit, e.name
    s.units[e.unit] = u
    s.units = dict(sorted(s.units.items()))


HANDLERS = {HiddenPlaced: _placed, HiddenRevealed: _revealed, OrderDisrupted: _disrupted, CamouflageDiscovered: _discovered}

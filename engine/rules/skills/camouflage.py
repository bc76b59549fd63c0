"""Camouflage markers, in the small form seed 003's Sat-Lock needs (issue 15; docs/rules.md, seed
003, "Hidden Deployment and Camouflage"): "the Comms Attack may be declared against an enemy
Camouflage or TO Camouflage Marker. In that case, a successful Roll not only tags the target as
Targeted, but also Discovers him, replacing the Marker with the target's model."

- **Who**: a mission's unit with ``camouflage = true`` (its profile carries the referred skill
  ``camouflage``). It is on the table as a marker: its cell is public (it holds it, like any unit),
  its identity is not. The truth keys it by its handle ("camo-b1") in ``State.units`` (``hd_parts``),
  so every event, option and roll names the handle, never the unit; ``State.markers`` keeps
  handle -> id (the other side's view: handle -> handle), its name is ``Hidden`` for the other side.
- **A marker** (*house rule*, the smallest form the seed's Sat-Lock needs): it is not activated and
  does not react (``can_activate``, ``can_act``); no Attack is declared against it (``can_target``:
  a forged attack at it is refused with the same ``IllegalOption`` as one at a unit that does not
  exist); no other option names it but Sat-Lock's (``turn_options``: Forward Observer, hacking and
  Create Advantage need a figure).
- **Discovered by Sat-Lock**: a passed Sat-Lock roll at a marker emits ``CamouflageDiscovered`` (public:
  the handle, the unit's id and name) before the Targeted state, which then names the model.

What the roster tells: the other side sees the marker's handle, its cell and its profile (Open
Information), not its id or its name (``GameCreated``: the unit under its handle, last in the list).
"""

from __future__ import annotations

import msgspec
from skirmish.engine.base import Hidden
from skirmish.engine.events import GameCreated
from skirmish.engine.model import State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.registry import Secret
from skirmish.engine.rules.skills import comms
from skirmish.engine.rules.skills.hd_parts import CamouflageDiscovered, marker_handles

SKILL = "camouflage"


def is_marker(state: State, uid) -> bool:
    return uid in state.markers


def can_target(state: State, unit: Unit, target: Unit) -> bool:
    return target.id not in state.markers


def can_activate(state: State, unit: Unit) -> bool:
    return unit.id not in state.markers


def can_act(state: State, unit: Unit) -> bool:
    return unit.id not in state.markers


def turn_options(state: State, unit: Unit, options: list) -> list:
    """Only Sat-Lock names a marker."""
    if not state.markers:
        return options
    return [o for o in options if o[0] == "sat_lock" or not any(isinstance(x, str) and x in state.markers for x in o[1:])]


def sat_lock_outcome(ctx: Context, f, result) -> None:
    """A passed Sat-Lock at a marker Discovers it (the model replaces the marker), then tags it."""
    s = ctx.state
    if result.passed and f.about in s.markers:
        u = s.units[f.about]
        ctx.emit(CamouflageDiscovered(side=u.side, handle=f.about, unit=s.markers[f.about], name=u.name, why="sat-lock"))
        f = msgspec.structs.replace(f, about=ctx.state.markers.get(f.about, u.id))
    comms.OUTCOMES["sat_lock"](ctx, f, result)


# -- what the other side and spectators see --------------------------------------------------------------------


def game_created(state, e: GameCreated, viewer: str):
    handles = marker_handles(e)
    if not any(uid in handles and u.side != viewer for u in e.units for uid in (u.id,)):
        return e
    hide = {u.id for u in e.units if u.id in handles and u.side != viewer}
    masked = [msgspec.structs.replace(u, id=handles[u.id], name=Hidden("name")) for u in e.units if u.id in hide]
    return msgspec.structs.replace(e, units=(*(u for u in e.units if u.id not in hide), *masked))


def secrets(state, viewer: str):
    """Which unit is behind each marker and its name, for the other side and spectators, until Discovered."""
    for handle, uid in state.markers.items():
        u = state.units.get(handle)
        if u is None or u.side == viewer:
            continue
        yield Secret(f"which unit is {handle}", ("markers", handle), token=True)
        yield Secret(f"{handle}'s name", ("units", handle, "name"))

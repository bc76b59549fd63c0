"""Manned and Pilot (seed 003, "MANNED", "PILOT"; docs/rules.md, seed 003, "Manned and Pilot").

Two figures for one trooper (*adapted*): a Manned unit (a TAG or Vehicle) and its Pilot, the
alternative Troop Profile, a unit of its own in the mission (``[[units]]`` with ``aboard = "<the
Manned unit's id>"``; the Manned profile names the Pilot's with ``pilot = "<profile key>"``). While
aboard, the Pilot is kept off the table: it is not in ``State.units`` but in ``State.aboard``,
keyed by its vehicle, so it is not drawn, not a target, not activated ("generates no Orders") and
neither a survivor nor a casualty (the core counts only ``units``).

- ``("dismount", x, y)``: in the Manned unit's turn, before any other action, its Move Short
  Skill (the Movement Minor Action, free as the first one) dismounts the Pilot onto a free cell
  next to it (``PilotDismounted``); the turn goes on as the Pilot's ("use the Pilot's Troop
  Profile"), which has taken that Movement and still has its Task. Offered also while the Manned
  unit is Unconscious (Injured, not dead): then it is the only thing its activation can do. Not
  offered to a unit that may not move (seed 004's Fear Token: the registry's ``can_move``).
- A Manned unit whose Pilot dismounted is not activated and makes no reactions (``can_activate``,
  ``can_act``); it is still a target (no ``can_target`` veto).
- When it enters the Dead state, its dismounted Pilot is removed from play too (``on_idle``:
  ``UnitDied``); a Pilot still aboard a Dead unit never enters play.
- "may also activate as a result of a successful enemy Hacking Program with that Effect": a passed
  Total Control (skills/comms.py) at a Manned unit with its Pilot aboard also ejects the Pilot
  (*adapted*: the one program here that can take the vehicle from its crew), placed as above,
  ``ejected``; it has acted this round if its vehicle had.

With the morale module (seed 004) the vehicle's pilot *is* the Pilot: while aboard, the vehicle's
Endurance, Unconscious state and Fear Token are the Pilot's (an Unconscious pilot cannot act, so
cannot dismount); on dismounting they go with the Pilot figure (its Endurance at most its own
profile's), and the empty vehicle has no pilot left (no Endurance tests, no wake-up rolls).
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import MinorActionTaken, UnitDied
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import comms
from skirmish.engine.rules.skills.events import PilotDismounted

SKILL = "manned"
TOTAL_CONTROL = "total control"


def pilot_aboard(state: State, unit: Unit) -> Unit | None:
    return state.aboard.get(unit.id)


def dismounted(state: State, unit: Unit) -> bool:
    return unit.id in state.dismounted


def pilot_of(state: State, vehicle_id: str) -> Unit | None:
    """The dismounted Pilot of ``vehicle_id`` (on the table), if any."""
    return next((u for u in state.units.values() if u.vehicle == vehicle_id), None)


def cells(state: State, unit: Unit) -> list[tuple[int, int]]:
    """The free cells next to ``unit`` a Pilot may be placed on, by row and column."""
    b = state.board
    busy = {(u.x, u.y) for u in state.units.values() if not u.dead}
    out = [(unit.x + dx, unit.y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy]
    out = [c for c in out if geo.on_board(b, *c) and c not in busy and geo.terrain(b, *c) not in geo.BLOCKING]
    return sorted(out, key=lambda c: (c[1], c[0]))


def acts_incapacitated(state: State, unit: Unit) -> bool:
    """"receive Orders from its Order Pool despite being Unconscious": to dismount only."""
    return not unit.dead and pilot_aboard(state, unit) is not None


def turn_options(state: State, unit: Unit, options: list) -> list:
    t = state.turn
    if t is None or t.minors or t.task or pilot_aboard(state, unit) is None \
            or not registry.allows(state, "can_move", unit):
        return options
    return options + [("dismount", x, y) for x, y in cells(state, unit)]


def act_dismount(ctx: Context, unit: Unit, option: Option) -> None:
    pilot = pilot_aboard(ctx.state, unit)
    ctx.emit(MinorActionTaken(unit=unit.id, action="move", cost=0))
    ctx.emit(PilotDismounted(unit=unit.id, pilot=pilot.id, x=option[1], y=option[2]))
    ctx.rules.core.unit_moved(ctx, pilot.id)  # placed on the table: Ready reactions may answer it


def can_activate(state: State, unit: Unit) -> bool:
    """"A Manned trooper whose Pilot has dismounted cannot use its TAG or Vehicle Troop Profile to
    declare Orders"."""
    return not dismounted(state, unit)


def can_act(state: State, unit: Unit) -> bool:
    """... "or AROs": no strike back, no fending off, no Direct (the registry's ``can_act``)."""
    return not dismounted(state, unit)


def on_idle(ctx: Context) -> None:
    """"If the TAG or Vehicle figure of a Manned trooper whose Pilot dismounted enters the Dead
    state, remove both the TAG or Vehicle and the Pilot from play.\""""
    s = ctx.state
    for vid in s.dismounted:
        pilot = pilot_of(s, vid)
        if s.units[vid].dead and pilot is not None and not pilot.dead:
            ctx.emit(UnitDied(unit=pilot.id, reason=f"its Manned {s.units[vid].troop_type} {vid} entered the Dead state"))


def eject(ctx: Context, f, result) -> None:
    """After a Total Control roll (skills/comms.py ``hack``): passed at a Manned unit with its Pilot
    aboard, the Pilot is ejected next to it (none free: it stays aboard)."""
    program, target = f.about.split("|")
    s = ctx.state
    vehicle = s.units.get(target)
    if not result.passed or program != TOTAL_CONTROL or vehicle is None or SKILL not in vehicle.skills:
        return
    pilot = pilot_aboard(s, vehicle)
    free = cells(s, vehicle)
    if pilot is not None and free and not vehicle.dead:
        ctx.emit(PilotDismounted(unit=vehicle.id, pilot=pilot.id, x=free[0][0], y=free[0][1], ejected=True))
        ctx.rules.core.unit_moved(ctx, pilot.id)


def hack_outcome(ctx: Context, f, result) -> None:
    """The ``hack`` roll's outcome: the program's state (skills/comms.py), then an ejection."""
    comms.OUTCOMES["hack"](ctx, f, result)
    eject(ctx, f, result)

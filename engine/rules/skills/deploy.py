"""The deployment phase (seed 003's "Deployment Phase", named by its Deployment Skills; issue 14).

A mission marks the units that deploy (``deploy = true`` in ``[[units]]``); the others start
where the map puts them. With such units the game starts with ``DeploymentStarted`` (phase
"deployment", before round 1); then the sides place their units one at a time, alternating,
side a first (*house rule*: seed 003 names no order, and the initiative is rolled only at round
1): each placement is a ``deploy`` decision of the side, about its next unit in the mission's
order, whose options ``("deploy", x, y)`` are the legal cells; a side with no unit left passes
and the other places the rest. When every unit is placed, ``DeploymentEnded`` and round 1.

A legal cell is in the side's deployment zone, not blocking, with no unit on the table on it;
the skills widen or narrow that (``Extensions.cells``, e.g. Infiltrate's enemy half) and act
after a placement (``Extensions.after``, e.g. the Infiltration Roll). The unit's cell in the
mission comes first when it is legal, so the time-out default places the unit there.

A unit not yet deployed is not on the table: it is not activated (``can_activate``), not
attacked (``can_target``) and not drawn on the board (``on_table``).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from skirmish.engine import board as geo
from skirmish.engine.model import SIDES, Option, State, Unit, other
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills.events import DeploymentEnded, DeploymentStarted, UnitDeployed

Cell = tuple[int, int]


class Extensions(NamedTuple):
    """What the skills add to the deployment phase (``skirmish.engine.rules.skills.module`` joins them).

    ``cells``: each ``(state, unit, cells) -> cells``, in order, turns the legal cells into the
    unit's own. ``after``: each ``(ctx, unit_id)`` runs after a placement, in order; one may emit
    events, start a procedure or ask a decision: the next placement waits until nobody must
    decide and no procedure is in progress."""

    cells: tuple[Callable[[State, Unit, frozenset], frozenset], ...] = ()
    after: tuple[Callable[[Context, str], None], ...] = ()
    options: tuple[Callable[[State, Unit, list], list], ...] = ()  # (state, unit, options) -> options


def undeployed(state: State, side: str) -> list[Unit]:
    """``side``'s units still to place, in the mission's order; its impersonators with markers
    last, in their markers' order (skills/impersonation.py: the order tells nothing of who is who)."""
    units = [u for u in state.units.values() if u.side == side and not u.deployed]
    if state.imp_markers:
        rank = {uid: m for m, uid in state.imp_markers.items() if isinstance(uid, str)}
        units.sort(key=lambda u: (u.id in rank, rank.get(u.id, "")))
    return units


def next_side(state: State) -> str | None:
    """The side placing next: the other side than the last one to place, while it has units to
    place (side a first); None when every unit is placed."""
    waiting = [side for side in SIDES if undeployed(state, side)]
    if not waiting:
        return None
    wanted = other(state.deployer) if state.deployer else SIDES[0]
    return wanted if wanted in waiting else waiting[0]


def zone(state: State, side: str) -> frozenset[Cell]:
    b = state.board
    return frozenset((i % b.width, i // b.width) for i, ch in enumerate(b.cells) if ch == side)


def taken(state: State) -> set[Cell]:
    """The cells with a unit on the table (the dead lie where they fell, as in the core's moves)."""
    return {(u.x, u.y) for u in state.units.values() if u.deployed and not u.dead}


def legal_cells(state: State, unit: Unit, ext: Extensions = Extensions()) -> frozenset[Cell]:
    """Where ``unit`` may be placed: its side's zone, not blocking, free; then the skills' say."""
    busy = taken(state)
    cells = frozenset(c for c in zone(state, unit.side)
                      if c not in busy and geo.terrain(state.board, *c) not in geo.BLOCKING)
    for widen in ext.cells:
        cells = widen(state, unit, cells)
    return cells


def options(state: State, unit: Unit, ext: Extensions = Extensions()) -> list[Option]:
    """``("deploy", x, y)`` for each legal cell: the mission's cell for the unit first if legal,
    then by row and column; then the skills' say (``Extensions.options``)."""
    cells = legal_cells(state, unit, ext)
    first = [(unit.x, unit.y)] if (unit.x, unit.y) in cells else []
    rest = sorted(cells - set(first), key=lambda c: (c[1], c[0]))
    opts: list[Option] = [("deploy", x, y) for x, y in first + rest]
    for extend in ext.options:
        opts = extend(state, unit, opts)
    return opts


# -- the phase ---------------------------------------------------------------------------------------


def start(ctx: Context) -> None:
    """At the game's start: a deployment phase if any unit is to deploy."""
    if any(not u.deployed for u in ctx.state.units.values()):
        ctx.emit(DeploymentStarted())


def on_idle(ctx: Context, ext: Extensions) -> None:
    """In the deployment phase, whenever nothing else is going on: ask for the next placement,
    or end the phase."""
    s = ctx.state
    if s.phase != "deployment":
        return
    side = next_side(s)
    if side is None:
        ctx.emit(DeploymentEnded())
        return
    unit = undeployed(s, side)[0]
    ctx.ask(side, "deploy", options(s, unit, ext), unit=unit.id)


def answer(ctx: Context, option: Option, ext: Extensions) -> None:
    side = ctx.events[-1].side  # the OptionChosen just emitted
    unit = undeployed(ctx.state, side)[0]  # the unit the decision was about (the same rule chose it)
    ctx.emit(UnitDeployed(unit=unit.id, x=option[1], y=option[2]))
    for after in ext.after:
        after(ctx, unit.id)


def can_activate(state: State, unit: Unit) -> bool:
    return unit.deployed


def can_target(state: State, unit: Unit, target: Unit) -> bool:
    return target.deployed


def on_table(state: State, unit: Unit) -> bool:
    return unit.deployed

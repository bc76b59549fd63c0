"""Infiltrate L0, L1, L2 and Mechanized Deployment (seed 003, "INFILTRATE", "MECHANIZED DEPLOYMENT",
Deployment Skills; docs/rules.md, seed 003, "The Deployment Skills").

Both widen the cells of the deployment phase (``deploy.Extensions.cells``):

- **Infiltrate L0** (Obligatory): only cells in the enemy half, outside the enemy Deployment
  Zone; the Infiltration Roll (Normal PH-3) follows the placement.
- **Infiltrate L1**: the side's zone, or, Option A, any cell of its own half ("never beyond the
  middle line"; no roll), or, Option B, any cell of the enemy half outside the enemy zone, with
  the Infiltration Roll (PH-3). The cell says which option: no separate choice.
- **Infiltrate L2**: L1 with the roll at PH+3.
- every level: not in the enemy zone, not in base to base contact (Reach: a cell at distance 1
  or 0) with another unit on the table or an objective (markers come with issue 15).
- **Infiltration Roll** (``after``): "after placing the user", when it stands beyond the mid
  line (the enemy half). Failed (``InfiltrationFailed``): the unit is off the table again and its
  side places it at once (decision ``redeploy``, options ``("deploy", x, y)``) in its own zone on
  a cell at a table edge; it has lost the Camouflage, TO Camouflage and Hidden Deployment options
  and its deployables, which ``State.infiltration_failed`` records for issue 15 (no such skill
  exists yet, so nothing else is removed).
- **Mechanized Deployment** (L1): its own half beside its zone, no base contact; "all your
  troopers who use this Special Skill must deploy inside the Zone of Control of one of them": a
  cell outside the zone is legal when the side's units already placed outside their zone by the
  skill, and this one there, all stand within the Zone of Control (``ZONE_OF_CONTROL`` cells,
  *adapted*: *Infinity*'s 8") of one of them, the one "chosen by you" being whichever fits.

*House rule*: a unit whose skill leaves it no legal cell (a full enemy half) deploys as if it had
none (its zone); L0's obligation cannot be met, and a game must go on.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.model import Option, State, Unit, other
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import comms, deploy, rolls
from skirmish.engine.rules.skills.events import InfiltrationFailed, UnitDeployed

SKILL = "infiltrate"
MECHANIZED = "mechanized deployment 1"
PURPOSE = "infiltration"
ZONE_OF_CONTROL = comms.AREA  # cells (8" in Infinity), as the Sensor and Hacking Areas
MODS = {"0": -3, "1": -3, "2": 3}  # the Infiltration Roll: PH-3, PH-3, PH+3

Cell = tuple[int, int]


def level(unit: Unit) -> str | None:
    """The unit's Infiltrate level, None without the skill."""
    return next((s.split()[1] for s in unit.skills if s.startswith(SKILL + " ")), None)


def _open(state: State) -> set[Cell]:
    """Cells not blocking, not in base to base contact with a unit on the table or an objective."""
    b = state.board
    things = deploy.taken(state) | {(o.x, o.y) for o in state.objectives.values()}
    return {(x, y) for y in range(b.height) for x in range(b.width)
            if geo.terrain(b, x, y) not in geo.BLOCKING
            and all(geo.distance(x, y, tx, ty) > 1 for tx, ty in things)}


def _halves(state: State, side: str) -> tuple[set[Cell], set[Cell]]:
    """The open cells of ``side``'s own half and of the enemy half, outside both zones."""
    b = state.board
    zones = deploy.zone(state, side) | deploy.zone(state, other(side))
    cells = _open(state) - zones
    own = {c for c in cells if geo.half(b, *c) == side}
    return own, {c for c in cells if geo.in_enemy_half(b, side, *c)}


def cells(state: State, unit: Unit, legal: frozenset) -> frozenset:
    """Infiltrate's cells (``deploy.Extensions.cells``)."""
    lv = level(unit)
    if lv is None:
        return legal
    own, enemy = _halves(state, unit.side)
    out = frozenset(enemy) if lv == "0" else legal | own | enemy
    return out or legal


def _fits(group: list[Cell]) -> bool:
    return any(all(geo.distance(*c, *d) <= ZONE_OF_CONTROL for d in group) for c in group)


def mechanized_cells(state: State, unit: Unit, legal: frozenset) -> frozenset:
    """Mechanized Deployment's cells (``deploy.Extensions.cells``)."""
    if MECHANIZED not in unit.skills:
        return legal
    own, _ = _halves(state, unit.side)
    zone = deploy.zone(state, unit.side)
    users = [(u.x, u.y) for u in state.units.values() if u.side == unit.side and u.id != unit.id and u.deployed
             and MECHANIZED in u.skills and (u.x, u.y) not in zone]
    return legal | {c for c in own if _fits(users + [c])}


# -- the Infiltration Roll ------------------------------------------------------------------------


def after(ctx: Context, uid: str) -> None:
    """After a placement: the Infiltration Roll of a unit beyond the mid line (``Extensions.after``)."""
    u = ctx.state.units[uid]
    lv = level(u)
    if lv is None or not geo.in_enemy_half(ctx.state.board, u.side, u.x, u.y):
        return
    rolls.normal_roll(ctx, uid, "ph", PURPOSE, ((f"Infiltrate L{lv}", MODS[lv]),), about=f"{u.x},{u.y}")


def edge_cells(state: State, unit: Unit) -> list[Cell]:
    """Where a unit that failed its roll may stand: its zone, free, at a table edge (any free cell
    of its zone if none is)."""
    b = state.board
    free = deploy.legal_cells(state, unit)
    edge = [c for c in free if c[0] in (0, b.width - 1) or c[1] in (0, b.height - 1)]
    return sorted(edge or free, key=lambda c: (c[1], c[0]))


def outcome(ctx: Context, f, result: rolls.Result) -> None:
    if result.passed:
        return
    uid = f.rollers[0].unit
    ctx.emit(InfiltrationFailed(unit=uid))
    unit = ctx.state.units[uid]
    ctx.ask(unit.side, "redeploy", [("deploy", x, y) for x, y in edge_cells(ctx.state, unit)], unit=uid)


def answer_redeploy(ctx: Context, option: Option) -> None:
    uid = ctx.state.infiltration_failed[-1]  # the unit the decision was about
    ctx.emit(UnitDeployed(unit=uid, x=option[1], y=option[2]))

"""Guts Rolls (seed 003 names them in "RELIGIOUS TROOP" and "IMMUNITY"; issue 14, "What the skills
refer to"; docs/rules.md, seed 003, "Command and courage").

*Infinity*'s Guts Roll, in its smallest adapted form (*house rules*):

- **When**: a unit hit by an attack (the core's successful attack, whatever its damage: "after
  surviving one or more ARM or BTS Rolls or a Non-Lethal Attack") that is still standing -- not in
  a Null state, on the table -- once the attack is over (``GutsDue`` at the hit, taken when no
  procedure is in progress).
- **The roll**: a WIP Normal Roll (``GutsTaken("roll")``, purpose ``guts``). Failed, the unit
  must **seek cover** (``seek_cover``): it moves up to ``STEP`` cells ("move up to 2 inches to
  abandon the danger zone, gain Cover or improve his Cover") to a cell out of the line of fire
  of every enemy able to fight (the danger zone), else to a cell in cover; never nearer the
  nearest enemy ("never towards the enemy who declared the Attack", *adapted*: the attack's
  declarer is one of them) and never within an enemy's Reach ("base to base contact"); the
  nearest such cell, then the lowest row and column. With no such cell, or when it may not move
  (the registry's ``can_move``), it goes Prone ("go Prone"), if it is not already; a unit out
  of every enemy's line of fire, or in cover with no better cell, is already safe.
- **V: Courage** (its own, or an Inspiring Leadership Lieutenant's): its side chooses the result
  without rolling (decision ``guts``: ``("hold", unit)`` or ``("cover", unit)``).
- **Religious Troop**: "pass all their Guts Rolls automatically without rolling any dice" (it
  holds); "the chance to voluntarily make a Guts Roll ... the opposite effect": its side is asked
  (``("hold", unit)`` or ``("roll", unit)``), and a passed voluntary roll makes it seek cover.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import ProneChanged, UnitMoved
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import command, rolls
from skirmish.engine.rules.skills.events import GutsDue, GutsTaken

STEP = 2  # "move up to 2 inches"
PURPOSE = "guts"
VOLUNTARY = "guts_voluntary"


def on_hit(ctx: Context, victim: Unit, damage: int) -> None:
    ctx.emit(GutsDue(unit=victim.id))


def on_idle(ctx: Context) -> None:
    """Take the first Guts Roll due, once no procedure is in progress."""
    s = ctx.state
    if s.stack or not s.guts_due:
        return
    u = s.units[s.guts_due[0]]
    if not command.on_battlefield(u):
        ctx.emit(GutsTaken(unit=u.id, how="none"))
    elif command.courage(s, u):
        ctx.ask(u.side, "guts", [("hold", u.id), ("cover", u.id)], unit=u.id)
    elif command.religious(u):
        ctx.ask(u.side, "guts", [("hold", u.id), ("roll", u.id)], unit=u.id)
    else:
        ctx.emit(GutsTaken(unit=u.id, how="roll"))
        rolls.normal_roll(ctx, u.id, "wip", PURPOSE)


def answer(ctx: Context, option: Option) -> None:
    kind, uid = option
    ctx.emit(GutsTaken(unit=uid, how="voluntary" if kind == "roll" else kind))
    if kind == "roll":
        rolls.normal_roll(ctx, uid, "wip", VOLUNTARY)
    elif kind == "cover":
        seek_cover(ctx, uid)


def outcome(ctx: Context, f, result: rolls.Result) -> None:
    """A failed Guts Roll seeks cover; a Religious Troop's voluntary one must pass to."""
    if result.passed == (f.purpose == VOLUNTARY):
        seek_cover(ctx, f.rollers[0].unit)


OUTCOMES = {PURPOSE: outcome, VOLUNTARY: outcome}


def _enemies(state: State, unit: Unit) -> list[Unit]:
    return [e for e in state.units.values() if e.side != unit.side and command.on_battlefield(e)]


def _exposed(state: State, enemies: list[Unit], x: int, y: int) -> bool:
    return any(geo.line_of_fire(state.board, e.x, e.y, x, y) for e in enemies)


def cover_cell(state: State, unit: Unit) -> tuple[int, int] | None:
    """Where a unit seeking cover goes; None: it stays (safe already, or nowhere better)."""
    enemies = _enemies(state, unit)
    if not enemies or not _exposed(state, enemies, unit.x, unit.y):
        return None
    b = state.board
    near = min(geo.distance(unit.x, unit.y, e.x, e.y) for e in enemies)
    occupied = {(o.x, o.y) for o in state.units.values() if not o.dead and o.deployed and o.id != unit.id}
    cells = []
    for (x, y), cost in registry.reachable(state, unit, STEP, occupied).items():  # in its own gait (Heavyweight, Multiterrain)
        dist = min(geo.distance(x, y, e.x, e.y) for e in enemies)
        if (x, y) == (unit.x, unit.y) or dist < near or dist <= b.reach:
            continue
        hidden = not _exposed(state, enemies, x, y)
        if hidden or (geo.in_cover(b, x, y) and not geo.in_cover(b, unit.x, unit.y)):
            cells.append((not hidden, cost, y, x))
    if not cells:
        return None
    _, _, y, x = min(cells)
    return x, y


def seek_cover(ctx: Context, uid: str) -> None:
    s = ctx.state
    u = s.units[uid]
    if not command.on_battlefield(u):
        return
    cell = cover_cell(s, u) if registry.allows(s, "can_move", u) else None
    if cell is not None:
        ctx.emit(UnitMoved(unit=uid, x=cell[0], y=cell[1]))
        ctx.rules.core.unit_moved(ctx, uid)
    elif not u.prone and _exposed(s, _enemies(s, u), u.x, u.y) and not geo.in_cover(s.board, u.x, u.y):
        ctx.emit(ProneChanged(unit=uid, prone=True))

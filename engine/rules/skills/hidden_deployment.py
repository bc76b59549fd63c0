"""Hidden Deployment, in the small form seed 003 needs (issue 15; docs/rules.md, seed 003, "Hidden
Deployment and Camouflage"): a trooper "not on the table neither as a figure nor as a Marker" who,
"once the Entire Order has been declared, ... has the chance to reveal himself and declare an ARO,
disrupting the execution of the Order" (the Impersonation example), and which a failed Infiltration
Roll takes away ("loses ... the Hidden Deployment option granted by the Camouflage and Hiding (CH)
Special Skill").

- **Who**: a mission's unit with ``hidden = true`` (its profile carries the referred skill
  ``hidden deployment``). The truth keeps it off the table, in ``State.hidden`` (``hd_parts``).
- **Placement, in private**: at round 0, after the Lieutenants are chosen and the deployment phase
  is over, its side answers a ``hide`` decision, ``("hide", x, y)`` for each free cell of its
  deployment zone (the mission's ``at`` first: the time-out default), answered by ``HiddenPlaced``.
  The other side and spectators see the decision, its answer and the event with the unit's handle and
  a ``Hidden("position")``: that the hidden unit is placed, never where.
- **Off the table** (*house rule*, the seed's "not on the table"): while hidden it holds no cell
  (an enemy may move through or into it, and is told nothing), blocks nothing, is no target, is
  not activated, scores nothing and does not count as a unit able to fight.
- **The reveal** (the seed's example): whenever an enemy's Order is declared -- the acting unit
  moves, or declares an attack -- and its side still has a hidden unit, the side gets a ``reveal``
  window (``HiddenFrame``) whether or not any of its hidden units could use it (so that the window
  tells nothing): ``("stay",)`` (the time-out default), ``("reveal", unit)`` or ``("reveal", unit,
  weapon, lethal)``: reveal and shoot at the acting unit, a core attack, which seed 001's Task rolls
  unopposed: the seed's "he would make a Normal Roll". Only a unit with line of fire to the acting
  unit, whose cell is free, may reveal. The other side sees the options as ``[["stay"], ["reveal",
  Hidden("unit")]]``. ``HiddenRevealed`` (public) puts it on the table.
- **Disrupting the Order**: an Order whose Requirements a revealed enemy breaks (``REQUIREMENTS``:
  ``(state, actor) -> bool``: Impersonation's regaining IMP-1 "outside enemy LoF",
  ``impersonation.regain_complies``, whose declaration opens the window: skills/imp_regain.py)
  cannot be carried out: ``OrderDisrupted``, the acting unit's attack or regaining in progress
  ends and its Order is lost (its turn ends).

What the roster tells (``GameCreated`` is public): the other side sees that the side has a unit in
Hidden Deployment under its handle (``hidden-b1``) with its profile (Open Information: Troop Type,
attributes, skills, weapons), not its id, its name or where it is.
"""

from __future__ import annotations

import random

import msgspec
from skirmish.engine import board as geo
from skirmish.engine.base import Hidden
from skirmish.engine.events import DecisionRequested, GameCreated, OptionChosen, ProcedureEnded, ProcedureStarted
from skirmish.engine.model import SIDES, Option, State, TaskFrame, Unit, other
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import attack
from skirmish.engine.rules.registry import Secret
from skirmish.engine.rules.skills import deploy, impersonation
from skirmish.engine.rules.skills.frames import RegainFrame
from skirmish.engine.rules.skills.hd_parts import HiddenFrame, HiddenPlaced, HiddenRevealed, OrderDisrupted

SKILL = "hidden deployment"
PLACE = "hide"
REVEAL = "reveal"
STAY = ("stay",)
UNIT = Hidden("unit")
SHOWN = (STAY, (REVEAL, UNIT))  # the reveal window's options as the other side sees them
POSITION = Hidden("position")
PLACED = (PLACE, POSITION, POSITION)  # a placement as the other side sees it

# what an Order requires that a revealed enemy may break: (state, acting unit) -> still complies;
# regaining IMP-1: no enemy with LoF to the impersonator (skills/imp_regain.py)
REQUIREMENTS: tuple = (impersonation.regain_complies,)


def hides(state: State) -> bool:
    """Whether this game has units in Hidden Deployment (revealed or not)."""
    return bool(state.hidden_handles)


def waiting(state: State, side: str) -> list[Unit]:
    return [u for u in state.hidden.values() if u.side == side and not u.deployed]


def placed(state: State, side: str) -> list[Unit]:
    return [u for u in state.hidden.values() if u.side == side and u.deployed]


def place_cells(state: State, unit: Unit) -> list[tuple[int, int]]:
    """Its side's deployment zone, not blocking, free of units on the table and of its side's
    other hidden units; the mission's cell first, then by row and column."""
    busy = deploy.taken(state) | {(u.x, u.y) for u in placed(state, unit.side)}
    cells = {c for c in deploy.zone(state, unit.side) if c not in busy and geo.terrain(state.board, *c) not in geo.BLOCKING}
    first = [(unit.x, unit.y)] if (unit.x, unit.y) in cells else []
    return first + sorted(cells - set(first), key=lambda c: (c[1], c[0]))


def on_idle(ctx: Context) -> bool:
    """Ask the next private placement (round 0, after the deployment phase); True if it asked."""
    s = ctx.state
    if not s.hidden or s.round != 0 or s.phase == "deployment" or s.outcome is not None:
        return False
    for side in SIDES:
        left = waiting(s, side)
        if left:
            ctx.ask(side, PLACE, [(PLACE, x, y) for x, y in place_cells(s, left[0])], unit=left[0].id)
            return True
    return False


def answer_place(ctx: Context, option: Option) -> None:
    side = ctx.events[-1].side
    unit = waiting(ctx.state, side)[0]
    ctx.emit(HiddenPlaced(side=side, unit=unit.id, x=option[1], y=option[2]))


# -- the reveal window -----------------------------------------------------------------------------


def window(ctx: Context, actor_id: str) -> None:
    s = ctx.state
    t = s.turn
    actor = s.units.get(actor_id)
    if t is None or actor is None or t.unit not in s.units or s.units[t.unit].side != actor.side:
        return
    side = other(actor.side)
    if placed(s, side):
        ctx.emit(ProcedureStarted(frame=HiddenFrame(actor=actor_id, side=side)))


def after_move(ctx: Context, mover: str) -> None:
    if ctx.state.turn is not None and ctx.state.turn.unit == mover:
        window(ctx, mover)


def on_attack_declared(ctx: Context, frame) -> None:
    if isinstance(frame, TaskFrame) and frame.task == "attack":
        window(ctx, frame.unit)


def may_reveal(state: State, unit: Unit, actor: Unit) -> bool:
    if isinstance(unit.x, Hidden):  # a view's enemy, not sampled (a bot's lookahead without determinization)
        return False
    free = not any(o.x == unit.x and o.y == unit.y and not o.dead for o in state.units.values())
    return free and not actor.dead and geo.line_of_fire(state.board, unit.x, unit.y, actor.x, actor.y)


def reveal_options(state: State, side: str, actor: Unit) -> list[Option]:
    opts: list[Option] = [STAY]
    for u in placed(state, side):
        if may_reveal(state, u, actor):
            opts.append((REVEAL, u.id))
            opts += [(REVEAL, u.id, *o[2:]) for o in attack.attack_options(state, u, only=actor, verb="fire")
                     if attack.weapon_of(u, o[2]).kind != "melee"]
    return opts


def step(ctx: Context, f: HiddenFrame) -> None:
    ctx.ask(f.side, REVEAL, reveal_options(ctx.state, f.side, ctx.state.units[f.actor]), unit=f.actor)


def answer_reveal(ctx: Context, option: Option) -> None:
    s = ctx.state
    f: HiddenFrame = s.stack[-1]
    ctx.emit(ProcedureEnded())
    if option[0] != REVEAL:
        return
    u = s.hidden[option[1]]
    ctx.emit(HiddenRevealed(side=u.side, unit=u.id, handle=s.hidden_handles[u.id], name=u.name, x=u.x, y=u.y))
    actor = s.units[f.actor]
    if not all(complies(s, actor) for complies in REQUIREMENTS):
        ctx.emit(OrderDisrupted(unit=actor.id, by=u.id))
        top = s.stack[-1] if s.stack else None
        if isinstance(top, (TaskFrame, RegainFrame)) and top.unit == actor.id:
            ctx.emit(ProcedureEnded())  # the attack or the regaining of IMP-1 it declared is not carried out
        if s.turn is not None and s.turn.unit == actor.id:
            ctx.rules.core.end_turn(ctx)
    if len(option) == 4:
        attack.declare(ctx, s.units[u.id], actor.id, option[2], bool(option[3]))


# -- what the other side and spectators see --------------------------------------------------------------------


def _owner(state: State, uid: str) -> str:
    u = state.hidden.get(uid) or state.units.get(uid)
    return u.side if u is not None else ""


def game_created(state, e: GameCreated, viewer: str):
    handles = state.hidden_handles
    if not any(u.id in handles and u.side != viewer for u in e.units):
        return e
    shown = [u for u in e.units if not (u.id in handles and u.side != viewer)]
    masked = [msgspec.structs.replace(u, id=handles[u.id], name=Hidden("name"), x=POSITION, y=POSITION)
              for u in e.units if u.id in handles and u.side != viewer]
    return msgspec.structs.replace(e, units=(*shown, *masked))  # at the end: its place in the list would tell


def decision_requested(state, e: DecisionRequested, viewer: str):
    d = e.decision
    if d.side == viewer or d.kind not in (PLACE, REVEAL):
        return e
    if d.kind == PLACE:  # that a hidden unit is being placed (its handle), never where
        return msgspec.structs.replace(e, decision=msgspec.structs.replace(
            d, options=(PLACED,), unit=state.hidden_handles.get(d.unit, d.unit)))
    return msgspec.structs.replace(e, decision=msgspec.structs.replace(d, options=SHOWN))


def option_chosen(state, e: OptionChosen, viewer: str):
    p = state.pending
    if p is None or e.side == viewer or p.kind not in (PLACE, REVEAL):
        return e
    if p.kind == PLACE:  # a time-out places it on the mission's cell: the flag would tell
        return msgspec.structs.replace(e, option=PLACED, timeout=False)
    return e if e.option == STAY else msgspec.structs.replace(e, option=(REVEAL, UNIT))


def hidden_placed(state, e: HiddenPlaced, viewer: str):
    if e.side == viewer:
        return e
    return msgspec.structs.replace(e, unit=state.hidden_handles.get(e.unit, e.unit), x=POSITION, y=POSITION)


REDACTIONS = {GameCreated: game_created, DecisionRequested: decision_requested, OptionChosen: option_chosen,
              HiddenPlaced: hidden_placed}


def secrets(state, viewer: str):
    """Which unit is behind each handle, its name and its position, for the other side and
    spectators, while it is hidden."""
    for uid, u in state.hidden.items():
        if u.side == viewer:
            continue
        handle = state.hidden_handles[uid]
        yield Secret(f"which unit is {handle}", ("hidden", uid, "id"), token=True)
        yield Secret(f"{handle}'s name", ("hidden", uid, "name"), seen_as=("hidden", handle, "name"))
        for axis in ("x", "y"):
            yield Secret(f"{handle}'s position ({axis})", ("hidden", uid, axis), seen_as=("hidden", handle, axis))


# -- the bots' determinization ----------------------------------------------------------------------------------


def possible_cells(state: State, unit: Unit, taken: set) -> list[tuple[int, int]]:
    """Where a hidden enemy may stand, as a view shows the game: a cell of its side's deployment zone,
    not blocking, not one of ``taken`` (the cells it cannot share)."""
    return sorted(c for c in deploy.zone(state, unit.side)
                  if c not in taken and geo.terrain(state.board, *c) not in geo.BLOCKING)


def sample(state: State, side: str, rng: random.Random) -> None:
    """Place each hidden unit of the other side in ``state`` (a view's copy) whose position the view
    hides, among the cells its view allows, never from the truth."""
    taken = {(u.x, u.y) for u in state.units.values() if not u.dead and u.side != side}
    for handle in sorted(state.hidden):
        u = state.hidden[handle]
        if u.side == side or not isinstance(u.x, Hidden):
            continue
        cells = possible_cells(state, u, taken) or possible_cells(state, u, set())
        u.x, u.y = rng.choice(cells)
        u.deployed = True
        taken.add((u.x, u.y))

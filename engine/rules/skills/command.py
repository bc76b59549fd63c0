"""Command and courage: Training (Regular / Irregular), Veteran L1 / L2, V: Courage, Lieutenant L1
(the Special Lieutenant Order, Loss of Lieutenant), Inspiring Leadership (the Coordinated Order),
Morat, Religious Troop and Retreat! (seed 003: "LIEUTENANT", "INSPIRING LEADERSHIP", "MORAT",
"RELIGIOUS TROOP"; issue 14, "What the skills refer to"; docs/rules.md, seed 003, "Command and
courage"). The Guts Rolls are in ``guts``.

Seed 003 names Training, Veteran, V: Courage, Retreat!, Loss of Lieutenant, the Order Pool and the
Coordinated Order without defining them (they are the rulebook's); their smallest adapted forms
(*house rules*), on the core's alternating activations (an Order is an activation):

- **Training**: *Infinity*'s Regular trooper puts its Order in the side's Order Pool, from which
  the player activates any trooper; an Irregular trooper's Order is its own. The core's nearest
  thing to spending the pool is Keep the Initiative (seed 001: two Momentum pass the action to
  another unit of the same side): an **Irregular** unit is not offered in an activation its side
  got by keeping the initiative (while the opponent still has a unit to activate), nor is it
  part of a Coordinated Order.
- **Lieutenant L1** (exactly one per side when a mission uses it: ``check``): its **Special
  Lieutenant Order** is one more activation a round: once the Lieutenant has acted in a round,
  it is ready again (``LieutenantOrder``), and its side activates it when it chooses. **Loss of
  Lieutenant** (the Lieutenant in a Null state -- Unconscious, Dead -- or not on the table, from
  round 1: "During the Tactical Phase"): no Lieutenant Order, and every unit of the side is
  Irregular (*Infinity*'s Loss of Lieutenant turns the Order Pool's Orders into Irregular ones).
- **Veteran L1**: unaffected by Loss of Lieutenant and Retreat! (keeps its Training);
  **Veteran L2**: L1, and a Possessed Veteran L2 tries to shake it off in each End Phase (a WIP
  Normal Roll: passed, it is no longer Possessed; *Infinity*'s Reset in the Reactive Turn).
- **V: Courage**: the unit chooses the result of its Guts Rolls (``guts``), without rolling.
- **Inspiring Leadership** (Lieutenant only: ``check``), while its user is on the table in a
  non-Null state: every other unit of the side has its Training; every unit has V: Courage; the
  side is not affected by Retreat!; its Lieutenant Order is a **Coordinated Order**: with the
  Lieutenant, up to ``COORDINATED`` other Regular units of the side able to fight within its Zone
  of Control (``comms.AREA`` cells), the nearest first, are ready (again, if they had acted), and
  once one of them is activated the side activates the others one after the other, the opponent
  waiting (*adapted*: several units activate together).
- **Retreat!** (without the morale module; with it, Retreat! is seed 004's Courage Test: the
  registry's ``can_retreat`` and ``breaks_away``): in an End Phase, a side whose units in a Null
  state are worth three quarters or more of its victory points (*Infinity*: 25% or less of the
  army left) enters Retreat! for the rest of the game. Its units are Irregular and, standing in
  their side's deployment zone, may leave the table (``("withdraw",)``: off the table, neither a
  casualty nor on it; the turn ends).
- **Religious Troop** (and **Morat**: Veteran L1 and Religious Troop): unaffected by Retreat!
  (not Irregular, no Courage Test's Breakaway Move), and never offered to leave the table in it.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import ActivationPassed
from skirmish.engine.model import SIDES, Option, State, Unit, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import comms, rolls
from skirmish.engine.rules.skills.events import LieutenantOrder, RetreatEntered, StateChanged, UnitWithdrew

LIEUTENANT = "lieutenant 1"
LEADERSHIP = "inspiring leadership"
COORDINATED = 3  # the other units of a Coordinated Order (Infinity: up to four troopers in all)
MORALE = "morale"  # the module whose Courage Tests are Retreat! when it is on
RESET = "reset"  # the roll purpose of a Veteran L2 shaking off Possessed


# -- who has what -------------------------------------------------------------------------------------------------


def veteran(unit: Unit, level: int = 1) -> bool:
    """Veteran L1 (Morat has it; L2 includes it) or, ``level`` 2, Veteran L2."""
    s = unit.skills
    return "veteran 2" in s or (level == 1 and ("veteran 1" in s or "morat" in s))


def religious(unit: Unit) -> bool:
    return "religious troop" in unit.skills or "morat" in unit.skills


def on_battlefield(unit: Unit) -> bool:
    """On the table in a non-Null state (the Null states: Unconscious, Dead)."""
    return unit.deployed and not unit.incapacitated


def lieutenant(state: State, side: str) -> Unit | None:
    """The side's Lieutenant: the unit its profile makes one, or, with a mission's Lieutenant
    candidates, the one the side chose (``private``; None before the choice, or in a view that
    does not know it)."""
    if state.lt_candidates:
        uid = state.lieutenants.get(side)
        return state.units.get(uid) if isinstance(uid, str) else None
    return next((u for u in state.side_units(side) if LIEUTENANT in u.skills), None)


def loss_of_lieutenant(state: State, side: str) -> bool:
    lt = lieutenant(state, side)
    return lt is not None and state.round >= 1 and not on_battlefield(lt)


def leader(state: State, side: str) -> Unit | None:
    """The side's Lieutenant with Inspiring Leadership while it is on the table in a non-Null state."""
    lt = lieutenant(state, side)
    return lt if lt is not None and LEADERSHIP in lt.skills and on_battlefield(lt) else None


def courage(state: State, unit: Unit) -> bool:
    """V: Courage: its own, or an Inspiring Leadership Lieutenant's gift."""
    return "v: courage" in unit.skills or leader(state, unit.side) is not None


def in_retreat(state: State, unit: Unit) -> bool:
    """The unit's side is in Retreat! and it is affected."""
    return unit.side in state.retreat and leader(state, unit.side) is None and not religious(unit) and not veteran(unit)


def training(state: State, unit: Unit) -> str:
    """The unit's Training now: the leader's, else its own but Irregular in Loss of Lieutenant or
    Retreat! (not for a Veteran; Religious Troops are unaffected by Retreat!)."""
    lead = leader(state, unit.side)
    if lead is not None:
        return lead.training
    if not veteran(unit) and (loss_of_lieutenant(state, unit.side) or in_retreat(state, unit)):
        return "irregular"
    return unit.training


# -- the Lieutenant Order and the Coordinated Order --------------------------------------------------------------


def _index(side: str) -> int:
    return SIDES.index(side)


def chain(state: State, side: str) -> list[Unit]:
    """The units of ``side``'s Coordinated Order still to act, once one of them has: the side
    activates them before the opponent acts again."""
    if state.lt_order_round[_index(side)] != state.round:
        return []
    units = [state.units[u] for u in state.coordinated if state.units[u].side == side]
    if len(units) < 2 or not any(u.acted for u in units):
        return []
    return [u for u in units if not u.acted and on_battlefield(u) and not comms.possessed(state, u)
            and registry.allows(state, "can_act", u)]


def _coordinated(state: State, lt: Unit) -> tuple[str, ...]:
    if LEADERSHIP not in lt.skills:
        return ()
    near = [u for u in state.side_units(lt.side) if u.id != lt.id and on_battlefield(u)
            and training(state, u) == "regular" and geo.distance(u.x, u.y, lt.x, lt.y) <= comms.AREA]
    near.sort(key=lambda u: (geo.distance(u.x, u.y, lt.x, lt.y), u.id))
    return tuple(u.id for u in near[:COORDINATED])


def _order_due(state: State, lt: Unit | None) -> bool:
    return (lt is not None and lt.acted and on_battlefield(lt) and state.lt_order_round[_index(lt.side)] != state.round
            and not loss_of_lieutenant(state, lt.side))


def on_idle(ctx: Context) -> None:
    """Between activations: a Lieutenant that has acted gets its Lieutenant Order; a side in a
    Coordinated Order keeps the activation until its units have acted."""
    s = ctx.state
    if s.phase != "activation" or s.turn is not None or s.stack:
        return
    for side in SIDES:
        lt = lieutenant(s, side)
        if _order_due(s, lt):
            ctx.emit(LieutenantOrder(unit=lt.id, round=s.round, coordinated=_coordinated(s, lt)))
            return
    for side in SIDES:
        if s.to_act != side and chain(s, side) and not any(
                isinstance(e, ActivationPassed) and e.side == side for e in ctx.events):
            ctx.emit(ActivationPassed(side=side))  # at most once a command: a side that cannot act passes on
            return


def _opponent_may_act(state: State, side: str) -> bool:
    return any(not u.acted and on_battlefield(u) for u in state.side_units(other(side)))


def can_activate(state: State, unit: Unit) -> bool:
    pending = chain(state, unit.side)
    if pending and unit not in pending:
        return False
    if training(state, unit) == "irregular" and state.kept_initiative and state.to_act == unit.side:
        return not _opponent_may_act(state, unit.side)  # not on the side's "pool": Keep the Initiative
    return True


# -- Retreat! -----------------------------------------------------------------------------------------------------


def _lost_most(state: State, side: str) -> bool:
    units = state.side_units(side)
    total = sum(u.points for u in units)
    lost = sum(u.points for u in units if u.incapacitated)
    return total > 0 and 4 * lost >= 3 * total


def can_retreat(state: State, side: str) -> bool:
    """Whether ``side`` can be in Retreat! (the registry's veto, asked by the morale module's Courage
    Tests too): not while an Inspiring Leadership Lieutenant leads it, nor when every unit of it
    able to fight is a Religious Troop."""
    return leader(state, side) is None and any(not religious(u) for u in state.active_units(side))


def breaks_away(state: State, unit: Unit) -> bool:
    """A Religious Troop makes no Breakaway Move in its side's retreat (the registry's veto)."""
    return not religious(unit)


def end_phase(ctx: Context) -> None:
    """Retreat! without the morale module; a Possessed Veteran L2's Reset roll."""
    s = ctx.state
    for u in s.units.values():
        if veteran(u, 2) and u.id in s.possessed and not u.incapacitated:
            rolls.normal_roll(ctx, u.id, "wip", RESET)
    if MORALE in s.modules:
        return
    for side in SIDES:
        if side not in s.retreat and _lost_most(s, side) and can_retreat(s, side):
            ctx.emit(RetreatEntered(side=side))


def reset_outcome(ctx: Context, f, result: rolls.Result) -> None:
    if result.passed:
        ctx.emit(StateChanged(unit=f.rollers[0].unit, state="possessed", on=False))


def turn_options(state: State, unit: Unit, options: list) -> list:
    if in_retreat(state, unit) and not unit.incapacitated and geo.terrain(state.board, unit.x, unit.y) == unit.side:
        return options + [("withdraw",)]
    return options


def act_withdraw(ctx: Context, unit: Unit, option: Option) -> None:
    ctx.emit(UnitWithdrew(unit=unit.id))
    ctx.rules.core.end_turn(ctx)

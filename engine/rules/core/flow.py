"""The round and the turn (seed 001 "Combat!" and "Conflict Actions"; RULES-BRIEF "Core").

A round: initiative (each side rolls d10 + its Team Command Value; the higher picks who acts
first), then activations alternating between the sides one unit at a time, then an End Phase
that runs the End Phase hooks and clears the action counters. The game is one scene; it ends
when a side has no unit able to fight, or after the mission's last round on victory points.

``advance`` runs the game forward from any state until someone must decide or it is over.
"""

from __future__ import annotations

from typing import Callable

import msgspec

from skirmish.engine import board as geo
from skirmish.engine.codec import state_hash
from skirmish.engine.events import (ActivationPassed, Checkpoint, GameEnded, InitiativeWon, PoolChanged,
                           ProcedureEnded, ProcedureStarted, ReadyTriggered, RoundEnded, RoundStarted,
                           TaskAttempted, TurnEnded, TurnStarted, UnitDied)
from skirmish.engine.model import SIDES, DirectFrame, Option, Outcome, ReadyFrame, State, TaskFrame, Unit, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import actions, attack, procedure
from skirmish.engine.versions import V0_4, since

KEEP_INITIATIVE_COST = 2  # seed 001: "the Player may spend two Momentum"


def _ready_step(ctx: Context, f: ReadyFrame) -> None:
    opts = ready_options(ctx.state, f.mover)
    if not opts:
        ctx.emit(ProcedureEnded())
    else:
        side = ctx.state.units[opts[0][1]].side
        ctx.ask(side, "ready", [("hold",)] + opts, unit=f.mover)


FRAME_STEPS: dict[type, Callable] = {TaskFrame: procedure.step, ReadyFrame: _ready_step, DirectFrame: actions.direct_step}


def advance(ctx: Context) -> None:
    s = ctx.state
    while s.pending is None and s.outcome is None and s.started:
        if s.stack:
            top = s.stack[-1]
            ctx.rules.frame_steps[type(top)](ctx, top)
        elif _idle(ctx) or _check_sides(ctx):
            pass
        elif s.turn is not None:
            _continue_turn(ctx)
        elif s.phase == "end":
            if s.round >= s.rounds:
                end_game(ctx, outcome_on_points(s, f"round limit {s.rounds} reached"))
            else:
                _start_round(ctx)
        else:
            _next_activation(ctx)


def _idle(ctx: Context) -> bool:
    """Modules' ``on_idle`` hooks; True if one of them emitted anything."""
    if not ctx.state.modules:
        return False
    before = len(ctx.events)
    ctx.rules.call(ctx, "on_idle")
    return len(ctx.events) != before


def team_command_value(state: State, side: str) -> int:
    """seed 004 via RULES-BRIEF: the commander's Command (the best Command if none is named),
    plus the bonuses modules add (the morale module's "Command Unit")."""
    units = state.active_units(side) or state.side_units(side)
    commanders = [u for u in units if u.commander]
    return max(u.stats.command for u in (commanders or units)) + registry.bonus(state, "command_bonus", side)


def _start_round(ctx: Context) -> None:
    s = ctx.state
    ctx.emit(RoundStarted(round=s.round + 1))
    rolls = roll_initiative(ctx)
    for held in ctx.rules.hooks["on_initiative_rolled"]:
        # a module may hold the initiative open (the morale module's token re-rolls); it then
        # calls initiative_won itself once it is settled
        if held(ctx, rolls):
            return
    initiative_won(ctx, initiative_winner(rolls))


def roll_initiative(ctx: Context) -> dict[str, tuple[int, int, int]]:
    """Each side rolls d10 + its TCV, again while the totals tie (house rule: seed 004 names no
    tie-break): side -> (the roll's nonce, the d10, the TCV)."""
    s = ctx.state
    while True:
        rolls = {}
        for side in SIDES:
            tcv = team_command_value(s, side)
            nonce = s.next_nonce
            rolls[side] = (nonce, ctx.roll(10, 1, "initiative", unit=side, target=tcv)[0], tcv)
        if initiative_winner(rolls):
            return rolls


def initiative_winner(rolls: dict[str, tuple[int, int, int]]) -> str:
    """The side with the higher d10 + TCV, "" on a tie."""
    a, b = rolls["a"][1] + rolls["a"][2], rolls["b"][1] + rolls["b"][2]
    return "" if a == b else ("a" if a > b else "b")


def initiative_won(ctx: Context, winner: str) -> None:
    ctx.emit(InitiativeWon(side=winner))
    ctx.rules.call(ctx, "on_round_start")
    ctx.ask(winner, "first", [("first", winner), ("first", other(winner))])


def answer_first(ctx: Context, option: Option) -> None:
    ctx.emit(ActivationPassed(side=option[1]))


def ready_units(state: State, side: str) -> list[Unit]:
    units = [u for u in state.units.values() if u.side == side and not u.acted
             and (not u.incapacitated or (state.modules and _acts_incapacitated(state, u)))]
    for can_activate in registry.rules_of(state).hooks["can_activate"]:
        units = [u for u in units if can_activate(state, u)]
    return units


def _acts_incapacitated(state: State, unit: Unit) -> bool:
    """A module lets an incapacitated (not dead) unit be activated for its own options only."""
    return not unit.dead and registry.offers(state, "acts_incapacitated", unit)


def _next_activation(ctx: Context) -> None:
    s = ctx.state
    side = s.to_act
    ready = ready_units(s, side)
    if ready:
        ctx.ask(side, "activate", [("unit", u.id) for u in ready])
    elif ready_units(s, other(side)):
        # "A side whose units have all acted passes; the other side finishes its units."
        ctx.emit(ActivationPassed(side=other(side)))
    else:
        _end_phase(ctx)


def answer_activate(ctx: Context, option: Option) -> None:
    ctx.emit(TurnStarted(unit=option[1]))
    for on_turn_start in ctx.rules.hooks["on_turn_start"]:
        if ctx.state.turn is not None:
            on_turn_start(ctx, ctx.state.units[option[1]])


def _end_phase(ctx: Context) -> None:
    ctx.rules.call(ctx, "on_end_phase")
    s = ctx.state
    ctx.emit(Checkpoint(state_hash=_hash(s)))
    ctx.emit(RoundEnded(round=s.round))


def _hash(state: State) -> str:
    return state_hash(state)


# -- the turn ------------------------------------------------------------------------------------


def turn_options(state: State, unit: Unit) -> list[Option]:
    """("end",), then the Minor Actions, then the Tasks if none was attempted yet."""
    opts: list[Option] = [("end",)]
    if not unit.incapacitated:  # an incapacitated unit activated by a module has only the module's options
        opts += actions.minor_options(state, unit)
        if not state.turn.task:
            opts += actions.task_options(state, unit)
    for module_options in registry.rules_of(state).hooks["turn_options"]:
        opts = module_options(state, unit, opts)
    return opts


def _continue_turn(ctx: Context) -> None:
    s = ctx.state
    unit = s.units[s.turn.unit]
    if unit.incapacitated and not (s.modules and _acts_incapacitated(s, unit)):  # an Injury ends the turn
        end_turn(ctx)
        return
    opts = turn_options(s, unit)
    if len(opts) == 1:
        end_turn(ctx)
    else:
        ctx.ask(unit.side, "act", opts, unit=unit.id)


def answer_act(ctx: Context, option: Option) -> None:
    s = ctx.state
    unit = s.units[s.turn.unit]
    kind = option[0]
    if kind == "end":
        end_turn(ctx)
    elif kind in actions.MINOR_NAMES:
        actions.take_minor(ctx, unit, option)
    elif kind in ctx.rules.acts:
        ctx.rules.acts[kind](ctx, unit, option)
    else:
        ctx.emit(TaskAttempted(unit=unit.id, task=kind))
        actions.start_task(ctx, unit, option)


def end_turn(ctx: Context) -> None:
    s = ctx.state
    unit = s.units[s.turn.unit]
    side = unit.side
    ctx.emit(TurnEnded(unit=unit.id))
    # "After the character completes his or her Turn, the action passes to the opposing side.
    # However, the Player may spend two Momentum to instead pass the action to another Player
    # Character. ... cannot Keep the Initiative again until the opposition have taken a turn."
    if not ready_units(s, other(side)):
        return
    if s.momentum[side] >= KEEP_INITIATIVE_COST and not s.kept_initiative and _could_keep(s, side):
        ctx.ask(side, "keep_initiative", [("pass",), ("keep",)])
    else:
        ctx.emit(ActivationPassed(side=other(side)))


def _could_keep(s: State, side: str) -> bool:
    """Whether a unit of ``side`` could take the action if the side kept it: the modules'
    ``can_activate`` asked of the state as keeping would leave it (an Irregular unit is not
    activated by keeping the initiative, seed 003's Training). Before engine 0.4.0, asked of the
    state as it is: a side whose only ready units were Irregular was offered it, paid two Momentum
    and passed the action all the same."""
    if not since(s, V0_4):
        return bool(ready_units(s, side))
    return bool(ready_units(msgspec.structs.replace(s, kept_initiative=True, to_act=side), side))


def answer_keep_initiative(ctx: Context, option: Option) -> None:
    side = ctx.events[-1].side  # the side whose OptionChosen was just emitted
    if option[0] == "keep":
        ctx.emit(PoolChanged(side=side, pool="momentum", delta=-KEEP_INITIATIVE_COST, reason="keep the initiative"))
        ctx.emit(ActivationPassed(side=side, kept=True))
    else:
        ctx.emit(ActivationPassed(side=other(side)))


# -- Ready ---------------------------------------------------------------------------------------


def ready_options(state: State, mover_id: str) -> list[Option]:
    mover = state.units[mover_id]
    opts: list[Option] = []
    for u in state.units.values():
        if u.readied and u.side != mover.side and not u.incapacitated:
            opts += [("fire", u.id, *o[2:]) for o in attack.attack_options(state, u, only=mover, verb="fire")
                     if o[1] == mover.id]
    return opts


def after_move(ctx: Context, mover_id: str) -> None:
    """Ready: "waiting for a specific situation or event to occur before attempting a Task".
    The situation (house rule) is an enemy moving where the readied unit can attack it."""
    ctx.rules.call(ctx, "after_move", mover_id)
    if ready_options(ctx.state, mover_id):
        ctx.emit(ProcedureStarted(frame=ReadyFrame(mover=mover_id)))


def answer_ready(ctx: Context, option: Option) -> None:
    f = ctx.state.stack[-1]
    ctx.emit(ProcedureEnded())
    if option[0] == "fire":
        shooter = ctx.state.units[option[1]]
        ctx.emit(ReadyTriggered(unit=shooter.id))
        attack.declare(ctx, shooter, f.mover, option[2], bool(option[3]))


# -- the end -------------------------------------------------------------------------------------


def _check_sides(ctx: Context) -> bool:
    """End the game when a side has no unit left able to fight."""
    s = ctx.state
    out = [side for side in SIDES if not s.active_units(side)]
    if not out:
        return False
    if len(out) == 2:
        end_game(ctx, Outcome(None, "no unit on either side can fight", points(s)))
    else:
        end_game(ctx, Outcome(other(out[0]), f"side {out[0]} has no unit able to fight", points(s)))
    return True


def points(state: State) -> dict[str, int]:
    """Victory points: the points of enemy units taken out, of objectives held, and of units
    standing in the enemy half (the mission's ``[scoring] midline``)."""
    pts = {side: 0 for side in SIDES}
    for u in state.units.values():
        if u.incapacitated:
            pts[other(u.side)] += u.points
        elif state.midline_points and geo.half(state.board, u.x, u.y) == other(u.side):
            pts[u.side] += state.midline_points
    for o in state.objectives.values():
        if o.holder:
            pts[o.holder] += o.points
    for module_points in registry.rules_of(state).hooks["points"]:
        for side, extra in module_points(state).items():
            pts[side] += extra
    return pts


def outcome_on_points(state: State, reason: str) -> Outcome:
    pts = points(state)
    if pts["a"] == pts["b"]:
        return Outcome(None, f"{reason}; points tied", pts)
    winner = "a" if pts["a"] > pts["b"] else "b"
    return Outcome(winner, f"{reason}; side {winner} leads on points", pts)


def end_game(ctx: Context, outcome: Outcome) -> None:
    """The scene ends: the untreated lethally injured die (seed 001 "Recovery and First Aid"),
    each Momentum pool loses one (RULES-BRIEF), the state hash is checkpointed, and the outcome
    is recorded."""
    s = ctx.state
    for u in list(s.units.values()):
        if u.injury == "lethal" and not u.dead and not u.stabilised:
            ctx.emit(UnitDied(unit=u.id, reason="untreated lethal injury at the end of the scene"))
    for side in SIDES:
        if s.momentum[side] > 0:
            ctx.emit(PoolChanged(side=side, pool="momentum", delta=-1, reason="end of the scene"))
    ctx.emit(Checkpoint(state_hash=_hash(s)))
    ctx.emit(GameEnded(outcome=outcome))

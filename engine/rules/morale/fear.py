"""Morale Tests and Fear (seed 004 "Morale Test", "Fear").

"If a opposing unit has moved within 10" of a unit that is two or more Size Classes bigger than
them, the pilot must take a Morale test at the end of a the phase." Read with RULES-BRIEF: an
enemy two or more Size Classes bigger than the unit moves to within 10" (10 cells) of it. The
"phase" is the activation the move happened in (*adapted*: our rounds have one activation phase,
whose end is the End Phase, where the action counter would be cleared at once); the tests due
are taken as soon as that activation is over.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.rules.morale.events import FearDue, FearTestsTaken
from skirmish.engine.model import State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale import rolls

FEAR_RANGE = 10  # 10", 1 cell = 1 inch (RULES-BRIEF "Board")
COMMAND_RANGE = 10  # "with in 10""
FEAR_SIZE_GAP = 2  # "two or more Size Classes bigger"


def morale_value(state: State, unit: Unit) -> int:
    """The pilot's Morale, +1 "If there is a friendly unit with the "Command Unit" Ability with
    in 10" and can be seen by the unit" (another unit, able to fight, in line of fire)."""
    for u in state.units.values():
        if (u.side == unit.side and u.id != unit.id and u.command_unit and not u.incapacitated
                and geo.distance(u.x, u.y, unit.x, unit.y) <= COMMAND_RANGE
                and geo.line_of_fire(state.board, unit.x, unit.y, u.x, u.y)):
            return unit.morale + 1
    return unit.morale


def can_be_frightened(unit: Unit) -> bool:
    return unit.endurance_max > 0 and not unit.incapacitated and not unit.unconscious and not unit.fear


def after_move(ctx: Context, mover_id: str) -> None:
    s = ctx.state
    mover = s.units[mover_id]
    if mover.incapacitated:
        return
    for u in s.units.values():
        if (u.side != mover.side and can_be_frightened(u) and mover.size >= u.size + FEAR_SIZE_GAP
                and u.id not in s.fear_due and geo.distance(u.x, u.y, mover.x, mover.y) <= FEAR_RANGE):
            ctx.emit(FearDue(unit=u.id, enemy=mover.id))


def take_due_tests(ctx: Context) -> None:
    """At the end of the phase (no activation in progress), the Morale Tests for Fear."""
    s = ctx.state
    if not s.fear_due or s.turn is not None:
        return
    due = [s.units[uid] for uid in s.fear_due]
    ctx.emit(FearTestsTaken())
    for u in reversed(due):  # the first due is tested first (the stack runs its top first)
        if can_be_frightened(u):
            rolls.start_test(ctx, "fear", u.side, morale_value(s, u), 2, unit=u.id)


def end_phase_tests(ctx: Context) -> None:
    """"During the End Phase, units with Fear Tokens may make a Morale Test." (always taken:
    passing can only help)"""
    s = ctx.state
    for u in reversed([u for u in s.units.values() if u.fear and not u.incapacitated]):
        rolls.start_test(ctx, "fear_end", u.side, morale_value(s, u), 2, unit=u.id)


# "Units with Fear Tokens cannot make any move actions and they cannot make and receive or give
# any Aid or Support actions." Move actions: Movement and Sprint; Aid: First Aid; Support:
# Assist and Direct (adapted: seed 001's names for helping an ally).
MOVE_ACTIONS = ("move", "sprint", "boost")
AID_OR_SUPPORT = ("first_aid", "assist", "direct")


def can_move(state: State, unit: Unit) -> bool:
    """"Units with Fear Tokens cannot make any move actions": the registry's ``can_move``, asked by
    every way a unit moves itself (Movement, Sprint, fending off, a bonus Movement, the Movement
    token, the Breakaway Move of a retreat)."""
    return not unit.fear


def filter_options(state: State, unit: Unit, opts: list) -> list:
    out = []
    for o in opts:
        if unit.fear and (o[0] in MOVE_ACTIONS or o[0] in AID_OR_SUPPORT):
            continue
        if o[0] in AID_OR_SUPPORT and state.units[o[1]].fear:
            continue
        out.append(o)
    return out

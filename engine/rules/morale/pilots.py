"""Pilots: Endurance tests, Unconscious pilots and End Phase recovery (seed 004 "Endurance").

The excerpt says what an Endurance test is, not when one is taken ("Some of these may have be
mentioned in earlier chapters like Endurance"). *House rule*: a pilot takes one whenever its
unit is hit by an attack (a successful attack, seed 001), with test value 2 + the damage dealt
after Resistance, at most 6 -- a glancing hit is shrugged off, a heavy one may knock the pilot
out.
"""

from __future__ import annotations

from skirmish.engine.rules.morale.events import EnduranceChanged, MoveBoostsEnded, RestsEnded, UnitRested
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale import rolls

TEST_VALUE_BASE = 2  # house rule: the Endurance test on a hit is 2 + damage
TEST_VALUE_MAX = 6
UNCONSCIOUS_DIFFICULTY = -1  # "-2 to its Defence value": one step of Difficulty (docs/rules.md)


def has_pilot(unit: Unit) -> bool:
    return unit.endurance_max > 0


def test_value(damage: int) -> int:
    return min(TEST_VALUE_MAX, TEST_VALUE_BASE + damage)


def on_hit(ctx: Context, victim: Unit, damage: int) -> None:
    """"At the beginning of each turn or after the unit is hit by an attack, the Unconscious
    pilot roll a D6"; a conscious pilot takes an Endurance test (house rule above)."""
    if not has_pilot(victim) or victim.incapacitated:
        return
    if victim.unconscious:
        rolls.start_test(ctx, "wake", victim.side, 6, 1, unit=victim.id)
    else:
        rolls.start_test(ctx, "endurance", victim.side, test_value(damage), victim.endurance, unit=victim.id)


def on_round_start(ctx: Context) -> None:
    """The wake-up rolls "At the beginning of each turn" (a turn of seed 004 is our round)."""
    for u in reversed([u for u in ctx.state.units.values() if u.unconscious and not u.incapacitated]):
        rolls.start_test(ctx, "wake", u.side, 6, 1, unit=u.id)


def can_activate(state: State, unit: Unit) -> bool:
    """"Well the pilot is Unconscious, the Unit they are in cannot make any actions." A unit that
    stood down (``rest``) is not activated again this round."""
    return not unit.unconscious and not unit.resting


def can_act(state: State, unit: Unit) -> bool:
    """"Well the pilot is Unconscious, the Unit they are in cannot make any actions": it still
    rolls its Opposed defence in melee (a roll, not an action), but winning it neither strikes back
    nor fends off, and no commander Directs it (the registry's ``can_act``)."""
    return not unit.unconscious


def rest_options(state: State, unit: Unit) -> list[Option]:
    """*Adapted*: the core activates every unit able to act, and activating places the action
    counter, so "pilots that have no action counters on their unit" would never recover. A unit
    may instead stand down at the start of its activation, before any action: ("rest",) takes
    its action counter off again and ends its turn; it is not activated again this round."""
    t = state.turn
    return [("rest",)] if has_pilot(unit) and not t.minors and not t.task else []


def act_rest(ctx: Context, unit: Unit, option: Option) -> None:
    ctx.emit(UnitRested(unit=unit.id))
    ctx.rules.core.end_turn(ctx)


def attack_difficulty(state: State, attacker: Unit, target: Unit) -> int:
    """"Also the unit suffers from a -2 to its Defence value.\""""
    return UNCONSCIOUS_DIFFICULTY if target.unconscious else 0


def end_phase(ctx: Context) -> None:
    """"During the End Phase, all non Unconscious pilots that have no action counters on their
    unit before clearing regains one Endurance, up to their starting value." Also the end of
    the turn for the Movement tokens."""
    s = ctx.state
    for u in s.units.values():
        if has_pilot(u) and not u.unconscious and not u.incapacitated and not u.acted and u.endurance < u.endurance_max:
            ctx.emit(EnduranceChanged(unit=u.id, delta=1, reason="end phase recovery"))
    if any(u.move_bonus for u in s.units.values()):
        ctx.emit(MoveBoostsEnded())
    if any(u.resting for u in s.units.values()):
        ctx.emit(RestsEnded())

"""Regeneration (seed 003, "REGENERATION", Entire Order; docs/rules.md, seed 003, "Regeneration").

*Adapted* onto seed 001's Injuries (RULES-BRIEF "Conditions": Unconscious = incapacitated by an
Injury, Dead = dead): a *Wound* is an Injury, so "regain 1 point previously lost from his Wounds
Attribute" heals the unit's Injury, and "loses 1 additional point" is one more Injury. A unit
without an Injury has lost no Wound (Stress is seed 001's, not Wounds): Regeneration is not
offered to it.

- An Injured (Unconscious), not dead unit with Regeneration is activated though incapacitated
  (the registry's ``acts_incapacitated``): "spend the Entire Order required to activate it even
  when on the battlefield in a Null state"; its only options are ``("regenerate",)`` and ending
  its turn ("do not generate Orders ... while they are Unconscious": nothing else).
- ``("regenerate",)``, the whole activation (an Entire Order: offered only before any other
  action, and the turn ends with the roll): a Normal PH Roll. Passed: a ``WoundRegained``
  (its Injury healed, conscious again). Failed while Unconscious: it dies
  (``InjurySuffered`` with result "dead").
- A unit healed by First Aid (seed 001's MediKit and Doctor, stabilised) may still regenerate,
  and after regenerating be treated again: the two are compatible.
- Shock Immunity: ``skirmish.engine.rules.skills.ammunition.IMMUNE``.
"""

from __future__ import annotations

from skirmish.engine.events import InjurySuffered
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import dogged, rolls
from skirmish.engine.rules.skills.events import WoundRegained

SKILL = "regeneration"
PURPOSE = "regeneration"


def can_regenerate(state: State, unit: Unit) -> bool:
    """Injured, or going on with a Wound lost (V: Dogged, No Wound Incapacitation: skills/dogged.py)."""
    return SKILL in unit.skills and (unit.injury != "" or dogged.wound_lost(state, unit)) and not unit.dead


def acts_incapacitated(state: State, unit: Unit) -> bool:
    return can_regenerate(state, unit)


def turn_options(state: State, unit: Unit, options: list) -> list:
    t = state.turn
    if can_regenerate(state, unit) and t is not None and not t.minors and not t.task:
        return options + [("regenerate",)]
    return options


def act_regenerate(ctx: Context, unit: Unit, option: Option) -> None:
    rolls.normal_roll(ctx, unit.id, "ph", PURPOSE)


def outcome(ctx: Context, f, result: rolls.Result) -> None:
    uid = f.rollers[0].unit
    if result.passed:
        ctx.emit(WoundRegained(unit=uid))
    else:  # "If the user is Unconscious and fails his PH Roll, he immediately Dies" (a lost Wound more: dogged.py)
        ctx.emit(InjurySuffered(unit=uid, lethal=True, result="dead"))
    if ctx.state.turn is not None and ctx.state.turn.unit == uid:
        ctx.rules.core.end_turn(ctx)  # the Entire Order

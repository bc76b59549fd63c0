"""V: Dogged and V: No Wound Incapacitation (skills seed 003 refers to: MetaChemistry's rows 4-5 and
12-13; docs/rules.md, seed 003, "The Deployment Skills").

Seed 003 names them without defining them (they are the *Infinity* rulebook's); their smallest
*adapted* forms on seed 001's Injuries (RULES-BRIEF "Conditions": Unconscious = incapacitated by
an Injury, a Wound is an Injury):

- **V: Dogged**: a unit that would fall Unconscious from a Lethal Injury (the core's
  ``injury_result`` "lethal", through the ``on_injury`` hook) stays in play instead, in the
  **Dogged** state (``State.dogged``; a ``WoundIgnored``): it acts, reacts and is a target as
  before. In the End Phase of the round (*Infinity*: "the end of the Player Turn"; this game's
  turn is the round, whose activations alternate) it is Dead (``DoggedEnded``).
- **V: No Wound Incapacitation**: the same, without the death: the unit goes on with its Wound
  lost (``State.unfazed``).
- Either way the Wound is lost: any further Injury kills the unit (``InjurySuffered`` "dead"),
  a Non-lethal one too. A Non-lethal Injury on a unit that has lost no Wound stuns it as usual
  (it is not a Wound: neither skill is about stunning), and a stunned unit's second Injury leaves
  it Unconscious as before.
- They meet **Regeneration** and **Paramedic**: the lost Wound is what they heal. A Dogged or
  unfazed unit with Regeneration may regenerate (its Entire Order); passed, a ``WoundRegained``
  ends the state (a Dogged unit then lives); failed, it loses one more Wound: Dead. A Paramedic's
  MediKit treats it like an Injured ally and, passed, heals it the same way
  (``regeneration.can_regenerate``, ``paramedic.patients`` ask ``wound_lost``).
"""

from __future__ import annotations

from skirmish.engine.events import InjurySuffered
from skirmish.engine.model import State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills.events import DoggedEnded, WoundIgnored

DOGGED = "v: dogged"
NO_WOUND_INCAPACITATION = "v: no wound incapacitation"


def wound_lost(state: State, unit: Unit) -> bool:
    """``unit`` goes on with a Wound lost (Dogged or by No Wound Incapacitation)."""
    return not unit.dead and (unit.id in state.dogged or unit.id in state.unfazed)


def on_injury(ctx: Context, victim: Unit, lethal: bool, result: str) -> bool | None:
    """The skills module's ``on_injury``: a further Injury on a unit with a Wound lost kills it;
    a Lethal Injury that would leave a unit with either skill Unconscious leaves it in play."""
    s = ctx.state
    if wound_lost(s, victim):
        ctx.emit(InjurySuffered(unit=victim.id, lethal=lethal, result="dead"))
        return True
    if result != "lethal" or victim.injury or victim.dead:  # a stunned unit falls as before
        return None
    for skill in (NO_WOUND_INCAPACITATION, DOGGED):  # the one that does not end in death first
        if skill in victim.skills:
            ctx.emit(WoundIgnored(unit=victim.id, skill=skill))
            return True
    return None


def on_end_phase(ctx: Context) -> None:
    """The Dogged are Dead."""
    for uid in ctx.state.dogged:
        ctx.emit(DoggedEnded(unit=uid))

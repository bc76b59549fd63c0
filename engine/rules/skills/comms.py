"""Comms Attacks: a minimal hacking, Forward Observer, Sat-Lock, the Targeted and Possessed states,
Non-Hackable, Immunity (Possession), Sensor (seed 003: "SAT-LOCK", "NON-HACKABLE", "IMMUNITY:
POSSESSION", "MANNED"'s "Hacking Programs with that requirement"; issue 14, "What the skills refer
to"; docs/rules.md, seed 003, "Comms Attacks").

Seed 003 names these without defining them (they are the rulebook's); their smallest adapted
forms (*house rules*):

- a **Comms Attack** is the unit's Task of its turn (or, Sat-Lock, its Entire Order): a Normal WIP
  Roll with the MODs its skill gives, at a target in the area the skill says; its outcome is a
  state. (*Infinity* pits it against the target's BTS, which seed 001 lacks: the roll is Normal.)
- **Targeted** (``State.targeted``): BS Attacks at the unit take +3 (``marksmanship.mods``:
  one step of Difficulty less); it lasts until the End Phase (*Infinity*'s Reset is not here).
- **Possessed** (``State.possessed``): the unit is out of its side's control: it is not activated
  (``can_activate``) and does not Ready-react; it is still a target. (*Infinity* hands it to the
  enemy; one unit played by both sides would need a second owner the activations lack.)
- **Hacking** (a unit with the ``hacker`` skill, target within its Hacking Area, ``AREA`` cells,
  no LoF): two programs, ``("hack", "spotlight", target)`` (WIP, no Troop Type needed: Targeted)
  and ``("hack", "total control", target)`` (WIP-3, needs a TAG or REM: Possessed).
- **Non-Hackable**: not the target of a program whose requirements name a Troop Type (Total
  Control); still of one that does not (Spotlight), as the seed's Kazak example says.
- **Immunity (Possession)**: immune to what would make it Possessed: Total Control is not offered
  at it (its only effect).
- **Manned**: "can be the target of certain Hacking Programs with that requirement": a Manned unit
  is a target of Total Control whatever its Troop Type.
- **Forward Observer**: ``("observe", target)``, a WIP Comms Attack at an enemy in LoF: Targeted.
- **Sensor**: its Sensor Area is ``AREA`` cells (the Zone of Control); alone it acts only on hidden
  markers (the next issue); with Forward Observer it allows Sat-Lock.
- **Sat-Lock** (Entire Order; needs Forward Observer and Sensor): ``("sat_lock", target)`` at an
  enemy in the Sensor Area, no LoF, a WIP-6 Roll and no other MOD; passed: Targeted. Camouflage
  markers come with the next issue.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import TaskAttempted
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import metachemistry, rolls
from skirmish.engine.rules.skills.events import CommsAttacked, StateChanged

AREA = 8  # cells: the Zone of Control, the Sensor Area and the Hacking Area (8" in Infinity)
TARGETED_MOD = 3
SAT_LOCK_MOD = -6
# program -> (WIP MOD, Troop Types it needs (() none), the state it gives)
PROGRAMS: dict[str, tuple[int, tuple[str, ...], str]] = {
    "spotlight": (0, (), "targeted"),
    "total control": (-3, ("TAG", "REM"), "possessed"),
}


def _in_area(a: Unit, b: Unit) -> bool:
    return geo.distance(a.x, a.y, b.x, b.y) <= AREA


def _enemies(state: State, unit: Unit) -> list[Unit]:
    return [e for e in state.units.values() if e.side != unit.side and not e.dead and e.deployed]


def targeted(state: State, unit: Unit) -> bool:
    return unit.id in state.targeted


def possessed(state: State, unit: Unit) -> bool:
    return unit.id in state.possessed


def can_be_hacked(state: State, program: str, target: Unit) -> bool:
    _, types, effect = PROGRAMS[program]
    if types:
        if "non-hackable" in target.skills:
            return False
        if target.troop_type not in types and "manned" not in target.skills:
            return False
    if effect == "possessed" and ("immunity possession" in target.skills or possessed(state, target)):
        return False
    return not (effect == "targeted" and targeted(state, target))


def turn_options(state: State, unit: Unit, options: list) -> list:
    t = state.turn
    if unit.incapacitated or t is None or t.task:
        return options
    out = list(options)
    skills = unit.skills
    for e in _enemies(state, unit):
        if "hacker" in skills and _in_area(unit, e):
            out += [("hack", p, e.id) for p in PROGRAMS if can_be_hacked(state, p, e)]
        if "forward observer" in skills and not targeted(state, e) and geo.line_of_fire(state.board, unit.x, unit.y, e.x, e.y):
            out.append(("observe", e.id))
        if {"sat-lock", "forward observer", "sensor"} <= set(skills) and not t.minors and not targeted(state, e) \
                and _in_area(unit, e):
            out.append(("sat_lock", e.id))
    return out


def act(ctx: Context, unit: Unit, option: Option) -> None:
    kind = option[0]
    target = option[-1]
    ctx.emit(TaskAttempted(unit=unit.id, task="comms"))
    ctx.emit(CommsAttacked(unit=unit.id, target=target, attack=option[1] if kind == "hack" else kind))
    if kind == "hack":
        mod, _, _ = PROGRAMS[option[1]]
        mods = ((f"{option[1].title()}", mod),) if mod else ()
        mods += metachemistry.biotech_mods(ctx.state.units[target])  # Reinforced Biotech (+6 BTS)
        rolls.normal_roll(ctx, unit.id, "wip", "hack", mods, about=f"{option[1]}|{target}")
    elif kind == "observe":
        rolls.normal_roll(ctx, unit.id, "wip", "observe", (), about=target)
    else:  # "This Roll applies no further MODs"
        rolls.normal_roll(ctx, unit.id, "wip", "sat_lock", (("Sat-Lock", SAT_LOCK_MOD),), about=target)


def _hack_outcome(ctx: Context, f, result: rolls.Result) -> None:
    program, target = f.about.split("|")
    if result.passed:
        ctx.emit(StateChanged(unit=target, state=PROGRAMS[program][2], on=True))


def _targeted_outcome(ctx: Context, f, result: rolls.Result) -> None:
    if result.passed:
        ctx.emit(StateChanged(unit=f.about, state="targeted", on=True))


def _sat_lock_outcome(ctx: Context, f, result: rolls.Result) -> None:
    _targeted_outcome(ctx, f, result)
    if ctx.state.turn is not None and ctx.state.turn.unit == f.rollers[0].unit:
        ctx.rules.core.end_turn(ctx)  # an Entire Order


OUTCOMES = {"hack": _hack_outcome, "observe": _targeted_outcome, "sat_lock": _sat_lock_outcome}


def targeted_mods(state: State, f, attacker: Unit, target: Unit) -> list[tuple[str, int]]:
    return [("Targeted", TARGETED_MOD)] if targeted(state, target) else []


def can_activate(state: State, unit: Unit) -> bool:
    return not possessed(state, unit)


def on_end_phase(ctx: Context) -> None:
    """Targeted lasts until the End Phase."""
    for uid in ctx.state.targeted:
        ctx.emit(StateChanged(unit=uid, state="targeted", on=False))

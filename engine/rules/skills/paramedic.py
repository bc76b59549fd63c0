"""Paramedic (seed 003, "PARAMEDIC"; docs/rules.md, seed 003, "Paramedic").

*Adapted* (RULES-BRIEF "Conditions": "MediKit / Paramedic / Doctor work through seed 001's First
Aid"): "A Paramedic is equipped with MediKits to stabilize his fallen comrades" -- a Paramedic
has, beside the core's First Aid, ``("medikit", ally)``: the same First Aid Task (Daring +
Medicine, Difficulty 1, within Reach, seed 001), on any Injured ally (a Non-lethal Injury too),
that, passed, also heals the ally's Injury (a ``WoundRegained``: the MediKit's "recover 1 Wound"
in *Infinity*), the further treatment seed 001 keeps out of a Conflict being what the MediKit is.
"A Paramedic's supply of MediKits is unlimited": nothing is counted. "In certain missions ...
Paramedics are considered Specialist Troopers": ``skirmish.engine.rules.skills.specialists``.
"""

from __future__ import annotations

from skirmish.engine.events import ProcedureStarted, TaskAttempted
from skirmish.engine.model import Option, State, TaskFrame, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core.actions import in_reach
from skirmish.engine.rules.skills import dogged
from skirmish.engine.rules.skills.events import MediKitUsed, WoundRegained

SKILL = "paramedic"


def patients(state: State, unit: Unit) -> list[Unit]:
    return [a for a in state.units.values()
            if a.side == unit.side and a.id != unit.id and (a.injury or dogged.wound_lost(state, a)) and not a.dead
            and in_reach(state, unit, a.x, a.y)]


def turn_options(state: State, unit: Unit, options: list) -> list:
    if SKILL not in unit.skills or unit.incapacitated or state.turn is None or state.turn.task:
        return options
    return options + [("medikit", a.id) for a in patients(state, unit)]


def act_medikit(ctx: Context, unit: Unit, option: Option) -> None:
    ctx.emit(TaskAttempted(unit=unit.id, task="first_aid"))
    ctx.emit(MediKitUsed(unit=unit.id, ally=option[1]))
    ctx.emit(ProcedureStarted(frame=TaskFrame(unit=unit.id, task="first_aid", target=option[1])))


def on_task_resolved(ctx: Context, f, result) -> None:
    s = ctx.state
    if not isinstance(f, TaskFrame) or f.task != "first_aid" or s.medikit != f.unit:
        return
    ally = s.units[f.target]
    if result.passed and (ally.injury or dogged.wound_lost(s, ally)) and not ally.dead:
        ctx.emit(WoundRegained(unit=ally.id))
    ctx.emit(MediKitUsed(unit="", ally=""))

"""Specialist Troopers and the objectives only they may secure (seed 003, "PARAMEDIC": "In certain
missions and scenarios, Paramedics are considered Specialist Troopers, that is, they meet the
requirements to fulfill certain mission objectives"; docs/rules.md, seed 003, "Manned and Pilot,
Specialists").

A mission names such objectives in its ``[skills]`` table (``specialist_objectives = ["id", ...]``,
skills/mission.py); with the skills module on, only a Specialist Trooper is offered to secure one:
the Interact Minor Action, a bonus Interact (the capture module's) or the objective's Other Task.
The Specialist Troopers are the units with the Paramedic skill (*adapted*: seed 003 names no other
specialist; *Infinity*'s rulebook adds Doctors, Engineers, Hackers and Forward Observers, which these
seeds do not make specialists).
"""

from __future__ import annotations

from skirmish.engine.model import State, Unit

SPECIALISTS = ("paramedic",)  # the skills that make a unit a Specialist Trooper
SECURING = ("interact", "other")  # the options that secure an objective, its id second


def is_specialist(unit: Unit) -> bool:
    return any(skill in unit.skills for skill in SPECIALISTS)


def _secures(option, objectives: tuple[str, ...]) -> bool:
    if option[0] == "bonus":
        option = option[1:]
    return len(option) > 1 and option[0] in SECURING and option[1] in objectives


def turn_options(state: State, unit: Unit, options: list) -> list:
    only = state.specialist_objectives
    if not only or is_specialist(unit):
        return options
    return [o for o in options if not _secures(o, only)]

"""Task resolution (seed 001; RULES-BRIEF "Core", task resolution) and the Task procedure.

A Task rolls 2d20, plus up to three bought, against a target number = Attribute + Discipline.
Each die at or under the target is one success; at or under the Discipline with a relevant
Focus, or a natural 1, two; each die inside the Complication Range (the top ``range`` faces)
is a Complication. Successes at or over the Difficulty pass; each one beyond is one Momentum.

Every Task runs as a ``TaskFrame`` on the stack (``skirmish.engine.rules.core.procedure``).
"""

from __future__ import annotations

from typing import NamedTuple

from skirmish.engine.events import ComplicationSuffered, PoolChanged, ProcedureUpdated
from skirmish.engine.model import MOMENTUM_MAX, Option, State, TaskFrame, Unit, other
from skirmish.engine.rules.context import Context

import msgspec


class TaskResult(NamedTuple):
    successes: int
    complications: int
    passed: bool
    momentum: int  # successes beyond the Difficulty (0 when failed)


class Spec(NamedTuple):
    """How a Task is rolled: target number = attribute + discipline."""

    attribute: str
    discipline: str
    difficulty: int
    focus: str  # a Focus naming this applies (house rule: Focuses name tasks or weapons)
    complication_range: int = 1


def count_successes(results: tuple[int, ...], target: int, discipline: int, focus: bool,
                    difficulty: int, complication_range: int = 1, bonus: int = 0) -> TaskResult:
    """``bonus`` successes (an ally's Assist) count only if the roll scores at least one itself."""
    successes = complications = 0
    for r in results:
        if r == 1 or (focus and r <= discipline):
            successes += 2
        elif r <= target:
            successes += 1
        if r > 20 - complication_range:
            complications += 1
    if successes:
        successes += bonus
    passed = successes >= difficulty
    return TaskResult(successes, complications, passed, successes - difficulty if passed else 0)


def target_number(unit: Unit, spec: Spec) -> int:
    return getattr(unit.stats, spec.attribute) + getattr(unit.stats, spec.discipline)


def has_focus(unit: Unit, spec: Spec) -> bool:
    return bool(spec.focus) and spec.focus in unit.focuses


def gain_momentum(ctx: Context, side: str, amount: int, reason: str) -> None:
    """Add Momentum to a side's pool, which holds at most six (seed 001 / RULES-BRIEF)."""
    gained = min(amount, MOMENTUM_MAX - ctx.state.momentum[side])
    if gained > 0:
        ctx.emit(PoolChanged(side=side, pool="momentum", delta=gained, reason=reason))


def suffer_complications(ctx: Context, unit: Unit, count: int, reason: str) -> None:
    """House rule: each Complication gives the opponent 2 Threat.

    seed 001 lets the GM impose Complications; with the GM replaced by the opponent
    (RULES-BRIEF "Core") the opponent takes them as Threat, as STA lets a GM add two Threat
    instead of imposing a Complication.
    """
    for _ in range(count):
        ctx.emit(ComplicationSuffered(unit=unit.id, reason=reason))
        ctx.emit(PoolChanged(side=other(unit.side), pool="threat", delta=2, reason="complication"))


CHALLENGE_FACES = (1, 2, 0, 0, 1, 1)  # seed 001 / RULES-BRIEF: d6 1->1, 2->2, 3-4->0, 5-6->1 (+Effect)


def challenge_total(results: tuple[int, ...]) -> tuple[int, int]:
    """Total and number of Effects of a roll of Challenge Dice."""
    return sum(CHALLENGE_FACES[r - 1] for r in results), sum(1 for r in results if r >= 5)


# -- buying dice ------------------------------------------------------------------------------

DICE_MAX = 5  # 2d20 plus at most three bought; free dice a module adds (``attack_dice``) stop here too


def dice_cost(n: int, prepared: bool) -> int:
    """Bonus d20 cost 1, 2 and 3 (RULES-BRIEF: "for 1, 2, 3 Momentum"): n dice cost 1+..+n.
    The Prepare Minor Action makes the first one free (house rule)."""
    return n * (n + 1) // 2 - (1 if prepared and n else 0)


def buy_options(state: State, unit: Unit, prepared: bool) -> list[Option]:
    """("buy", 0) and each affordable ("buy", n, "momentum" | "threat")."""
    opts: list[Option] = [("buy", 0)]
    for n in (1, 2, 3):
        cost = dice_cost(n, prepared)
        if state.momentum[unit.side] >= cost:
            opts.append(("buy", n, "momentum"))
        # A hero pays Threat by adding it to the opponent's pool; an NPC spends its own.
        if cost and (unit.kind == "hero" or state.threat[unit.side] >= cost):
            opts.append(("buy", n, "threat"))
    return opts


def is_prepared(state: State, f: TaskFrame) -> bool:
    return state.turn is not None and state.turn.unit == f.unit and "prepare" in state.turn.minors


def update(ctx: Context, f: TaskFrame, **changes) -> None:
    ctx.emit(ProcedureUpdated(frame=msgspec.structs.replace(f, **changes)))

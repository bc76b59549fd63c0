"""Task resolution (seed 001; RULES-BRIEF "Core", task resolution) and the Task procedure.

A Task rolls 2d20, plus up to three bought, against a target number = Attribute + Discipline.
Each die at or under the target is one success; at or under the Discipline with a relevant
Focus, or a natural 1, two; each die inside the Complication Range (the top ``range`` faces)
is a Complication. Successes at or over the Difficulty pass; each one beyond is one Momentum.

Every Task runs as a ``TaskFrame`` on the stack: ``buy`` -> ``roll`` -> ``aim`` -> ``resolve``,
then the task's own steps (``engine.rules.core.attack``, ``engine.rules.core.actions``).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from engine.events import AssistUsed, ComplicationSuffered, PoolChanged, ProcedureUpdated
from engine.model import MOMENTUM_MAX, Option, State, TaskFrame, Unit, other
from engine.rules import registry
from engine.rules.context import Context

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


# -- the procedure ----------------------------------------------------------------------------

# task -> function(state, frame) -> Spec; and task -> function(ctx, frame, result) once rolled.
SPECS: dict[str, Callable[[State, TaskFrame], Spec]] = {}
RESOLVE: dict[str, Callable[[Context, TaskFrame, TaskResult], None]] = {}
STEPS: dict[str, Callable[[Context, TaskFrame], None]] = {}  # task-specific steps after resolve


def update(ctx: Context, f: TaskFrame, **changes) -> None:
    ctx.emit(ProcedureUpdated(frame=msgspec.structs.replace(f, **changes)))


def step(ctx: Context, f: TaskFrame) -> None:
    if f.step == "buy":
        _buy(ctx, f)
    elif f.step == "roll":
        _roll(ctx, f)
    elif f.step == "aim":
        _aim(ctx, f)
    elif f.step == "resolve":
        _resolve(ctx, f)
    else:
        STEPS[f.step](ctx, f)


def _buy(ctx: Context, f: TaskFrame) -> None:
    unit = ctx.state.units[f.unit]
    opts = buy_options(ctx.state, unit, is_prepared(ctx.state, f))
    if len(opts) == 1:
        update(ctx, f, step="roll")
    else:
        ctx.ask(unit.side, "buy_dice", opts, unit=unit.id)


def answer_buy_dice(ctx: Context, option: Option) -> None:
    s = ctx.state
    f = s.stack[-1]
    unit = s.units[f.unit]
    n = option[1]
    if n:
        cost = dice_cost(n, is_prepared(s, f))
        if cost and option[2] == "momentum":
            ctx.emit(PoolChanged(side=unit.side, pool="momentum", delta=-cost, reason="bonus dice"))
        elif cost and unit.kind == "hero":
            ctx.emit(PoolChanged(side=other(unit.side), pool="threat", delta=cost, reason="bonus dice"))
        elif cost:
            ctx.emit(PoolChanged(side=unit.side, pool="threat", delta=-cost, reason="bonus dice"))
    update(ctx, f, step="roll", dice=2 + n)


def _roll(ctx: Context, f: TaskFrame) -> None:
    s = ctx.state
    unit = s.units[f.unit]
    spec = SPECS[f.task](s, f)
    tn = target_number(unit, spec)
    nonce = s.next_nonce
    rolled = ctx.roll(20, f.dice, f"task:{f.task}", unit=unit.id, target=tn)
    assist = 0
    helper = s.units.get(unit.assisted_by)
    if helper is not None:
        # Assist: the ally rolls one d20 against its own Attribute + Discipline.
        if not helper.incapacitated:
            htn = target_number(helper, spec)
            hr = ctx.roll(20, 1, f"assist:{f.task}", unit=helper.id, target=htn)
            assist = count_successes(hr, htn, getattr(helper.stats, spec.discipline),
                                     has_focus(helper, spec), 0).successes
        ctx.emit(AssistUsed(ally=unit.id))
    opposed: tuple[int, ...] = ()
    defence = OPPOSED.get(f.task)
    if defence is not None:
        defender, dspec = defence(s, f)
        if defender is not None and not defender.incapacitated:
            opposed = ctx.roll(20, 2, f"defence:{f.task}", unit=defender.id, target=target_number(defender, dspec))
    aimed = (f.task == "attack" and s.turn is not None and s.turn.unit == f.unit and "aim" in s.turn.minors)
    update(ctx, f, step="aim" if aimed else "resolve", nonce=nonce, rolled=rolled, assist=assist, opposed=opposed)
    registry.call(ctx, "on_task_rolled", s.stack[-1])


# task -> function(state, frame) -> (defender, its Spec) for Opposed Tasks
OPPOSED: dict[str, Callable[[State, TaskFrame], tuple[Unit | None, Spec]]] = {}


def aim_options(state: State, f: TaskFrame) -> list[Option]:
    """("reroll", i) for each die that is not already a double success, one per value."""
    unit = state.units[f.unit]
    spec = SPECS[f.task](state, f)
    disc = getattr(unit.stats, spec.discipline)
    seen, opts = set(), []
    for i, r in enumerate(f.rolled):
        double = r == 1 or (has_focus(unit, spec) and r <= disc)
        if not double and r not in seen:
            seen.add(r)
            opts.append(("reroll", i))
    return opts


def _aim(ctx: Context, f: TaskFrame) -> None:
    opts = aim_options(ctx.state, f)
    if not opts:
        update(ctx, f, step="resolve")
    else:
        ctx.ask(ctx.state.units[f.unit].side, "aim", [("keep",)] + opts, unit=f.unit)


def answer_aim(ctx: Context, option: Option) -> None:
    """seed 001 Aim: "the character may re-roll a single d20 made on an attack during this Turn"."""
    s = ctx.state
    f = s.stack[-1]
    if option[0] == "keep":
        update(ctx, f, step="resolve")
        return
    i = option[1]
    unit = s.units[f.unit]
    tn = target_number(unit, SPECS[f.task](s, f))
    new = ctx.roll(20, 1, f"aim:{f.task}", unit=unit.id, target=tn, replaces=f.nonce)
    rolled = f.rolled[:i] + new + f.rolled[i + 1:]
    update(ctx, f, step="resolve", rolled=rolled)


def result_of(state: State, f: TaskFrame, difficulty_override: int | None = None) -> TaskResult:
    unit = state.units[f.unit]
    spec = SPECS[f.task](state, f)
    difficulty = spec.difficulty if difficulty_override is None else difficulty_override
    return count_successes(f.rolled, target_number(unit, spec), getattr(unit.stats, spec.discipline),
                           has_focus(unit, spec), max(0, difficulty), spec.complication_range, f.assist)


def _resolve(ctx: Context, f: TaskFrame) -> None:
    RESOLVE[f.task](ctx, f, result_of(ctx.state, f))

"""The Task procedure (seed 001; RULES-BRIEF "Core"): every Task runs as a ``TaskFrame`` on the
stack: ``buy`` -> ``roll`` -> ``aim`` -> ``resolve``, then the task's own steps. The tables of
what each Task is and does come from the files that define the Tasks (``skirmish.engine.rules.core.actions``,
``skirmish.engine.rules.core.attack``); the counting is ``skirmish.engine.rules.core.tasks``'.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Mapping

from skirmish.engine.events import AssistUsed, PoolChanged
from skirmish.engine.model import Option, State, TaskFrame, Unit, other
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import actions, attack
from skirmish.engine.rules.core.tasks import (DICE_MAX, Spec, TaskResult, buy_options, count_successes, dice_cost,
                                     has_focus, is_prepared, target_number, update)

# -- the procedure ----------------------------------------------------------------------------

# The tables of the Tasks, each built from the Tasks' own files (no file patches another's table):
# task -> function(state, frame) -> Spec; and task -> function(ctx, frame, result) once rolled.
SPECS: Mapping[str, Callable[[State, TaskFrame], Spec]] = MappingProxyType({**actions.SPECS_OF, "attack": attack.spec})
RESOLVE: Mapping[str, Callable[[Context, TaskFrame, TaskResult], None]] = MappingProxyType(
    {**actions.RESOLVE, "attack": attack.resolve})
STEPS: Mapping[str, Callable[[Context, TaskFrame], None]] = MappingProxyType(
    {**actions.STEPS, **attack.STEPS})  # task-specific steps after resolve


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
    dice = f.dice
    if f.task == "attack" and ctx.rules.hooks["attack_dice"]:  # free dice of the modules (a weapon's Burst)
        dice = max(dice, min(DICE_MAX, dice + ctx.rules.bonus(s, "attack_dice", f)))
    rolled = ctx.roll(20, dice, f"task:{f.task}", unit=unit.id, target=tn)
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
    ctx.rules.call(ctx, "on_task_rolled", s.stack[-1])


# task -> function(state, frame) -> (defender, its Spec) for Opposed Tasks
OPPOSED: Mapping[str, Callable[[State, TaskFrame], tuple[Unit | None, Spec]]] = MappingProxyType({"attack": attack.defence})


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
    result = result_of(ctx.state, f)
    RESOLVE[f.task](ctx, f, result)
    if ctx.rules.hooks["on_task_resolved"]:
        ctx.rules.call(ctx, "on_task_resolved", f, result)

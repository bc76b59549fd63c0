"""Minor Actions and the Tasks other than Attack (seed 001 "Minor Actions", "Combat Tasks").

Each option is a small tuple; ``minor_options`` and ``task_options`` list what a unit may do
now, in a fixed order, and ``take_minor`` / ``start_task`` carry an option out.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import (AdvantageCreated, AssistGiven, Directed, GuardTaken, ItemPickedUp,
                           MinorActionTaken, ObjectiveSecured, PoolChanged, ProcedureEnded,
                           ProcedureStarted, ProneChanged, Readied, Recovered, Stabilised, StressRegained,
                           UnitMoved, WeaponDrawn)
from skirmish.engine.model import DirectFrame, Option, State, TaskFrame, Unit
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import attack
from skirmish.engine.rules.core.tasks import Spec, TaskResult, challenge_total, gain_momentum, suffer_complications, update

# -- Minor Actions ---------------------------------------------------------------------------------


def minor_cost(state: State) -> int:
    """seed 001: the first Minor Action is free; each further one costs Momentum equal to the
    number already taken this turn."""
    return len(state.turn.minors)


def in_reach(state: State, unit: Unit, x: int, y: int) -> bool:
    return geo.distance(unit.x, unit.y, x, y) <= state.board.reach


def minor_options(state: State, unit: Unit) -> list[Option]:
    turn = state.turn
    if state.momentum[unit.side] < minor_cost(state):
        return []
    taken = turn.minors
    opts: list[Option] = []
    if "aim" not in taken and not turn.task:
        opts.append(("aim",))
    if "draw" not in taken:
        opts += [("draw", i) for i in unit.stowed]
        opts += [("pickup", item.id) for item in state.items.values()
                 if not item.carrier and in_reach(state, unit, item.x, item.y)]
    if "interact" not in taken:
        opts += [("interact", o.id) for o in state.objectives.values()
                 if not o.attribute and o.holder != unit.side and in_reach(state, unit, o.x, o.y)]
    if "prepare" not in taken and not turn.task:
        opts.append(("prepare",))
    # "A character may not Drop Prone and Stand in the same Turn."
    if not unit.prone and "prone" not in taken and "stand" not in taken:
        opts.append(("prone",))
    if unit.prone and "stand" not in taken and "prone" not in taken:
        opts.append(("stand",))
    # Movement: "moves to any point within Medium range. This Minor Action cannot be carried out
    # if the character performs any movement-related Tasks." A prone unit stands first (house rule).
    if "move" not in taken and turn.task != "sprint" and not unit.prone and registry.allows(state, "can_move", unit):
        budget = state.board.medium + registry.bonus(state, "movement_bonus", unit)
        opts += [("move", x, y) for x, y in _cells(state, unit, budget)]
    return opts


def _cells(state: State, unit: Unit, budget: int) -> list[tuple[int, int]]:
    occupied = {(u.x, u.y) for u in state.units.values() if not u.dead and u.id != unit.id}
    cells = registry.reachable(state, unit, budget, occupied)
    return sorted(cells, key=lambda c: (c[1], c[0]))


MINOR_NAMES = {"aim": "aim", "draw": "draw", "pickup": "draw", "interact": "interact", "prepare": "prepare",
               "prone": "prone", "stand": "stand", "move": "move"}


def take_minor(ctx: Context, unit: Unit, option: Option) -> None:
    kind = option[0]
    cost = minor_cost(ctx.state)
    if cost:
        ctx.emit(PoolChanged(side=unit.side, pool="momentum", delta=-cost, reason="minor action"))
    ctx.emit(MinorActionTaken(unit=unit.id, action=MINOR_NAMES[kind], cost=cost))
    if kind == "draw":
        ctx.emit(WeaponDrawn(unit=unit.id, weapon=option[1]))
    elif kind == "pickup":
        ctx.emit(ItemPickedUp(unit=unit.id, item=option[1]))
    elif kind == "interact":
        ctx.emit(ObjectiveSecured(objective=option[1], side=unit.side, unit=unit.id))
    elif kind == "prone":
        ctx.emit(ProneChanged(unit=unit.id, prone=True))
    elif kind == "stand":
        ctx.emit(ProneChanged(unit=unit.id, prone=False))
    elif kind == "move":
        ctx.emit(UnitMoved(unit=unit.id, x=option[1], y=option[2]))
        ctx.rules.core.unit_moved(ctx, unit.id)
    # aim and prepare only mark the turn: they change how this turn's Task is rolled


# -- Tasks -----------------------------------------------------------------------------------------

COMMUNICATION = "medium"  # house rule: an ally "with whom they can communicate" is within Medium range


def task_options(state: State, unit: Unit, directed: bool = False) -> list[Option]:
    """Every Task ``unit`` may attempt now; ``directed``: the single Task a Direct allows."""
    s = state
    opts: list[Option] = attack.attack_options(s, unit)
    opts.append(("recover",))
    in_turn = not directed
    if not (in_turn and "move" in s.turn.minors) and registry.allows(s, "can_move", unit):
        opts.append(("sprint",))
    for ally in s.units.values():
        if ally.side == unit.side and ally.injury == "lethal" and not ally.dead and not ally.stabilised \
                and ally.id != unit.id and in_reach(s, unit, ally.x, ally.y):
            opts.append(("first_aid", ally.id))
    for enemy in s.units.values():
        if enemy.side != unit.side and not enemy.incapacitated and not enemy.exposed \
                and geo.line_of_fire(s.board, unit.x, unit.y, enemy.x, enemy.y) \
                and (not s.modules or registry.allows(s, "can_oppose", unit, enemy)):
            opts.append(("create_advantage", enemy.id))
    for o in s.objectives.values():
        if o.attribute and o.holder != unit.side and in_reach(s, unit, o.x, o.y):
            opts.append(("other", o.id))
    opts.append(("guard",))
    opts.append(("ready",))
    if in_turn:
        for ally in s.units.values():
            if ally.side == unit.side and ally.id != unit.id and not ally.incapacitated and not ally.assisted_by \
                    and _talk(s, unit, ally):
                opts.append(("assist", ally.id))
        if unit.commander:  # "Direct: this action is only available for commanding officers."
            for ally in s.units.values():
                if ally.side == unit.side and ally.id != unit.id and not ally.incapacitated and not ally.directed \
                        and registry.allows(s, "can_act", ally):  # a unit that cannot act is not directed
                    opts.append(("direct", ally.id))
    return opts


def _talk(state: State, a: Unit, b: Unit) -> bool:
    band = geo.range_band(state.board, a.x, a.y, b.x, b.y)
    return band in ("reach", "close", COMMUNICATION)


def start_task(ctx: Context, unit: Unit, option: Option) -> None:
    kind = option[0]
    if kind == "attack":
        attack.declare(ctx, unit, option[1], option[2], bool(option[3]))
    elif kind in ("recover", "sprint"):
        ctx.emit(ProcedureStarted(frame=TaskFrame(unit=unit.id, task=kind)))
    elif kind in ("first_aid", "create_advantage", "other"):
        ctx.emit(ProcedureStarted(frame=TaskFrame(unit=unit.id, task=kind, target=option[1])))
    elif kind == "guard":
        ctx.emit(GuardTaken(unit=unit.id))
    elif kind == "ready":
        ctx.emit(Readied(unit=unit.id))
    elif kind == "assist":
        ctx.emit(AssistGiven(unit=unit.id, ally=option[1]))
    elif kind == "direct":
        # "nominates a single other character present who may immediately attempt a single
        # Task, assisted by the commanding character"
        ctx.emit(Directed(commander=unit.id, ally=option[1]))
        ctx.emit(AssistGiven(unit=unit.id, ally=option[1]))
        ctx.emit(ProcedureStarted(frame=DirectFrame(commander=unit.id, ally=option[1])))
    else:
        raise AssertionError(f"unknown task {kind!r}")


def direct_step(ctx: Context, f: DirectFrame) -> None:
    ally = ctx.state.units[f.ally]
    opts = task_options(ctx.state, ally, directed=True)
    ctx.ask(ally.side, "directed", [("none",)] + opts, unit=ally.id)


def answer_directed(ctx: Context, option: Option) -> None:
    f = ctx.state.stack[-1]
    ctx.emit(ProcedureEnded())
    if option[0] != "none":
        start_task(ctx, ctx.state.units[f.ally], option)


# -- rolled Tasks ------------------------------------------------------------------------------------

SPECS = {
    "recover": Spec("fitness", "command", 2, "recover"),  # "Fitness + Command Task with a Difficulty of 2"
    "sprint": Spec("fitness", "security", 0, "sprint"),  # "Fitness + Security Task, Difficulty 0"
    "first_aid": Spec("daring", "medicine", 1, "first aid"),  # "Daring + Medicine Task, with a Difficulty of 1"
    "create_advantage": Spec("insight", "security", 1, "create advantage"),  # house rule
}


def _spec(task: str):
    return lambda state, f: SPECS[task]


def _other_spec(state: State, f: TaskFrame) -> Spec:
    o = state.objectives[f.target]
    return Spec(o.attribute, o.discipline, o.difficulty, o.name)


def _settle(ctx: Context, f: TaskFrame, r: TaskResult) -> Unit:
    unit = ctx.state.units[f.unit]
    suffer_complications(ctx, unit, r.complications, f.task)
    gain_momentum(ctx, unit.side, r.momentum, f.task)
    return unit


def _resolve_recover(ctx: Context, f: TaskFrame, r: TaskResult) -> None:
    """Recover: "gets behind cover ... They gain one additional Resistance for each Effect rolled
    on Cover Dice and regain the ability to Avoid an Injury. Further, the character regains
    2 Stress per Momentum spent." Without cover there are no Cover Dice to roll."""
    unit = _settle(ctx, f, r)
    if not r.passed:
        ctx.emit(ProcedureEnded())
        return
    effects = 0
    if geo.in_cover(ctx.state.board, unit.x, unit.y):
        _, effects = challenge_total(ctx.roll(6, attack.COVER_DICE, "cover", unit=unit.id))
    ctx.emit(Recovered(unit=unit.id, resistance=effects))
    update(ctx, f, step="spend")


def _spend_recover(ctx: Context, f: TaskFrame) -> None:
    unit = ctx.state.units[f.unit]
    most = min(ctx.state.momentum[unit.side], -(-(unit.stress_max - unit.stress) // 2))
    if most < 1:
        ctx.emit(ProcedureEnded())
        return
    ctx.ask(unit.side, "recover_stress", [("spend", n) for n in range(most + 1)], unit=unit.id)


def _resolve_sprint(ctx: Context, f: TaskFrame, r: TaskResult) -> None:
    """Sprint: "Success means you move one zone, one additional zone per Momentum spent." A zone
    is the Close band (adapted: the grid has no zones)."""
    _settle(ctx, f, r)
    if r.passed:
        update(ctx, f, step="spend")
    else:
        ctx.emit(ProcedureEnded())


def sprint_cost(state: State, cost: int) -> int:
    zone = state.board.close
    return max(0, -(-cost // zone) - 1)


def _spend_sprint(ctx: Context, f: TaskFrame) -> None:
    s = ctx.state
    unit = s.units[f.unit]
    momentum = s.momentum[unit.side]
    occupied = {(u.x, u.y) for u in s.units.values() if not u.dead and u.id != unit.id}
    cells = registry.reachable(s, unit, s.board.close * (1 + momentum), occupied)
    opts: list[Option] = [("stay",)] + [("sprint", x, y) for (x, y) in sorted(cells, key=lambda c: (c[1], c[0]))]
    ctx.ask(unit.side, "sprint", opts, unit=unit.id)


def answer_spend(ctx: Context, option: Option) -> None:
    """The Momentum spending after Recover (Stress) or Sprint (distance)."""
    s = ctx.state
    f = s.stack[-1]
    unit = s.units[f.unit]
    ctx.emit(ProcedureEnded())
    if option[0] == "spend" and option[1]:
        ctx.emit(PoolChanged(side=unit.side, pool="momentum", delta=-option[1], reason="recover"))
        ctx.emit(StressRegained(unit=unit.id, amount=2 * option[1]))
    elif option[0] == "sprint":
        occupied = {(u.x, u.y) for u in s.units.values() if not u.dead and u.id != unit.id}
        cost = registry.reachable(s, unit, s.board.close * 7, occupied)[(option[1], option[2])]
        extra = sprint_cost(s, cost)
        if extra:
            ctx.emit(PoolChanged(side=unit.side, pool="momentum", delta=-extra, reason="sprint"))
        ctx.emit(UnitMoved(unit=unit.id, x=option[1], y=option[2]))
        ctx.rules.core.unit_moved(ctx, unit.id)


def _resolve_first_aid(ctx: Context, f: TaskFrame, r: TaskResult) -> None:
    """First Aid: "Success stabilizes the injured character" (it will not die at scene end)."""
    _settle(ctx, f, r)
    target = ctx.state.units[f.target]
    if r.passed and target.injury == "lethal" and not target.dead:
        ctx.emit(Stabilised(unit=target.id))
    ctx.emit(ProcedureEnded())


def _resolve_create_advantage(ctx: Context, f: TaskFrame, r: TaskResult) -> None:
    """Create Advantage (house rule for its effect): the next attack on the enemy is at
    Difficulty -1."""
    _settle(ctx, f, r)
    if r.passed:
        ctx.emit(AdvantageCreated(unit=f.target))
    ctx.emit(ProcedureEnded())


def _resolve_other(ctx: Context, f: TaskFrame, r: TaskResult) -> None:
    """Other Tasks: the mission sets them on objectives (attribute + discipline, Difficulty)."""
    unit = _settle(ctx, f, r)
    if r.passed:
        ctx.emit(ObjectiveSecured(objective=f.target, side=unit.side, unit=unit.id))
    ctx.emit(ProcedureEnded())


def _spend(ctx: Context, f: TaskFrame) -> None:
    (_spend_recover if f.task == "recover" else _spend_sprint)(ctx, f)


# What the Task procedure (skirmish.engine.rules.core.procedure) looks up for the Tasks defined here.
SPECS_OF = {**{_task: _spec(_task) for _task in SPECS}, "other": _other_spec}
RESOLVE = {
    "recover": _resolve_recover, "sprint": _resolve_sprint, "first_aid": _resolve_first_aid,
    "create_advantage": _resolve_create_advantage, "other": _resolve_other,
}
STEPS = {"spend": _spend}

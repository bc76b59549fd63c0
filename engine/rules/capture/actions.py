"""seed 000 "NEW ACTION - CAPTURE" and "NEW STATE - CAPTURED": the module's actions and hooks.

Options the module adds to a unit's "act" decision (after the core's, in this order):

``("capture", target)``  Task: a hero's interact test to capture an engaged target
``("free", ally)``       Task: a character's interact D(13) test to free an engaged captive friend
``("escape",)``          Task: a captured character's escape D(16) test (its only other option
                         is to end its turn)
``("drag", captive)``    Minor Action: take hold of an engaged enemy captive, which then follows
                         its dragger's every move
``("exit", captive)``    Minor Action: on the mission's exit edge, take the dragged captive
                         bogey off the table
``("bonus", kind, ...)`` a bonus action: one extra Minor Action (``move``, ``stand``,
                         ``interact``, ``draw``, ``pickup``) that costs no Momentum

A captured bogey does not choose: when it is activated its escape roll is made at once
(``turn_started``), and after an escape its turn holds one secondary action.
"""

from __future__ import annotations

from types import MappingProxyType

from skirmish.engine import board as geo
from skirmish.engine.events import ItemPickedUp, MinorActionTaken, ObjectiveSecured, PoolChanged, ProcedureStarted, ProneChanged, StressLost, TaskAttempted, UnitMoved, WeaponDrawn
from skirmish.engine.rules.capture.events import BonusActionTaken, BonusActionsLost, CaptiveEscaped, CaptiveFreed, CaptiveRemoved, DragEnded, DragStarted, UnitCaptured
from skirmish.engine.model import Option, State, TaskFrame, Unit, other
from skirmish.engine.rules.capture.frames import D12Frame
from skirmish.engine.rules.capture import conditions as cond
from skirmish.engine.rules.capture import dice as d12
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import actions as core_actions
from skirmish.engine.rules.core import attack

# -- the act decision ---------------------------------------------------------------------------

TARGETED = ("assist", "direct", "create_advantage", "first_aid")  # attacks: ``can_target``


def turn_options(state: State, unit: Unit, opts: list[Option]) -> list[Option]:
    turn = state.turn
    if unit.captured:
        # House rule: a captive is held; a captured character may only try to escape
        # ("A captured character, if activated, may attempt to escape").
        return [("end",), ("escape",)] if unit.kind == "hero" and not turn.task else [("end",)]
    if unit.kind == "bogey" and turn.task == "escape":
        # "The bogey immediately performs a secondary action": one Minor Action (house rule).
        return [o for o in opts if o[0] == "end" or o[0] in core_actions.MINOR_NAMES] if not turn.minors \
            else [("end",)]
    # House rule: a captive is a prisoner, not a combatant: no attack on it (its captors hold it,
    # its friends free it), no Assist or Direct for it.
    units = state.units
    opts = [o for o in opts if not (o[0] in TARGETED and units[o[1]].captured)]
    if not turn.task:
        if cond.may_capture(state, unit):
            opts += [("capture", t.id) for t in _by_id(state) if cond.capturable(state, unit, t)]
        if unit.kind == "hero" and cond.able(unit):
            opts += [("free", f.id) for f in _by_id(state)
                     if f.side == unit.side and f.kind == "hero" and f.captured and not f.dead
                     and cond.engaged(state, unit, f)]
    affordable = state.momentum[unit.side] >= core_actions.minor_cost(state)
    if affordable and "drag" not in turn.minors and not unit.dragging and unit.kind == "hero":
        opts += [("drag", c.id) for c in _by_id(state)
                 if c.side != unit.side and c.captured and not c.dead and cond.engaged(state, unit, c)
                 and not _held(state, c)]
    if affordable and "exit" not in turn.minors and unit.dragging and cond.on_exit(state, unit):
        captive = units[unit.dragging]
        if captive.kind == "bogey" and captive.captured and not captive.dead:
            opts.append(("exit", captive.id))
    if unit.bonus_actions > 0:
        opts += bonus_options(state, unit)
    return opts


def can_move(state: State, unit: Unit) -> bool:
    """A captive does not move itself (a retreat's Breakaway Move included); it is dragged."""
    return not unit.captured


def can_threaten(state: State, unit: Unit) -> bool:
    """A captive is helpless: no threat to the enemies in its Reach (house rule, issue 12: an
    enemy's ranged attack next to it takes no +1 Difficulty)."""
    return not unit.captured


def can_target(state: State, unit: Unit, target: Unit) -> bool:
    """No attack on a captive from anywhere: a directed ally's Task or a Ready reaction included
    (the same house rule as in ``turn_options``)."""
    return not target.captured


def _by_id(state: State) -> list[Unit]:
    return [state.units[uid] for uid in sorted(state.units)]


def _held(state: State, captive: Unit) -> bool:
    d = cond.dragger_of(state, captive)
    return d is not None and cond.able(d)


def bonus_options(state: State, unit: Unit) -> list[Option]:
    """The extra Minor Actions a bonus action buys (house rule: any of these, even one already
    taken this turn; Movement within Medium range as usual)."""
    opts: list[Option] = []
    if not unit.prone and registry.allows(state, "can_move", unit):  # a Fear Token (seed 004) forbids it
        opts += [("bonus", "move", x, y) for x, y in core_actions._cells(state, unit, state.board.medium)]
    else:
        opts.append(("bonus", "stand"))
    opts += [("bonus", "interact", o.id) for o in state.objectives.values()
             if not o.attribute and o.holder != unit.side and core_actions.in_reach(state, unit, o.x, o.y)]
    opts += [("bonus", "draw", i) for i in unit.stowed]
    opts += [("bonus", "pickup", it.id) for it in state.items.values()
             if not it.carrier and core_actions.in_reach(state, unit, it.x, it.y)]
    return opts


# -- the actions ----------------------------------------------------------------------------------


def act_capture(ctx: Context, unit: Unit, option: Option) -> None:
    """seed 000 "NEW ACTION - CAPTURE": "This requires a successful interact (D(16) for bogeys or
    D(target's FxM) for an enemy character) test. If the test is failed, the target's state
    doesn't change and the active hero becomes wounded(+1). If it is passed, the bogey loses its
    down state and becomes captured whilst a character gains the captured state in addition to
    its wounded state. Any surplus successes may be spent on bonus actions as normal."
    The interact test rolls the hero's Acuity in d12 (house rule)."""
    target = ctx.state.units[option[1]]
    ctx.emit(TaskAttempted(unit=unit.id, task="capture"))
    d12.test(ctx, OUTCOMES, unit, "capture", d12.acuity(unit), cond.capture_difficulty(target), target=target.id)


def _captured(ctx: Context, f: D12Frame, passed: bool) -> None:
    if passed:
        target = ctx.state.units[f.target]
        if target.dragging:
            ctx.emit(DragEnded(unit=target.id))
        ctx.emit(UnitCaptured(unit=target.id, by=f.unit))
    else:
        wounded_plus_one(ctx, ctx.state.units[f.unit])


def wounded_plus_one(ctx: Context, unit: Unit) -> None:
    """"becomes wounded(+1)": loses the Stress of exactly one step (``conditions.wound_step``),
    "which can cause an Injury as usual" (RULES-BRIEF): reduced to 0 Stress (seed 001 step 7B), or
    already at 0 (7C, losing no more Stress); it is not
    an attack, so 7A (5 or more damage) does not apply. The Injury is non-lethal and may be
    avoided as usual (the core's injury step)."""
    before = unit.stress
    step = cond.wound_step(unit, ctx.state.rules_version)
    if step:  # (never 0 under engine 0.1.0's rules)
        ctx.emit(StressLost(unit=unit.id, amount=step))
    injuries = (before > 0 and ctx.state.units[unit.id].stress == 0) + (before == 0)
    if injuries:
        ctx.emit(ProcedureStarted(frame=TaskFrame(unit=unit.id, task="capture", step="injury", winner=unit.id,
                                                  victim=unit.id, injuries=injuries, lethal=False)))


def act_free(ctx: Context, unit: Unit, option: Option) -> None:
    """"A character may attempt to free a captured character with which they are engaged by
    making an interact (D(13)) test. If the test is successful, remove the captured state from the
    target character. Any surplus successes may be spent on bonus actions as normal." A failure
    changes nothing (the seed names no cost)."""
    ctx.emit(TaskAttempted(unit=unit.id, task="free"))
    d12.test(ctx, OUTCOMES, unit, "free", d12.acuity(unit), cond.FREE_DIFFICULTY, target=option[1])


def _freed(ctx: Context, f: D12Frame, passed: bool) -> None:
    if passed:
        captive = ctx.state.units[f.target]
        _let_go(ctx, captive)
        ctx.emit(CaptiveFreed(unit=captive.id, by=f.unit))


def _let_go(ctx: Context, captive: Unit) -> None:
    dragger = cond.dragger_of(ctx.state, captive)
    if dragger is not None:
        ctx.emit(DragEnded(unit=dragger.id))


def act_escape(ctx: Context, unit: Unit, option: Option) -> None:
    """"A captured character, if activated, may attempt to escape by making an escape (D(16))
    test. If the character is engaged with an enemy character, they must achieve two successes
    to escape. Otherwise, they escape with a single success and any surplus successes may be
    spent on bonus actions as normal." ... "If a captured character escapes whilst engaged with
    an enemy character, immediately resolve a CQB between the two characters."
    The escape test rolls the character's Mobility in d12 (house rule); surplus successes beyond
    the two needed when engaged buy bonus actions too."""
    guard = cond.guard_of(ctx.state, unit)
    ctx.emit(TaskAttempted(unit=unit.id, task="escape"))
    d12.test(ctx, OUTCOMES, unit, "escape", d12.mobility(unit), cond.ESCAPE_DIFFICULTY, needed=2 if guard else 1,
             target=guard.id if guard is not None else "")


def _escaped(ctx: Context, f: D12Frame, passed: bool) -> None:
    """A character's escape test or a bogey's escape roll settled: free, then the CQB with the
    enemy character it was engaged with (``f.target``), if any."""
    if passed:
        s = ctx.state
        _let_go(ctx, s.units[f.unit])
        ctx.emit(CaptiveEscaped(unit=f.unit))
        if f.target:
            cqb(ctx, s.units[f.unit], s.units[f.target])


def cqb(ctx: Context, escaper: Unit, enemy: Unit) -> None:
    """A CQB is seed 001's melee attack (RULES-BRIEF "Gaps"): the escaper attacks (house rule: it
    has the surprise) with its best drawn melee weapon, non-lethally (house rule: a scuffle to
    break free, so no Threat changes hands); Opposed, so the enemy may win and strike back."""
    attack.declare(ctx, escaper, enemy.id, attack.melee_weapon(escaper), False)


def turn_started(ctx: Context, unit: Unit) -> None:
    """seed 000: "If a captured bogey is activated, ignore the primary action and, instead, roll a
    number of d12s depending on the bogey - 1 for a Grunt, 2 for an Elite or 3 for a Boss. If any
    of the dice is a 10+, the bogey has escaped and loses its captured state. The bogey
    immediately performs a secondary action. A captured bogey that is engaged with a character
    will escape only if any of the dice is a 12. If a bogey escapes whilst engaged with a
    character, immediately resolve a CQB between the character and the bogey."
    The primary action is the turn's Task, spent here; "engaged with a character" means an enemy
    character able to hold it; the secondary action follows an escape only (a bogey still held
    does nothing) and is one Minor Action (``turn_options``)."""
    if not (unit.captured and unit.kind == "bogey"):
        return
    guard = cond.guard_of(ctx.state, unit)
    face = cond.ENGAGED_ESCAPE_FACE if guard else cond.ESCAPE_FACE
    ctx.emit(TaskAttempted(unit=unit.id, task="escape"))
    d12.roll_escape(ctx, OUTCOMES, unit, cond.ESCAPE_DICE[unit.tier], face, guard.id if guard is not None else "")


def act_drag(ctx: Context, unit: Unit, option: Option) -> None:
    """"A captured bogey can be left in place until the end of the mission or dragged by a
    character." Taking hold is a Minor Action (house rule); a captive left by a dragger who can
    no longer hold it may be taken over."""
    captive = ctx.state.units[option[1]]
    _minor(ctx, unit, "drag")
    _let_go(ctx, captive)
    ctx.emit(DragStarted(unit=unit.id, captive=captive.id))


def act_exit(ctx: Context, unit: Unit, option: Option) -> None:
    """"a captured bogey who is removed from the table in the normal rules for exiting the table
    is going to be worth +1 XP to the hero removing them": the exit is the mission's board edge;
    the dragger, standing on it, takes the captive off as a Minor Action and stays (house rule)."""
    _minor(ctx, unit, "exit")
    ctx.emit(CaptiveRemoved(unit=unit.id, captive=option[1], xp=cond.XP_FOR_REMOVAL))


def _minor(ctx: Context, unit: Unit, action: str) -> None:
    cost = core_actions.minor_cost(ctx.state)
    if cost:
        ctx.emit(PoolChanged(side=unit.side, pool="momentum", delta=-cost, reason="minor action"))
    ctx.emit(MinorActionTaken(unit=unit.id, action=action, cost=cost))


def act_bonus(ctx: Context, unit: Unit, option: Option) -> None:
    """A bonus action: one extra Minor Action, free (RULES-BRIEF "Gaps": "one bonus action = one
    extra Minor Action")."""
    kind = option[1]
    ctx.emit(BonusActionTaken(unit=unit.id, action=kind))
    if kind == "move":
        ctx.emit(UnitMoved(unit=unit.id, x=option[2], y=option[3]))
        ctx.rules.core.unit_moved(ctx, unit.id)
    elif kind == "stand":
        ctx.emit(ProneChanged(unit=unit.id, prone=False))
    elif kind == "interact":
        ctx.emit(ObjectiveSecured(objective=option[2], side=unit.side, unit=unit.id))
    elif kind == "draw":
        ctx.emit(WeaponDrawn(unit=unit.id, weapon=option[2]))
    elif kind == "pickup":
        ctx.emit(ItemPickedUp(unit=unit.id, item=option[2]))
    else:
        raise AssertionError(f"unknown bonus action {kind!r}")


# -- hooks ------------------------------------------------------------------------------------------


def follow(ctx: Context, mover_id: str) -> None:
    """Dragging: after its dragger moves, the captive is put in the free cell next to the dragger
    nearest to where the captive stood (ties: lowest row, then column); with no free cell there,
    the captive is left behind and the drag ends (house rule: the seed says only "dragged")."""
    s = ctx.state
    mover = s.units[mover_id]
    if not mover.dragging:
        return
    captive = s.units[mover.dragging]
    if cond.engaged(s, mover, captive):
        return
    occupied = {(u.x, u.y) for u in s.units.values() if not u.dead and u.id != captive.id}
    cells = [(x, y) for y in range(mover.y - 1, mover.y + 2) for x in range(mover.x - 1, mover.x + 2)
             if geo.on_board(s.board, x, y) and (x, y) not in occupied
             and geo.move_cost(s.board, x, y) > 0]
    if not cells:
        ctx.emit(DragEnded(unit=mover.id))
        return
    x, y = min(cells, key=lambda c: (geo.distance(c[0], c[1], captive.x, captive.y), c[1], c[0]))
    ctx.emit(UnitMoved(unit=captive.id, x=x, y=y))


def end_phase(ctx: Context) -> None:
    """Bonus actions not spent in their turn are gone by the End Phase."""
    for uid in sorted(ctx.state.units):
        if ctx.state.units[uid].bonus_actions:
            ctx.emit(BonusActionsLost(unit=uid))


def points(state: State) -> dict[str, int]:
    """Victory points (house rule on the seed's "worth +1 XP" and "their own reward"): a captive
    held at the end counts as taken out (its points, if the core did not already count it) plus
    the mission's ``captive_points`` (bogeys) or ``character_points`` (characters); a captive
    removed by the exit counts as taken out (the core counts it) plus ``exit_points``."""
    rules = cond.rules_of(state)
    pts = {"a": 0, "b": 0}
    for u in state.units.values():
        if not u.captured:
            continue
        captor = other(u.side)
        if u.removed:
            pts[captor] += rules.exit_points
            continue
        if not u.incapacitated:
            pts[captor] += u.points
        pts[captor] += rules.captive_points if u.kind == "bogey" else rules.character_points
    return pts


# what each settled d12 test does (``dice.Outcomes``)
OUTCOMES: d12.Outcomes = MappingProxyType(
    {"capture": _captured, "free": _freed, "escape": _escaped, d12.BOGEY_ESCAPE: _escaped})

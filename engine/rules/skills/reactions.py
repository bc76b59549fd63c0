"""Reactions (AROs), *adapted* (issue 14, seed 003): Dodge, Change Facing and Engage, and
Kinematika L1 / L2, which lengthen the Dodge's and the Engage's movement.

Seed 003 names the AROs (Dodge, Change Facing, Engage, Discover) and what Kinematika adds to
them, not their rules (the N3 rulebook's, outside the excerpt). Adapted into the decision-point
model (docs/rules.md, seed 003, "Reactions"):

- **Who reacts**: a unit whose profile grants the reaction, as a skill (``dodge``, ``engage``,
  ``change facing``: RULES-BRIEF, "reactions exist only where a skill grants them"), on the table,
  not incapacitated, able to act (the registry's ``can_act``), with line of fire to the enemy, in
  its side's **Reactive Turn** (the acting unit is the enemy's), and at most once per enemy
  Order (an activation: ``State.reacted``, for the Order ``"round:unit"``).
- **Facing** (Change Facing's smallest meaning: the game has no facing): a unit faces the enemy
  half of the board (``board.midline``) until a Change Facing turns it towards an enemy; its
  front arc is the half-plane in front of it, flanks included. A unit reacts with Dodge or Engage
  only to an enemy in its front arc; to one outside it, only with Change Facing.
- **Windows**: an enemy's attack at the unit (``on_attack_declared``: declared, nothing rolled
  yet): the target may Dodge (or Change Facing); an enemy's move (``after_move``, of a unit of
  the active side): each unit of the other side may Engage it (or Change Facing). Each window is
  one ``react`` decision of the reacting side: ``("none",)`` (the time-out default), or one
  reaction of one unit. Discover (issue 15) is one more entry of ``OPTIONS``.
- **Dodge**: a Face to Face Roll of the dodger's PH against the attacker's BS (CC for a melee
  attack); the dodger winning, the attack is cancelled and the dodger may move up to
  ``DODGE_MOVE`` cells (N3: 2 inches; 1 cell = 1 inch), a ``dodge_move`` decision ("stay" first).
- **Engage**: a move of up to ``ENGAGE_MOVE`` cells ending in base contact (Reach) with the mover.
- **Change Facing**: the unit turns to face the enemy (``FacingChanged``); no roll.
- **Kinematika** L1 / L2: "a 1-inch (2-inch) bonus to the movement distance allowed by the Engage
  ARO and the Dodge Skill in Reactive Turn": +1 / +2 cells to both.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import ProcedureEnded, ProcedureStarted, UnitMoved
from skirmish.engine.model import Option, State, TaskFrame, Unit, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core.attack import weapon_of
from skirmish.engine.rules.skills import rolls
from skirmish.engine.rules.skills.events import AttackDodged, FacingChanged, ReactionDeclared
from skirmish.engine.rules.skills.frames import ReactionFrame, SkillRollFrame
from skirmish.engine.rules.skills.terrain import level

DODGE_MOVE = 2  # cells a won Dodge moves in Reactive Turn (adapted: N3's 2 inches)
ENGAGE_MOVE = 2  # cells the Engage ARO moves (adapted: as far as the Dodge)
KINEMATIKA = {"1": 1, "2": 2}  # Kinematika's level -> the cells it adds to both
SKILLS = ("dodge", "engage", "change facing")  # the reactions a profile may grant (Discover: issue 15)
PURPOSE = "dodge"


def order(state: State) -> str:
    """The Order in progress, ``"round:unit"``, and ``":lieutenant order"`` after it when the unit acts
    again this round by its side's Special Lieutenant Order (skills/command.py), a second Order of
    the same unit that each enemy may react to again; "" outside a unit's activation."""
    if state.turn is None:
        return ""
    uid = state.turn.unit
    again = state.lt_order_round[0 if state.units[uid].side == "a" else 1] == state.round and uid in state.coordinated
    return f"{state.round}:{uid}" + (":lieutenant order" if again else "")


def facing(state: State, unit: Unit) -> tuple[int, int]:
    for uid, dx, dy in state.facings:
        if uid == unit.id:
            return dx, dy
    sign = 1 if unit.side == "a" else -1  # side a's half is the low one (skirmish.engine.board)
    return (0, sign) if state.board.midline == "y" else (sign, 0)


def in_front(state: State, unit: Unit, x: int, y: int) -> bool:
    if state.imp_states and marker_of(state, unit.id):
        return True  # "Impersonation Markers have a 360 degree LoF" (skills/impersonation.py)
    fx, fy = facing(state, unit)
    return (x - unit.x) * fx + (y - unit.y) * fy >= 0


def has(unit: Unit, skill: str) -> bool:
    return level(unit, skill) is not None


def may_react(state: State, unit: Unit, actor: Unit) -> bool:
    s = state
    if s.turn is None or unit.side == actor.side or s.units[s.turn.unit].side != actor.side:
        return False
    if not unit.skills or not any(has(unit, k) for k in SKILLS):
        return False
    if not unit.deployed or unit.incapacitated or not actor.deployed or actor.incapacitated \
            or not registry.allows(s, "can_act", unit):
        return False
    if s.reacted_in == order(s) and unit.id in s.reacted:
        return False
    return geo.line_of_fire(s.board, unit.x, unit.y, actor.x, actor.y)


def budget(unit: Unit, base: int) -> int:
    return base + KINEMATIKA.get(level(unit, "kinematika") or "", 0)


def _cells(state: State, unit: Unit, base: int) -> dict:
    if not registry.allows(state, "can_move", unit):
        return {}
    occupied = {(u.x, u.y) for u in state.units.values() if not u.dead and u.deployed and u.id != unit.id}
    return registry.reachable(state, unit, budget(unit, base), occupied)


def _sorted(cells) -> list:
    return sorted(cells, key=lambda c: (c[1], c[0]))


def engage_cells(state: State, unit: Unit, mover: Unit) -> list:
    reach = state.board.reach
    if geo.distance(unit.x, unit.y, mover.x, mover.y) <= reach:
        return []  # already in base contact
    return _sorted(c for c in _cells(state, unit, ENGAGE_MOVE) if geo.distance(*c, mover.x, mover.y) <= reach)


def _attack_options(state: State, f: ReactionFrame) -> list[Option]:
    target, actor = state.units[f.target], state.units[f.actor]
    if not may_react(state, target, actor):
        return []
    if not in_front(state, target, actor.x, actor.y):
        return [("change_facing", target.id)] if has(target, "change facing") else []
    if has(target, "dodge") and registry.allows(state, "can_move", target):
        return [("dodge", target.id)]
    return []


def _move_options(state: State, f: ReactionFrame) -> list[Option]:
    actor = state.units[f.actor]
    opts: list[Option] = []
    for u in state.units.values():
        if not may_react(state, u, actor):
            continue
        if not in_front(state, u, actor.x, actor.y):
            if has(u, "change facing"):
                opts.append(("change_facing", u.id))
        elif has(u, "engage"):
            opts += [("engage", u.id, x, y) for x, y in engage_cells(state, u, actor)]
    return opts


# the reactions each window offers: trigger -> (state, frame) -> options (Discover: issue 15)
OPTIONS = {"attack": _attack_options, "move": _move_options}


def options(state: State, f: ReactionFrame) -> list[Option]:
    opts = OPTIONS[f.trigger](state, f)
    return _against_marker(state, f, opts) if state.imp_states else opts


# -- against an Impersonation marker (skills/impersonation.py, skills/discover.py; issue 15) ---------------


def marker_of(state: State, uid: str) -> str | None:
    """The marker on the table ``uid`` stands behind (or is: a view's shadow), None if none."""
    if uid in state.imp_states:
        return uid
    return next((m for m, u in state.imp_markers.items() if u == uid and m in state.imp_states), None)


def barred(state: State, uid: str, marker: str) -> bool:
    """``uid`` failed to Discover ``marker`` in this Turn (skills/discover.py)."""
    return (uid, marker, order(state)) in state.imp_barred


def _may_discover(state: State, unit: Unit, actor: Unit, marker: str) -> bool:
    s = state
    if unit.side == actor.side or not unit.deployed or unit.incapacitated or marker_of(s, unit.id):
        return False
    if not registry.allows(s, "can_act", unit) or (s.reacted_in == order(s) and unit.id in s.reacted):
        return False
    return not barred(s, unit.id, marker) and geo.line_of_fire(s.board, unit.x, unit.y, actor.x, actor.y)


def _against_marker(state: State, f: ReactionFrame, options: list[Option]) -> list[Option]:
    """"The only AROs available against an Impersonation Marker are Discover, Change Facing and
    Dodge": those of ``options``, and Discover (``("discover", unit, marker)``)."""
    marker = marker_of(state, f.actor)
    if marker is None:
        return options
    actor = state.units[f.actor]
    kept = [o for o in options if o[0] in ("change_facing", "dodge")]
    return kept + [("discover", u.id, marker) for u in state.units.values() if _may_discover(state, u, actor, marker)]


# -- the windows ----------------------------------------------------------------------------------


def on_attack_declared(ctx: Context, frame) -> None:
    if isinstance(frame, TaskFrame) and frame.task == "attack":
        window = ReactionFrame(trigger="attack", actor=frame.unit, target=frame.target)
        if options(ctx.state, window):
            ctx.emit(ProcedureStarted(frame=window))


def after_move(ctx: Context, mover: str) -> None:
    window = ReactionFrame(trigger="move", actor=mover)
    if options(ctx.state, window):
        ctx.emit(ProcedureStarted(frame=window))


def step(ctx: Context, f: ReactionFrame) -> None:
    s = ctx.state
    if f.step == "dodge_move":
        unit = s.units[f.unit]
        cells = _sorted(_cells(s, unit, DODGE_MOVE)) if not unit.incapacitated else []
        if not cells:
            ctx.emit(ProcedureEnded())
            return
        ctx.ask(unit.side, "dodge_move", [("stay",)] + [("dodge_move", x, y) for x, y in cells], unit=unit.id)
        return
    opts = options(s, f)
    if not opts:
        ctx.emit(ProcedureEnded())
        return
    ctx.ask(other(s.units[f.actor].side), "react", [("none",)] + opts, unit=f.actor)


def answer_react(ctx: Context, option: Option) -> None:
    s = ctx.state
    f: ReactionFrame = s.stack[-1]
    ctx.emit(ProcedureEnded())
    if option[0] == "none":
        return
    kind, uid = option[0], option[1]
    unit, actor = s.units[uid], s.units[f.actor]
    ctx.emit(ReactionDeclared(unit=uid, reaction=kind, against=actor.id, order=order(s)))
    if kind == "change_facing":
        ctx.emit(FacingChanged(unit=uid, dx=_sign(actor.x - unit.x), dy=_sign(actor.y - unit.y)))
    elif kind == "engage":
        ctx.emit(UnitMoved(unit=uid, x=option[2], y=option[3]))
        ctx.rules.core.unit_moved(ctx, uid)
    else:  # dodge: the attack's TaskFrame is on top again
        attack = s.stack[-1]
        attr = "cc" if weapon_of(actor, attack.weapon).kind == "melee" else "bs"
        rolls.face_to_face(ctx, (actor.id, attr, ()), (uid, "ph", ()), PURPOSE, about=actor.id)


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def outcome(ctx: Context, f: SkillRollFrame, result: rolls.Result) -> None:
    """A settled Dodge: won, the attack is cancelled and the dodger may move."""
    attacker, dodger = f.rollers[0].unit, f.rollers[1].unit
    if result.winner != 1:
        return
    ctx.emit(AttackDodged(unit=dodger, attacker=attacker))
    top = ctx.state.stack[-1] if ctx.state.stack else None
    if isinstance(top, TaskFrame) and top.task == "attack" and top.unit == attacker:
        ctx.emit(ProcedureEnded())
    ctx.emit(ProcedureStarted(frame=ReactionFrame(trigger="attack", actor=attacker, target=dodger,
                                                  step="dodge_move", unit=dodger)))


def answer_dodge_move(ctx: Context, option: Option) -> None:
    f: ReactionFrame = ctx.state.stack[-1]
    ctx.emit(ProcedureEnded())
    if option[0] == "dodge_move":
        ctx.emit(UnitMoved(unit=f.unit, x=option[1], y=option[2]))
        ctx.rules.core.unit_moved(ctx, f.unit)

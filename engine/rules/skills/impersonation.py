"""Impersonation L1 and L2 (seed 003, "IMPERSONATION", "IMPERSONATION-1 (STATE)",
"IMPERSONATION-2 (STATE)", "Reacting to an Impersonator", "Impersonation and Fire Special
Ammunition"; issue 15; docs/rules.md, seed 003, "Impersonation"). Discover: skills/discover.py;
what each viewer sees: skills/markers.py.

**Markers.** At the game's start (after the secrecy salt, skills/secrecy.py), each side's
impersonators that deploy get marker ids ``"<side>-imp<k>"`` in an order drawn from the salt
(``ImpersonatorsAssigned``): a marker's id says nothing of its unit's id or its place in the
roster. The side places them last of its units, in that order (skills/deploy.py), so the order of
the placements tells nothing either. An IMP-1 / IMP-2 marker is the unit, on the table, with its
marker id in ``State.imp_states``; the other side and spectators see it only as the marker.

**Deployment** (the Deployment Skill, Optional, NFB, Fire-Sensitive): any cell but a blocking one,
not in base to base contact (within Reach) with a unit, a marker or an objective, the enemy
Deployment Zone included; each is offered as a figure (``("deploy", x, y)``) and, where the unit
may adopt IMP-1, as a marker (``("impersonate", x, y)``). In the enemy zone the WIP Roll follows
the placement (purpose "impersonation"). Failed: the marker is replaced by the figure (it has lost
the IMP-1 option; no deployables exist in this game), and the **Dispersion**: the grid form of
the Circular Template is the ring of the 16 cells at distance 2 (Chebyshev) around the unit's
cell, numbered 1-16 clockwise from the cell two rows towards row 0 (``RING``); a d16 picks one.
The unit lands there if an impersonator could deploy there; else (off the table, blocking, in
base contact, taken) its side places it in its own Deployment Zone at a table edge (decision
``imp_redeploy``). **L1** adopts no IMP-1 against a side the mission marks alien (``[skills]
alien``): it deploys as a figure; **L2** can.

**Granted skills**: any level grants Surprise Attack, Surprise Shot L1 and Stealth (``has``). A
marker whose first action of its Order is an attack (in its own activation: the Active Turn) is
revealed by it ("surprise attack": melee, "surprise shot": ranged) and that attack's Difficulty is
one lower (*adapted*: the N3 MODs are to the enemy's Face to Face Roll, which the core's Tasks do
not have). Stealth: nothing beyond what every reaction already needs (line of fire).

**IMP-1 / IMP-2** (``turn_options``, ``can_target``, ``can_threaten``): nobody enters base
contact with a marker (its cell's neighbours within Reach leave every other unit's moves), no
Attack is declared against it (no option names it; ``can_target``), no Ready fire or Engage is
triggered by it; an enemy in Reach of it adds no Difficulty ("Enemies perceive ... as an ally":
``can_threaten``). Its LoF is 360 degrees (skills/reactions.py ``in_front``). The marker keeps the
profile's Silhouette (public in ``MarkerPlaced``).

**Cancellation, applied to the whole declared Order.** An Order is the unit's activation. The
covert actions are Cautious Movement's and the Short Movement Skills without a roll: the Movement
Minor Action (not into base contact with a unit), Drop Prone, Stand, and ending the turn. Any
other action is offered as ``("reveal", *action)``: choosing it replaces the marker with the
figure *before* the action (so the whole Order is the figure's: a move into base contact is
declared as a figure, the seed's Fiday example); once the marker has taken a covert action in an
Order, only covert actions remain in it (the Order was declared covert). Frenzy: no effect makes
a unit Impetuous in this game. Retreat!: a marker of a side in Retreat! is revealed ("retreat!")
and the side's impersonators cannot adopt IMP-1 while it lasts (for the rest of the game). Fire
Special Ammunition hitting an impersonator (whatever its ARM Roll) burns the skill for good
(``ImpersonationLost``: no Engineer repairs in this game).

**Regaining IMP-1**: an Entire Order (``("impersonate",)``, only as the first action of the
activation, which it ends) of an impersonator figure that may adopt IMP-1 with no enemy unit on
the table having line of fire to it. Whoever it is stays public (it was revealed); a unit that
started as a figure gets a new marker id.

**Revealing** (``ImpersonationRevealed``): the figure at the marker's cell, public from then on;
its owner then chooses its facing (decision ``imp_facing``, as soon as nothing else is in
progress; the first option faces the enemy half).
"""

from __future__ import annotations

import hashlib
import random

from skirmish.engine import board as geo
from skirmish.engine.model import SIDES, Option, State, TaskFrame, Unit, other
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import flow
from skirmish.engine.rules.core.attack import weapon_of
from skirmish.engine.rules.skills import deploy, infiltrate, rolls
from skirmish.engine.rules.skills.events import FacingChanged, UnitDeployed
from skirmish.engine.rules.skills.frames import RegainFrame
from skirmish.engine.rules.skills.imp_events import (ImpersonationLost, ImpersonationRevealed, ImpersonatorDispersed,
                                                     ImpersonatorsAssigned, MarkerPlaced)

SKILL = "impersonation"
PURPOSE = "impersonation"  # the deployment WIP Roll in the enemy zone
DISPERSION = "skills:dispersion"
GRANTED = ("surprise attack", "surprise shot 1", "stealth")
COVERT = ("end", "prone", "stand")  # and "move", when not into base contact
SURPRISE = -1  # the Difficulty of a Surprise Attack / Shot
RING = ((0, -2), (1, -2), (2, -2), (2, -1), (2, 0), (2, 1), (2, 2), (1, 2),
        (0, 2), (-1, 2), (-2, 2), (-2, 1), (-2, 0), (-2, -1), (-2, -2), (-1, -2))
FACINGS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def level(unit: Unit) -> str | None:
    """The unit's Impersonation level ("1", "2"), None without the skill."""
    return next((s.split()[1] for s in unit.skills if s.startswith(SKILL + " ")), None)


def has(unit: Unit, skill: str) -> bool:
    """The unit has ``skill``, of its profile or granted by Impersonation."""
    return skill in unit.skills or (skill in GRANTED and level(unit) is not None)


def masked(state: State) -> dict[str, str]:
    """The units behind the markers on the table: unit -> marker (in a view, only those it can name)."""
    return {u: m for m, u in state.imp_markers.items() if m in state.imp_states and isinstance(u, str)}


def marker_of(state: State, uid: str) -> str | None:
    return next((m for m, u in state.imp_markers.items() if u == uid), None)


def marker_id(side: str, k: int) -> str:
    """The public id of ``side``'s ``k``-th marker ("b-imp1"), which tells nothing of the unit."""
    return f"{side}-imp{k}"


def is_marker(state: State, uid: str) -> bool:
    """``uid`` is a marker on the table: a unit behind one, or a view's shadow (skills/imp_evolve.py)."""
    if not state.imp_states:
        return False
    return uid in state.imp_states or marker_of(state, uid) in state.imp_states


def can_adopt(state: State, unit: Unit) -> bool:
    """The unit may adopt IMP-1: it has the skill, has not lost it, its side is not in Retreat!, and
    it is not an L1 against an alien army."""
    lv = level(unit)
    return lv is not None and unit.id not in state.imp_lost and unit.side not in state.retreat \
        and not (lv == "1" and other(unit.side) in state.alien_sides)


def impersonators(state: State, side: str) -> list[str]:
    return sorted(u.id for u in state.units.values() if u.side == side and level(u) is not None)


# -- the game's start and the deployment ------------------------------------------------------------


def on_game_start(ctx: Context) -> None:
    """The markers of each side's impersonators that deploy, in an order drawn from the salt."""
    s = ctx.state
    for side in SIDES:
        ids = [u for u in impersonators(s, side) if not s.units[u].deployed]
        if not ids:
            continue
        seed = hashlib.sha256(repr((tuple(s.secrecy_salt), side)).encode()).digest()
        random.Random(int.from_bytes(seed[:8], "big")).shuffle(ids)
        markers = tuple(marker_id(side, k + 1) for k in range(len(ids)))
        ctx.emit(ImpersonatorsAssigned(side=side, markers=markers, units=tuple(ids)))


def _open(state: State, unit: Unit) -> frozenset:
    """Cells an impersonator may stand on: not blocking, no unit (marker) or objective within Reach."""
    b, reach = state.board, state.board.reach
    things = [(u.x, u.y) for u in state.units.values() if u.deployed and not u.dead and u.id != unit.id]
    things += [(o.x, o.y) for o in state.objectives.values()]
    return frozenset((x, y) for y in range(b.height) for x in range(b.width)
                     if geo.terrain(b, x, y) not in geo.BLOCKING
                     and all(geo.distance(x, y, tx, ty) > reach for tx, ty in things))


def cells(state: State, unit: Unit, legal: frozenset) -> frozenset:
    """Impersonation's deployment cells (``deploy.Extensions.cells``): anywhere open."""
    if level(unit) is None:
        return legal
    return _open(state, unit) or legal


def deploy_options(state: State, unit: Unit, options: list[Option]) -> list[Option]:
    """Each cell as a figure, then, if the unit may adopt IMP-1, as a marker; by row and column
    (the mission's cell first would name the unit behind a marker)."""
    if level(unit) is None:
        return options
    options = sorted(options, key=lambda o: (o[0], o[2], o[1]))
    if not can_adopt(state, unit):
        return options
    return options + [("impersonate", o[1], o[2]) for o in options if o[0] == "deploy"]


def answer_deploy(ctx: Context, option: Option, ext) -> bool:
    """Place a marker, or reveal an impersonator deployed as a figure; True if it placed the unit."""
    s = ctx.state
    side = ctx.events[-1].side  # the OptionChosen just emitted
    unit = deploy.undeployed(s, side)[0]
    marker = marker_of(s, unit.id)
    if option[0] == "impersonate":
        ctx.emit(MarkerPlaced(marker=marker, side=side, unit=unit.id, x=option[1], y=option[2],
                              silhouette=unit.silhouette))
        for after in ext.after:
            after(ctx, unit.id)
        return True
    if marker is None or marker in s.imp_known:
        return False
    ctx.emit(ImpersonationRevealed(marker=marker, unit=unit.id, x=option[1], y=option[2], why="deployed as a figure"))
    ctx.emit(UnitDeployed(unit=unit.id, x=option[1], y=option[2]))  # as deploy.answer does
    for after in ext.after:
        after(ctx, unit.id)
    return True


def after(ctx: Context, uid: str) -> None:
    """The WIP Roll of an impersonator placed in the enemy Deployment Zone (``Extensions.after``)."""
    u = ctx.state.units[uid]
    if level(u) is not None and (u.x, u.y) in deploy.zone(ctx.state, other(u.side)):
        rolls.normal_roll(ctx, uid, "wip", PURPOSE, (), about=marker_of(ctx.state, uid) or "")


def outcome(ctx: Context, f, result: rolls.Result) -> None:
    """A failed deployment roll: the figure, then the Dispersion."""
    if result.passed:
        return
    s = ctx.state
    uid = f.rollers[0].unit
    u = s.units[uid]
    marker = marker_of(s, uid)
    if marker in s.imp_states:
        ctx.emit(ImpersonationRevealed(marker=marker, unit=uid, x=u.x, y=u.y, why="failed deployment roll"))
    d = ctx.roll(16, 1, DISPERSION, unit=uid)[0]
    dx, dy = RING[d - 1]
    x, y = u.x + dx, u.y + dy
    if (x, y) in _open(s, u):
        ctx.emit(ImpersonatorDispersed(unit=uid, direction=d, x=x, y=y))
    else:
        ctx.ask(u.side, "imp_redeploy", [("imp_redeploy", uid, cx, cy) for cx, cy in infiltrate.edge_cells(s, u)],
                unit=uid)


def answer_redeploy(ctx: Context, option: Option) -> None:
    ctx.emit(ImpersonatorDispersed(unit=option[1], direction=0, x=option[2], y=option[3]))


# -- the markers in play -------------------------------------------------------------------------------


def _contact(state: State, unit: Unit, x: int, y: int, only_markers: bool) -> bool:
    reach = state.board.reach
    for u in state.units.values():
        if u.id == unit.id or not u.deployed or u.dead:
            continue
        if only_markers and not is_marker(state, u.id):
            continue
        if geo.distance(x, y, u.x, u.y) <= reach:
            return True
    return False


def no_stop(state: State, unit: Unit) -> set[tuple[int, int]]:
    """The cells in base contact (within Reach) with a marker other than ``unit``'s own: no movement
    of anyone ends there (Movement, Sprint, a Dodge's move, Engage: ``registry.reachable``)."""
    if not state.imp_states:
        return set()
    reach, board = state.board.reach, state.board
    out: set[tuple[int, int]] = set()
    for u in state.units.values():
        if u.id != unit.id and u.deployed and not u.dead and is_marker(state, u.id):
            out.update((x, y) for x in range(max(0, u.x - reach), min(board.width, u.x + reach + 1))
                       for y in range(max(0, u.y - reach), min(board.height, u.y + reach + 1)))
    return out


def covert(state: State, unit: Unit, option: Option) -> bool:
    """An action that keeps the marker: Cautious / Short Movement without a roll, not into contact."""
    if option[0] in COVERT:
        return True
    return option[0] == "move" and not _contact(state, unit, option[1], option[2], False)


def _names_marker(state: State, unit: Unit, option: Option, hidden: dict) -> bool:
    if option[0] == "move" and _contact(state, unit, option[1], option[2], True):
        return True  # no base contact with a marker
    return any(isinstance(x, str) and x in hidden and x != unit.id for x in option[1:])


def turn_options(state: State, unit: Unit, options: list) -> list:
    """A marker's options: covert ones as they are, the others as ``("reveal", ...)`` (none once it
    took a covert action this Order). Anyone else's: none into base contact with a marker or
    naming one; regaining IMP-1 added (Discover: skills/discover.py)."""
    s = state
    hidden = masked(s)
    if unit.id in hidden:
        declared = bool(s.turn.minors or s.turn.task)
        return [o if covert(s, unit, o) else ("reveal", *o) for o in options
                if covert(s, unit, o) or not declared]
    if hidden:
        options = [o for o in options if not _names_marker(s, unit, o, hidden)]
    if not unit.incapacitated and _may_regain(s, unit):
        options = options + [("impersonate",)]
    return options


def _may_regain(state: State, unit: Unit) -> bool:
    t = state.turn
    if not can_adopt(state, unit) or t is None or t.minors or t.task or unit.prone:
        return False
    return not in_enemy_lof(state, unit)


def in_enemy_lof(state: State, unit: Unit) -> bool:
    """An enemy figure or marker on the table has line of fire to ``unit`` (one in Hidden
    Deployment is not on the table)."""
    return any(e.side != unit.side and e.deployed and not e.dead
               and geo.line_of_fire(state.board, e.x, e.y, unit.x, unit.y) for e in state.units.values())


def regain_complies(state: State, actor: Unit) -> bool:
    """Hidden Deployment's ``REQUIREMENTS``: an Order regaining IMP-1 (a ``RegainFrame`` of
    ``actor``) still requires no enemy with LoF to the impersonator; any other Order complies."""
    if not any(isinstance(f, RegainFrame) and f.unit == actor.id for f in state.stack):
        return True
    return not in_enemy_lof(state, actor)


def act_reveal(ctx: Context, unit: Unit, option: Option) -> None:
    """A marker declares an action that cancels it: the figure, then the action (core ``answer_act``)."""
    inner = tuple(option[1:])
    why = "declared"
    if inner[0] == "attack":
        why = "surprise attack" if weapon_of(unit, inner[2]).kind == "melee" else "surprise shot"
    elif inner[0] == "move":
        why = "base contact"
    ctx.emit(ImpersonationRevealed(marker=marker_of(ctx.state, unit.id), unit=unit.id, x=unit.x, y=unit.y, why=why))
    flow.answer_act(ctx, inner)


def act_regain(ctx: Context, unit: Unit, option: Option) -> None:
    """The Entire Order that regains IMP-1, carried out: the marker, and the activation ends
    (declared against an enemy in Hidden Deployment: skills/imp_regain.py)."""
    s = ctx.state
    marker = marker_of(s, unit.id) or marker_id(unit.side, sum(1 for m in s.imp_markers if m[0] == unit.side) + 1)
    ctx.emit(MarkerPlaced(marker=marker, side=unit.side, unit=unit.id, x=unit.x, y=unit.y,
                          silhouette=unit.silhouette, why="regained"))
    ctx.rules.core.end_turn(ctx)


def can_target(state: State, unit: Unit, target: Unit) -> bool:
    return not is_marker(state, target.id)


def can_threaten(state: State, unit: Unit) -> bool:
    return not is_marker(state, unit.id)


def attack_difficulty(state: State, attacker: Unit, target: Unit) -> int:
    t = state.turn
    surprised = state.imp_surprise and t is not None and t.unit == attacker.id \
        and state.imp_surprise == f"{state.round}:{attacker.id}"
    return SURPRISE if surprised else 0


def on_hit(ctx: Context, victim: Unit, damage: int) -> None:
    """Fire Special Ammunition burns an impersonator's skill, whatever its ARM Roll."""
    s = ctx.state
    frame = next((f for f in reversed(s.stack) if isinstance(f, TaskFrame) and f.task == "attack"), None)
    if frame is None or level(victim) is None or victim.id in s.imp_lost:
        return
    if "fire" in weapon_of(s.units[frame.unit], frame.weapon).ammo:
        ctx.emit(ImpersonationLost(unit=victim.id, why="burnt"))


def on_idle(ctx: Context) -> bool:
    """A marker of a side in Retreat! revealed; a revealed figure's facing asked. True if it did anything."""
    s = ctx.state
    if not s.imp_markers or s.stack:
        return False
    for m in s.imp_states:
        u = s.units[s.imp_markers[m]]
        if u.side in s.retreat:
            ctx.emit(ImpersonationRevealed(marker=m, unit=u.id, x=u.x, y=u.y, why="retreat!"))
            return True
    if s.imp_facing:
        u = s.units[s.imp_facing[0]]
        first = (0, 1) if u.side == "a" else (0, -1)
        if s.board.midline != "y":
            first = (first[1], 0)
        faces = [first] + [f for f in FACINGS if f != first]
        ctx.ask(u.side, "imp_facing", [("face", u.id, dx, dy) for dx, dy in faces], unit=u.id)
        return True
    return False


def answer_facing(ctx: Context, option: Option) -> None:
    ctx.emit(FacingChanged(unit=option[1], dx=option[2], dy=option[3]))

"""Discover, against Impersonation markers (seed 003, IMPERSONATION-1/-2 (STATE): "In order to
Discover ...", "If an enemy fails his Discover Roll ...", "Reacting to an Impersonator"; issue 15;
docs/rules.md, seed 003, "Impersonation").

Seed 003 names Discover without defining it (a Common Skill of the N3 rulebook); *adapted*: any
unit may Discover (no skill grants it), a Normal WIP Roll, against a marker of another side to
which it has line of fire:

- in its own activation, as its Task (``("discover", marker)``);
- as a reaction (ARO) in the window after a marker's move (skills/reactions.py,
  ``_against_marker``): the only
  reactions against a marker are Discover, Change Facing and Dodge (no Engage, no Ready fire).
  A window comes after each of the marker's moves and declining one ("none") keeps the unit's
  reaction for the rest of the Order: an enemy may delay its reaction until the marker's second
  Short Skill (Minor Action).

MOD -6 against IMP-1, none against IMP-2. Passed: IMP-1 becomes IMP-2 (``MarkerDiscovered``: still
a marker, still hidden who it is); IMP-2 is replaced by the figure (``ImpersonationRevealed``,
"discovered"). Failed (``DiscoverFailed``): that unit may not Discover that impersonator (that
marker id, which it keeps from IMP-1 to IMP-2) again until the Turn ends; a *Turn* is the
activation in which it failed (seed 001's Turn, the core's ``TurnEnded``), its own (Active) or the
marker's (Reactive): ``State.imp_barred`` holds (unit, marker, Order) and an entry of another
Order bars nothing.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import ProcedureEnded, TaskAttempted
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import impersonation as imp
from skirmish.engine.rules.skills import reactions, rolls
from skirmish.engine.rules.skills.reactions import barred
from skirmish.engine.rules.skills.events import ReactionDeclared
from skirmish.engine.rules.skills.imp_events import DiscoverFailed, ImpersonationRevealed, MarkerDiscovered

PURPOSE = "discover"
IMP1_MOD = -6


def _where(state: State, marker: str) -> Unit:
    """The marker's unit, or a view's shadow of it."""
    return state.units.get(marker) or state.units[state.imp_markers[marker]]


def _targets(state: State, unit: Unit) -> list[str]:
    out = []
    for m in state.imp_states:
        where = _where(state, m)
        if where.side != unit.side and not barred(state, unit.id, m) \
                and geo.line_of_fire(state.board, unit.x, unit.y, where.x, where.y):
            out.append(m)
    return sorted(out)


def turn_options(state: State, unit: Unit, options: list[Option]) -> list[Option]:
    """A unit's Discover options in its turn (not a marker's: declaring one would reveal it)."""
    if not state.imp_states or state.turn is None or state.turn.task or unit.incapacitated \
            or reactions.marker_of(state, unit.id):
        return options
    return options + [("discover", m) for m in _targets(state, unit)]


def act(ctx: Context, unit: Unit, option: Option) -> None:
    ctx.emit(TaskAttempted(unit=unit.id, task=PURPOSE))
    roll(ctx, unit.id, option[1])


def roll(ctx: Context, uid: str, marker: str) -> None:
    mods = (("IMP-1", IMP1_MOD),) if ctx.state.imp_states[marker] == "imp1" else ()
    rolls.normal_roll(ctx, uid, "wip", PURPOSE, mods, about=marker)


def outcome(ctx: Context, f, result: rolls.Result) -> None:
    s = ctx.state
    marker, uid = f.about, f.rollers[0].unit
    if marker not in s.imp_states:
        return  # revealed meanwhile
    if not result.passed:
        ctx.emit(DiscoverFailed(unit=uid, marker=marker, order=reactions.order(s)))
    elif s.imp_states[marker] == "imp1":
        ctx.emit(MarkerDiscovered(marker=marker, by=uid))
    else:
        u = s.units[s.imp_markers[marker]]
        ctx.emit(ImpersonationRevealed(marker=marker, unit=u.id, x=u.x, y=u.y, why="discovered"))


# -- as a reaction (its options: skills/reactions.py, ``_against_marker``) ----------------------------------


def answer_react(ctx: Context, option: Option) -> None:
    """The ``react`` answer: Discover here, the others by skills/reactions.py (a marker reacting with
    anything reveals itself first: every reaction is a Skill that cancels it)."""
    s = ctx.state
    if option[0] == "discover":
        f = s.stack[-1]
        ctx.emit(ProcedureEnded())
        ctx.emit(ReactionDeclared(unit=option[1], reaction="discover", against=f.actor, order=reactions.order(s)))
        roll(ctx, option[1], option[2])
        return
    if option[0] != "none":
        hidden = imp.masked(s)
        if option[1] in hidden:
            u = s.units[option[1]]
            ctx.emit(ImpersonationRevealed(marker=hidden[u.id], unit=u.id, x=u.x, y=u.y, why="declared"))
    reactions.answer_react(ctx, option)

"""seed 004's rolls and the Command Token re-roll windows.

Every seed 004 roll runs as a ``MoraleTestFrame``: ``roll`` -> ``reroll`` -> ``resolve``.

- Endurance test: "roll a number of D6 equal to their Endurance value. If at least one of these
  D6 rolls equal to or greater than the test value, they pass the test. If they fail, their
  Endurance value is reduced by one." At 0 the pilot is Unconscious.
- Wake-up roll of an Unconscious pilot: "roll a D6, on a roll of 6 the pilot is no longer
  unconscious and regains one point of Endurance."
- Morale Test: "rolls 2D6. If the result of roll is greater than the pilot's Morale value, the
  unit fails the test otherwise they pass." (Fear, ``skirmish.engine.rules.morale.fear``)
- Courage Test: 2d6 against the Courage value (``skirmish.engine.rules.morale.courage``).

Re-roll windows ("Re-roll one of yours or your opponent's dice rolls, which is not damage.
Rolling several dice at once, like an Endurance test, is classed as one roll."): after a roll,
each side in turn -- the rolling side first -- is asked once, and only if it has the tokens and
the roll's result is against it (a failed roll for the side that rolled, a passed one for its
opponent); the first option, ``("keep",)``, is also the time-out default. A core Task's 2d20
(and an Opposed defender's 2d20) get the same window through a ``RerollFrame``, the initiative
d10s through an ``InitiativeFrame`` (asked of the side losing the initiative).
"""

from __future__ import annotations

import msgspec

from skirmish.engine.events import ProcedureEnded, ProcedureStarted, ProcedureUpdated
from skirmish.engine.rules.morale.events import EnduranceChanged, FearRemoved, FearTaken, PilotUnconscious, PilotWoke
from skirmish.engine.model import SIDES, Option, State, TaskFrame, other
from skirmish.engine.rules.morale.frames import InitiativeFrame, MoraleTestFrame, RerollFrame
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import procedure, tasks
from skirmish.engine.rules.morale import tokens


def start_test(ctx: Context, test: str, side: str, target: int, count: int, unit: str = "") -> None:
    ctx.emit(ProcedureStarted(frame=MoraleTestFrame(test=test, unit=unit, side=side, target=target, count=count)))


def passed(f: MoraleTestFrame) -> bool:
    if f.test == "endurance":
        return any(r >= f.target for r in f.rolled)
    if f.test == "wake":
        return 6 in f.rolled
    # Morale and Courage: "equal to or less than" the value passes; no dice: automatic failure
    return bool(f.rolled) and sum(f.rolled) <= f.target


def _update(ctx: Context, f, **changes) -> None:
    ctx.emit(ProcedureUpdated(frame=msgspec.structs.replace(f, **changes)))


def _wants(f: MoraleTestFrame, side: str) -> bool:
    """A side can use a re-roll of this test: its own failed test, or the opponent's passed one."""
    return f.count > 0 and passed(f) == (side != f.side)


def test_step(ctx: Context, f: MoraleTestFrame, resolve: dict | None = None) -> None:
    """A Morale Test's steps; ``resolve``: test -> what its result does (``RESOLVE`` and those of
    the files that start tests of their own, joined by the module)."""
    s = ctx.state
    if f.step == "roll":
        rolled = ctx.roll(6, f.count, f"morale:{f.test}", unit=f.unit or f.side, target=f.target) if f.count else ()
        _update(ctx, f, step="reroll", rolled=rolled, nonce=s.next_nonce - 1 if f.count else -1)
    elif f.step == "reroll":
        for side in (f.side, other(f.side)):
            if side not in f.asked and _wants(f, side) and tokens.can_pay(s, side):
                ctx.ask(side, "test_reroll", [("keep",), ("reroll",)], unit=f.unit)
                return
        _update(ctx, f, step="resolve")
    else:
        ctx.emit(ProcedureEnded())
        (resolve or RESOLVE)[f.test](ctx, f, passed(f))


def answer_test_reroll(ctx: Context, option: Option) -> None:
    f = ctx.state.stack[-1]
    side = ctx.events[-1].side  # the OptionChosen just emitted
    if option[0] == "reroll":
        tokens.pay(ctx, side, f"re-roll {f.test}")
        nonce = ctx.state.next_nonce
        rolled = ctx.roll(6, f.count, f"morale:{f.test}", unit=f.unit or f.side, target=f.target, replaces=f.nonce)
        _update(ctx, f, rolled=rolled, nonce=nonce, asked=f.asked + (side,))
    else:
        _update(ctx, f, asked=f.asked + (side,))


# -- what the tests do ----------------------------------------------------------------------------


def _endurance(ctx: Context, f: MoraleTestFrame, ok: bool) -> None:
    if not ok:
        lose_endurance(ctx, f.unit, "failed endurance test")


def lose_endurance(ctx: Context, uid: str, reason: str) -> None:
    """"If they fail, their Endurance value is reduced by one. ... If a pilot's Endurance value
    drops to 0, then the pilot is classed as being Unconscious." "Also if the pilot becomes
    Unconscious, the Fear Token is removed.\""""
    u = ctx.state.units[uid]
    if u.endurance <= 0:
        return
    ctx.emit(EnduranceChanged(unit=uid, delta=-1, reason=reason))
    if u.endurance == 0:
        ctx.emit(PilotUnconscious(unit=uid))
        if u.fear:
            ctx.emit(FearRemoved(unit=uid, reason="unconscious"))


def _wake(ctx: Context, f: MoraleTestFrame, ok: bool) -> None:
    u = ctx.state.units[f.unit]
    if ok and u.unconscious:
        ctx.emit(PilotWoke(unit=f.unit))


def _fear(ctx: Context, f: MoraleTestFrame, ok: bool) -> None:
    """"If they fail, place a Fear Token onto the unit as well as an action counter.\""""
    u = ctx.state.units[f.unit]
    if not ok and not u.fear and not u.unconscious and not u.incapacitated:
        ctx.emit(FearTaken(unit=f.unit))


def _fear_end(ctx: Context, f: MoraleTestFrame, ok: bool) -> None:
    """"During the End Phase, units with Fear Tokens may make a Morale Test. If they pass it the
    Fear Token is removed.\""""
    if ok and ctx.state.units[f.unit].fear:
        ctx.emit(FearRemoved(unit=f.unit, reason="morale test"))


RESOLVE = {"endurance": _endurance, "wake": _wake, "fear": _fear, "fear_end": _fear_end}  # and "courage" (skirmish.engine.rules.morale.courage.RESOLVE)


# -- re-rolling a core Task ------------------------------------------------------------------------


def _task_results(state: State, task: TaskFrame, rolled, opposed) -> tuple[bool, bool | None]:
    """(the Task passes, the Opposed defender passes or None) with these dice."""
    t = msgspec.structs.replace(task, rolled=rolled, opposed=opposed)
    mine = procedure.result_of(state, t).passed
    theirs = None
    if opposed:
        defender, dspec = procedure.OPPOSED[task.task](state, task)
        theirs = tasks.count_successes(opposed, tasks.target_number(defender, dspec),
                                       getattr(defender.stats, dspec.discipline), False, dspec.difficulty).passed
    return mine, theirs


def reroll_options(state: State, task: TaskFrame, f: RerollFrame, side: str) -> list[Option]:
    """The re-rolls ``side`` can use: the Task's dice if they go against it, the defender's too."""
    roller = state.units[task.unit].side
    mine, theirs = _task_results(state, task, f.rolled, f.opposed)
    opts: list[Option] = []
    if mine == (side != roller):
        opts.append(("reroll", "task"))
    if theirs is not None and theirs == (side == roller):
        opts.append(("reroll", "defence"))
    return opts


def on_task_rolled(ctx: Context, task: TaskFrame) -> None:
    s = ctx.state
    if not (s.tokens["a"] or s.tokens["b"]):
        return
    defence = s.next_nonce - 1 if task.opposed else -1
    f = RerollFrame(task_nonce=task.nonce, defence_nonce=defence, rolled=task.rolled, opposed=task.opposed)
    if any(tokens.can_pay(s, side) and reroll_options(s, task, f, side) for side in SIDES):
        ctx.emit(ProcedureStarted(frame=f))


def reroll_step(ctx: Context, f: RerollFrame) -> None:
    s = ctx.state
    task = s.stack[-2]
    roller = s.units[task.unit].side
    for side in (roller, other(roller)):
        if side in f.asked or not tokens.can_pay(s, side):
            continue
        opts = reroll_options(s, task, f, side)
        if opts:
            ctx.ask(side, "reroll", [("keep",)] + opts, unit=task.unit)
            return
    ctx.emit(ProcedureEnded())
    if (f.rolled, f.opposed) != (task.rolled, task.opposed):
        ctx.emit(ProcedureUpdated(frame=msgspec.structs.replace(task, rolled=f.rolled, opposed=f.opposed,
                                                                nonce=f.task_nonce)))


def answer_reroll(ctx: Context, option: Option) -> None:
    s = ctx.state
    f = s.stack[-1]
    task = s.stack[-2]
    side = ctx.events[-1].side
    if option[0] == "keep":
        _update(ctx, f, asked=f.asked + (side,))
        return
    tokens.pay(ctx, side, f"re-roll task:{task.task}")
    nonce = s.next_nonce
    if option[1] == "task":
        unit = s.units[task.unit]
        tn = tasks.target_number(unit, procedure.SPECS[task.task](s, task))
        rolled = ctx.roll(20, len(f.rolled), f"reroll:{task.task}", unit=unit.id, target=tn, replaces=f.task_nonce)
        _update(ctx, f, rolled=rolled, task_nonce=nonce, asked=f.asked + (side,))
    else:
        defender, dspec = procedure.OPPOSED[task.task](s, task)
        opposed = ctx.roll(20, len(f.opposed), f"reroll:defence:{task.task}", unit=defender.id,
                           target=tasks.target_number(defender, dspec), replaces=f.defence_nonce)
        _update(ctx, f, opposed=opposed, defence_nonce=nonce, asked=f.asked + (side,))


# -- re-rolling the initiative ----------------------------------------------------------------------


def _rolls(f) -> dict[str, tuple[int, int, int]]:
    return {"a": (f.a_nonce, f.a_die, f.a_tcv), "b": (f.b_nonce, f.b_die, f.b_tcv)}


def _loser(ctx: Context, f) -> str:
    winner = ctx.rules.core.initiative_winner(_rolls(f))
    return other(winner) if winner else ""


def on_initiative_rolled(ctx: Context, rolls: dict) -> bool:
    """The initiative's d10s are re-rollable: the side that lost it may spend a token to re-roll
    its own d10 or the winner's (each side once per round)."""
    (an, ad, at), (bn, bd, bt) = rolls["a"], rolls["b"]
    f = InitiativeFrame(a_nonce=an, a_die=ad, a_tcv=at, b_nonce=bn, b_die=bd, b_tcv=bt)
    if not tokens.can_pay(ctx.state, _loser(ctx, f)):
        return False
    ctx.emit(ProcedureStarted(frame=f))
    return True


def initiative_step(ctx: Context, f: InitiativeFrame) -> None:
    loser = _loser(ctx, f)
    if loser and loser not in f.asked and tokens.can_pay(ctx.state, loser):
        ctx.ask(loser, "initiative_reroll", [("keep",), ("reroll", loser), ("reroll", other(loser))])
        return
    ctx.emit(ProcedureEnded())
    core = ctx.rules.core
    rolls = _rolls(f) if loser else core.roll_initiative(ctx)  # a re-roll that ties: both roll again
    core.initiative_won(ctx, core.initiative_winner(rolls))


def answer_initiative_reroll(ctx: Context, option: Option) -> None:
    f = ctx.state.stack[-1]
    side = ctx.events[-1].side
    if option[0] == "keep":
        _update(ctx, f, asked=f.asked + (side,))
        return
    tokens.pay(ctx, side, "re-roll initiative")
    whose = option[1]
    nonce = ctx.state.next_nonce
    old = f.a_nonce if whose == "a" else f.b_nonce
    tcv = f.a_tcv if whose == "a" else f.b_tcv
    die = ctx.roll(10, 1, "initiative", unit=whose, target=tcv, replaces=old)[0]
    if whose == "a":
        _update(ctx, f, a_nonce=nonce, a_die=die, asked=f.asked + (side,))
    else:
        _update(ctx, f, b_nonce=nonce, b_die=die, asked=f.asked + (side,))

"""seed 000's tests: N d12 against D(n) (RULES-BRIEF "Dice, by module").

The dice are split into disjoint groups whose totals each reach ``n``; each group is one
success, and the engine finds the grouping with the most groups (the designer's example: 3, 7,
8, 8, 12 against D(20) is one success, against D(5) four). Among groupings with the most groups
it keeps the one that uses the fewest dice, then the first found over the dice sorted from the
highest, so the grouping recorded in the log (``D12Tested.groups``) is one canonical answer.

``test`` rolls through ``ctx.roll`` and records the grouping in a ``D12Tested`` event next to
the ``DiceRolled`` event, so a replay or an audit re-derives nothing.

Command Token re-rolls (seed 004, with the morale module on; issue 12): a d12 test, or a
captured bogey's escape roll (``roll_escape``), is a roll that is not damage, so "one of yours or
your opponent's dice rolls" may be re-rolled. When a side could (it has the token, and the
result went against it: a failed roll for the roller, a passed one for its opponent) the roll
is held open in a ``D12Frame``: each side in turn, the roller's first, is asked
(``d12_reroll``: ``("keep",)`` or ``("reroll",)``; time-out: keep); the whole roll is one roll.
Then the test is settled as it would have been at once. Without such a side -- any game
without the morale module -- nothing is held open and the events are what they always were.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping, NamedTuple

import msgspec

from skirmish.engine.events import ProcedureEnded, ProcedureStarted, ProcedureUpdated
from skirmish.engine.rules.capture.events import BonusActionsGained, D12Tested
from skirmish.engine.model import SIDES, Option, State, Unit, other
from skirmish.engine.rules.capture.frames import D12Frame
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context

MAX_DICE = 12  # the exact search visits 3**N subsets: 12 dice is half a million, pools are 1-6


def group_successes(results: tuple[int, ...], n: int) -> tuple[tuple[int, ...], ...]:
    """The most disjoint groups of ``results`` whose totals each reach ``n`` (each group's dice
    from the highest, groups ordered from the highest first die)."""
    if n < 1:
        raise ValueError(f"D(n) needs n >= 1, not {n}")
    if len(results) > MAX_DICE:
        raise ValueError(f"at most {MAX_DICE} dice in one test, not {len(results)}")
    return _grouping(tuple(sorted(results, reverse=True)), n)


@lru_cache(maxsize=4096)
def _grouping(dice: tuple[int, ...], n: int) -> tuple[tuple[int, ...], ...]:
    k = len(dice)
    sums = [0] * (1 << k)
    for m in range(1, 1 << k):
        low = m & -m
        sums[m] = sums[m ^ low] + dice[low.bit_length() - 1]
    best: dict[int, tuple[int, int, tuple[int, ...]]] = {0: (0, 0, ())}  # mask -> (groups, -dice used, masks)

    def solve(mask: int) -> tuple[int, int, tuple[int, ...]]:
        got = best.get(mask)
        if got is not None:
            return got
        low = mask & -mask
        rest = mask ^ low
        answer = solve(rest)  # the lowest die of the mask is left out of every group
        sub = rest
        while True:  # ... or it is in a group with ``sub``, one of the subsets of the rest
            group = sub | low
            if sums[group] >= n:
                c, used, groups = solve(mask ^ group)
                cand = (c + 1, used - bin(group).count("1"), (group,) + groups)
                if cand[:2] > answer[:2]:
                    answer = cand
            if sub == 0:
                break
            sub = (sub - 1) & rest
        best[mask] = answer
        return answer

    _, _, masks = solve((1 << k) - 1)
    groups = [tuple(dice[i] for i in range(k) if m >> i & 1) for m in masks]
    return tuple(sorted(groups, reverse=True))


# -- the stats a test rolls (RULES-BRIEF "Units and their numbers": each about Attribute - 6) ----


def stat_dice(attribute: int) -> int:
    """A seed 000 stat from a seed 001 Attribute (7-12): Attribute - 6, so 1 to 6 dice."""
    return max(1, min(6, attribute - 6))


def mobility(u: Unit) -> int:
    """The profile's ``mobility``, else Fitness - 6."""
    return u.mobility or stat_dice(u.stats.fitness)


def fight(u: Unit) -> int:
    """The profile's ``fight``, else Daring - 6."""
    return u.fight or stat_dice(u.stats.daring)


def acuity(u: Unit) -> int:
    """The profile's ``acuity``, else Insight - 6."""
    return u.acuity or stat_dice(u.stats.insight)


def discipline(u: Unit) -> int:
    return stat_dice(u.stats.control)


def fxm(u: Unit) -> int:
    """seed 000's "FxM": Fight x Mobility, the D(n) of a test to capture this character."""
    return fight(u) * mobility(u)


class TestResult(NamedTuple):
    successes: int
    needed: int

    @property
    def passed(self) -> bool:
        return self.successes >= self.needed

    @property
    def surplus(self) -> int:
        return max(0, self.successes - self.needed)


def test(ctx: Context, outcomes: Outcomes, unit: Unit, kind: str, dice: int, difficulty: int, needed: int = 1,
         target: str = "") -> None:
    """Roll ``dice`` d12 for ``unit``'s ``kind`` test against D(``difficulty``); ``needed``
    successes pass. Surplus successes become bonus actions ("Any surplus successes may be spent
    on bonus actions as normal"; one bonus action is one extra Minor Action, docs/rules.md).
    What passing or failing does is ``outcomes[kind]``, run once the roll is settled (at once,
    or after the Command Token window)."""
    nonce = ctx.state.next_nonce
    results = ctx.roll(12, dice, f"capture:{kind}", unit=unit.id, target=difficulty)
    _hold_or_settle(ctx, outcomes, D12Frame(unit=unit.id, test=kind, difficulty=difficulty, needed=needed,
                                            target=target, nonce=nonce, rolled=results))


BOGEY_ESCAPE = "bogey_escape"


def roll_escape(ctx: Context, outcomes: Outcomes, unit: Unit, dice: int, face: int, guard: str) -> None:
    """A captured bogey's escape roll: ``dice`` d12, escaping if any is ``face`` or more."""
    nonce = ctx.state.next_nonce
    results = ctx.roll(12, dice, "capture:bogey_escape", unit=unit.id, target=face)
    _hold_or_settle(ctx, outcomes, D12Frame(unit=unit.id, test=BOGEY_ESCAPE, difficulty=face, target=guard,
                                            nonce=nonce, rolled=results))


# test -> function(ctx, frame, passed): what the settled roll does (``skirmish.engine.rules.capture.actions.OUTCOMES``,
# handed to ``test``, ``roll_escape`` and ``frame_step``: no table is filled at import)
Outcomes = Mapping[str, Callable[[Context, D12Frame, bool], None]]


def passed(f: D12Frame) -> bool:
    if f.test == BOGEY_ESCAPE:
        return any(r >= f.difficulty for r in f.rolled)
    return len(group_successes(f.rolled, f.difficulty)) >= f.needed


def _wants(state: State, f: D12Frame, side: str) -> bool:
    """The result went against ``side``: a failed roll for the roller, a passed one for its opponent."""
    return passed(f) == (side != state.units[f.unit].side)


def _can_reroll(state: State, f: D12Frame, side: str) -> bool:
    return side not in f.asked and _wants(state, f, side) and registry.offers(state, "can_reroll", side)


def _hold_or_settle(ctx: Context, outcomes: Outcomes, f: D12Frame) -> None:
    s = ctx.state
    if s.modules and any(_can_reroll(s, f, side) for side in SIDES):
        ctx.emit(ProcedureStarted(frame=f))
    else:
        _settle(ctx, outcomes, f)


def frame_step(ctx: Context, f: D12Frame, outcomes: Outcomes) -> None:
    s = ctx.state
    roller = s.units[f.unit].side
    for side in (roller, other(roller)):
        if _can_reroll(s, f, side):
            ctx.ask(side, "d12_reroll", [("keep",), ("reroll",)], unit=f.unit)
            return
    ctx.emit(ProcedureEnded())
    _settle(ctx, outcomes, f)


def answer_reroll(ctx: Context, option: Option) -> None:
    f: D12Frame = ctx.state.stack[-1]
    side = ctx.events[-1].side  # the OptionChosen just emitted
    if option[0] == "reroll":
        ctx.rules.call(ctx, "pay_reroll", side, f"re-roll capture:{f.test}")
        nonce = ctx.state.next_nonce
        rolled = ctx.roll(12, len(f.rolled), f"capture:{f.test}", unit=f.unit, target=f.difficulty, replaces=f.nonce)
        f = msgspec.structs.replace(f, rolled=rolled, nonce=nonce, asked=f.asked + (side,))
    else:
        f = msgspec.structs.replace(f, asked=f.asked + (side,))
    ctx.emit(ProcedureUpdated(frame=f))


def _settle(ctx: Context, outcomes: Outcomes, f: D12Frame) -> None:
    ok = passed(f)
    if f.test != BOGEY_ESCAPE:
        groups = group_successes(f.rolled, f.difficulty)
        r = TestResult(len(groups), f.needed)
        ctx.emit(D12Tested(unit=f.unit, test=f.test, nonce=f.nonce, difficulty=f.difficulty, groups=groups,
                           successes=r.successes, needed=f.needed, passed=r.passed))
        if r.passed and r.surplus:
            ctx.emit(BonusActionsGained(unit=f.unit, count=r.surplus))
    outcomes[f.test](ctx, f, ok)

"""seed 003's rolls (RULES-BRIEF "Dice, by module": 1d20 vs attribute + MOD, at or under; equal is
a critical; face-to-face where two units oppose).

Seed 003 names the Normal Roll ("an Infiltration Roll (Normal PH-3 Roll)") and the Face to Face
Roll ("If the Fiday wins this Face to Face Roll, he evades all Attacks") without defining them
(they are the rulebook's, outside the excerpt); their rules here are *adapted* from the N3
rulebook and listed in docs/rules.md, seed 003, "The rolls":

- the **Success Value** is the attribute plus the MODs, their sum held to +12 / -12;
- **Normal Roll**: 1d20; at or under the Success Value succeeds; equal to it is a **critical**.
  Above 20, the excess is added to the die, and a total of 20 or more is a critical (every roll
  succeeds); under 1 every roll fails (the die is still rolled: every roll is an event);
- **Face to Face Roll**: both roll. A failure loses to any success; a critical beats any
  success that is not one; two successes: the higher die (plus any excess over 20) wins; the
  same result, or two criticals, cancel each other: neither wins.

A roll is a ``DiceRolled`` (purpose ``skills:<purpose>``) read by a ``SkillRolled`` (the
attribute, each MOD with its reason, the Success Value, the die, the result), and a Face to
Face Roll ends with a ``FaceToFaceResolved``. Each roll runs as a ``SkillRollFrame``: with the
morale module on, a side with a Command Token that the roll went against may re-roll a die
("one of yours or your opponent's dice rolls, which is not damage": seed 004), each side once,
the first roller's side first (decision ``skill_reroll``: ``["keep"]``, the time-out default, or
``["reroll", i]`` for roller ``i``); then the frame ends and the module's outcome for the
purpose (``outcomes[purpose](ctx, frame, result)``) does what the result means.
"""

from __future__ import annotations

from typing import Callable, Mapping, NamedTuple

import msgspec

from skirmish.engine.events import ProcedureEnded, ProcedureStarted, ProcedureUpdated
from skirmish.engine.model import Option, State, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import attributes
from skirmish.engine.rules.skills.events import FaceToFaceResolved, SkillRolled
from skirmish.engine.rules.skills.frames import Roller, SkillRollFrame

MOD_CAP = 12  # the MODs' sum is held to +-12
CRITICAL, SUCCESS, FAILURE = "critical", "success", "failure"
Mods = tuple[tuple[str, int], ...]


def success_value(base: int, mods: Mods) -> int:
    """The attribute plus the MODs, their sum held to +-``MOD_CAP``."""
    return base + max(-MOD_CAP, min(MOD_CAP, sum(v for _, v in mods)))


def judge(die: int, target: int) -> str:
    """A d20 against a Success Value: critical, success or failure."""
    if target > 20:
        return CRITICAL if die + target - 20 >= 20 else SUCCESS
    if die == target:
        return CRITICAL
    return SUCCESS if die < target else FAILURE


def score(die: int, target: int) -> int:
    """What a successful roll counts in a Face to Face Roll: the die plus any excess over 20."""
    return min(20, die + max(0, target - 20))


def compare(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, str]:
    """A Face to Face Roll of ``a`` and ``b`` (each ``(die, target)``): (0 or 1 for the winner,
    -1 for neither; how)."""
    ra, rb = judge(*a), judge(*b)
    if ra == FAILURE and rb == FAILURE:
        return -1, "both failed"
    if ra == FAILURE or rb == FAILURE:
        return (1 if ra == FAILURE else 0), "only success"
    if ra == CRITICAL and rb == CRITICAL:
        return -1, "both critical"
    if ra == CRITICAL or rb == CRITICAL:
        return (0 if ra == CRITICAL else 1), "critical beats success"
    sa, sb = score(*a), score(*b)
    if sa == sb:
        return -1, "tie"
    return (0 if sa > sb else 1), "higher success"


class Result(NamedTuple):
    """A settled roll: each roller's result, and the roller whose roll stands (-1: none).

    A Normal Roll's roller "wins" when it succeeds: ``passed`` says it."""

    results: tuple[str, ...]
    winner: int
    how: str = ""

    @property
    def passed(self) -> bool:
        return self.winner == 0

    def critical(self, i: int = 0) -> bool:
        return self.results[i] == CRITICAL


def result_of(f: SkillRollFrame) -> Result:
    results = tuple(judge(r.die, r.target) for r in f.rollers)
    if len(f.rollers) == 1:
        return Result(results, 0 if results[0] != FAILURE else -1)
    winner, how = compare(*((r.die, r.target) for r in f.rollers))
    return Result(results, winner, how)


# -- rolling --------------------------------------------------------------------------------------


def _roll(ctx: Context, purpose: str, uid: str, attribute: str, mods: Mods, replaces: int = -1) -> Roller:
    unit = ctx.state.units[uid]
    base = attributes.value(unit, attribute)
    mods = tuple((str(why), int(v)) for why, v in mods)
    target = success_value(base, mods)
    nonce = ctx.state.next_nonce
    die = ctx.roll(20, 1, f"skills:{purpose}", unit=uid, target=target, replaces=replaces)[0]
    ctx.emit(SkillRolled(unit=uid, purpose=purpose, attribute=attribute, base=base, mods=mods, target=target,
                         die=die, result=judge(die, target), nonce=nonce))
    return Roller(uid, attribute, base, mods, target, die, nonce)


def normal_roll(ctx: Context, unit: str, attribute: str, purpose: str, mods: Mods = (), about: str = "") -> None:
    """A Normal Roll of ``unit``'s ``attribute`` with ``mods`` ((reason, MOD) each); its outcome
    (``outcomes[purpose]``) runs once it is settled."""
    roller = _roll(ctx, purpose, unit, attribute, mods)
    ctx.emit(ProcedureStarted(frame=SkillRollFrame(purpose=purpose, rollers=(roller,), about=about)))


def face_to_face(ctx: Context, first: tuple[str, str, Mods], second: tuple[str, str, Mods], purpose: str,
                 about: str = "") -> None:
    """A Face to Face Roll: ``first`` (the active unit) and ``second`` each ``(unit, attribute,
    mods)``; its outcome runs once it is settled (``Result.winner``: 0 first, 1 second, -1 neither)."""
    rollers = tuple(_roll(ctx, purpose, uid, attribute, mods) for uid, attribute, mods in (first, second))
    ctx.emit(ProcedureStarted(frame=SkillRollFrame(purpose=purpose, rollers=rollers, about=about)))


# -- the re-roll window and the settling ------------------------------------------------------------


def against(state: State, f: SkillRollFrame, side: str) -> list[int]:
    """The rollers whose die ``side`` would re-roll: the result went against it (a failed Normal
    Roll of its own, a passed one of its opponent's; a Face to Face Roll it did not win: its own
    die, and its opponent's if that one succeeded)."""
    r = result_of(f)
    sides = [state.units[x.unit].side for x in f.rollers]
    if len(f.rollers) == 1:
        return [0] if r.passed == (side != sides[0]) else []
    if r.winner >= 0 and sides[r.winner] == side:
        return []
    return [i for i in (0, 1) if sides[i] == side or r.results[i] != FAILURE]


def _can_reroll(state: State, f: SkillRollFrame, side: str) -> bool:
    return side not in f.asked and bool(against(state, f, side)) and registry.offers(state, "can_reroll", side)


def step(ctx: Context, f: SkillRollFrame, outcomes: Mapping[str, Callable]) -> None:
    """The frame's step: ask the next side that may re-roll, else settle the roll."""
    s = ctx.state
    first = s.units[f.rollers[0].unit].side
    for side in (first, other(first)):
        if s.modules and _can_reroll(s, f, side):
            ctx.ask(side, "skill_reroll", [("keep",)] + [("reroll", i) for i in against(s, f, side)],
                    unit=f.rollers[0].unit)
            return
    ctx.emit(ProcedureEnded())
    result = result_of(f)
    if len(f.rollers) == 2:
        winner = f.rollers[result.winner].unit if result.winner >= 0 else ""
        ctx.emit(FaceToFaceResolved(purpose=f.purpose, units=(f.rollers[0].unit, f.rollers[1].unit),
                                    winner=winner, how=result.how))
    outcomes[f.purpose](ctx, f, result)


def answer_reroll(ctx: Context, option: Option) -> None:
    f: SkillRollFrame = ctx.state.stack[-1]
    side = ctx.events[-1].side  # the OptionChosen just emitted
    if option[0] == "reroll":
        ctx.rules.call(ctx, "pay_reroll", side, f"re-roll skills:{f.purpose}")
        i = option[1]
        old = f.rollers[i]
        new = _roll(ctx, f.purpose, old.unit, old.attribute, old.mods, replaces=old.nonce)
        f = msgspec.structs.replace(f, rollers=f.rollers[:i] + (new,) + f.rollers[i + 1:])
    ctx.emit(ProcedureUpdated(frame=msgspec.structs.replace(f, asked=f.asked + (side,))))

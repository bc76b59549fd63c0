"""seed 003's rolls (docs/rules.md, seed 003, "The rolls"): the Normal Roll and the Face to Face
Roll, each an event with its MODs, settled through a ``SkillRollFrame`` (with the morale module
on, after a Command Token re-roll window). Given a game, when a roll is made with scripted
dice, then these events and this result."""

from __future__ import annotations

import pytest

from skirmish.bots.simulate import clone
from skirmish.client.narrate import describe
from skirmish.engine.decide import default_option
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.events import DecisionRequested, DiceRolled, OptionChosen, ProcedureEnded, ProcedureStarted
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale.events import TokensChanged
from skirmish.engine.rules.skills import rolls
from skirmish.engine.rules.skills.events import FaceToFaceResolved, SkillRolled
from skirmish.engine.rules.skills.rolls import CRITICAL, FAILURE, SUCCESS, Result

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario

# a1: trooper, PH 9 + 2 = 11, BS 10 + 2 = 12; b1: hero, BS 12, CC 12, PH 11, WIP 8 + 2 = 10
UNITS = [("a1", "a", "trooper", 0, 1), ("b1", "b", "hero", 0, 6)]


def game(*dice: int, morale: bool = False, tokens: dict | None = None) -> Context:
    """A game (not started: nothing pending) and a context over it rolling ``dice``."""
    sc = SkillsScenario(UNITS, modules=("skills", "morale") if morale else ("skills",))
    for side, n in (tokens or {}).items():
        sc.given(TokensChanged(side=side, delta=n, reason="given"))
    return Context(sc.state, ScriptedDice(dice))


def settle(ctx: Context) -> list[Result]:
    """Run the roll's frame step with a probe outcome: the results it was given."""
    got: list[Result] = []
    rolls.step(ctx, ctx.state.stack[-1], {"probe": lambda c, f, r: got.append(r)})
    return got


def answer(ctx: Context, option) -> None:
    """What ``decide`` does with a choice: the OptionChosen, then the module's answer."""
    p = ctx.state.pending
    ctx.emit(OptionChosen(decision_id=p.id, side=p.side, option=option))
    rolls.answer_reroll(ctx, option)


# -- the numbers -------------------------------------------------------------------------------------


def test_the_success_value_is_the_attribute_plus_the_mods_held_to_plus_or_minus_twelve():
    assert rolls.success_value(11, (("cover", -3),)) == 8
    assert rolls.success_value(11, (("a", 10), ("b", 5))) == 11 + 12
    assert rolls.success_value(11, (("a", -9), ("b", -9))) == 11 - 12
    assert rolls.success_value(11, ()) == 11


@pytest.mark.parametrize("die, target, result", [
    (7, 11, SUCCESS), (11, 11, CRITICAL), (12, 11, FAILURE), (1, 11, SUCCESS), (20, 20, CRITICAL), (19, 20, SUCCESS),
    (17, 23, CRITICAL), (16, 23, SUCCESS), (1, 23, SUCCESS),  # above 20: +3 to the die, 20 or more a critical
    (1, 0, FAILURE), (1, -3, FAILURE),  # under 1: every roll fails
])
def test_a_d20_at_or_under_the_success_value_succeeds_and_equal_is_a_critical(die, target, result):
    assert rolls.judge(die, target) == result


@pytest.mark.parametrize("a, b, winner, how", [
    ((10, 12), (8, 12), 0, "higher success"),
    ((8, 12), (10, 12), 1, "higher success"),
    ((12, 12), (11, 12), 0, "critical beats success"),
    ((5, 12), (12, 12), 1, "critical beats success"),
    ((12, 12), (11, 11), -1, "both critical"),
    ((9, 12), (9, 11), -1, "tie"),
    ((15, 12), (3, 12), 1, "only success"),
    ((15, 12), (15, 12), -1, "both failed"),
    ((18, 22), (19, 20), 0, "critical beats success"),  # above 20 the excess is added: 18 + 2 is a critical
    ((16, 22), (17, 20), 0, "higher success"),  # 16 + 2 beats a 17
    ((15, 22), (17, 20), -1, "tie"),  # 15 + 2 ties a 17
])
def test_face_to_face_the_higher_success_wins_a_critical_beats_a_success_ties_cancel(a, b, winner, how):
    assert rolls.compare(a, b) == (winner, how)


# -- the Normal Roll ---------------------------------------------------------------------------------


def test_a_normal_roll_is_a_d20_and_a_skill_rolled_with_each_mod_and_its_reason():
    ctx = game(7)
    rolls.normal_roll(ctx, "a1", "ph", "probe", mods=(("Infiltrate L1 option B", -3),), about="4,5")
    got = settle(ctx)
    assert of_type(ctx.events, DiceRolled) == [DiceRolled(nonce=0, sides=20, results=(7,), purpose="skills:probe",
                                                          unit="a1", target=8)]
    assert of_type(ctx.events, SkillRolled) == [SkillRolled(unit="a1", purpose="probe", attribute="ph", base=11,
                                                            mods=(("Infiltrate L1 option B", -3),), target=8, die=7,
                                                            result=SUCCESS, nonce=0)]
    started = of_type(ctx.events, ProcedureStarted)[0].frame
    assert (started.purpose, started.about, len(started.rollers)) == ("probe", "4,5", 1)
    assert len(of_type(ctx.events, ProcedureEnded)) == 1 and not ctx.state.stack
    assert got == [Result((SUCCESS,), 0)] and got[0].passed and not got[0].critical()
    assert not of_type(ctx.events, FaceToFaceResolved)


@pytest.mark.parametrize("die, result, passed", [(8, CRITICAL, True), (9, FAILURE, False), (1, SUCCESS, True)])
def test_a_normal_roll_equal_to_the_target_is_a_critical_over_it_a_failure(die, result, passed):
    ctx = game(die)
    rolls.normal_roll(ctx, "a1", "ph", "probe", mods=(("PH-3", -3),))
    got = settle(ctx)
    assert of_type(ctx.events, SkillRolled)[0].result == result
    assert got[0].passed is passed and got[0].critical() is (result == CRITICAL)


def test_the_mods_are_held_to_twelve_and_above_twenty_the_excess_is_added_to_the_die():
    ctx = game(17)
    rolls.normal_roll(ctx, "a1", "ph", "probe", mods=(("a", 10), ("b", 5)))
    got = settle(ctx)
    rolled = of_type(ctx.events, SkillRolled)[0]
    assert (rolled.mods, rolled.target, rolled.result) == ((("a", 10), ("b", 5)), 23, CRITICAL)
    assert got[0].critical()
    ctx = game(1)
    rolls.normal_roll(ctx, "a1", "ph", "probe", mods=(("a", -9), ("b", -9)))
    settle(ctx)
    assert (of_type(ctx.events, SkillRolled)[0].target, of_type(ctx.events, SkillRolled)[0].result) == (-1, FAILURE)


def test_a_profiles_own_attribute_is_the_base():
    ctx = game(15)
    ctx.state.units["a1"].bs = 15  # as a profile's bs = 15 gives it
    rolls.normal_roll(ctx, "a1", "bs", "probe")
    settle(ctx)
    assert of_type(ctx.events, SkillRolled)[0].base == 15 and of_type(ctx.events, SkillRolled)[0].result == CRITICAL


# -- the Face to Face Roll ----------------------------------------------------------------------------


@pytest.mark.parametrize("dice, winner, how", [
    ((10, 8), "a1", "higher success"), ((12, 11), "a1", "critical beats success"), ((9, 9), "", "tie"),
    ((12, 12), "", "both critical"), ((15, 3), "b1", "only success"), ((15, 15), "", "both failed"),
])
def test_a_face_to_face_roll_rolls_both_and_names_the_winner(dice, winner, how):
    ctx = game(*dice)
    rolls.face_to_face(ctx, ("a1", "bs", (("range", 0),)), ("b1", "cc", ()), "probe")
    got = settle(ctx)
    first, second = of_type(ctx.events, SkillRolled)
    assert (first.unit, first.attribute, first.die, second.unit, second.attribute, second.die) == \
        ("a1", "bs", dice[0], "b1", "cc", dice[1])
    assert of_type(ctx.events, FaceToFaceResolved) == [FaceToFaceResolved(purpose="probe", units=("a1", "b1"),
                                                                          winner=winner, how=how)]
    assert got[0].winner == {"a1": 0, "b1": 1, "": -1}[winner] and got[0].how == how


# -- re-rolls with the morale module (seed 004's Command Tokens) ---------------------------------------


def test_without_the_morale_module_no_reroll_is_offered():
    ctx = game(15)
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    assert settle(ctx) == [Result((FAILURE,), -1)] and ctx.state.pending is None


def test_a_side_with_a_token_may_reroll_its_own_failed_roll_the_new_die_replacing_the_old():
    ctx = game(15, 4, morale=True, tokens={"a": 1})
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    assert settle(ctx) == []  # held open: side a is asked
    p = ctx.state.pending
    assert (p.side, p.kind, p.options, p.unit) == ("a", "skill_reroll", (("keep",), ("reroll", 0)), "a1")
    answer(ctx, ("reroll", 0))
    assert TokensChanged(side="a", delta=-1, reason="re-roll skills:probe") in ctx.events
    assert of_type(ctx.events, DiceRolled)[-1].replaces == 0
    assert [e.die for e in of_type(ctx.events, SkillRolled)] == [15, 4]
    assert settle(ctx) == [Result((SUCCESS,), 0)]  # side b has no token: not asked


def test_the_opponent_with_a_token_may_reroll_a_passed_roll_and_keeping_settles_it():
    ctx = game(4, 16, morale=True, tokens={"b": 1})
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    assert settle(ctx) == []
    assert (ctx.state.pending.side, ctx.state.pending.options) == ("b", (("keep",), ("reroll", 0)))
    answer(ctx, ("reroll", 0))
    assert settle(ctx) == [Result((FAILURE,), -1)]
    ctx = game(4, morale=True, tokens={"b": 1})
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    settle(ctx)
    answer(ctx, ("keep",))
    assert settle(ctx) == [Result((SUCCESS,), 0)] and not of_type(ctx.events, TokensChanged)[1:]


def test_a_side_the_roll_went_for_or_without_a_token_is_not_asked():
    ctx = game(4, morale=True, tokens={"a": 2})  # a passed roll of side a: a has nothing to gain, b no token
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    assert settle(ctx) == [Result((SUCCESS,), 0)]
    assert not of_type(ctx.events, DecisionRequested)


def test_in_a_face_to_face_roll_the_loser_may_reroll_its_die_or_the_winners():
    ctx = game(15, 5, 10, morale=True, tokens={"a": 1, "b": 1})
    rolls.face_to_face(ctx, ("a1", "bs", ()), ("b1", "cc", ()), "probe")
    assert settle(ctx) == []
    p = ctx.state.pending
    assert (p.side, p.options) == ("a", (("keep",), ("reroll", 0), ("reroll", 1)))
    answer(ctx, ("reroll", 1))  # b1's 5 re-rolled: a 10 against a1's failed 15, b1 still wins
    # side a has had its chance; side b won, so it is not asked: settled
    assert settle(ctx) == [Result((FAILURE, SUCCESS), 1, "only success")]
    assert [e.die for e in of_type(ctx.events, SkillRolled)] == [15, 5, 10]


def test_the_skill_reroll_window_times_out_to_keeping_the_roll():
    ctx = game(15, morale=True, tokens={"a": 1})
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    settle(ctx)
    assert default_option(ctx.state.pending) == ("keep",)


def test_the_rolls_are_narrated_with_the_attribute_each_mod_and_its_reason():
    ctx = game(17, 3, 12)
    before = clone(ctx.state)
    rolls.normal_roll(ctx, "a1", "ph", "infiltration", mods=(("Infiltrate L1", -3), ("a", 10), ("b", 6)))
    settle_any(ctx)
    rolls.face_to_face(ctx, ("a1", "bs", ()), ("b1", "wip", (("Discover", -6),)), "discover")
    settle_any(ctx)
    lines = [describe(e, before) for e in ctx.events if isinstance(e, (SkillRolled, FaceToFaceResolved))]
    assert lines[0] == ("  a1 [a1]'s PH roll (infiltration): PH 11, -3 (Infiltrate L1), +10 (a), +6 (b) = +13, "
                        "held to +12: 17 against 23, a critical")
    assert lines[1] == "  a1 [a1]'s BS roll (discover): BS 12, no MODs: 3 against 12, a success"
    assert lines[2] == "  b1 [b1]'s WIP roll (discover): WIP 10, -6 (Discover): 12 against 4, a failure"
    assert lines[3] == "  face to face, a1 [a1] against b1 [b1]: a1 [a1] wins (only success)"


def settle_any(ctx: Context) -> None:
    rolls.step(ctx, ctx.state.stack[-1], {"infiltration": lambda *a: None, "discover": lambda *a: None})

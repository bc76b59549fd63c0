"""seed 004 "Endurance": Endurance tests, Unconscious pilots, End Phase recovery. given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.morale import events as mev
from skirmish.engine.model import TaskFrame
from skirmish.engine.rules.core import attack

from tests.engine.rules.morale.conftest import MoraleScenario
from tests.engine.rules.scenario import of_type

DUEL = [("a1", "a", "chief", 1, 1, True), ("b1", "b", "mech", 4, 1, True)]
HIT = (1, 1)  # a ranged attack's 2d20: two natural 1s pass
TWO_DAMAGE = (2, 3, 3, 3, 3)  # phaser 3 + Security 2 Challenge Dice: 2 damage, no Injury


def shoot(s, dice):
    return s.task("attack", "b1", 0, 0, dice=HIT + dice)


def test_an_endurance_test_rolls_d6_equal_to_endurance_and_passes_if_one_reaches_the_test_value():
    s = MoraleScenario(DUEL).play_to_turn("a1").tokens(0, 0)
    events = shoot(s, TWO_DAMAGE + (1, 4, 1))  # test value 2 + 2 damage = 4; b1's pilot has Endurance 3
    [test] = [r for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:endurance"]
    assert (test.sides, test.results, test.target) == (6, (1, 4, 1), 4)
    assert of_type(events, mev.EnduranceChanged) == [] and s.unit("b1").endurance == 3


def test_a_failed_endurance_test_lowers_endurance_by_one():
    s = MoraleScenario(DUEL).play_to_turn("a1").tokens(0, 0)
    events = shoot(s, TWO_DAMAGE + (3, 3, 1))
    assert of_type(events, mev.EnduranceChanged) == [mev.EnduranceChanged(unit="b1", delta=-1, reason="failed endurance test")]
    assert s.unit("b1").endurance == 2


def test_at_endurance_zero_the_pilot_is_unconscious_and_loses_its_fear_token():
    s = MoraleScenario(DUEL).play_to_turn("a1").tokens(0, 0)
    s.given(mev.EnduranceChanged(unit="b1", delta=-2, reason="test"), mev.FearTaken(unit="b1"))
    events = shoot(s, TWO_DAMAGE + (3,))  # one die left
    assert mev.PilotUnconscious(unit="b1") in events
    assert mev.FearRemoved(unit="b1", reason="unconscious") in events
    assert s.unit("b1").unconscious and not s.unit("b1").fear


def test_the_unit_of_an_unconscious_pilot_cannot_act():
    s = MoraleScenario([("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 6, 6, True)])
    s.unconscious("a2")
    s.start()
    s.tokens(0, 0)
    s.when("first", "a", dice=(5,))  # the wake-up roll fails
    assert s.pending.kind == "activate" and s.pending.options == (("unit", "a1"),)


def test_an_unconscious_pilots_unit_is_at_minus_two_defence_one_step_of_difficulty():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    f = TaskFrame(unit="a1", task="attack", target="b1", weapon=0)
    before = attack.spec(s.state, f).difficulty
    s.unconscious("b1")
    assert attack.spec(s.state, f).difficulty == before - 1 == 1


def test_an_unconscious_pilot_wakes_on_a_six_at_the_start_of_the_turn():
    s = MoraleScenario([("a1", "a", "chief", 1, 1, True), ("b1", "b", "mech", 6, 6, True), ("b2", "b", "scout", 9, 6)])
    s.start()
    s.tokens(0, 0).unconscious("b1").unconscious("b2")
    s.when("first", "a")
    events = s.finish_round(dice=(10, 1))  # round 2 starts: initiative
    assert s.pending.kind == "first" and not [r for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:wake"]
    events = s.when("first", "a", dice=(6, 5))  # the wake-up rolls, before the first activation
    wake = [(r.unit, r.results) for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:wake"]
    assert wake == [("b1", (6,)), ("b2", (5,))]
    assert of_type(events, mev.PilotWoke) == [mev.PilotWoke(unit="b1")]
    assert s.unit("b1").endurance == 1 and not s.unit("b1").unconscious and s.unit("b2").unconscious


def test_an_unconscious_pilot_rolls_to_wake_after_its_unit_is_hit():
    s = MoraleScenario(DUEL).play_to_turn("a1").tokens(0, 0).unconscious("b1")
    events = s.task("attack", "b1", 0, 0, dice=(1, 1, 3, 3, 3, 3, 3, 6))  # Difficulty 1 now; no damage
    assert [r.results for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:wake"] == [(6,)]
    assert mev.PilotWoke(unit="b1") in events and s.unit("b1").endurance == 1


def test_in_the_end_phase_pilots_without_action_counters_regain_one_endurance_up_to_their_start():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("a3", "a", "scout", 1, 5),
             ("a4", "a", "heavy", 3, 5), ("b1", "b", "mech", 14, 6, True)]
    s = MoraleScenario(units)
    s.start()
    s.tokens(0, 0)
    for uid in ("a1", "a2", "a4"):
        s.given(mev.EnduranceChanged(unit=uid, delta=-1, reason="test"))
    s.unconscious("a3")
    s.when("first", "a")
    s.when("unit", "a1")
    assert ("rest",) in s.pending.options
    s.when("end")  # a1 acted: it keeps its action counter
    s.when("unit", "b1")
    s.when("rest")  # b1 is at full Endurance: resting gains nothing
    events = s.when("unit", "a2")
    events = s.when("rest")  # a2 stands down: no action counter
    assert mev.UnitRested(unit="a2") in events and not s.unit("a2").acted
    assert s.pending.options == (("unit", "a4"),)  # a2 is not activated again
    s.when("unit", "a4")
    events = s.when("end", dice=(10, 1))  # a4 acted; the End Phase follows
    assert of_type(events, mev.EnduranceChanged) == [mev.EnduranceChanged(unit="a2", delta=1, reason="end phase recovery")]
    assert [s.unit(u).endurance for u in ("a1", "a2", "a3", "a4", "b1")] == [2, 3, 0, 3, 3]
    assert not s.unit("a2").resting  # a new round: it is activated again


def test_resting_is_offered_only_before_any_action():
    s = MoraleScenario(DUEL).play_to_turn("a1").tokens(0, 0)
    s.when("prone")
    assert ("rest",) not in s.pending.options


def _unconscious_b1_attacked_in_melee():
    s = MoraleScenario([("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 2, 1, True)])
    s.unconscious("b1")
    s.start()
    s.tokens(0, 0)
    s.when("first", "a", dice=(5,))  # b1's wake-up roll fails
    s.when("unit", "a1")
    return s


def test_an_unconscious_pilots_unit_defends_in_melee_but_winning_neither_strikes_back_nor_fends_off():
    # "Well the pilot is Unconscious, the Unit they are in cannot make any actions." (issue 12 #21)
    s = _unconscious_b1_attacked_in_melee()
    # a1's knife: no success; b1's defence: 1 and 4 against 12, three successes: b1 wins the Opposed Task
    events = s.task("attack", "b1", 1, 0, dice=(19, 18, 1, 4))
    assert [r.purpose for r in of_type(events, ev.DiceRolled)] == ["task:attack", "defence:attack"]  # it defends
    assert ev.ProcedureEnded() in events and not s.state.stack  # the attack simply fails
    assert s.pending is None or s.pending.kind != "melee_won"
    assert not of_type(events, ev.StressLost) and not of_type(events, ev.UnitMoved)
    assert s.unit("a1").stress == s.unit("a1").stress_max and (s.unit("b1").x, s.unit("b1").y) == (2, 1)


def test_a_commander_cannot_direct_a_unit_whose_pilot_is_unconscious():
    s = MoraleScenario([("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 6, 6, True)])
    s.unconscious("a2")
    s.start()
    s.tokens(0, 0)
    s.when("first", "a", dice=(5,))
    s.when("unit", "a1")
    assert ("direct", "a2") not in s.pending.options

"""seed 004 "Morale Test" and "Fear": given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.morale import events as mev
from skirmish.engine.rules.morale.frames import MoraleTestFrame

from tests.engine.rules.morale.conftest import MoraleScenario
from tests.engine.rules.scenario import of_type

# a2 (Size Class 2, Morale 7) far from its Command Unit a1; b1 is a heavy (Size Class 4)
FAR = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 13, 7), ("b1", "b", "heavy", 15, 0, True)]


def fear_tests(events):
    return [e.frame for e in of_type(events, ev.ProcedureStarted)
            if isinstance(e.frame, MoraleTestFrame) and e.frame.test in ("fear", "fear_end")]


def heavy_moves(units=FAR, to=(15, 3), dice=(6, 5)):
    s = MoraleScenario(units).play_to_turn("b1")
    s.tokens(0, 0)
    events = s.when("move", *to)
    return s, events, s.when("end", dice=dice)


def test_an_enemy_two_size_classes_bigger_moving_within_10_inches_forces_a_morale_test_at_the_end_of_the_phase():
    s, moved, ended = heavy_moves(dice=(3, 4))
    assert mev.FearDue(unit="a2", enemy="b1") in moved and not fear_tests(moved)  # not yet: the phase goes on
    [test] = fear_tests(ended)
    assert (test.unit, test.target, test.count) == ("a2", 7, 2)
    assert [r.results for r in of_type(ended, ev.DiceRolled)] == [(3, 4)]  # 7: not greater than Morale 7
    assert not of_type(ended, mev.FearTaken)


def test_a_morale_test_fails_when_2d6_is_greater_than_morale_a_fear_token_and_an_action_counter():
    s, _, ended = heavy_moves(dice=(4, 4))  # 8 > 7
    assert mev.FearTaken(unit="a2") in ended
    assert s.unit("a2").fear and s.unit("a2").acted
    assert s.pending.kind == "activate" and s.pending.options == (("unit", "a1"),)  # a2 lost its activation


def test_a_friendly_command_unit_within_10_inches_and_in_view_gives_plus_one_morale():
    near = [("a1", "a", "chief", 8, 7, True), ("a2", "a", "mech", 13, 7), ("b1", "b", "heavy", 15, 0, True)]
    _, _, ended = heavy_moves(units=near, dice=(4, 4))  # 8 <= 7 + 1
    assert [t.target for t in fear_tests(ended)] == [8] and not of_type(ended, mev.FearTaken)


def test_a_command_unit_out_of_view_gives_no_bonus():
    walled = "\n".join(["................"] * 7 + ["..........#....."])
    near = [("a1", "a", "chief", 8, 7, True), ("a2", "a", "mech", 13, 7), ("b1", "b", "heavy", 15, 0, True)]
    s = MoraleScenario(near, map=walled).play_to_turn("b1")
    s.tokens(0, 0)
    s.when("move", 15, 3)
    ended = s.when("end", dice=(1, 1))
    assert [t.target for t in fear_tests(ended)] == [7]


def test_no_fear_from_an_enemy_only_one_size_class_bigger_or_beyond_10_inches():
    units = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 13, 7), ("b1", "b", "chief", 15, 0, True),
             ("b2", "b", "heavy", 15, 1)]
    s = MoraleScenario(units).play_to_turn("b1")  # b1: Size Class 3, one bigger than a2
    s.tokens(0, 0)
    assert not of_type(s.when("move", 14, 3), mev.FearDue)
    units = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 0, 7), ("b1", "b", "heavy", 15, 0, True)]
    s = MoraleScenario(units).play_to_turn("b1")
    s.tokens(0, 0)
    assert not of_type(s.when("move", 14, 1), mev.FearDue)  # 14 cells from a2, 14 from a1 (1 size class)


def fearful():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 2), ("a3", "a", "mech", 2, 1),
             ("a4", "a", "heavy", 4, 4), ("b1", "b", "mech", 14, 6, True)]  # a3's loss: 2 of 11 VP, no Courage Test
    s = MoraleScenario(units)
    s.start()
    s.given(mev.FearTaken(unit="a2"), mev.ActionCounterRemoved(unit="a2"),
            ev.InjurySuffered(unit="a3", lethal=True, result="lethal"))
    s.when("first", "a")
    return s


def test_a_unit_with_a_fear_token_cannot_move_nor_give_aid_or_support():
    s = fearful()
    s.when("unit", "a2")
    kinds = {o[0] for o in s.pending.options}
    assert not kinds & {"move", "sprint", "boost", "assist", "direct", "first_aid"}
    assert "attack" in kinds and "end" in kinds


def test_a_unit_with_a_fear_token_cannot_receive_aid_or_support():
    s = fearful()
    s.when("unit", "a1")
    opts = s.pending.options
    assert ("assist", "a2") not in opts and ("direct", "a2") not in opts
    assert ("first_aid", "a3") in opts  # a3 has no Fear Token: it may be helped


def test_in_the_end_phase_a_passed_morale_test_removes_the_fear_token():
    s = fearful()
    s.tokens(0, 0)
    events = s.finish_round(dice=(2, 3, 10, 1))
    assert [t.unit for t in fear_tests(events)] == ["a2"]
    assert mev.FearRemoved(unit="a2", reason="morale test") in events and not s.unit("a2").fear


def test_in_the_end_phase_a_failed_morale_test_keeps_the_fear_token():
    s = fearful()
    s.tokens(0, 0)
    events = s.finish_round(dice=(6, 6, 10, 1))
    assert not of_type(events, mev.FearRemoved) and s.unit("a2").fear

"""seed 004 "Courage Test": given -> when -> then."""

from __future__ import annotations


from skirmish.engine import events as ev
from skirmish.engine.rules.morale import events as mev
from skirmish.engine.decide import default_option
from skirmish.engine.rules.morale.frames import MoraleTestFrame
from skirmish.engine.rules.morale import courage

from tests.engine.rules.morale.conftest import MoraleScenario
from tests.engine.rules.scenario import of_type

# side a: 9 VP in all -> 25% is 3 (2.25 rounded up), 50% is 5 (4.5 rounded up); TCV 3 + 1 = 4
SQUAD = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 0, 2), ("s1", "a", "scout", 0, 4),
         ("s2", "a", "scout", 0, 6), ("s3", "a", "scout", 2, 0), ("s4", "a", "scout", 2, 2),
         ("b1", "b", "mech", 15, 7, True)]
NEXT_ROUND = (10, 1)  # the next round's initiative


def squad(rounds: int = 5, tokens: int = 0) -> MoraleScenario:
    s = MoraleScenario(SQUAD, rounds=rounds)
    s.start()
    s.tokens(a=tokens, b=0)
    s.when("first", "a")
    return s


def courage_tests(events):
    return [e for e in of_type(events, ev.ProcedureStarted)
            if isinstance(e.frame, MoraleTestFrame) and e.frame.test == "courage"]


def test_the_25_and_50_percent_marks_are_of_the_total_vp_rounded_up():
    assert courage.thresholds(9) == (3, 5)
    assert courage.thresholds(10) == (3, 5)
    assert courage.thresholds(8) == (2, 4)
    assert courage.thresholds(1) == (1, 1)


def test_no_courage_test_below_25_percent_of_the_vp_lost():
    s = squad().out_of_action("s1", "s2")  # 2 of 9 VP: under 3 (2.25 rounded up)
    events = s.finish_round(dice=NEXT_ROUND)
    assert not courage_tests(events) and not of_type(events, mev.CourageTestDue)


def test_the_first_courage_test_comes_in_the_end_phase_at_25_percent_2d6_against_tcv_plus_five():
    s = squad().out_of_action("s1", "s2", "s3")  # 3 of 9 VP
    events = s.finish_round(dice=(4, 5) + NEXT_ROUND)  # 9 <= TCV 4 + 5: passed
    assert of_type(events, mev.CourageTestDue) == [mev.CourageTestDue(side="a", lost_units=3)]
    [test] = courage_tests(events)
    assert (test.frame.target, test.frame.count) == (9, 2)
    assert [r.results for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:courage"] == [(4, 5)]
    assert s.state.outcome is None and s.state.round == 2


def test_then_a_test_only_on_turns_a_unit_is_lost_until_50_percent():
    s = squad().out_of_action("s1", "s2", "s3")
    s.finish_round(dice=(1, 1) + NEXT_ROUND)
    s.when("first", "a")
    events = s.finish_round(dice=NEXT_ROUND)  # round 2: nobody lost
    assert not courage_tests(events)
    s.when("first", "a")
    s.out_of_action("s4")  # round 3: one more unit lost (4 of 9 VP, under 5)
    events = s.finish_round(dice=(1, 1) + NEXT_ROUND)
    assert [t.frame.target for t in courage_tests(events)] == [9]


def test_from_50_percent_a_test_every_turn_and_minus_two_past_half_the_vp():
    s = squad().out_of_action("a2", "s1", "s2")  # 4 of 9: 25% reached, not 50%
    events = s.finish_round(dice=(1, 1) + NEXT_ROUND)
    assert [t.frame.target for t in courage_tests(events)] == [9]
    s.when("first", "a")
    s.out_of_action("s3")  # 5 of 9: 50% (4.5 rounded up) and more than half the VP
    events = s.finish_round(dice=(1, 1) + NEXT_ROUND)
    assert [t.frame.target for t in courage_tests(events)] == [7]  # 4 + 5 - 2
    s.when("first", "a")
    events = s.finish_round(dice=(1, 1) + NEXT_ROUND)  # nothing lost, still tested
    assert [t.frame.target for t in courage_tests(events)] == [7]


def test_exactly_half_the_vp_lost_is_50_percent_without_the_minus_two():
    units = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 0, 2), ("s1", "a", "scout", 0, 4),
             ("b1", "b", "mech", 15, 7, True)]  # 6 VP: 50% is 3
    s = MoraleScenario(units)
    s.start()
    s.tokens(a=0, b=0)
    s.when("first", "a")
    s.out_of_action("a2", "s1")  # 3 of 6: exactly half
    events = s.finish_round(dice=(1, 1) + NEXT_ROUND)
    assert [t.frame.target for t in courage_tests(events)] == [9]


def test_failing_means_retreat_units_in_base_contact_break_away_and_the_side_loses():
    units = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 6, 4), ("s1", "a", "scout", 0, 4),
             ("s2", "a", "scout", 0, 6), ("b1", "b", "mech", 7, 4, True)]  # a: 7 VP, 25% = 2
    s = MoraleScenario(units)
    s.start()
    s.tokens(a=0, b=0)
    s.when("first", "a")
    s.out_of_action("s1", "s2")
    events = s.finish_round(dice=(6, 5))  # 11 > 9
    moved = of_type(events, ev.UnitMoved)
    assert [m.unit for m in moved] == ["a2"] and abs(moved[0].x - 7) > 1  # out of b1's Reach
    assert mev.CourageFailed(side="a") in events
    assert s.state.outcome.winner == "b" and "Courage Test" in s.state.outcome.reason


def test_automatic_failure_when_every_pilot_is_out_of_action_or_unconscious():
    units = [("a1", "a", "chief", 0, 0, True), ("a2", "a", "mech", 0, 2), ("b1", "b", "mech", 15, 7, True)]
    s = MoraleScenario(units)
    s.start()
    s.tokens(a=0, b=0)
    s.when("first", "a")
    s.out_of_action("a2")
    s.unconscious("a1")
    events = s.finish_round()  # no dice are rolled
    [test] = courage_tests(events)
    assert test.frame.count == 0 and not [r for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:courage"]
    assert s.state.outcome.winner == "b"


def test_a_token_ignores_a_failed_courage_test_while_no_more_than_half_the_units_are_lost():
    s = squad(tokens=2).out_of_action("s1", "s2", "s3")  # 3 of 6 units: not more than half
    s.finish_round(dice=(6, 6))
    assert s.pending.kind == "test_reroll" and s.pending.side == "a"  # first the chance to re-roll it
    s.when("keep")
    assert s.pending.kind == "courage_failed" and s.pending.options == (("retreat",), ("ignore",))
    assert default_option(s.pending) == ("ignore",)
    events = s.when("ignore", dice=NEXT_ROUND)
    assert mev.TokensChanged(side="a", delta=-1, reason="ignore a failed courage test") in events
    assert s.state.outcome is None and s.state.round == 2


def test_no_token_can_ignore_it_once_more_than_half_the_units_are_lost():
    s = squad(tokens=2).out_of_action("s1", "s2", "s3", "s4")  # 4 of 6 units (4 of 9 VP)
    s.finish_round(dice=(6, 6))
    events = s.when("keep")  # no re-roll
    assert not any(e.decision.kind == "courage_failed" for e in of_type(s.log, ev.DecisionRequested))
    assert mev.CourageFailed(side="a") in events and s.state.outcome.winner == "b"


def test_choosing_to_retreat_loses_the_game():
    s = squad(tokens=2).out_of_action("s1", "s2", "s3")
    s.finish_round(dice=(6, 6))
    s.when("keep")
    events = s.when("retreat")
    assert mev.CourageFailed(side="a") in events and s.state.outcome.winner == "b"
    assert s.state.tokens["a"] == 2


def test_a_token_rerolls_a_failed_courage_test():
    s = squad(tokens=2).out_of_action("s1", "s2", "s3")
    s.finish_round(dice=(6, 6))
    first = [r for r in of_type(s.log, ev.DiceRolled) if r.purpose == "morale:courage"][0]
    events = s.when("reroll", dice=(2, 3) + NEXT_ROUND)
    again = [r for r in of_type(events, ev.DiceRolled) if r.purpose == "morale:courage"]
    assert [(r.results, r.replaces) for r in again] == [((2, 3), first.nonce)]
    assert s.state.tokens["a"] == 1 and s.state.outcome is None and s.state.round == 2

"""seed 004 "Command Tokens": given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.morale import events as mev
from skirmish.engine.decide import default_option

from tests.engine.rules.morale.conftest import MoraleScenario
from tests.engine.rules.scenario import of_type

DUEL = [("a1", "a", "chief", 1, 1, True), ("b1", "b", "mech", 4, 1, True)]
HIT = (1, 1)
MISS = (20, 20)
NO_DAMAGE = (3, 3, 3, 3, 3)


def test_each_side_starts_with_tokens_equal_to_its_tcv_command_plus_the_command_unit_bonus():
    s = MoraleScenario([("a1", "a", "chief", 1, 1, True), ("b1", "b", "mech", 6, 6, True), ("b2", "b", "heavy", 9, 6)])
    events = s.start()
    assert of_type(events, mev.TokensChanged) == [
        mev.TokensChanged(side="a", delta=4, reason="team command value"),  # Command 3 + Command Unit 1
        mev.TokensChanged(side="b", delta=2, reason="team command value"),  # the commander's Command 2
    ]
    rolls = of_type(events, ev.DiceRolled)
    assert [r.target for r in rolls] == [4, 2]  # initiative is d10 + the same TCV


def test_a_token_adds_one_to_a_units_movement_until_the_end_of_the_turn():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    far = ("move", 6, 1)  # 5 cells: beyond the Movement Minor Action's Medium band (4)
    assert far not in s.pending.options and ("boost",) in s.pending.options
    events = s.when("boost")
    assert mev.TokensChanged(side="a", delta=-1, reason="movement") in events
    assert far in s.pending.options and ("move", 7, 1) not in s.pending.options
    s.when("end")
    s.when("unit", "b1")
    s.when("end", dice=(10, 1))
    assert s.unit("a1").move_bonus == 0  # the End Phase ends it


def test_a_token_removes_an_action_counter_so_the_unit_can_act_again():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 14, 6, True),
             ("b2", "b", "mech", 14, 4)]
    s = MoraleScenario(units).play_to_turn("a1")
    assert not any(o[0] == "counter" for o in s.pending.options)  # no ally has a counter yet
    s.when("end")
    s.when("unit", "b1")
    s.when("end")
    s.when("unit", "a2")
    assert ("counter", "a1") in s.pending.options
    events = s.when("counter", "a1")
    assert events[1:] [:2] == [mev.TokensChanged(side="a", delta=-1, reason="action counter"),
                               mev.ActionCounterRemoved(unit="a1")]
    s.when("end")
    s.when("unit", "b2")
    s.when("end")
    assert s.pending.kind == "activate" and s.pending.options == (("unit", "a1"),)


def test_a_token_rerolls_a_sides_own_failed_task_roll_the_new_roll_replacing_the_old():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    s.tokens(b=0)
    s.task("attack", "b1", 0, 0, dice=MISS)
    assert s.pending.kind == "reroll" and s.pending.side == "a"
    assert s.pending.options == (("keep",), ("reroll", "task"))  # "keep" first
    old = of_type(s.log, ev.DiceRolled)[-1]
    events = s.when("reroll", "task", dice=HIT + NO_DAMAGE + (6, 6, 6))
    new = of_type(events, ev.DiceRolled)[0]
    assert (new.results, new.replaces, new.purpose) == ((1, 1), old.nonce, "reroll:attack")
    assert mev.TokensChanged(side="a", delta=-1, reason="re-roll task:attack") in events
    assert any(isinstance(e, ev.PoolChanged) and e.reason == "ranged attack" for e in events)  # it hit


def test_a_token_rerolls_the_opponents_roll():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    s.tokens(a=0)
    s.task("attack", "b1", 0, 0, dice=HIT)
    assert s.pending.kind == "reroll" and s.pending.side == "b"  # the roll went against b
    events = s.when("reroll", "task", dice=MISS)
    assert mev.TokensChanged(side="b", delta=-1, reason="re-roll task:attack") in events
    assert of_type(events, ev.DiceRolled)[0].results == (20, 20)
    assert not of_type(events, ev.StressLost) and s.pending.kind == "act"  # the attack missed


def test_rerolls_are_offered_only_to_a_side_with_tokens_the_roll_went_against():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    s.tokens(b=0)
    s.task("attack", "b1", 0, 0, dice=HIT + NO_DAMAGE + (6, 6, 6))  # a passed; b has no tokens
    assert not any(e.decision.kind == "reroll" for e in of_type(s.log, ev.DecisionRequested))
    # b1's Endurance test passed: it went against a, which has the tokens, so a is asked
    assert s.pending.kind == "test_reroll" and s.pending.side == "a"
    s.when("keep")
    assert s.pending.kind == "act"


def test_a_roll_of_several_dice_is_one_roll_and_damage_is_never_rerolled():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    s.tokens(b=3)
    s.task("attack", "b1", 0, 0, dice=HIT)
    s.when("keep", dice=(2, 3, 3, 3, 3, 1, 1, 1))  # b keeps; 2 damage; b1's Endurance test fails
    assert s.pending.kind == "test_reroll" and s.pending.side == "b" and s.pending.options == (("keep",), ("reroll",))
    events = s.when("reroll", dice=(1, 5, 1))
    [again] = of_type(events, ev.DiceRolled)
    assert again.results == (1, 5, 1) and again.purpose == "morale:endurance"  # all three d6, one roll
    assert not of_type(events, mev.EnduranceChanged)  # passed on the re-roll
    damage = [e for e in of_type(s.log, ev.DiceRolled) if e.purpose == "damage"]
    asked_after_damage = [e for e in of_type(s.log, ev.DecisionRequested)
                          if s.log.index(e) > s.log.index(damage[0]) and e.decision.kind == "reroll"]
    assert asked_after_damage == []


def test_losing_the_commander_costs_two_tokens_once():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 14, 6, True)]
    s = MoraleScenario(units).play_to_turn("a2")
    s.tokens(a=3)
    s.out_of_action("a1")
    events = s.when("end")
    i = events.index(mev.CommanderLost(side="a"))
    assert events[i + 1] == mev.TokensChanged(side="a", delta=-2, reason="commander out of action")
    assert s.state.tokens["a"] == 1
    events = s.when("unit", "b1")
    assert not of_type(events, mev.CommanderLost)


def test_losing_the_commander_with_one_token_left_loses_that_one():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 14, 6, True)]
    s = MoraleScenario(units).play_to_turn("a2")
    s.tokens(a=1)
    s.out_of_action("a1")
    events = s.when("end")
    assert mev.TokensChanged(side="a", delta=-1, reason="commander out of action") in events
    assert s.state.tokens["a"] == 0


def test_while_the_commander_is_unconscious_each_use_costs_two_tokens():
    units = [("a1", "a", "chief", 1, 1, True), ("a2", "a", "mech", 1, 3), ("b1", "b", "mech", 14, 6, True)]
    s = MoraleScenario(units)
    s.unconscious("a1")
    s.start()
    s.tokens(a=3, b=0)
    s.when("first", "a", dice=(5,))  # a1 stays unconscious
    assert s.pending.kind == "test_reroll" and s.pending.side == "a"  # a may re-roll its failed wake-up roll
    s.when("keep")
    s.when("unit", "a2")
    events = s.when("boost")
    assert mev.TokensChanged(side="a", delta=-2, reason="movement") in events and s.state.tokens["a"] == 1
    assert ("boost",) not in s.pending.options and not any(o[0] == "counter" for o in s.pending.options)


def test_every_reroll_window_times_out_to_keeping_the_roll():
    s = MoraleScenario(DUEL).play_to_turn("a1")
    s.task("attack", "b1", 0, 0, dice=MISS)
    assert default_option(s.pending) == ("keep",)


def test_the_side_losing_the_initiative_may_reroll_its_own_d10_and_then_the_other_side_may():
    s = MoraleScenario(DUEL)
    events = start_with_the_window_open(s, 5, 1)  # a: 5 + TCV 4 = 9; b: 1 + 2 = 3
    assert not of_type(events, ev.InitiativeWon)
    assert s.pending.kind == "initiative_reroll" and s.pending.side == "b"
    assert s.pending.options == (("keep",), ("reroll", "b"), ("reroll", "a"))
    first_b = of_type(events, ev.DiceRolled)[1]
    events = s.when("reroll", "b", dice=(10,))  # b: 12 now
    [again] = of_type(events, ev.DiceRolled)
    assert (again.unit, again.results, again.replaces) == ("b", (10,), first_b.nonce)
    assert mev.TokensChanged(side="b", delta=-1, reason="re-roll initiative") in events
    assert s.pending.kind == "initiative_reroll" and s.pending.side == "a"  # a lost it now
    events = s.when("keep")
    assert of_type(events, ev.InitiativeWon) == [ev.InitiativeWon(side="b")]
    assert s.pending.kind == "first" and s.pending.side == "b"


def test_the_loser_may_reroll_the_winners_initiative_die():
    s = MoraleScenario(DUEL)
    events = start_with_the_window_open(s, 5, 1)
    first_a = of_type(events, ev.DiceRolled)[0]
    events = s.when("reroll", "a", dice=(1,))  # a: 1 + 4 = 5, still above b's 3
    assert [(r.unit, r.replaces) for r in of_type(events, ev.DiceRolled)] == [("a", first_a.nonce)]
    assert of_type(events, ev.InitiativeWon) == [ev.InitiativeWon(side="a")]  # a won: not asked


def test_an_initiative_reroll_that_ties_has_both_sides_roll_again():
    s = MoraleScenario(DUEL)
    start_with_the_window_open(s, 5, 1)
    events = s.when("reroll", "b", dice=(7, 3, 1))  # b: 7 + 2 = 9 ties a's 9; then 3 + 4 > 1 + 2
    assert [r.results for r in of_type(events, ev.DiceRolled)] == [(7,), (3,), (1,)]
    assert of_type(events, ev.InitiativeWon) == [ev.InitiativeWon(side="a")]


def start_with_the_window_open(s, *dice):
    """Start without the scenario's default of keeping the initiative dice."""
    from tests.engine.rules.scenario import Scenario

    return Scenario.start(s, *dice)

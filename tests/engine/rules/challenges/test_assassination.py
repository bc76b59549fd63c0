"""seed 002 "Assassination" and the Defender's Prerogative loop: given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.decide import default_option
from skirmish.engine.rules.core import flow

from tests.engine.rules.scenario import of_type

# a1 stands next to b1 ("in the same hex", adapted: within Reach); b2 is far off
UNITS = [("a1", "a", "assassin", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "grunt", 7, 7)]


def kinds(events):
    return [(e.decision.kind, e.decision.side) for e in of_type(events, ev.DecisionRequested)]


def test_the_assassinate_option_shows_its_action_point_cost_and_picks_a_random_observed_hero(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    assert ("assassinate", "*", 2) in s.pending.options  # "followed by the cost in Action Points"
    events = s.when("assassinate", "*", 2, dice=(6, 6, 5, 1, 1, 2))
    assert ev.TaskAttempted(unit="a1", task="assassinate") in events
    assert cev.ActionPointsChanged(side="a", delta=-2, reason="assassinate") in events
    rolls = of_type(events, ev.DiceRolled)
    # "an 'Assassin 7' would be assigned 7 dice": Assassin 4 -> 4 dice; the defender: fate 2
    assert [(r.unit, r.results) for r in rolls] == [("a1", (6, 6, 5, 1)), ("b1", (1, 2))]
    assert s.pending.kind == "prerogative" and s.pending.side == "b" and s.pending.unit == "b1"
    assert s.pending.options == (("accept",), ("fate", 1))


def test_immediate_acceptance_ends_the_challenge_and_the_wounds_kill_at_the_wound_points(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 6, 5, 1, 1, 2))
    events = s.when("accept")  # "the defender is given a special opportunity to accept the results"
    assert cev.ChallengeResolved(op="assassinate", attacker="a1", target="b1", attacker_successes=3,
                                defender_successes=0, result="wounds", amount=3) in events
    # seed 002 wounds are lethal Injuries; a hero's wound points are 2 (RULES-BRIEF "Conditions")
    assert of_type(events, ev.InjurySuffered) == [ev.InjurySuffered(unit="b1", lethal=True, result="lethal"),
                                                  ev.InjurySuffered(unit="b1", lethal=True, result="dead")]
    assert s.unit("b1").dead
    assert kinds(events)[0] == ("act", "a")  # the attacker got no say: the prerogative was taken


def test_one_wound_below_the_wound_points_leaves_the_hero_lethally_injured(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 1, 1, 1, 1, 2))
    s.when("accept")
    assert s.unit("b1").injury == "lethal" and not s.unit("b1").dead


def test_no_wounds_when_the_assassin_does_not_exceed_the_defender(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 1, 1, 1, 5, 2))
    events = s.when("accept")
    assert of_type(events, cev.ChallengeResolved)[0].result == "none"
    assert not of_type(events, ev.InjurySuffered)


def test_a_full_prerogative_exchange_defender_rerolls_attacker_plays_a_card_both_accept(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.given(cev.CardDrawn(side="a", card="jam"))
    rolled = of_type(s.when("assassinate", "*", 2, dice=(6, 6, 1, 1, 1, 1)), ev.DiceRolled)  # 2 against 0
    # the defender spends fate: one fate re-rolls its failed dice; it cedes the prerogative
    events = s.when("fate", 1, dice=(5, 6))
    assert cev.FateChanged(unit="b1", delta=-1, reason="re-roll") in events
    reroll = of_type(events, ev.DiceRolled)[0]
    assert reroll.results == (5, 6) and reroll.replaces == rolled[1].nonce  # "re-rolls ... reference"
    assert s.state.stack[-1].dpool == (5, 6) and not s.state.stack[-1].prerogative
    # "the attacker is given a chance to respond"
    assert s.pending.kind == "respond" and s.pending.side == "a"
    assert s.pending.options == (("accept",), ("fate", 1), ("card", "jam"))
    events = s.when("card", "jam", dice=(2, 3))  # re-roll the opponent's successes
    assert of_type(events, ev.DiceRolled)[0].replaces == reroll.nonce
    assert cev.CardPlayed(side="a", card="jam", unit="a1") in events
    assert s.state.stack[-1].dpool == (2, 3) and s.state.hands["a"] == []
    assert s.pending.kind == "respond" and s.pending.side == "b"
    s.when("accept")
    assert s.pending.kind == "respond" and s.pending.side == "a"  # "until both sides accept"
    events = s.when("accept")
    assert of_type(events, cev.ChallengeResolved)[0].amount == 2
    assert s.unit("b1").dead


def test_an_action_after_one_side_accepted_reopens_the_exchange(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 6, 1, 1, 1, 1))
    s.when("fate", 1, dice=(1, 1))  # b cedes
    s.when("accept")  # a accepts ...
    assert s.pending.side == "b" and s.pending.kind == "respond"
    s.when("fate", 1, dice=(6, 6))  # ... b acts again: a must answer again
    assert s.pending.side == "a" and s.state.stack[-1].accepted == ()
    s.when("accept")
    events = s.when("accept")
    assert of_type(events, cev.ChallengeResolved)[0].result == "none"


def test_fate_is_offered_only_with_fate_left_and_a_failed_die(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 6, 1, 1, 5, 6))  # b has no failed die
    assert s.pending.options == (("accept",),)


def test_a_time_out_accepts(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 6, 1, 1, 1, 1))
    assert default_option(s.pending) == ("accept",)


def test_options_that_cost_more_action_points_than_the_side_has_are_not_offered(scenario):
    s = scenario(UNITS)
    s.start()
    s.when("first", "a")
    s.given(cev.ActionPointsChanged(side="a", delta=-1, reason="test"))  # 2 left: it costs 2
    s.when("unit", "a1")
    assert ("assassinate", "*", 2) in s.pending.options
    s = scenario(UNITS)
    s.start()
    s.when("first", "a")
    s.given(cev.ActionPointsChanged(side="a", delta=-2, reason="test"))  # 1 left
    s.when("unit", "a1")
    assert not [o for o in s.pending.options if o[0] == "assassinate"]


def test_action_points_are_restored_each_round(scenario):
    s = scenario(UNITS)
    events = s.start()
    assert cev.ActionPointsChanged(side="a", delta=3, reason="round") in events
    assert s.state.action_points == {"a": 3, "b": 3}


def test_a_random_target_among_the_observed_heroes_is_rolled_for(scenario):
    s = scenario([("a1", "a", "assassin", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "target", 1, 2)])
    s.play_to_turn("a1")
    assert [o for o in s.pending.options if o[0] == "assassinate"] == [("assassinate", "*", 2)]
    events = s.when("assassinate", "*", 2, dice=(2, 1, 1, 1, 1, 1, 1))
    pick = of_type(events, ev.DiceRolled)[0]
    assert (pick.purpose, pick.sides, pick.results) == ("challenges:target", 2, (2,))
    assert s.state.stack[-1].target == "b2"


def test_a_master_assassin_chooses_the_target(scenario):
    s = scenario([("a1", "a", "master", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "target", 1, 2)])
    s.play_to_turn("a1")
    assert [o for o in s.pending.options if o[0] == "assassinate"] == [("assassinate", "b1", 2),
                                                                       ("assassinate", "b2", 2)]
    s.when("assassinate", "b2", 2, dice=(1, 1, 1, 1, 1, 1))
    assert s.state.stack[-1].target == "b2"


def test_only_observed_heroes_in_the_same_hex_are_targets(scenario):
    # b1 is two cells away (out of Reach), b2 adjacent but a bogey, b3 adjacent but stealthed
    s = scenario([("a1", "a", "master", 1, 1), ("b1", "b", "target", 3, 1), ("b2", "b", "grunt", 1, 2),
                  ("b3", "b", "sneak", 0, 1)])
    s.play_to_turn("a1")
    assert not [o for o in s.pending.options if o[0] == "assassinate"]


def test_bodyguard_adds_to_the_defenders_pool(scenario):
    s = scenario([("a1", "a", "assassin", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "guard", 3, 1)])
    s.play_to_turn("a1")
    events = s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 1, 1, 1, 1))
    assert len(of_type(events, ev.DiceRolled)[1].results) == 4  # fate 2 + Bodyguard 2


def test_slayer_kills_on_a_single_wound(scenario):
    s = scenario([("a1", "a", "slayer", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "grunt", 7, 7)])
    s.play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(6, 1, 1, 1, 1))
    events = s.when("accept")
    assert of_type(events, cev.ChallengeResolved)[0].amount == 1
    assert of_type(events, ev.InjurySuffered) == [ev.InjurySuffered(unit="b1", lethal=True, result="dead")]


def test_assassin_vs_assassin_the_defenders_extra_successes_wound_the_attacker(scenario):
    s = scenario([("a1", "a", "assassin", 1, 1), ("b1", "b", "assassin", 2, 1), ("b2", "b", "grunt", 7, 7)])
    s.play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 6, 5))
    assert s.state.stack[-1].duel
    assert s.pending.kind == "prerogative"  # "The defender still maintains the right"
    events = s.when("accept")
    assert cev.ChallengeResolved(op="assassinate", attacker="a1", target="b1", attacker_successes=0,
                                defender_successes=2, result="duel", amount=2) in events
    assert s.unit("a1").dead and not s.unit("b1").incapacitated


def test_without_a_duel_the_defenders_extra_successes_do_nothing(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 6, 5))
    events = s.when("accept")
    assert of_type(events, cev.ChallengeResolved)[0].result == "none"
    assert not s.unit("a1").incapacitated


def test_the_operation_is_the_units_task(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 1, 1))
    s.when("accept")
    assert s.pending.kind == "act" and not [o for o in s.pending.options if o[0] in ("assassinate", "attack")]


def test_a_game_without_the_module_offers_no_operations():
    from tests.engine.rules.scenario import Scenario

    s = Scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1)]).play_to_turn("a1")
    assert s.state.challenges is None and s.state.hands == {}
    assert all(o[0] not in ("assassinate", "sabotage", "create", "stealth") for o in s.pending.options)
    assert flow.points(s.state) == {"a": 0, "b": 0}

"""seed 002 threshold challenges (Tactician, Technologist, Geneticist) and the tactic cards."""

from __future__ import annotations

import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.challenges import events as cev

from tests.engine.rules.scenario import of_type
from tests.engine.rules.challenges.setting import CHALLENGES, SALT

UNITS = [("a1", "a", "tactician", 1, 1), ("b1", "b", "target", 7, 7)]


def test_a_threshold_challenge_equal_to_the_threshold_creates_the_card(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    assert ("create", "tactician", 1) in s.pending.options
    events = s.when("create", "tactician", 1, dice=(6, 5, 1))  # Tactician 3 -> 3 dice
    assert len(of_type(events, ev.DiceRolled)[0].results) == 3
    assert s.pending.kind == "threshold" and s.pending.side == "a"
    assert s.pending.options == (("accept",), ("fate", 1))
    events = s.when("accept")
    assert cev.ChallengeResolved(op="create", attacker="a1", target="tactician", attacker_successes=2,
                                defender_successes=2, result="created", amount=1) in events
    assert cev.CardCreated(side="a", card="plus2", unit="a1") in events
    assert s.state.hands["a"] == ["plus2"] and s.state.created["a"] == ["plus2"]
    assert s.state.action_points["a"] == 2


def test_below_the_threshold_nothing_is_created_and_the_side_may_reroll_first(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("create", "tactician", 1, dice=(6, 1, 1))
    events = s.when("fate", 1, dice=(2, 3))
    assert cev.FateChanged(unit="a1", delta=-1, reason="re-roll") in events
    assert s.pending.kind == "threshold" and s.pending.options == (("accept",),)  # no fate left
    events = s.when("accept")
    assert of_type(events, cev.ChallengeResolved)[0].result == "failed" and not of_type(events, cev.CardCreated)


def test_turn_failures_into_successes(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.given(cev.CardDrawn(side="a", card="luck"))
    s.when("create", "tactician", 1, dice=(1, 1, 1))
    s.when("card", "luck")
    assert s.state.stack[-1].apool == (6, 6, 1)  # up to 2 failures turned into successes
    assert s.state.played["a"] == ["luck"]
    events = s.when("accept")
    assert cev.CardCreated(side="a", card="plus2", unit="a1") in events


def test_plus_dice_and_plus_fate(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.given(cev.CardDrawn(side="a", card="plus2"), cev.CardDrawn(side="a", card="omen"))
    s.when("create", "tactician", 1, dice=(1, 1, 1))
    assert s.pending.options == (("accept",), ("fate", 1), ("card", "omen"), ("card", "plus2"))
    events = s.when("card", "plus2", dice=(4, 2))
    assert of_type(events, ev.DiceRolled)[0].purpose == "challenge:card"
    assert s.state.stack[-1].apool == (1, 1, 1, 4, 2)
    s.when("card", "omen")
    assert s.state.stack[-1].afate == 3  # the hero's 1 + 2
    events = s.when("fate", 1, dice=(1, 1, 1, 1))
    assert not of_type(events, cev.FateChanged)  # the card's fate is spent first
    events = s.when("fate", 1, dice=(1, 1, 1, 1))
    assert not of_type(events, cev.FateChanged)
    events = s.when("fate", 1, dice=(6, 6, 1, 1))
    assert cev.FateChanged(unit="a1", delta=-1, reason="re-roll") in events and s.unit("a1").fate == 0


DEALT = CHALLENGES.replace("hand = 0", "hand = 2").replace("draw = 0", "draw = 1") + "\n"


def test_hands_are_dealt_by_fair_rolls_over_the_cards_left(scenario):
    s = scenario(UNITS, challenges=DEALT)
    events = s.start(*SALT, 2, 1, 4, 3, 10, 1)
    draws = [(r.sides, r.results, r.unit) for r in of_type(events, ev.DiceRolled) if r.purpose == "challenges:draw"]
    assert draws == [(4, (2,), "a"), (3, (1,), "a"), (4, (4,), "b"), (3, (3,), "b")]
    # the decks are kept sorted: jam, luck, omen, plus2
    assert s.state.hands == {"a": ["luck", "jam"], "b": ["plus2", "omen"]}
    assert s.state.decks == {"a": ["omen", "plus2"], "b": ["jam", "luck"]}


def test_a_side_draws_each_later_round_up_to_its_hand_limit(scenario):
    s = scenario(UNITS, challenges=DEALT.replace("hand = 2", "hand = 2\nhand_limit = 3"))
    s.start(*SALT, 1, 1, 1, 1, 10, 1)
    s.when("first", "a")
    s.when("unit", "a1")
    s.when("end")
    events = s.when("unit", "b1", dice=())
    events += s.when("end", dice=(10, 1, 2, 1))
    assert [e for e in events if isinstance(e, cev.CardDrawn)] == [cev.CardDrawn(side="a", card="plus2"),
                                                                  cev.CardDrawn(side="b", card="omen")]
    assert len(s.state.hands["a"]) == 3


def test_a_card_not_in_the_deck_cannot_be_drawn(scenario):
    from skirmish.engine.errors import InvalidEvent

    s = scenario(UNITS)
    with pytest.raises(InvalidEvent, match="no card 'ace'"):
        s.given(cev.CardDrawn(side="a", card="ace"))

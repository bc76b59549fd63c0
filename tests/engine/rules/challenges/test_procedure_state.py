"""The challenge in progress is plain data: a restarted server resumes it from the log alone;
bad commands inside it get typed errors; a forged event cannot follow."""

from __future__ import annotations

import pytest

from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.codec import decode_state, encode_state, state_hash
from skirmish.engine.commands import Choose
from skirmish.engine.decide import decide
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.errors import IllegalOption, InvalidEvent, NotYourDecision
from skirmish.engine.evolve import replay

UNITS = [("a1", "a", "assassin", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "grunt", 7, 7)]


def mid_exchange(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.given(cev.CardDrawn(side="a", card="jam"))
    s.when("assassinate", "*", 2, dice=(6, 6, 1, 1, 1, 1))
    s.when("fate", 1, dice=(5, 6))  # b cedes; a to respond
    return s


def test_a_server_restarted_mid_exchange_resumes_from_the_log_alone(scenario):
    s = mid_exchange(scenario)
    resumed = replay(s.log)
    assert state_hash(resumed) == state_hash(s.state)
    assert decode_state(encode_state(s.state)) == s.state
    # and carries on exactly as the live game does
    live = decide(s.state, Choose(s.pending.id, ("card", "jam"), "a"), ScriptedDice((2, 3)))
    again = decide(resumed, Choose(resumed.pending.id, ("card", "jam"), "a"), ScriptedDice((2, 3)))
    assert live == again


def test_the_defender_cannot_answer_for_the_attacker_nor_play_a_card_it_does_not_hold(scenario):
    s = mid_exchange(scenario)
    with pytest.raises(NotYourDecision):
        decide(s.state, Choose(s.pending.id, ("accept",), "b"), ScriptedDice(()))
    with pytest.raises(IllegalOption):
        decide(s.state, Choose(s.pending.id, ("card", "omen"), "a"), ScriptedDice(()))
    with pytest.raises(IllegalOption):
        decide(s.state, Choose(s.pending.id, ("fate", 2), "a"), ScriptedDice(()))


def test_forged_events_do_not_follow(scenario):
    s = mid_exchange(scenario)
    with pytest.raises(InvalidEvent, match="holds no card"):
        s.given(cev.CardPlayed(side="b", card="jam"))
    with pytest.raises(InvalidEvent, match="Action Points"):
        s.given(cev.ActionPointsChanged(side="a", delta=-5, reason="forged"))
    with pytest.raises(InvalidEvent, match="fate"):
        s.given(cev.FateChanged(unit="b1", delta=-5, reason="forged"))
    with pytest.raises(InvalidEvent, match="no facility"):
        s.given(cev.FacilityDamaged(facility="nowhere", amount=1))


def test_module_events_cannot_follow_in_a_game_without_the_module():
    from tests.engine.rules.scenario import Scenario

    s = Scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1)])
    with pytest.raises(InvalidEvent, match="not on"):
        s.given(cev.CardDrawn(side="a", card="jam"))

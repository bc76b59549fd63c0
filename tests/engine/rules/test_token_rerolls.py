"""seed 004 "Command Tokens": "Re-roll one of yours or your opponent's dice rolls, which is not
damage. Rolling several dice at once, like an Endurance test, is classed as one roll." -- offered
for the other modules' rolls too, in games with two modules on (issue 12 #26): the capture
module's d12 tests and a captured bogey's escape roll, the challenges module's pools.
given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.rules.morale import events as mev
from skirmish.engine.decide import default_option

from tests.engine.rules.challenges.setting import CHALLENGES, SALT
from tests.engine.rules.morale.conftest import ModulesScenario
from tests.engine.rules.scenario import of_type

CAPTURE = '\n[capture]\ncaptor = "a"\n'
DRONE = """
[profiles.drone]
kind = "bogey"
tier = "grunt"
weapons = ["phaser", "knife"]
points = 1
endurance = 2
morale = 6
size = 1
"""
STUNNED_B1 = ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal")
CAPTURE_UNITS = [("a1", "a", "chief", 1, 1, True), ("b1", "b", "mech", 2, 1), ("b2", "b", "mech", 12, 6, True)]


def capture_game(tokens_a: int, tokens_b: int, modules=("morale", "capture")):
    s = ModulesScenario(CAPTURE_UNITS, modules, extra=CAPTURE).given(STUNNED_B1)
    s.start()
    s.tokens(tokens_a, tokens_b)
    s.when("first", "a")
    s.when("unit", "a1")
    return s


def test_a_side_may_spend_a_token_to_reroll_its_own_failed_d12_test():
    s = capture_game(1, 0)
    # a1's interact test: Acuity 2 (Insight 8) d12 against D(FxM of b1 = 4 x 3 = 12): 3 + 4 fails
    events = s.when("capture", "b1", dice=(3, 4))
    assert s.pending.kind == "d12_reroll" and s.pending.side == "a" and s.pending.options == (("keep",), ("reroll",))
    assert not of_type(events, cev.D12Tested) and not of_type(events, ev.StressLost)  # not settled yet
    first = of_type(events, ev.DiceRolled)[-1]
    events = s.when("reroll", dice=(12, 5))
    assert mev.TokensChanged(side="a", delta=-1, reason="re-roll capture:capture") in events
    [again] = of_type(events, ev.DiceRolled)
    assert (again.sides, again.results, again.replaces) == (12, (12, 5), first.nonce)  # both dice: one roll
    [tested] = of_type(events, cev.D12Tested)
    assert tested.nonce == again.nonce and tested.passed
    assert cev.UnitCaptured(unit="b1", by="a1") in events and s.state.tokens["a"] == 0


def test_the_opponent_may_spend_a_token_to_reroll_a_passed_d12_test_and_keeping_settles_it():
    s = capture_game(0, 1)
    s.when("capture", "b1", dice=(12, 5))  # passes: against side b
    assert s.pending.kind == "d12_reroll" and s.pending.side == "b"
    assert default_option(s.pending) == ("keep",)
    events = s.when("reroll", dice=(2, 3))
    assert mev.TokensChanged(side="b", delta=-1, reason="re-roll capture:capture") in events
    assert not of_type(events, cev.UnitCaptured)
    assert ev.StressLost(unit="a1", amount=3) in events  # failed: wounded(+1)


def test_a_side_without_tokens_or_a_result_in_its_favour_is_not_asked():
    s = capture_game(1, 0)
    events = s.when("capture", "b1", dice=(12, 5))  # passed: a has no reason, b no token
    assert s.pending is None or s.pending.kind != "d12_reroll"
    assert cev.UnitCaptured(unit="b1", by="a1") in events


def test_the_capture_window_works_whichever_module_comes_first():
    s = capture_game(1, 0, modules=("capture", "morale"))
    s.when("capture", "b1", dice=(3, 4))
    assert s.pending.kind == "d12_reroll"
    events = s.when("keep")
    assert of_type(events, cev.D12Tested)[0].passed is False and ev.StressLost(unit="a1", amount=3) in events


def test_a_captured_bogeys_escape_roll_may_be_rerolled_by_its_captors_side():
    units = [("a1", "a", "chief", 1, 1, True), ("b1", "b", "drone", 6, 6), ("b2", "b", "mech", 12, 6, True)]
    s = ModulesScenario(units, ("morale", "capture"), extra=CAPTURE + DRONE)
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"))
    s.start()
    s.tokens(1, 0)
    s.when("first", "b")
    events = s.when("unit", "b1", dice=(10,))  # a grunt's one d12: 10+ escapes (no character next to it)
    assert s.pending.kind == "d12_reroll" and s.pending.side == "a"
    assert not of_type(events, cev.CaptiveEscaped)
    events = s.when("reroll", dice=(4,))
    assert mev.TokensChanged(side="a", delta=-1, reason="re-roll capture:bogey_escape") in events
    assert not of_type(events, cev.CaptiveEscaped) and s.unit("b1").captured


# -- the challenges module's pools ------------------------------------------------------------------

AGENTS = """
[profiles.agent]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 2
abilities = { assassin = 4 }
endurance = 3
morale = 7
size = 2

[profiles.mark]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 2
endurance = 3
morale = 7
size = 2
"""
DUEL = [("a1", "a", "agent", 1, 1, True), ("b1", "b", "mark", 2, 1, True), ("b2", "b", "mech", 12, 6)]


def challenge_game(tokens_a: int, tokens_b: int):
    s = ModulesScenario(DUEL, ("challenges", "morale"), extra=AGENTS + CHALLENGES)
    s.start(*SALT, 10, 1)
    s.tokens(tokens_a, tokens_b)
    s.when("first", "a")
    s.when("unit", "a1")
    s.when("assassinate", "*", 2, dice=(6, 6, 5, 1, 1, 2))  # a1: 4 dice, 3 successes; b1: fate 2 dice, none
    return s


def test_in_a_challenge_a_side_with_a_token_may_reroll_either_pool():
    s = challenge_game(0, 1)
    assert s.pending.kind == "prerogative" and s.pending.side == "b"
    assert s.pending.options == (("accept",), ("fate", 1), ("token", "b"), ("token", "a"))
    a_roll = [r for r in of_type(s.log, ev.DiceRolled) if r.purpose == "challenge:assassinate"][0]
    events = s.when("token", "a", dice=(1, 2, 3, 4))  # the attacker's whole pool, as one roll
    assert mev.TokensChanged(side="b", delta=-1, reason="re-roll challenge:assassinate") in events
    [again] = of_type(events, ev.DiceRolled)
    assert (again.purpose, again.results, again.replaces, again.unit) == ("challenge:token", (1, 2, 3, 4), a_roll.nonce, "a1")
    f = s.state.stack[-1]
    assert f.apool == (1, 2, 3, 4) and not f.prerogative  # like fate or a card, it cedes the prerogative
    assert s.pending.kind == "respond" and s.pending.side == "a"


def test_in_a_challenge_no_token_no_reroll_and_a_pool_with_nothing_to_gain_is_not_offered():
    assert not [o for o in challenge_game(0, 0).pending.options if o[0] == "token"]
    s = challenge_game(1, 0)
    s.when("fate", 1, dice=(1, 1))  # b re-rolls its failed dice with fate: still none; a may answer
    assert s.pending.kind == "respond" and s.pending.side == "a"
    # a's own pool (6, 6, 5, 1) has a failed die; b's (1, 1) no success to take away
    assert [o for o in s.pending.options if o[0] == "token"] == [("token", "a")]

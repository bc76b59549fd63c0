"""seed 002 stealth, detection and the Capture Kill Challenge (house rules: docs/rules.md)."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.challenges import events as cev

from tests.engine.rules.scenario import of_type

SNEAK = [("a1", "a", "sneak", 1, 1), ("b1", "b", "target", 2, 1), ("b2", "b", "spotter", 4, 1)]


def test_a_stealthed_unit_is_not_attacked_and_does_not_attack(scenario):
    s = scenario(SNEAK).play_to_turn("a1")
    assert not [o for o in s.pending.options if o[0] == "attack"]
    s.when("end")
    s.when("unit", "b1")
    assert not [o for o in s.pending.options if o[0] == "attack" and o[1] == "a1"]


def test_after_the_operation_a_detected_hero_loses_stealth_and_faces_the_capture_kill_challenge(scenario):
    s = scenario(SNEAK).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 1))
    events = s.when("accept", dice=(6, 5, 1, 1, 1))  # b2's Detection 2 against 1 + Stealth 1
    roll = [r for r in of_type(events, ev.DiceRolled) if r.purpose == "challenges:detection"][0]
    assert (roll.unit, roll.results, roll.target) == ("b2", (6, 5), 2)
    assert cev.StealthChanged(unit="a1", stealthed=False, reason="detected") in events
    f = s.state.stack[-1]
    assert (f.op, f.attacker, f.target, f.aside, f.dside) == ("capture_kill", "b2", "a1", "b", "a")
    assert (f.apool, f.dpool) == ((1, 1), (1,))  # b2's Detection 2 against a1's fate 1


def test_the_capture_kill_challenge_has_its_own_prerogative(scenario):
    s = scenario(SNEAK).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 1))
    # detection succeeds, then the capture/kill dice: b2 Detection 2 vs a1 fate 1
    s.when("accept", dice=(6, 5, 6, 6, 1))
    assert s.pending.kind == "prerogative" and s.pending.side == "a" and s.pending.unit == "a1"
    events = s.when("accept")
    assert cev.ChallengeResolved(op="capture_kill", attacker="b2", target="a1", attacker_successes=2,
                                defender_successes=0, result="wounds", amount=2) in events
    assert s.unit("a1").dead


def test_an_undetected_operative_keeps_its_stealth(scenario):
    s = scenario(SNEAK).play_to_turn("a1")
    s.when("assassinate", "*", 2, dice=(1, 1, 1, 1, 1))
    events = s.when("accept", dice=(6, 1))  # one success, two needed
    assert not of_type(events, cev.StealthChanged) and s.unit("a1").stealthed
    assert s.pending.kind == "act"


def test_a_detected_unit_faces_combat_not_a_capture_kill_challenge(scenario):
    s = scenario([("a1", "a", "sneak_unit", 3, 1), ("b1", "b", "target", 7, 7), ("b2", "b", "spotter", 4, 4)])
    s.play_to_turn("a1")
    s.when("sabotage", "*", 2, dice=(1, 1, 1, 1, 1))
    events = s.when("accept", dice=(6, 6))
    assert cev.StealthChanged(unit="a1", stealthed=False, reason="detected") in events
    assert not s.state.stack and s.pending.kind == "act"


def test_hiding_costs_action_points_and_needs_no_enemy_in_reach(scenario):
    s = scenario([("a1", "a", "sneak", 1, 1), ("b1", "b", "target", 6, 6)])
    s.given(cev.StealthChanged(unit="a1", stealthed=False, reason="test"))
    s.play_to_turn("a1")
    assert ("stealth", 1) in s.pending.options
    events = s.when("stealth", 1)
    assert cev.StealthChanged(unit="a1", stealthed=True, reason="hid") in events
    assert s.state.action_points["a"] == 2
    s2 = scenario([("a1", "a", "sneak", 1, 1), ("b1", "b", "target", 2, 1)])
    s2.given(cev.StealthChanged(unit="a1", stealthed=False, reason="test"))
    s2.play_to_turn("a1")
    assert ("stealth", 1) not in s2.pending.options


READY = [("a1", "a", "sneak", 0, 0), ("a2", "a", "hero", 0, 7), ("b1", "b", "target", 6, 4)]


def _b1_readied_then_a1_moves(scenario, stealthed: bool):
    s = scenario(READY)
    if not stealthed:
        s.given(cev.StealthChanged(unit="a1", stealthed=False, reason="test"))
    s.start()
    s.when("first", "a")
    s.when("unit", "a2")
    s.when("end")
    s.when("unit", "b1")
    s.when("ready")
    s.when("end")
    s.when("unit", "a1")
    s.when("move", 1, 1)
    return s


def test_a_readied_enemy_does_not_fire_at_a_stealthed_unit(scenario):
    assert _b1_readied_then_a1_moves(scenario, stealthed=True).pending.kind == "act"
    assert _b1_readied_then_a1_moves(scenario, stealthed=False).pending.kind == "ready"  # the control

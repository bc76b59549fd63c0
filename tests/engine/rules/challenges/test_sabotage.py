"""seed 002 "Sabotage" and "Saboteur vs. Intel Center": given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.rules.core import flow

from tests.engine.rules.scenario import of_type
from tests.engine.rules.challenges.setting import CHALLENGES

# facilities (conftest): b's depot at (3, 2) (defence 2, structure 2, 2 points) and radar at (3, 4)
UNITS = [("a1", "a", "saboteur", 3, 1), ("b1", "b", "target", 7, 7)]

INTEL = CHALLENGES + """
[[challenges.facilities]]
id = "depot"
side = "b"
at = [3, 2]
defence = 2
structure = 2

[[challenges.facilities]]
id = "listening"
side = "b"
at = [4, 3]
defence = 1
structure = 2
intel = 2
"""


def test_sabotage_pools_the_saboteur_level_against_the_facilitys_defence(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    assert ("sabotage", "*", 2) in s.pending.options  # only the depot is in the same hex
    events = s.when("sabotage", "*", 2, dice=(6, 6, 6, 1, 1, 1))
    rolls = of_type(events, ev.DiceRolled)
    assert [len(r.results) for r in rolls] == [4, 2]  # Saboteur 4; defence 2
    assert s.pending.kind == "prerogative" and s.pending.side == "b" and s.pending.unit == ""
    assert s.pending.options == (("accept",),)  # a facility has no fate without an intel center


def test_damage_at_the_structure_points_destroys_the_facility_and_scores_it(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("sabotage", "*", 2, dice=(6, 6, 6, 1, 1, 1))
    events = s.when("accept")
    assert cev.ChallengeResolved(op="sabotage", attacker="a1", target="depot", attacker_successes=3,
                                defender_successes=0, result="damage", amount=3) in events
    assert cev.FacilityDamaged(facility="depot", amount=3) in events
    assert cev.FacilityDestroyed(facility="depot") in events
    assert s.state.facilities["depot"].destroyed
    assert flow.points(s.state)["a"] == 2  # the depot's points
    assert ("sabotage", "*", 2) not in s.state.pending.options


def test_damage_below_the_structure_points_only_damages(scenario):
    s = scenario(UNITS).play_to_turn("a1")
    s.when("sabotage", "*", 2, dice=(6, 1, 1, 1, 1, 1))
    events = s.when("accept")
    assert cev.FacilityDamaged(facility="depot", amount=1) in events
    assert not of_type(events, cev.FacilityDestroyed) and s.state.facilities["depot"].damage == 1


def test_a_master_saboteur_chooses_and_bonus_damage_is_added_to_a_hit(scenario):
    s = scenario([("a1", "a", "master_saboteur", 3, 3), ("b1", "b", "target", 7, 7)]).play_to_turn("a1")
    assert [o for o in s.pending.options if o[0] == "sabotage"] == [("sabotage", "depot", 2), ("sabotage", "radar", 2)]
    s.when("sabotage", "radar", 2, dice=(6, 1, 1, 1, 1))  # radar: defence 1
    events = s.when("accept")
    assert cev.FacilityDamaged(facility="radar", amount=2) in events  # 1 success + bonus damage 1


def test_without_a_master_a_random_facility_in_the_hex_is_chosen(scenario):
    s = scenario([("a1", "a", "saboteur", 3, 3), ("b1", "b", "target", 7, 7)]).play_to_turn("a1")
    events = s.when("sabotage", "*", 2, dice=(2, 1, 1, 1, 1, 1))
    pick = of_type(events, ev.DiceRolled)[0]
    assert (pick.purpose, pick.sides, pick.results) == ("challenges:target", 2, (2,))
    assert s.state.stack[-1].target == "radar"


def test_saboteur_vs_intel_center_the_defender_gains_fate_and_its_extra_successes_wound(scenario):
    s = scenario([("a1", "a", "saboteur", 3, 1), ("b1", "b", "target", 7, 7)], challenges=INTEL)
    s.play_to_turn("a1")
    s.when("sabotage", "*", 2, dice=(1, 1, 1, 1, 1, 6, 1))  # the random pick: the depot
    f = s.state.stack[-1]
    assert f.target == "depot" and f.duel and f.dfate == 2  # fate = the intel facility's level
    assert s.pending.options == (("accept",), ("fate", 1))
    events = s.when("fate", 1, dice=(5,))
    assert not of_type(events, cev.FateChanged)  # the intel center's fate, not a hero's
    assert s.state.stack[-1].dpool == (5, 6) and s.state.stack[-1].dfate == 1
    s.when("accept")  # a
    events = s.when("accept")  # b
    assert cev.ChallengeResolved(op="sabotage", attacker="a1", target="depot", attacker_successes=0,
                                defender_successes=2, result="duel", amount=2) in events
    assert s.unit("a1").dead and not s.state.facilities["depot"].damage


def test_sabotaging_the_intel_center_itself_is_a_duel_too(scenario):
    s = scenario([("a1", "a", "master_saboteur", 5, 3), ("b1", "b", "target", 7, 7)], challenges=INTEL)
    s.play_to_turn("a1")
    assert [o for o in s.pending.options if o[0] == "sabotage"] == [("sabotage", "listening", 2)]
    s.when("sabotage", "listening", 2, dice=(1, 1, 1, 1, 1))
    assert s.state.stack[-1].duel and s.state.stack[-1].dfate == 2

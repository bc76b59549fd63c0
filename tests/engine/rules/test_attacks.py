"""seed 001 "Attacks and Damage", steps 1-7, and "Avoiding Injuries": given -> when -> then."""

from __future__ import annotations

import pytest

from skirmish.engine import events as ev
from skirmish.engine.commands import Choose, Resign
from skirmish.engine.decide import decide
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.errors import GameOver, IllegalOption, MalformedCommand, NotYourDecision, StaleDecision
from skirmish.engine.rules.core.tasks import count_successes

from tests.engine.rules.scenario import Scenario, of_type

MELEE = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 2, 1), ("b2", "b", "grunt", 6, 6)]
RANGED = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 5, 5), ("b2", "b", "grunt", 4, 4)]


def melee() -> Scenario:
    return Scenario(MELEE).play_to_turn("a1")


def ranged(*given) -> Scenario:
    return Scenario(RANGED).given(*given).play_to_turn("a1")


def frame(events):
    return of_type(events, ev.ProcedureUpdated)[-1].frame


# -- task resolution --------------------------------------------------------------------------------


@pytest.mark.parametrize("dice, focus, rng, difficulty, expected", [
    ((5, 12), False, 1, 1, (2, 0, True, 1)),      # each die at or under 12: one success
    ((1, 13), False, 1, 1, (2, 0, True, 1)),      # a natural 1 is two successes
    ((2, 13), True, 1, 1, (2, 0, True, 1)),       # at or under the Discipline (2) with a Focus: two
    ((20, 19), False, 1, 0, (0, 1, True, 0)),     # a 20 is a Complication; Difficulty 0 passes
    ((20, 19), False, 2, 1, (0, 2, False, 0)),    # Complication Range 2: 19 and 20
    ((5, 6, 7), False, 1, 2, (3, 0, True, 1)),    # a bought die; one success beyond: 1 Momentum
])
def test_task_successes_complications_and_momentum(dice, focus, rng, difficulty, expected):
    assert tuple(count_successes(dice, 12, 2, focus, difficulty, rng)) == expected


def test_a_focus_named_by_the_task_doubles_successes_at_or_under_the_discipline():
    units = [("a1", "a", "medic", 1, 1), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 6)]
    s = Scenario(units).given(ev.InjurySuffered(unit="a2", lethal=True, result="lethal")).play_to_turn("a1")
    events = s.task("first_aid", "a2", dice=(3, 20))  # Medicine 3 with the Focus "first aid": two successes
    assert ev.PoolChanged(side="a", pool="momentum", delta=1, reason="first_aid") in events


# -- steps 1-4 -----------------------------------------------------------------------------------------


def test_melee_only_within_reach_and_ranged_at_visible_enemies():
    wall = "\n".join(["..#.....", "..#.....", "..#.....", "........", "........", "........", "........", "........"])
    s = Scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 4, 1), ("b2", "b", "grunt", 1, 6)], map=wall)
    s.play_to_turn("a1")
    attacks = {o for o in s.pending.options if o[0] == "attack"}
    assert attacks == {("attack", "b2", 0, 0), ("attack", "b2", 0, 1)}  # b1: behind the wall, out of Reach


def test_melee_is_opposed_and_the_attacker_who_wins_chooses_damage_or_fend_off():
    s = melee()
    events = s.task("attack", "b1", 1, 0, dice=(3, 5, 15, 18))  # 2 successes vs the defender's 0
    assert [r.purpose for r in of_type(events, ev.DiceRolled)] == ["task:attack", "defence:attack"]
    assert ev.PoolChanged(side="a", pool="momentum", delta=1, reason="melee attack") in events
    assert frame(events).step == "outcome" and frame(events).winner == "a1"
    assert s.pending.kind == "melee_won" and s.pending.side == "a"
    assert s.pending.options[0] == ("damage",) and ("fend", 0, 0) in s.pending.options


def test_the_defender_who_wins_a_melee_makes_the_successful_attack_instead():
    s = melee()
    events = s.task("attack", "b1", 1, 0, dice=(19, 18, 1, 4))  # defender: 2 + 1 = 3 successes
    assert frame(events).winner == "b1" and frame(events).victim == "a1"
    assert s.pending.kind == "melee_won" and s.pending.side == "b"
    events = s.when("damage", 0, dice=(1, 1, 3, 4))  # b1's knife 2 + Security 2 = 4 Challenge Dice
    assert ev.StressLost(unit="a1", amount=2) in events


def test_the_defender_who_wins_a_melee_declares_its_own_blow_and_an_npc_pays_threat_for_a_lethal_one():
    # seed 001 "Lethal Attacks": "A Non-Player Character who makes a Lethal attack must spend one
    # point of Threat." The counter-blow is the winner's attack, not the attacker's (issue 12 #23).
    s = melee()
    s.task("attack", "b1", 1, 1, dice=(19, 18, 1, 4))  # a1 attacks lethally: b gets 1 Threat
    assert s.state.threat["b"] == 1
    damage = [o for o in s.pending.options if o[0] == "damage"]
    assert damage == [("damage", 0), ("damage", 1)]  # b decides, whatever a1 declared
    events = s.when("damage", 1, dice=(1, 1, 3, 4))
    assert ev.PoolChanged(side="b", pool="threat", delta=-1, reason="lethal attack") in events
    assert s.state.threat["b"] == 0 and frame(events).lethal


def test_an_npc_without_threat_strikes_back_only_non_lethally():
    s = melee()
    s.task("attack", "b1", 1, 0, dice=(19, 18, 1, 4))  # b has no Threat to spend
    assert [o for o in s.pending.options if o[0] == "damage"] == [("damage", 0)]
    events = s.when("damage", 0, dice=(2, 2, 1, 5))  # 6 damage: an Injury
    assert not [e for e in of_type(events, ev.PoolChanged) if e.pool == "threat" and e.reason == "lethal attack"]
    events = s.when("accept")
    assert ev.InjurySuffered(unit="a1", lethal=False, result="nonlethal") in events


def test_a_hero_who_wins_the_melee_it_defends_adds_threat_to_the_opponent_for_a_lethal_blow():
    # "A Player Character who makes a Lethal attack ... adds one point to the Threat Pool."
    s = Scenario(MELEE).play_to_turn("b1")
    s.task("attack", "a1", 1, 0, dice=(19, 18, 1, 4))  # b1 attacks non-lethally; a1 wins
    assert s.pending.kind == "melee_won" and s.pending.side == "a"
    assert [o for o in s.pending.options if o[0] == "damage"] == [("damage", 0), ("damage", 1)]
    events = s.when("damage", 1, dice=(1, 1, 3, 4))
    assert ev.PoolChanged(side="b", pool="threat", delta=1, reason="lethal attack") in events
    assert frame(events).lethal


def test_fending_off_leaves_the_enemys_reach_instead_of_inflicting_damage():
    s = melee()
    s.task("attack", "b1", 1, 0, dice=(3, 5, 15, 18))
    events = s.when("fend", 0, 0)
    assert events[1:3] == [ev.ProcedureEnded(), ev.UnitMoved(unit="a1", x=0, y=0)]
    assert not of_type(events, ev.StressLost)


def test_ranged_attack_is_difficulty_2():
    events = ranged().task("attack", "b2", 0, 0, dice=(10, 12, 1, 1, 1, 1, 1))  # 2 successes
    assert frame(events).step == "damage" or of_type(events, ev.StressLost)


def test_a_ranged_attack_with_an_enemy_in_reach_is_difficulty_3():
    s = melee()  # b1 stands in a1's Reach
    events = s.task("attack", "b2", 0, 0, dice=(10, 12))  # 2 successes < 3
    assert ev.ProcedureEnded() in events and not of_type(events, ev.StressLost)
    s2 = melee()
    events = s2.task("attack", "b2", 0, 0, dice=(10, 12, 1, 1, 1, 1, 1, 1))  # buy nothing: 3 needed
    assert not of_type(events, ev.StressLost)


def test_long_range_adds_one_to_the_difficulty():
    s = Scenario([("a1", "a", "hero", 0, 0), ("b1", "b", "elite", 7, 7)]).play_to_turn("a1")  # 7 cells: Long
    events = s.task("attack", "b1", 0, 0, dice=(10, 12))
    assert ev.ProcedureEnded() in events and not of_type(events, ev.StressLost)


def test_a_prone_target_is_harder_to_hit_from_beyond_close_range():
    s = Scenario(RANGED).given(ev.ProneChanged(unit="b2", prone=True)).play_to_turn("a1")
    events = s.task("attack", "b2", 0, 0, dice=(10, 12))  # Medium range: Difficulty 3
    assert not of_type(events, ev.StressLost) and ev.ProcedureEnded() in events


def test_creatures_in_the_targets_reach_widen_the_complication_range_and_may_be_struck():
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 4, 4), ("b2", "b", "grunt", 4, 5)]
    s = Scenario(units).play_to_turn("a1")
    events = s.task("attack", "b1", 0, 0, dice=(19, 15))  # fails; 19 is a Complication (range 2)
    assert s.pending.kind == "bystander" and s.pending.side == "b"
    assert s.pending.options == (("threat",), ("bystander", "b2"))
    events = s.when("bystander", "b2", dice=(2, 2, 2, 2, 2))  # 5 Challenge Dice: 10 damage
    assert ev.StressLost(unit="b2", amount=10) in events


def test_the_opponent_may_take_threat_instead_of_a_bystander():
    units = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 4, 4), ("b2", "b", "grunt", 4, 5)]
    s = Scenario(units).play_to_turn("a1")
    s.task("attack", "b1", 0, 0, dice=(19, 15))
    events = s.when("threat")
    assert ev.PoolChanged(side="b", pool="threat", delta=2, reason="complication") in events


def test_a_lethal_attack_by_a_hero_adds_threat_to_the_opponents_pool():
    events = melee().task("attack", "b1", 1, 1, dice=(19, 19, 19, 19))
    assert ev.PoolChanged(side="b", pool="threat", delta=1, reason="lethal attack") in events


def test_an_npc_must_spend_a_threat_to_attack_lethally():
    s = Scenario(MELEE).play_to_turn("b1")
    assert not [o for o in s.pending.options if o[0] == "attack" and o[3] == 1]
    s2 = Scenario(MELEE).given(ev.PoolChanged(side="b", pool="threat", delta=1, reason="test")).play_to_turn("b1")
    events = s2.task("attack", "a1", 1, 1, dice=(20, 20, 20, 20))
    assert ev.PoolChanged(side="b", pool="threat", delta=-1, reason="lethal attack") in events


# -- steps 5-7 ------------------------------------------------------------------------------------------


def test_damage_is_challenge_dice_less_resistance_and_five_or_more_is_an_injury():
    s = melee()
    s.task("attack", "b1", 1, 0, dice=(3, 5, 15, 18))
    events = s.when("damage", dice=(2, 2, 1, 5))  # 2 + 2 + 1 + 1 = 6 damage
    assert ev.StressLost(unit="b1", amount=6) in events
    # b1 (Notable NPC) has no Threat to avoid with: the Injury lands; non-lethal -> stunned
    assert ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal") in events
    assert s.unit("b1").incapacitated


def test_cover_dice_add_to_resistance():
    cover = "\n".join(["........", "........", "........", "........", "....+...", "........", "........", "........"])
    s = Scenario(RANGED, map=cover).play_to_turn("a1")
    events = s.task("attack", "b2", 0, 0, dice=(1, 1, 2, 2, 1, 1, 3, 2, 5))  # 6 damage; cover 2 + 1 = 3
    assert [r.purpose for r in of_type(events, ev.DiceRolled)] == ["task:attack", "damage", "cover"]
    assert ev.StressLost(unit="b2", amount=3) in events


def test_two_injury_conditions_give_two_injuries_resolved_one_at_a_time():
    s = ranged(ev.StressLost(unit="b2", amount=1))  # b2: 9 Stress -> 8
    # 3 + 2 = 5 Challenge Dice: 2+2+2+1+1 = 8 damage: 7A (>= 5) and 7B (to 0)
    events = s.task("attack", "b2", 0, 0, dice=(1, 1, 2, 2, 2, 1, 5))
    assert of_type(events, ev.InjurySuffered) == [ev.InjurySuffered(unit="b2", lethal=False, result="nonlethal"),
                                                  ev.InjurySuffered(unit="b2", lethal=False, result="lethal")]


def test_five_damage_on_a_character_at_zero_stress_is_two_injuries_each_avoidable_in_turn():
    s = Scenario([("b1", "b", "elite", 5, 5), ("a1", "a", "hero", 2, 2)])
    s.given(ev.StressLost(unit="a1", amount=99), ev.PoolChanged(side="a", pool="momentum", delta=2, reason="test"),
            ev.PoolChanged(side="b", pool="threat", delta=1, reason="test"))
    s.play_to_turn("b1")
    s.task("attack", "a1", 0, 0, dice=(1, 1, 2, 2, 1, 5, 5), buy=("buy", 0))  # 7 damage: 7A and 7C
    assert s.pending.kind == "avoid_injury" and s.pending.side == "a"
    assert s.pending.options == (("accept",), ("avoid", "momentum"), ("avoid", "complication"))
    events = s.when("avoid", "momentum")
    assert ev.InjuryAvoided(unit="a1", by="momentum") in events
    # the second Injury: Avoid Injury is spent for the scene, so it simply lands
    assert ev.InjurySuffered(unit="a1", lethal=False, result="nonlethal") in events


def test_a_second_injury_on_a_stunned_character_is_lethal():
    s = ranged(ev.InjurySuffered(unit="b2", lethal=False, result="nonlethal"), ev.StressLost(unit="b2", amount=99))
    events = s.task("attack", "b2", 0, 0, dice=(1, 1, 1, 3, 3, 3, 3))  # 1 damage at 0 Stress: 7C
    assert ev.InjurySuffered(unit="b2", lethal=False, result="lethal") in events


def test_an_injury_on_a_lethally_injured_character_kills_it():
    s = ranged(ev.InjurySuffered(unit="b2", lethal=True, result="lethal"), ev.StressLost(unit="b2", amount=99))
    events = s.task("attack", "b2", 0, 1, dice=(1, 1, 1, 3, 3, 3, 3))
    assert ev.InjurySuffered(unit="b2", lethal=True, result="dead") in events
    assert s.unit("b2").dead


def test_no_injury_condition_means_only_stress_is_lost():
    s = ranged()
    events = s.task("attack", "b2", 0, 1, dice=(1, 1, 1, 3, 3, 3, 3))
    assert ev.StressLost(unit="b2", amount=1) in events and not of_type(events, ev.InjurySuffered)


# -- Avoiding Injuries ------------------------------------------------------------------------------------


def _hit_a1(s: Scenario) -> None:
    """b1 wins a melee a1 started, and hits a1 for 7: one Injury."""
    s.task("attack", "b1", 1, 0, dice=(19, 18, 1, 4))
    s.when("damage", 0, dice=(2, 2, 2, 1))


def test_a_hero_avoids_an_injury_for_a_complication():
    s = melee()
    _hit_a1(s)
    assert s.pending.kind == "avoid_injury" and s.pending.options == (("accept",), ("avoid", "complication"))
    events = s.when("avoid", "complication")
    assert ev.InjuryAvoided(unit="a1", by="complication") in events
    assert ev.PoolChanged(side="b", pool="threat", delta=2, reason="complication") in events
    assert not s.unit("a1").incapacitated


def test_avoid_injury_is_refused_the_second_time_in_a_scene_and_regained_by_recover():
    s = Scenario(MELEE).given(ev.InjuryAvoided(unit="a1", by="complication")).play_to_turn("a1")
    _hit_a1(s)
    assert s.pending is None or s.pending.kind != "avoid_injury"
    assert s.unit("a1").injury == "nonlethal"
    s2 = Scenario(MELEE).given(ev.InjuryAvoided(unit="a1", by="complication"), ev.Recovered(unit="a1", resistance=0))
    s2.play_to_turn("a1")
    _hit_a1(s2)
    assert s2.pending.kind == "avoid_injury"


def test_recover_gives_back_avoid_injury_in_play():
    s = Scenario(MELEE).given(ev.InjuryAvoided(unit="a1", by="complication")).play_to_turn("a1")
    events = s.task("recover", dice=(1, 20))
    assert ev.Recovered(unit="a1", resistance=0) in events and s.unit("a1").avoid_available


def test_a_notable_npc_avoids_an_injury_for_two_threat():
    s = Scenario(MELEE).given(ev.PoolChanged(side="b", pool="threat", delta=2, reason="test")).play_to_turn("a1")
    s.task("attack", "b1", 1, 0, dice=(3, 5, 15, 18))
    s.when("damage", dice=(2, 2, 1, 5))
    assert s.pending.kind == "avoid_injury" and s.pending.options == (("accept",), ("avoid", "threat"))
    events = s.when("avoid", "threat")
    assert ev.PoolChanged(side="b", pool="threat", delta=-2, reason="avoid injury") in events


def test_a_minor_npc_cannot_avoid_an_injury():
    s = ranged(ev.PoolChanged(side="b", pool="threat", delta=5, reason="test"))
    events = s.task("attack", "b2", 0, 0, dice=(1, 1, 2, 2, 2, 1, 5))
    assert of_type(events, ev.InjurySuffered) and (s.pending is None or s.pending.kind != "avoid_injury")


# -- rejected commands ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command, error", [
    (lambda p: Choose(p.id + 1, ("end",), "a"), StaleDecision),
    (lambda p: Choose(p.id, ("end",), "b"), NotYourDecision),
    (lambda p: Choose(p.id, ("move", 7, 7), "a"), IllegalOption),
    (lambda p: Choose(p.id, (), "a"), MalformedCommand),
    (lambda p: Choose(p.id, (1.5,), "a"), MalformedCommand),
    (lambda p: Choose(p.id, (True,), "a"), MalformedCommand),
])
def test_bad_commands_get_typed_errors_and_change_nothing(command, error):
    from skirmish.engine.codec import state_hash

    s = melee()
    before = state_hash(s.state)
    with pytest.raises(error):
        decide(s.state, command(s.pending), ScriptedDice(()))
    assert state_hash(s.state) == before


def test_commands_after_the_end_are_refused_with_game_over():
    s = melee()
    s.given(*decide(s.state, Resign(side="a"), ScriptedDice(())))
    with pytest.raises(GameOver):
        decide(s.state, Choose(1, ("end",), "a"), ScriptedDice(()))

"""seed 001 "Conflict Actions", "Minor Actions" and "Combat Tasks": given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev

from tests.engine.rules.scenario import Scenario, of_type

FAR = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 5, 1), ("b2", "b", "grunt", 6, 6)]  # b1 at Medium range
OBJECTIVES = """
[[objectives]]
id = "beacon"
name = "Beacon"
at = [2, 2]
points = 2

[[objectives]]
id = "console"
name = "Console"
at = [0, 2]
points = 3
task = { attribute = "reason", discipline = "engineering", difficulty = 1 }

[[items]]
id = "crate"
name = "Rifle crate"
at = [2, 1]
weapon = "rifle"
"""
OBJ_MAP = "\n".join(["........", "........", "*.*.....", "........", "........", "........", "........", "........"])


def turn(units=FAR, **kw) -> Scenario:
    return Scenario(units, **kw).play_to_turn(units[0][0])


def momentum(s: Scenario, side: str, n: int) -> Scenario:
    return s.given(ev.PoolChanged(side=side, pool="momentum", delta=n, reason="test"))


# -- Minor Actions --------------------------------------------------------------------------------


def test_movement_is_a_free_first_minor_action_within_medium_range():
    s = turn()
    moves = [o for o in s.pending.options if o[0] == "move"]
    assert ("move", 5, 2) in moves and ("move", 6, 2) not in moves  # Medium = 4 cells
    events = s.when("move", 1, 5)
    assert ev.MinorActionTaken(unit="a1", action="move", cost=0) in events
    assert ev.UnitMoved(unit="a1", x=1, y=5) in events
    assert not of_type(events, ev.PoolChanged)


def test_the_third_minor_action_costs_two_momentum():
    s = momentum(turn(), "a", 3)
    s.when("move", 1, 2)
    s.when("prone")
    events = s.when("aim")
    assert ev.MinorActionTaken(unit="a1", action="aim", cost=2) in events
    assert ev.PoolChanged(side="a", pool="momentum", delta=-2, reason="minor action") in events
    assert s.state.momentum["a"] == 0


def test_a_second_minor_action_is_not_offered_without_the_momentum_for_it():
    s = turn()
    s.when("move", 1, 5)
    assert not [o for o in s.pending.options if o[0] in ("prone", "aim", "prepare")]


def test_each_minor_action_only_once_per_turn():
    s = momentum(turn(), "a", 6)
    s.when("aim")
    assert ("aim",) not in s.pending.options
    s.when("move", 1, 2)
    assert not [o for o in s.pending.options if o[0] == "move"]


def test_drop_prone_and_stand_are_not_both_allowed_in_one_turn():
    s = momentum(turn(), "a", 3)
    s.when("prone")
    assert ("stand",) not in s.pending.options
    assert not any(o[0] == "move" for o in s.pending.options)  # a prone unit stands first
    assert s.unit("a1").prone


def test_stand_removes_prone_on_a_later_turn():
    s = Scenario(FAR).given(ev.ProneChanged(unit="a1", prone=True)).play_to_turn("a1")
    events = s.when("stand")
    assert ev.ProneChanged(unit="a1", prone=False) in events
    assert ("prone",) not in s.pending.options


def test_draw_item_draws_a_stowed_weapon_before_it_can_attack():
    s = turn([("a1", "a", "medic", 1, 1), ("b1", "b", "elite", 6, 1)])
    assert not [o for o in s.pending.options if o[0] == "attack" and o[2] == 2]  # the rifle is stowed
    assert ("draw", 2) in s.pending.options
    events = s.when("draw", 2)
    assert ev.WeaponDrawn(unit="a1", weapon=2) in events
    assert ("attack", "b1", 2, 0) in s.pending.options


def test_draw_item_picks_up_an_item_within_reach():
    s = turn(map=OBJ_MAP, extra=OBJECTIVES)
    events = s.when("pickup", "crate")
    assert ev.ItemPickedUp(unit="a1", item="crate") in events
    assert s.unit("a1").weapons[-1].name == "rifle" and s.state.items["crate"].carrier == "a1"


def test_interact_secures_an_objective_within_reach():
    s = turn(map=OBJ_MAP, extra=OBJECTIVES)
    assert ("interact", "beacon") in s.pending.options
    assert ("interact", "console") not in s.pending.options  # the console needs a Task
    events = s.when("interact", "beacon")
    assert ev.ObjectiveSecured(objective="beacon", side="a", unit="a1") in events


def test_prepare_makes_the_first_bonus_die_free():
    s = turn()
    s.when("prepare")
    s.when("attack", "b1", 0, 0)
    assert s.pending.kind == "buy_dice" and ("buy", 1, "momentum") in s.pending.options
    events = s.when("buy", 1, "momentum", dice=(20, 20, 20))
    assert not [e for e in of_type(events, ev.PoolChanged) if e.reason == "bonus dice"]
    assert len(of_type(events, ev.DiceRolled)[0].results) == 3


def test_aim_rerolls_one_d20_of_this_turns_attack():
    s = turn()
    s.when("aim")
    s.task("attack", "b1", 0, 0, dice=(3, 17))  # 1 success of Difficulty 2
    assert s.pending.kind == "aim" and s.pending.options == (("keep",), ("reroll", 0), ("reroll", 1))
    roll = s.state.next_nonce - 1
    events = s.when("reroll", 1, dice=(4, 1, 1, 1, 1, 1))
    reroll = of_type(events, ev.DiceRolled)[0]
    assert reroll.results == (4,) and reroll.replaces == roll
    assert of_type(events, ev.ProcedureUpdated)[-1].frame.winner == "a1"  # 3 and 4: the attack hits


def test_movement_and_sprint_exclude_each_other():
    s = turn()
    s.when("move", 1, 2)
    assert ("sprint",) not in s.pending.options
    s2 = turn()
    s2.task("sprint", dice=(15, 15))
    assert not [o for o in s2.pending.options if o[0] == "move"]


# -- Tasks ----------------------------------------------------------------------------------------


def test_buying_bonus_d20_costs_one_two_three_momentum():
    s = momentum(turn(), "a", 6)
    s.when("attack", "b1", 0, 0)
    assert ("buy", 3, "momentum") in s.pending.options
    events = s.when("buy", 3, "momentum", dice=(20,) * 5)
    assert ev.PoolChanged(side="a", pool="momentum", delta=-6, reason="bonus dice") in events
    assert len(of_type(events, ev.DiceRolled)[0].results) == 5


def test_a_hero_may_buy_dice_with_threat_added_to_the_opponents_pool():
    s = turn()
    s.when("attack", "b1", 0, 0)
    assert ("buy", 2, "momentum") not in s.pending.options and ("buy", 2, "threat") in s.pending.options
    events = s.when("buy", 2, "threat", dice=(20,) * 4)
    assert ev.PoolChanged(side="b", pool="threat", delta=3, reason="bonus dice") in events


def test_an_npc_buys_dice_with_its_own_sides_threat():
    s = Scenario([("b1", "b", "elite", 6, 1), ("a1", "a", "hero", 1, 1)]).play_to_turn("b1")
    s.given(ev.PoolChanged(side="b", pool="threat", delta=1, reason="test"))
    s.when("attack", "a1", 0, 0)
    assert s.pending.options == (("buy", 0), ("buy", 1, "threat"))
    events = s.when("buy", 1, "threat", dice=(20, 20, 20))
    assert ev.PoolChanged(side="b", pool="threat", delta=-1, reason="bonus dice") in events


def test_assist_adds_the_allys_successes_when_the_task_scores_at_least_one():
    units = [("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 1)]
    s = turn(units)
    assert ("assist", "a2") in s.pending.options
    s.when("assist", "a2")
    s.when("end")
    s.when("unit", "b1")
    s.when("end")
    s.when("unit", "a2")
    events = s.task("attack", "b1", 0, 0, dice=(12, 20, 5, 1, 1, 1, 1, 1))  # 1 + assist 1 = 2: a hit
    rolls = of_type(events, ev.DiceRolled)
    assert rolls[1].purpose == "assist:attack" and rolls[1].unit == "a1"
    assert ev.AssistUsed(ally="a2") in events
    assert of_type(events, ev.ProcedureUpdated)[-1].frame.winner == "a2"


def test_an_assist_adds_nothing_to_a_roll_with_no_success():
    units = [("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 1)]
    s = turn(units)
    s.given(ev.AssistGiven(unit="a2", ally="a1"))
    events = s.task("attack", "b1", 0, 0, dice=(19, 18, 1))
    assert ev.ProcedureEnded() in events and not of_type(events, ev.StressLost)


def test_direct_is_only_for_commanding_officers_and_lets_an_ally_attempt_a_task_at_once():
    units = [("a1", "a", "hero", 1, 1, True), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 1)]
    s = turn(units)
    assert ("direct", "a2") in s.pending.options
    s.when("direct", "a2")
    assert s.pending.kind == "directed" and s.pending.unit == "a2" and ("guard",) in s.pending.options
    events = s.when("guard")
    assert ev.GuardTaken(unit="a2") in events and s.unit("a2").assisted_by == "a1"
    plain = turn([("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 1)])
    assert not [o for o in plain.pending.options if o[0] == "direct"]


def test_guard_makes_attacks_against_the_unit_harder_until_its_next_turn():
    s = Scenario([("b1", "b", "elite", 5, 1), ("a1", "a", "hero", 1, 1)]).play_to_turn("b1")
    s.when("guard")
    s.when("end")
    s.when("unit", "a1")
    events = s.task("attack", "b1", 0, 0, dice=(3, 4))  # 2 successes: Difficulty 3 with Guard
    assert ev.ProcedureEnded() in events and not of_type(events, ev.StressLost)


def test_ready_attacks_an_enemy_that_moves_into_its_sights():
    units = [("b1", "b", "elite", 6, 1), ("a1", "a", "hero", 1, 1)]
    wall = "\n".join(["...#....", "...#....", "...#....", "........", "........", "........", "........", "........"])
    s = Scenario(units, map=wall).play_to_turn("b1")
    s.when("ready")
    s.when("end")
    s.when("unit", "a1")
    s.when("move", 1, 4)  # out from behind the wall
    assert s.pending.kind == "ready" and s.pending.side == "b"
    assert ("hold",) in s.pending.options and ("fire", "b1", 0, 0) in s.pending.options
    events = s.task("fire", "b1", 0, 0, dice=(20, 20))
    assert ev.ReadyTriggered(unit="b1") in events
    assert of_type(events, ev.ProcedureStarted)[0].frame.unit == "b1"
    assert s.pending.kind == "act" and s.pending.unit == "a1"  # a1's turn goes on


def test_recover_regains_avoid_injury_resistance_from_cover_effects_and_stress_for_momentum():
    cover = "\n".join(["........", ".+......", "........", "........", "........", "........", "........", "........"])
    s = turn(map=cover)
    s.given(ev.StressLost(unit="a1", amount=6), ev.InjuryAvoided(unit="a1", by="complication"))
    events = s.task("recover", dice=(1, 1, 5, 6))  # 4 successes: 2 Momentum; cover dice 5, 6: 2 Effects
    assert ev.Recovered(unit="a1", resistance=2) in events
    assert s.unit("a1").avoid_available
    assert s.pending.kind == "recover_stress" and s.pending.options[-1] == ("spend", 2)
    events = s.when("spend", 2)
    assert ev.StressRegained(unit="a1", amount=4) in events and s.unit("a1").stress == 9


def test_recover_is_difficulty_two():
    s = turn()
    events = s.task("recover", dice=(5, 20))  # one success
    assert not of_type(events, ev.Recovered)


def test_sprint_moves_one_zone_and_one_more_per_momentum_spent():
    s = turn()
    s.task("sprint", dice=(1, 20))  # Difficulty 0: 2 successes, 2 Momentum
    assert s.pending.kind == "sprint"
    assert ("sprint", 7, 1) in s.pending.options  # 6 cells: three zones of 2 (Close)
    events = s.when("sprint", 5, 2)  # 4 cells: one zone beyond the first
    assert ev.PoolChanged(side="a", pool="momentum", delta=-1, reason="sprint") in events
    assert ev.UnitMoved(unit="a1", x=5, y=2) in events


def test_first_aid_stabilises_a_lethally_injured_ally_within_reach():
    units = [("a1", "a", "medic", 1, 1), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 6)]
    s = Scenario(units).play_to_turn("a1")
    s.given(ev.InjurySuffered(unit="a2", lethal=True, result="lethal"))
    s.when("end")  # offered only now? no: check on a fresh turn below
    s2 = Scenario(units)
    s2.given(ev.InjurySuffered(unit="a2", lethal=True, result="lethal"))
    s2.play_to_turn("a1")
    assert ("first_aid", "a2") in s2.pending.options
    events = s2.task("first_aid", "a2", dice=(13, 20))  # Daring 10 + Medicine 3 = 13: 1 success
    assert ev.Stabilised(unit="a2") in events


def test_first_aid_fails_below_difficulty_one():
    units = [("a1", "a", "medic", 1, 1), ("a2", "a", "hero", 2, 2), ("b1", "b", "elite", 6, 6)]
    s = Scenario(units)
    s.given(ev.InjurySuffered(unit="a2", lethal=True, result="lethal"))
    s.play_to_turn("a1")
    events = s.task("first_aid", "a2", dice=(14, 20))
    assert not of_type(events, ev.Stabilised)


def test_create_advantage_makes_the_next_attack_on_the_enemy_easier():
    units = [("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 3, 2), ("b1", "b", "elite", 6, 1)]
    s = turn(units)
    events = s.task("create_advantage", "b1", dice=(5, 20))  # Insight 8 + Security 2: 1 success
    assert ev.AdvantageCreated(unit="b1") in events
    s.when("end")
    s.when("unit", "b1")
    s.when("end")
    s.when("unit", "a2")
    events = s.task("attack", "b1", 0, 0, dice=(5, 20, 3, 3, 3, 3, 3))  # 1 success: Difficulty 2 - 1
    assert ev.AdvantageUsed(unit="b1") in events
    assert of_type(events, ev.ProcedureUpdated)[-1].frame.winner == "a2"


def test_an_other_task_secures_an_objective_the_mission_sets_a_task_on():
    s = turn(map=OBJ_MAP, extra=OBJECTIVES)
    assert ("other", "console") in s.pending.options
    events = s.task("other", "console", dice=(9, 20))  # Reason 8 + Engineering 1 = 9
    assert ev.ObjectiveSecured(objective="console", side="a", unit="a1") in events

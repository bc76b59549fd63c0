"""BS Attacks in a skills game (cover's MOD, Burst) and Marksmanship L1, L2, LX (seed 003,
"MARKSMANSHIP"; docs/rules.md, seed 003, "BS Attacks"). Given a skills game, when a unit attacks
with scripted dice, then these MODs, dice and damage."""

from __future__ import annotations

import msgspec
import pytest

from skirmish.engine.events import DiceRolled, InjurySuffered, ProcedureEnded, StressLost
from skirmish.engine.mission import MissionError, parse_mission
from skirmish.engine.model import Turn
from skirmish.engine.rules.skills import marksmanship
from skirmish.engine.rules.skills.events import AmmunitionUsed, AttackModified

from skirmish.bots.simulate import clone
from skirmish.client.narrate import describe
from skirmish.client.render import label as option_label
from skirmish.engine.evolve import evolve

from tests.engine.rules.scenario import mission_text, of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text

EXTRA = """
[weapons.smg]
kind = "ranged"
damage = 3
burst = 3
[weapons.grenade]
kind = "ranged"
damage = 3
qualities = ["Throwing Weapon"]
[weapons.ap_gun]
kind = "ranged"
damage = 3
ammo = ["AP"]
[weapons.da_gun]
kind = "ranged"
damage = 3
ammo = ["da"]
[weapons.exp_gun]
kind = "ranged"
damage = 3
ammo = ["exp"]
[weapons.fire_gun]
kind = "ranged"
damage = 3
ammo = ["fire"]

[profiles.gunner]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "smg", "grenade", "ap_gun", "da_gun", "exp_gun", "fire_gun"]

[profiles.m1]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "grenade"]
skills = ["marksmanship 1"]

[profiles.m2]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["marksmanship 2"]

[profiles.mx]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["smg", "phaser"]
skills = ["marksmanship x"]

[profiles.mob]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]

[profiles.tough]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
resistance = 4
weapons = ["phaser"]

[profiles.tough_total]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
resistance = 4
weapons = ["phaser"]
skills = ["immunity total"]

[profiles.mob_immune]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]
skills = ["immunity shock"]

[profiles.mob_regen]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]
skills = ["regeneration"]

[profiles.mob_tag]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]
troop_type = "TAG"
"""

OPEN = "\n".join(["........"] * 8)
COVERED = "........\n........\n+.......\n........\n........\n........\n........\n........"  # (0,2) is cover

WEAPON = {"phaser": 0, "smg": 1, "grenade": 2, "ap_gun": 3, "da_gun": 4, "exp_gun": 5, "fire_gun": 6}

GUTS = (1,)  # the d20 of the Guts Roll of a unit hit and still standing (skills/guts.py): passed, it holds


def duel(attacker: str, target: str, map: str = OPEN) -> SkillsScenario:
    """``a1`` (profile ``attacker``) at (0,0) in its turn; ``b1`` (``target``) at (0,2)."""
    sc = SkillsScenario([("a1", "a", attacker, 0, 0), ("b1", "b", target, 0, 2)], map=map, extra=EXTRA)
    return sc.play_to_turn("a1")


HIT = (1, 1)  # the attack's 2d20: four successes
FIVE = (1, 1, 1, 1, 1)  # phaser damage 3 + Security 2: five Challenge Dice, 5 damage
TEN = (2, 2, 2, 2, 2)  # 10 damage
NONE = (3, 3, 3, 3, 3)  # 0 damage


def narrate_events(state, events) -> list[str]:
    out = []
    for e in events:
        out.append(describe(e, state) or "")
        evolve(state, e)
    return out


def injuries(events):
    return [e.result for e in of_type(events, InjurySuffered)]


# -- cover imposes a MOD on BS Attacks; Marksmanship L2 ignores it --------------------------------------


def test_a_target_in_cover_gives_a_bs_attack_minus_3_one_more_step_of_difficulty():
    sc = duel("gunner", "mob", COVERED)
    ev = sc.task("attack", "b1", 0, 0, dice=(1, 15) + NONE + (3, 3))  # 2 successes against Difficulty 2 + 1
    mod = of_type(ev, AttackModified)[0]
    assert mod.mods == (("Partial Cover", -3),) and mod.difficulty == 1
    assert not of_type(ev, StressLost) and not [d for d in of_type(ev, DiceRolled) if d.purpose == "damage"]


def test_without_cover_the_same_dice_hit():
    sc = duel("gunner", "mob")
    ev = sc.task("attack", "b1", 0, 0, dice=(1, 15) + FIVE)
    assert not of_type(ev, AttackModified)
    assert of_type(ev, StressLost)[0].amount == 5


def test_marksmanship_l2_ignores_partial_covers_mod_but_not_its_cover_dice():
    sc = duel("m2", "mob", COVERED)
    ev = sc.task("attack", "b1", 0, 0, dice=(1, 15) + TEN + (3, 3))
    mod = of_type(ev, AttackModified)[0]
    assert mod.mods == (("Partial Cover ignored: Marksmanship L2", 0),) and mod.difficulty == 0
    assert [d.purpose for d in of_type(ev, DiceRolled)] == ["task:attack", "damage", "cover"]  # the cover dice stay
    assert of_type(ev, StressLost)[0].amount == 10


def test_a_melee_attack_takes_no_bs_mod():
    sc = duel("trooper", "mob", COVERED)
    f = marksmanship.TaskFrame(unit="a1", task="attack", target="b1", weapon=1)  # the trooper's knife
    assert marksmanship.mods(sc.state, f) == [] and marksmanship.attack_dice(sc.state, f) == 0


# -- Burst ------------------------------------------------------------------------------------------------


def test_burst_3_rolls_two_more_d20_free_in_the_active_turn():
    sc = duel("gunner", "mob")
    ev = sc.task("attack", "b1", WEAPON["smg"], 0, dice=(1, 1, 15, 15) + FIVE)
    assert of_type(ev, DiceRolled)[0].results == (1, 1, 15, 15)
    assert of_type(ev, AttackModified)[0].burst == 2


def test_burst_adds_nothing_in_a_reaction_an_aro_fires_b_1():
    sc = duel("gunner", "mob")
    f = marksmanship.TaskFrame(unit="a1", task="attack", target="b1", weapon=WEAPON["smg"])
    assert marksmanship.attack_dice(sc.state, f) == 2
    s = msgspec.structs.replace(sc.state)
    s.turn = Turn(unit="b1")
    assert marksmanship.attack_dice(s, f) == 0


def test_bought_and_burst_dice_stop_at_five():
    sc = duel("gunner", "mob")
    ev = sc.task("attack", "b1", WEAPON["smg"], 0, dice=(1, 1, 15, 15, 15) + FIVE, buy=("buy", 3, "threat"))
    assert len(of_type(ev, DiceRolled)[0].results) == 5


# -- Marksmanship L1: Shock on BS Weapons -------------------------------------------------------------------


def test_without_shock_a_lethal_hit_of_5_leaves_the_target_unconscious():
    sc = duel("gunner", "mob")
    ev = sc.task("attack", "b1", 0, 1, dice=HIT + FIVE)
    assert injuries(ev) == ["lethal"] and not of_type(ev, AmmunitionUsed)


def test_marksmanship_l1_adds_shock_a_lethal_injury_kills():
    sc = duel("m1", "mob")
    ev = sc.task("attack", "b1", 0, 1, dice=HIT + FIVE)
    assert injuries(ev) == ["lethal", "dead"]
    used = of_type(ev, AmmunitionUsed)[0]
    assert used.ammo == ("shock",) and used.counted == ("shock",) and used.ignored == ()


def test_shock_does_nothing_to_a_non_lethal_attack():
    sc = duel("m1", "mob")
    ev = sc.task("attack", "b1", 0, 0, dice=HIT + FIVE)
    assert injuries(ev) == ["nonlethal"]


def test_marksmanship_l1_gives_no_shock_to_a_throwing_weapon():
    sc = duel("m1", "mob")
    ev = sc.task("attack", "b1", 1, 1, dice=HIT + FIVE)
    assert injuries(ev) == ["lethal"] and not of_type(ev, AmmunitionUsed)


def test_marksmanship_l2_includes_l1s_shock():
    sc = duel("m2", "mob")
    ev = sc.task("attack", "b1", 0, 1, dice=HIT + FIVE)
    assert injuries(ev) == ["lethal", "dead"]


@pytest.mark.parametrize("target", ["mob_immune", "mob_regen", "mob_tag"])
def test_shock_immunity_regeneration_and_structure_treat_shock_as_normal(target):
    sc = duel("m1", target)
    ev = sc.task("attack", "b1", 0, 1, dice=HIT + FIVE)
    assert injuries(ev) == ["lethal"]
    if target != "mob_tag":
        assert of_type(ev, AmmunitionUsed)[0].ignored == ("shock",)


# -- Marksmanship LX ---------------------------------------------------------------------------------------


def test_lx_is_offered_with_a_b2_bs_weapon_only_and_only_to_its_user():
    sc = duel("mx", "mob")
    aimed = [o for o in sc.pending.options if o[0] == "aimed_shot"]
    assert aimed and {o[2] for o in aimed} == {0}  # the smg (B 3), not the phaser (B 1)
    sc2 = duel("gunner", "mob")
    assert not [o for o in sc2.pending.options if o[0] == "aimed_shot"]


def test_lx_fires_b_1_the_core_2d20_at_plus_6_two_steps_of_difficulty_less():
    sc = duel("mx", "mob", COVERED)
    ev = sc.task("aimed_shot", "b1", 0, 0, dice=(12, 15) + NONE + (3, 3) + GUTS)  # B 1: no Burst dice
    assert of_type(ev, DiceRolled)[0].results == (12, 15)
    assert "damage" in [d.purpose for d in of_type(ev, DiceRolled)]  # one success hits at Difficulty 2 + 1 - 2
    mod = of_type(ev, AttackModified)[0]
    assert mod.mods == (("Partial Cover", -3), ("Marksmanship LX", 6)) and mod.difficulty == -1 and mod.burst == 0
    assert sc.state.aimed == ""  # over with the attack


def test_lx_does_not_include_l1_no_shock():
    sc = duel("mx", "mob")
    ev = sc.task("aimed_shot", "b1", 0, 1, dice=HIT + FIVE)
    assert injuries(ev) == ["lethal"] and not of_type(ev, AmmunitionUsed)


# -- Special Ammunition --------------------------------------------------------------------------------------


def test_ap_halves_the_resistance_rounded_up():
    sc = duel("gunner", "tough")
    ev = sc.task("attack", "b1", WEAPON["ap_gun"], 0, dice=HIT + TEN)
    assert of_type(ev, StressLost)[0].amount == 10 - 2


def test_da_rolls_the_damage_twice_against_the_same_resistance():
    sc = duel("gunner", "tough")
    ev = sc.task("attack", "b1", WEAPON["da_gun"], 0, dice=HIT + TEN + FIVE)
    assert of_type(ev, StressLost)[0].amount == 6 + 1
    assert [d.purpose for d in of_type(ev, DiceRolled)] == ["task:attack", "damage", "damage:da"]


def test_exp_rolls_the_damage_three_times():
    sc = duel("gunner", "tough")
    ev = sc.task("attack", "b1", WEAPON["exp_gun"], 0, dice=HIT + TEN + FIVE + NONE)
    assert of_type(ev, StressLost)[0].amount == 6 + 1 + 0


def test_fire_rolls_again_while_the_damage_gets_through():
    sc = duel("gunner", "tough")
    ev = sc.task("attack", "b1", WEAPON["fire_gun"], 0, dice=HIT + FIVE + TEN + NONE)
    assert of_type(ev, StressLost)[0].amount == 1 + 6 + 0
    assert [d.purpose for d in of_type(ev, DiceRolled)].count("damage:fire") == 2


def test_fire_stops_after_three_more_rolls():
    sc = duel("gunner", "tough")
    ev = sc.task("attack", "b1", WEAPON["fire_gun"], 0, dice=HIT + FIVE * 4 + GUTS)
    assert [d.purpose for d in of_type(ev, DiceRolled)].count("damage:fire") == 3


def test_immunity_total_treats_ap_as_normal():
    sc = duel("gunner", "tough_total")
    ev = sc.task("attack", "b1", WEAPON["ap_gun"], 0, dice=HIT + TEN)
    assert of_type(ev, StressLost)[0].amount == 10 - 4
    assert of_type(ev, AmmunitionUsed)[0].ignored == ("ap",)


# -- the mission's checks ------------------------------------------------------------------------------------


def test_an_unknown_ammunition_is_a_mission_error_naming_the_field():
    text = skills_text([("a1", "a", "gunner", 0, 0)], extra=EXTRA.replace('ammo = ["fire"]', 'ammo = ["plasma"]'))
    with pytest.raises(MissionError, match=r"weapons\.fire_gun\.ammo\[0\]"):
        parse_mission(text, "test")


def test_ammunition_without_the_skills_module_is_a_mission_error():
    text = mission_text([("a1", "a", "hero", 0, 0)], extra='[weapons.x]\nkind = "ranged"\ndamage = 2\nammo = ["ap"]\n')
    with pytest.raises(MissionError, match=r"weapons\.x\.ammo"):
        parse_mission(text, "test")


def test_no_events_change_for_a_normal_attack_in_a_skills_game_out_of_cover():
    sc = duel("gunner", "mob")
    ev = sc.task("attack", "b1", 0, 0, dice=HIT + FIVE)
    assert of_type(ev, ProcedureEnded) and not of_type(ev, AttackModified) and not of_type(ev, AmmunitionUsed)


# -- narration and labels ----------------------------------------------------------------------------------------


def test_the_new_events_and_the_aimed_shot_are_narrated_and_labelled():
    sc = duel("mx", "mob", COVERED)
    aimed = next(o for o in sc.pending.options if o[0] == "aimed_shot")
    assert "aimed shot (Marksmanship LX" in option_label(aimed, sc.state, sc.pending)
    before = clone(sc.state)
    ev = sc.task(*aimed, dice=(12, 15) + NONE + (3, 3) + GUTS)
    text = "\n".join(line for line in narrate_events(before, ev) if line)
    assert "takes an aimed shot" in text and "-3 (Partial Cover), +6 (Marksmanship LX)" in text
    sc2 = duel("m1", "mob_immune")
    before = clone(sc2.state)
    ev = sc2.task("attack", "b1", 0, 1, dice=HIT + FIVE)
    text = "\n".join(narrate_events(before, ev))
    assert "Shock Special Ammunition" in text and "immune to Shock" in text


def test_a_further_damage_roll_is_narrated():
    sc = duel("gunner", "tough")
    before = clone(sc.state)
    ev = sc.task("attack", "b1", WEAPON["da_gun"], 0, dice=HIT + TEN + FIVE)
    assert "another damage roll of DA Special Ammunition" in "\n".join(narrate_events(before, ev))

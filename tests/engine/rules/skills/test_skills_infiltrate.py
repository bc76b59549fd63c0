"""Infiltrate L0, L1, L2 and Mechanized Deployment (docs/rules.md, seed 003, "The Deployment Skills").
Given a unit with the skill to deploy, when its side places it (scripted dice for the Infiltration
Roll), then it may stand where the skill says, rolls where the seed says, and a failed roll sends
it back to its own zone at a table edge."""

from __future__ import annotations

import pytest

from skirmish.bots import make_bot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.simulate import clone
from skirmish.client import render
from skirmish.client.narrate import describe
from skirmish.engine.decide import default_option
from skirmish.engine.errors import IllegalOption
from skirmish.engine.events import DecisionRequested, DiceRolled
from skirmish.engine.rules.skills import deploy, module
from skirmish.engine.rules.skills import render as skills_render
from skirmish.engine.rules.skills.events import InfiltrationFailed, SkillRolled, UnitDeployed

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import ZONES, SkillsScenario

EXTRA = """
[profiles.inf0]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["infiltrate 0"]

[profiles.inf1]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["Infiltrate L1"]

[profiles.inf2]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["infiltrate 2"]

[profiles.mech]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["mechanized deployment"]
"""
# PH = Fitness 9 + Security 2 = 11: the Infiltration Roll is at 8 (PH-3) or 14 (PH+3).
# ZONES: 8 x 8, side a's zone rows 0-1 (blocking (3,0)), side b's rows 6-7; side a's half rows
# 0-3, side b's rows 4-7.
ZONE_A = {(x, y) for y in (0, 1) for x in range(8)} - {(3, 0)}
OWN_HALF = {(x, y) for y in (2, 3) for x in range(8)}
ENEMY_HALF = {(x, y) for y in (4, 5) for x in range(8)}  # outside b's zone


def started(profile: str, b_at=(0, 7), map: str = ZONES, extra: str = "") -> SkillsScenario:
    """a1 (``profile``) deploys first; a2 and b1 stand where the map puts them, b2 deploys."""
    sc = SkillsScenario([("a1", "a", profile, 0, 0), ("a2", "a", "hero", 7, 0), ("b1", "b", "hero", *b_at),
                         ("b2", "b", "hero", 7, 7)], map=map, deploy=("a1", "b2"), extra=EXTRA + extra)
    sc.start()
    assert (sc.pending.kind, sc.pending.unit) == ("deploy", "a1")
    return sc


def cells(options) -> set[tuple[int, int]]:
    return {(o[1], o[2]) for o in options}


def near(*at) -> set[tuple[int, int]]:
    """The cells in base to base contact with (or on) each of ``at``."""
    return {(x + dx, y + dy) for x, y in at for dx in (-1, 0, 1) for dy in (-1, 0, 1)}


def test_infiltrate_l0_must_deploy_in_the_enemy_half_outside_its_zone():
    sc = started("inf0")
    assert cells(sc.pending.options) == ENEMY_HALF  # not its own zone, not b's zone (rows 6-7)


def test_infiltrate_l0_rolls_ph_minus_3_after_the_placement_and_passed_stays():
    sc = started("inf0")
    ev = sc.when("deploy", 4, 4, dice=(8,))
    assert [type(e).__name__ for e in ev][1:3] == ["UnitDeployed", "DiceRolled"]  # placed, then rolled
    roll = of_type(ev, SkillRolled)[0]
    assert (roll.purpose, roll.attribute, roll.base, roll.mods, roll.target, roll.result) == \
        ("infiltration", "ph", 11, (("Infiltrate L0", -3),), 8, "critical")
    assert (sc.unit("a1").x, sc.unit("a1").y) == (4, 4) and sc.unit("a1").deployed
    assert not of_type(ev, InfiltrationFailed) and (sc.pending.kind, sc.pending.unit) == ("deploy", "b2")


def test_infiltrate_l1_option_a_its_own_half_never_beyond_the_mid_line_without_a_roll():
    sc = started("inf1")
    assert cells(sc.pending.options) == (ZONE_A - {(7, 0)}) | OWN_HALF | ENEMY_HALF  # a2 holds (7,0)
    ev = sc.when("deploy", 5, 3, dice=())
    assert not of_type(ev, DiceRolled) and sc.unit("a1").y == 3


def test_infiltrate_l1_option_b_the_enemy_half_with_a_ph_minus_3_roll():
    sc = started("inf1")
    ev = sc.when("deploy", 2, 5, dice=(5,))
    roll = of_type(ev, SkillRolled)[0]
    assert (roll.mods, roll.target, roll.result) == ((("Infiltrate L1", -3),), 8, "success")


def test_infiltrate_l2_is_l1_with_the_roll_at_ph_plus_3():
    sc = started("inf2")
    assert OWN_HALF | ENEMY_HALF <= cells(sc.pending.options)
    ev = sc.when("deploy", 2, 5, dice=(13,))  # 13 under 14: passed (at PH-3 it would fail)
    roll = of_type(ev, SkillRolled)[0]
    assert (roll.mods, roll.target, roll.result) == ((("Infiltrate L2", 3),), 14, "success")
    assert not of_type(ev, InfiltrationFailed)


def test_not_in_the_enemy_zone_nor_in_base_contact_with_a_figure_or_an_objective():
    objective = '\n[[objectives]]\nid = "o"\nname = "relay"\nat = [6, 4]\npoints = 1\n'
    sc = started("inf1", extra=objective)
    assert not cells(sc.pending.options) & near((6, 4))  # the objective
    for cell in [(6, 5), (4, 6), (0, 7)]:  # next to the objective; in b's zone
        with pytest.raises(IllegalOption):
            sc.when("deploy", *cell)
    sc.given(UnitDeployed(unit="b2", x=1, y=4))  # an enemy already on the table there
    legal = cells(deploy.options(sc.state, sc.unit("a1"), module.DEPLOYMENT))
    assert not legal & near((1, 4), (6, 4)) and not legal & {(x, y) for y in (6, 7) for x in range(8)}
    assert {(3, 5), (4, 4), (3, 3), (0, 2)} <= legal and (0, 3) not in legal


def test_a_failed_infiltration_roll_sends_the_unit_to_its_own_zone_at_a_table_edge_and_records_the_loss():
    sc = started("inf0")
    ev = sc.when("deploy", 4, 4, dice=(9,))  # 9 over 8: failed
    assert of_type(ev, InfiltrationFailed)[0].unit == "a1" and not sc.unit("a1").deployed
    assert sc.state.infiltration_failed == ("a1",)  # Camouflage, Hidden Deployment, deployables: lost
    assert (sc.pending.kind, sc.pending.unit) == ("redeploy", "a1")
    edge = {(x, 0) for x in range(8)} - {(3, 0), (7, 0)} | {(0, 1), (7, 1)}  # a2 holds (7,0)
    assert cells(sc.pending.options) == edge and default_option(sc.pending) == sc.pending.options[0]
    with pytest.raises(IllegalOption):
        sc.when("deploy", 4, 1)  # its zone, but not at an edge
    ev = sc.when("deploy", 7, 1)
    assert of_type(ev, UnitDeployed)[0] == UnitDeployed(unit="a1", x=7, y=1)
    assert (sc.unit("a1").x, sc.unit("a1").y) == (7, 1) and (sc.pending.kind, sc.pending.unit) == ("deploy", "b2")


def test_a_unit_whose_skill_leaves_it_no_cell_deploys_in_its_zone():
    """House rule: L0 with the enemy half full (a one-row board half) falls back to the zone."""
    tight = "aaaaaaaa\n########\nbbbbbbbb"
    sc = SkillsScenario([("a1", "a", "inf0", 0, 0), ("b1", "b", "hero", 0, 2)], map=tight, deploy=("a1",), extra=EXTRA)
    sc.start()
    assert cells(sc.pending.options) == {(x, 0) for x in range(8)}


# -- Mechanized Deployment -------------------------------------------------------------------------

WIDE = "\n".join(["a" * 20] * 2 + ["." * 20] * 4 + ["b" * 20] * 2)  # 20 x 8: the halves are rows 0-3 and 4-7


def mechanized() -> SkillsScenario:
    sc = SkillsScenario([("a1", "a", "mech", 0, 0), ("a2", "a", "mech", 1, 0), ("a3", "a", "hero", 19, 0),
                         ("b1", "b", "hero", 0, 7), ("b2", "b", "hero", 19, 7)], map=WIDE, deploy=("a1", "a2", "b2"),
                        extra=EXTRA)
    sc.start()
    return sc


def test_mechanized_deployment_anywhere_in_its_own_half_not_beyond_and_not_in_contact():
    sc = mechanized()
    legal = cells(sc.pending.options)
    zone = {(x, y) for y in (0, 1) for x in range(20)} - {(19, 0)}
    assert legal == zone | ({(x, y) for y in (2, 3) for x in range(20)} - near((19, 0)))
    assert not any(y >= 4 for _, y in legal)  # never the enemy half
    ev = sc.when("deploy", 2, 3)
    assert not of_type(ev, DiceRolled)  # no roll


def test_mechanized_users_deploy_inside_the_zone_of_control_of_one_of_them():
    sc = mechanized()
    sc.when("deploy", 2, 3)  # a1 uses the skill
    sc.when("deploy", 10, 6)  # b2
    legal = cells(sc.pending.options)
    assert sc.pending.unit == "a2"
    assert (10, 3) in legal and (11, 3) not in legal  # 8 cells from a1, 9
    assert (19, 1) in legal  # its own zone: not using the skill, no limit
    assert not legal & near((2, 3))  # no base contact with a1


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
def test_the_bots_play_the_infiltrators_placement_and_the_redeploy(bot):
    sc = started("inf0")
    player = MctsBot(5, iterations=30) if bot == "mcts" else make_bot(bot, 5)
    player.new_game("a")
    option = player.choose(clone(sc.state), sc.pending)
    assert option in sc.pending.options
    sc.when(*option, dice=(20,))  # a 20 fails PH-3
    assert sc.pending.kind == "redeploy"
    option = player.choose(clone(sc.state), sc.pending)
    assert option in sc.pending.options


def test_the_failed_roll_and_the_redeploy_are_narrated_and_labelled():
    sc = started("inf0")
    ev = sc.when("deploy", 4, 4, dice=(9,))
    before = sc.state
    failed = of_type(ev, InfiltrationFailed)[0]
    assert "fails to infiltrate" in describe(failed, before) and "table edge" in describe(failed, before)
    request = of_type(ev, DecisionRequested)[0]
    assert render.label(request.decision.options[0], sc.state, sc.pending) == "deploy a1 (a1) at (0,0)"
    assert "Infiltration Roll failed" in skills_render.SHOWN.titles["redeploy"]

"""Reactions (AROs), adapted (docs/rules.md, seed 003, "Reactions and movement skills"): Dodge,
Change Facing, Engage, and Kinematika L1 / L2. Given a skills game with a reacting unit, when an
enemy attacks it or moves in its sight, then its side decides, and the scripted dice settle it."""

from __future__ import annotations

import pytest

from skirmish.bots.simulate import clone
from skirmish.client.narrate import describe
from skirmish.client.render import label as option_label
from skirmish.engine.evolve import evolve
from skirmish.engine.events import ProcedureStarted, StressLost, UnitMoved
from skirmish.engine.mission import MissionError, parse_mission
from skirmish.engine.rules.skills import reactions
from skirmish.engine.rules.skills.events import (AttackDodged, FaceToFaceResolved, FacingChanged, ReactionDeclared,
                                                 SkillRolled)

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text

EXTRA = """
[profiles.shooter]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]
bs = 12

[profiles.dodger]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]
skills = ["dodge", "change facing"]
ph = 12

[profiles.k1]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]
skills = ["dodge", "engage", "kinematika 1"]
ph = 12

[profiles.k2]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]
skills = ["dodge", "engage", "kinematika l2"]
ph = 12

[profiles.engager]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]
skills = ["engage", "change facing"]
"""

OPEN = "\n".join(["........"] * 8)
FIVE = (1, 1, 1, 1, 1)  # phaser damage 3 + Security 2: five Challenge Dice, 5 damage


def game(target: str = "dodger", tx: int = 2, ty: int = 6, units=()) -> SkillsScenario:
    """``a1`` (a shooter) at (2,1) in its turn; ``b1`` (``target``) at (tx, ty), facing up the
    board (side b's default: towards side a's half)."""
    sc = SkillsScenario([("a1", "a", "shooter", 2, 1), ("b1", "b", target, tx, ty), *units], map=OPEN, extra=EXTRA)
    return sc.play_to_turn("a1")


# -- Dodge -------------------------------------------------------------------------------------------


def test_an_attack_at_a_unit_with_dodge_opens_its_sides_reaction_window_before_any_roll():
    sc = game()
    events = sc.when("attack", "b1", 0, 0)
    assert sc.pending.kind == "react" and sc.pending.side == "b" and sc.pending.unit == "a1"
    assert sc.pending.options == (("none",), ("dodge", "b1"))
    assert not of_type(events, SkillRolled)


def test_a_won_dodge_cancels_the_attack_and_the_dodger_may_move_two_cells():
    sc = game()
    sc.when("attack", "b1", 0, 0)
    # a1's BS 12 rolls 15 (fails), b1's PH 12 rolls 5 (succeeds): b1 wins the Face to Face Roll
    events = sc.when("dodge", "b1", dice=(15, 5))
    assert ReactionDeclared(unit="b1", reaction="dodge", against="a1", order="1:a1") in events
    f2f = of_type(events, FaceToFaceResolved)[0]
    assert f2f.purpose == "dodge" and f2f.winner == "b1"
    assert AttackDodged(unit="b1", attacker="a1") in events
    assert sc.pending.kind == "dodge_move" and sc.pending.options[0] == ("stay",)
    far = max(max(abs(o[1] - 2), abs(o[2] - 6)) for o in sc.pending.options[1:])
    assert far == reactions.DODGE_MOVE
    events = sc.when("dodge_move", 4, 4)
    assert UnitMoved(unit="b1", x=4, y=4) in events
    assert not sc.state.stack and sc.pending.kind == "act"  # the attack is gone; a1's turn goes on
    assert sc.unit("b1").stress == sc.unit("b1").stress_max


def test_a_lost_dodge_lets_the_attack_go_on():
    sc = game()
    sc.when("attack", "b1", 0, 0)
    events = sc.when("dodge", "b1", dice=(5, 15))  # a1 succeeds, b1 fails
    assert of_type(events, FaceToFaceResolved)[0].winner == "a1" and not of_type(events, AttackDodged)
    assert sc.pending.kind == "buy_dice"  # the attack's own Task goes on where it was
    events = sc.when("buy", 0, dice=(1, 1) + FIVE)
    assert of_type(events, StressLost)[0].amount == 5


def test_none_is_the_reaction_windows_default_and_the_attack_goes_on():
    sc = game()
    sc.when("attack", "b1", 0, 0)
    events = sc.when("none")
    assert not of_type(events, ReactionDeclared) and sc.pending.kind != "react"


def test_a_unit_without_a_reaction_skill_gets_no_window():
    sc = game(target="shooter")
    sc.when("attack", "b1", 0, 0)
    assert sc.pending.kind != "react"


def test_a_unit_reacts_once_per_enemy_order():
    sc = game()
    sc.when("attack", "b1", 0, 0)
    sc.when("dodge", "b1", dice=(5, 15))
    assert reactions.order(sc.state) == "1:a1" and sc.state.reacted == ("b1",)
    assert not reactions.may_react(sc.state, sc.unit("b1"), sc.unit("a1"))


def test_a_units_second_order_by_the_lieutenant_order_is_a_new_order_to_react_to():
    """The Special Lieutenant Order (skills/command.py) activates the Lieutenant again in the same
    round: an enemy that reacted to its first Order may react to the second."""
    sc = game()
    sc.when("attack", "b1", 0, 0)
    sc.when("dodge", "b1", dice=(5, 15))
    assert not reactions.may_react(sc.state, sc.unit("b1"), sc.unit("a1"))
    sc.state.lt_order_round, sc.state.coordinated = (sc.state.round, 0), ("a1",)  # a1 acts by its Lieutenant Order
    assert reactions.order(sc.state) == "1:a1:lieutenant order"
    assert reactions.may_react(sc.state, sc.unit("b1"), sc.unit("a1"))


@pytest.mark.parametrize("profile, cells", [("dodger", 2), ("k1", 3), ("k2", 4)])
def test_kinematika_adds_one_or_two_cells_to_the_dodge_in_reactive_turn(profile, cells):
    sc = game(target=profile)
    sc.when("attack", "b1", 0, 0)
    sc.when("dodge", "b1", dice=(15, 5))
    far = max(max(abs(o[1] - 2), abs(o[2] - 6)) for o in sc.pending.options[1:])
    assert far == cells


# -- facing and Change Facing --------------------------------------------------------------------------


def test_an_attack_from_outside_the_front_arc_can_only_be_answered_by_change_facing():
    # b1 (side b) at (2,0) faces -y, towards side a's half; a1 at (2,1) stands behind it
    sc = game(tx=2, ty=0)
    sc.when("attack", "b1", 0, 0)
    assert sc.pending.options == (("none",), ("change_facing", "b1"))
    events = sc.when("change_facing", "b1")
    assert FacingChanged(unit="b1", dx=0, dy=1) in events
    assert reactions.facing(sc.state, sc.unit("b1")) == (0, 1)
    assert reactions.in_front(sc.state, sc.unit("b1"), 2, 1)


# -- Engage ----------------------------------------------------------------------------------------------


def test_an_enemy_moving_in_sight_may_be_engaged_into_base_contact():
    sc = game(target="engager", tx=5, ty=6)
    events = sc.when("move", 5, 3)  # a1 moves to three cells in front of b1 at (5,6)
    assert any(isinstance(e, ProcedureStarted) for e in events)
    assert sc.pending.kind == "react" and sc.pending.side == "b"
    engage = [o for o in sc.pending.options if o[0] == "engage"]
    assert engage and all(o[1] == "b1" and max(abs(o[2] - 5), abs(o[3] - 3)) <= 1 for o in engage)
    events = sc.when(*engage[0])
    assert of_type(events, UnitMoved)[0].unit == "b1"
    b1 = sc.unit("b1")
    assert max(abs(b1.x - 5), abs(b1.y - 3)) == 1


def test_engage_out_of_reach_is_not_offered():
    sc = game(target="engager", tx=5, ty=7)
    sc.when("move", 0, 2)  # five rows away: beyond Engage's 2 cells
    assert sc.pending.kind != "react"


# -- the requirements ----------------------------------------------------------------------------------


def test_kinematika_without_dodge_or_engage_is_a_mission_error():
    bad = EXTRA + '\n[profiles.lone]\nkind = "hero"\nfitness = 9\nweapons = ["phaser"]\nskills = ["kinematika 1"]\n'
    with pytest.raises(MissionError, match="profiles.lone.skills"):
        parse_mission(skills_text([("a1", "a", "lone", 0, 0), ("b1", "b", "shooter", 0, 7)], map=OPEN, extra=bad), "t")


# -- with the morale module: a unit that may not move (a Fear Token) neither Dodges nor Engages ---------


@pytest.mark.parametrize("fear", [False, True])
def test_a_unit_with_a_fear_token_cannot_dodge_or_engage(fear):
    from skirmish.engine.rules.morale.events import FearTaken, TokensChanged

    units = [("a1", "a", "shooter", 2, 1, True), ("b1", "b", "k1", 2, 6, True)]
    sc = SkillsScenario(units, map=OPEN, extra=EXTRA, modules=("skills", "morale"))
    if fear:
        sc.given(FearTaken(unit="b1"))
    sc.start()
    while sc.pending.kind == "initiative_reroll":
        sc.when(*sc.pending.options[0])
    for side in ("a", "b"):
        sc.given(TokensChanged(side=side, delta=-sc.state.tokens[side], reason="test"))
    sc.when("first", "a")
    sc.when("unit", "a1")
    sc.when("move", 2, 3)  # in front of b1, three cells away: Engage reaches it
    engage = sc.pending.kind == "react" and [o for o in sc.pending.options if o[0] == "engage"]
    assert bool(engage) is not fear
    if engage:
        sc.when("none")
    sc.when("attack", "b1", 0, 0)
    assert (sc.pending.kind == "react") is not fear


# -- the clients' text: labels and narration -------------------------------------------------------------


def test_the_reactions_are_labelled_and_narrated():
    sc = game()
    sc.when("attack", "b1", 0, 0)
    labels = [option_label(o, sc.state, sc.pending) for o in sc.pending.options]
    assert labels[0] == "no reaction" and "dodges" in labels[1] and "Face to Face" in labels[1]
    state = clone(sc.state)
    lines = []
    for e in sc.when("dodge", "b1", dice=(15, 5)):
        lines.append(describe(e, state) or "")
        evolve(state, e)
    text = "\n".join(lines)
    assert "reacts to" in text and "Dodge" in text and "the attack is cancelled" in text
    assert "dodges to" in option_label(sc.pending.options[1], sc.state, sc.pending)

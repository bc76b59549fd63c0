"""Command and courage (docs/rules.md, seed 003, "Command and courage"): Guts Rolls, Training,
Veteran, V: Courage, Lieutenant L1, Inspiring Leadership, Morat, Religious Troop, Retreat!. Given
units with these skills, when they are hit, act or lose units with scripted dice, then these
rolls, moves, activations and states."""

from __future__ import annotations

import pytest

from skirmish.bots import make_bot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.simulate import clone
from skirmish.client import render
from skirmish.client.narrate import describe
from skirmish.engine import board as geo
from skirmish.engine.events import ActivationPassed, InjurySuffered, PoolChanged, ProneChanged, UnitMoved
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.mission import MissionError, parse_mission
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale.events import FearTaken
from skirmish.engine.rules.skills import command, guts
from skirmish.engine.rules.skills.events import (GutsTaken, LieutenantOrder, RetreatEntered, SkillRolled,
                                                 StateChanged, UnitWithdrew)

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text


def _profile(name: str, skills=(), extra: str = "") -> str:
    listed = ", ".join(f'"{s}"' for s in skills)
    return (f'\n[profiles.{name}]\nkind = "hero"\ncontrol = 10\ndaring = 9\nfitness = 9\ncommand = 2\nsecurity = 2\n'
            f'weapons = ["phaser"]\nwip = 12\nskills = [{listed}]\n{extra}')


EXTRA = "".join((
    _profile("plain"),
    _profile("irr", extra='training = "irregular"\n'),
    _profile("lt", ["lieutenant"]),
    _profile("leader", ["lieutenant", "inspiring leadership"]),
    _profile("zealot", ["religious troop"]),
    _profile("brave", ["v: courage"]),
    _profile("morat", ["morat"]),
    _profile("vet", ["veteran 1"]),
    _profile("vet2", ["veteran 2"], 'troop_type = "TAG"\n'),
    '\n[profiles.mook]\nkind = "bogey"\ntier = "grunt"\ncontrol = 9\nfitness = 8\nsecurity = 1\nweapons = ["phaser"]\n',
))

OPEN = "\n".join(["........"] * 8)
HIT = (1, 1)  # the attack's 2d20: four successes
NONE = (3, 3, 3, 3, 3)  # phaser damage 3 + Security 2: five Challenge Dice, 0 damage
FIVE = (1, 1, 1, 1, 1)  # 5 damage


def game(units, map: str = OPEN, modules=("skills",), rounds: int = 3) -> SkillsScenario:
    return SkillsScenario(units, map=map, extra=EXTRA, modules=modules, rounds=rounds)


def shot(victim: str, map: str = OPEN, at=(0, 3)) -> tuple[SkillsScenario, list]:
    """a1 (plain, at (0,0)) shoots b1 (``victim``) for no damage; b2 far away (no Guts die scripted:
    for a unit whose side decides)."""
    sc = game([("a1", "a", "plain", 0, 0), ("b1", "b", victim, *at), ("b2", "b", "plain", 7, 7)], map=map)
    sc.play_to_turn("a1")
    return sc, sc.task("attack", "b1", 0, 1, dice=HIT + NONE)


def end_round(sc: SkillsScenario, dice=(10, 1) * 3) -> list:
    """Every unit ends its turn at once until the round is over (the next round's initiative
    scripted to side a)."""
    events, rnd = [], sc.state.round
    while sc.state.round == rnd and sc.state.outcome is None:
        p = sc.pending
        opt = ("end",) if p.kind == "act" else ("pass",) if p.kind == "keep_initiative" else p.options[0]
        events += sc.when(*opt, dice=dice)
    return events


# -- Guts Rolls ----------------------------------------------------------------------------------------------------


def _shot_with_guts(victim: str, die: int, map: str = OPEN, at=(0, 3)):
    sc = game([("a1", "a", "plain", 0, 0), ("b1", "b", victim, *at), ("b2", "b", "plain", 7, 7)], map=map)
    sc.play_to_turn("a1")
    return sc, sc.task("attack", "b1", 0, 1, dice=HIT + NONE + (die,))


def test_the_guts_roll_is_a_wip_normal_roll_after_the_hit_and_passed_the_unit_holds():
    sc, ev = _shot_with_guts("plain", 12)
    assert of_type(ev, GutsTaken) == [GutsTaken(unit="b1", how="roll")]
    roll = of_type(ev, SkillRolled)[-1]
    assert (roll.unit, roll.purpose, roll.attribute, roll.target, roll.result) == ("b1", "guts", "wip", 12, "critical")
    assert not of_type(ev, UnitMoved) and not of_type(ev, ProneChanged) and (sc.unit("b1").x, sc.unit("b1").y) == (0, 3)


# a wall at (1,1): b1 at (0,3), in a1's line of fire, can step to (2,3), behind it
WALLED = "........\n.#......\n........\n........\n........\n........\n........\n........"


def test_a_failed_guts_roll_moves_up_to_2_cells_out_of_every_enemys_line_of_fire_never_nearer():
    sc, ev = _shot_with_guts("plain", 13, WALLED)
    assert of_type(ev, SkillRolled)[-1].result == "failure"
    moved = of_type(ev, UnitMoved)
    assert moved == [UnitMoved(unit="b1", x=2, y=3)]
    x, y = moved[0].x, moved[0].y
    assert geo.distance(0, 3, x, y) <= guts.STEP
    assert not geo.line_of_fire(sc.state.board, 0, 0, x, y)
    assert geo.distance(0, 0, x, y) >= geo.distance(0, 0, 0, 3)


def test_with_no_cell_out_of_line_of_fire_or_in_cover_a_failed_guts_roll_goes_prone():
    sc, ev = _shot_with_guts("plain", 13)
    assert of_type(ev, ProneChanged) == [ProneChanged(unit="b1", prone=True)] and not of_type(ev, UnitMoved)


def test_a_unit_out_of_action_makes_no_guts_roll():
    sc = game([("a1", "a", "plain", 0, 0), ("b1", "b", "mook", 0, 3), ("b2", "b", "plain", 7, 7)])
    sc.play_to_turn("a1")
    ev = sc.task("attack", "b1", 0, 1, dice=HIT + FIVE)
    assert sc.unit("b1").incapacitated
    assert of_type(ev, GutsTaken) == [GutsTaken(unit="b1", how="none")] and not [
        r for r in of_type(ev, SkillRolled) if r.purpose == "guts"]


# -- Religious Troop, V: Courage, Morat ------------------------------------------------------------------------------


def test_a_religious_troop_passes_its_guts_roll_without_rolling_and_holds():
    sc, ev = shot("zealot")
    assert not of_type(ev, SkillRolled)  # "without rolling any dice"
    assert sc.pending.kind == "guts" and sc.pending.side == "b"
    assert list(sc.pending.options) == [("hold", "b1"), ("roll", "b1")]
    ev = sc.when("hold", "b1")
    assert of_type(ev, GutsTaken) == [GutsTaken(unit="b1", how="hold")] and not of_type(ev, ProneChanged)
    assert (sc.unit("b1").x, sc.unit("b1").y, sc.unit("b1").prone) == (0, 3, False)


def test_a_religious_troops_voluntary_guts_roll_has_the_opposite_effect():
    sc, _ = shot("zealot")
    ev = sc.when("roll", "b1", dice=(5,))  # passed: it must pass to seek cover (here: Prone)
    assert of_type(ev, GutsTaken)[0].how == "voluntary" and of_type(ev, SkillRolled)[0].purpose == "guts_voluntary"
    assert of_type(ev, ProneChanged) == [ProneChanged(unit="b1", prone=True)]
    sc, _ = shot("zealot")
    ev = sc.when("roll", "b1", dice=(13,))  # failed: it holds
    assert not of_type(ev, ProneChanged) and not sc.unit("b1").prone


def test_v_courage_chooses_the_result_of_its_guts_roll_without_rolling():
    sc, ev = shot("brave")
    assert not of_type(ev, SkillRolled) and list(sc.pending.options) == [("hold", "b1"), ("cover", "b1")]
    ev = sc.when("cover", "b1")
    assert of_type(ev, ProneChanged) == [ProneChanged(unit="b1", prone=True)]


def test_morat_is_veteran_l1_and_religious_troop():
    sc, _ = shot("morat")
    u = sc.unit("b1")
    assert command.veteran(u) and command.religious(u) and not command.veteran(u, 2)
    assert sc.pending.kind == "guts" and list(sc.pending.options) == [("hold", "b1"), ("roll", "b1")]


# -- Lieutenant L1 -----------------------------------------------------------------------------------------------


def test_each_side_must_field_exactly_one_lieutenant_when_the_skill_is_used():
    two = skills_text([("a1", "a", "lt", 0, 0), ("a2", "a", "lt", 1, 0), ("b1", "b", "lt", 0, 7)], extra=EXTRA)
    with pytest.raises(MissionError, match=r"units\[1\]\.profile.*side a fields 2 Lieutenants"):
        parse_mission(two, "test")
    none = skills_text([("a1", "a", "lt", 0, 0), ("b1", "b", "plain", 0, 7)], extra=EXTRA)
    with pytest.raises(MissionError, match=r"side b fields 0 Lieutenants"):
        parse_mission(none, "test")
    parse_mission(skills_text([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 7)], extra=EXTRA), "test")


def test_inspiring_leadership_needs_the_lieutenant_skill():
    text = skills_text([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 7)],
                       extra=EXTRA.replace('["lieutenant", "inspiring leadership"]', '["inspiring leadership"]'))
    with pytest.raises(MissionError, match=r"profiles\.leader\.skills.*army's Lieutenant"):
        parse_mission(text, "test")


def lt_game(a_lt="lt", a2="plain", a3="plain"):
    sc = game([("a1", "a", a_lt, 0, 0), ("a2", "a", a2, 1, 0), ("a3", "a", a3, 2, 0),
               ("b1", "b", "lt", 0, 7), ("b2", "b", "plain", 1, 7), ("b3", "b", "plain", 2, 7)])
    return sc.play_to_turn("a1")


def test_the_lieutenant_order_is_one_more_activation_a_round_for_the_lieutenant():
    sc = lt_game()
    ev = sc.when("end")  # a1, the Lieutenant, has acted: its Lieutenant Order
    assert of_type(ev, LieutenantOrder) == [LieutenantOrder(unit="a1", round=1)]
    assert not sc.unit("a1").acted
    sc.when("unit", "b2")
    sc.when("end")
    assert ("unit", "a1") in sc.pending.options  # its side activates it when it chooses
    ev = sc.when("unit", "a1") + sc.when("end")
    assert not of_type(ev, LieutenantOrder) and sc.unit("a1").acted  # once a round


def test_loss_of_lieutenant_no_order_and_the_side_is_irregular_but_a_veteran():
    sc = lt_game(a3="vet")
    sc.given(InjurySuffered(unit="a1", lethal=True, result="dead"))
    assert command.loss_of_lieutenant(sc.state, "a")
    assert command.training(sc.state, sc.unit("a2")) == "irregular"
    assert command.training(sc.state, sc.unit("a3")) == "regular"  # Veteran L1
    assert not command.loss_of_lieutenant(sc.state, "b")
    ev = end_round(sc)
    assert not [e for e in of_type(ev, LieutenantOrder) if e.unit == "a1"]


def test_an_irregular_unit_is_not_activated_by_keeping_the_initiative():
    sc = game([("a1", "a", "plain", 0, 0), ("a2", "a", "irr", 1, 0), ("a3", "a", "plain", 2, 0),
               ("b1", "b", "plain", 0, 7), ("b2", "b", "plain", 1, 7)])
    sc.play_to_turn("a1")
    sc.given(PoolChanged(side="a", pool="momentum", delta=2, reason="test"))
    sc.when("end")
    assert sc.pending.kind == "keep_initiative"
    sc.when("keep")
    assert sc.pending.kind == "activate" and list(sc.pending.options) == [("unit", "a3")]  # not a2: its Order is its own


def test_keep_the_initiative_is_not_offered_when_only_an_irregular_unit_could_take_it():
    sc = game([("a1", "a", "plain", 0, 0), ("a2", "a", "irr", 1, 0),
               ("b1", "b", "plain", 0, 7), ("b2", "b", "plain", 1, 7)])
    sc.play_to_turn("a1")
    sc.given(PoolChanged(side="a", pool="momentum", delta=2, reason="test"))
    ev = sc.when("end")  # a2 is ready, but keeping the initiative could not activate it
    assert of_type(ev, ActivationPassed) == [ActivationPassed(side="b")]
    assert sc.pending.kind == "activate" and sc.pending.side == "b" and sc.state.momentum["a"] == 2
    sc.when("unit", "b1")
    sc.when("end")  # b acted: the action is a's, and a2 takes it by its own Order
    assert sc.pending.side == "a" and list(sc.pending.options) == [("unit", "a2")]


# -- Inspiring Leadership ------------------------------------------------------------------------------------------


def test_inspiring_leadership_replaces_training_and_gives_v_courage_while_its_user_stands():
    sc = lt_game(a_lt="leader", a2="irr")
    assert command.training(sc.state, sc.unit("a2")) == "regular" and command.courage(sc.state, sc.unit("a2"))
    sc.given(InjurySuffered(unit="a1", lethal=True, result="dead"))
    assert command.training(sc.state, sc.unit("a2")) == "irregular" and not command.courage(sc.state, sc.unit("a2"))


def test_the_coordinated_order_activates_the_leader_and_its_units_together():
    sc = lt_game(a_lt="leader")
    ev = sc.when("end")  # a1, the leader, has acted: its Lieutenant Order is a Coordinated Order
    assert of_type(ev, LieutenantOrder) == [LieutenantOrder(unit="a1", round=1, coordinated=("a2", "a3"))]
    sc.when("unit", "b1")
    sc.when("end")
    assert sc.pending.side == "a" and set(sc.pending.options) == {("unit", "a1"), ("unit", "a2"), ("unit", "a3")}
    sc.when("unit", "a2")
    ev = sc.when("end")  # one of them has acted: the others follow before side b acts again
    assert of_type(ev, ActivationPassed)[-1].side == "a"
    assert sc.pending.side == "a" and set(sc.pending.options) == {("unit", "a1"), ("unit", "a3")}
    sc.when("unit", "a3")
    sc.when("end")
    assert list(sc.pending.options) == [("unit", "a1")]
    sc.when("unit", "a1")
    sc.when("end")
    assert sc.pending.side == "b"


# -- Retreat! ------------------------------------------------------------------------------------------------------


def retreat_game(b3="plain", b1="plain", modules=("skills",)):
    # b's deployment zone is rows 6-7 (skills_scenario.ZONES)
    sc = game([("a1", "a", "plain", 0, 0), ("b1", "b", b1, 0, 6), ("b2", "b", "plain", 1, 7), ("b3", "b", b3, 2, 7),
               ("b4", "b", "plain", 3, 7)], map=skills_scenario_zones(), modules=modules)
    if "morale" not in modules:
        return sc.play_to_turn("a1")
    sc.start(10, 1)
    while sc.pending.kind != "act":  # the morale module's windows: keep the rolls, side a first
        sc.when(*sc.pending.options[0])
    return sc


def skills_scenario_zones():
    from tests.engine.rules.skills.skills_scenario import ZONES
    return ZONES


def test_a_side_that_lost_most_of_its_force_enters_retreat_and_may_leave_the_table_by_its_zone():
    sc = retreat_game()
    sc.given(*(InjurySuffered(unit=u, lethal=True, result="dead") for u in ("b2", "b3", "b4")))
    ev = end_round(sc)
    assert of_type(ev, RetreatEntered) == [RetreatEntered(side="b")]
    assert command.training(sc.state, sc.unit("b1")) == "irregular"
    while sc.pending.kind != "act" or sc.state.turn.unit != "b1":
        opt = ("end",) if sc.pending.kind == "act" else ("unit", "b1") if ("unit", "b1") in sc.pending.options \
            else sc.pending.options[0]
        sc.when(*opt, dice=(10, 1))
    assert ("withdraw",) in sc.pending.options
    ev = sc.when("withdraw", dice=(10, 1))  # the round ends: the next initiative
    assert of_type(ev, UnitWithdrew) == [UnitWithdrew(unit="b1")] and not sc.unit("b1").deployed
    assert not sc.unit("b1").incapacitated  # not a casualty: no points to side a


def test_no_retreat_below_three_quarters_lost():
    sc = retreat_game()
    sc.given(*(InjurySuffered(unit=u, lethal=True, result="dead") for u in ("b2", "b3")))
    assert not of_type(end_round(sc), RetreatEntered)


def test_religious_troops_are_unaffected_by_retreat_and_cannot_leave_the_table():
    sc = retreat_game(b1="zealot", b3="morat")
    sc.given(*(InjurySuffered(unit=u, lethal=True, result="dead") for u in ("b2", "b4")))
    sc.given(RetreatEntered(side="b"))
    z = sc.unit("b1")
    assert not command.in_retreat(sc.state, z) and command.training(sc.state, z) == "regular"
    assert command.turn_options(sc.state, z, []) == []  # no ("withdraw",)
    # every unit of b still able to fight is a Religious Troop: no Retreat! for the side
    assert not command.can_retreat(sc.state, "b")


def test_no_retreat_while_an_inspiring_leadership_lieutenant_stands():
    sc = game([("a1", "a", "leader", 0, 0), ("a2", "a", "plain", 1, 0), ("a3", "a", "plain", 2, 0),
               ("a4", "a", "plain", 3, 0), ("b1", "b", "leader", 0, 7)])
    sc.play_to_turn("a1")
    sc.given(*(InjurySuffered(unit=u, lethal=True, result="dead") for u in ("a2", "a3", "a4")))
    assert not of_type(end_round(sc), RetreatEntered) and not command.can_retreat(sc.state, "a")


def test_with_the_morale_module_retreat_is_its_courage_test_religious_troops_make_no_breakaway_move():
    sc = retreat_game(b1="zealot", modules=("skills", "morale"))
    s = sc.state
    assert command.can_retreat(s, "b") and not command.breaks_away(s, sc.unit("b1"))
    assert command.breaks_away(s, sc.unit("b2"))
    sc.given(*(InjurySuffered(unit=u, lethal=True, result="dead") for u in ("b2", "b3", "b4")))
    ev = end_round(sc, dice=(6, 6) + (10, 1) * 3)
    assert not of_type(ev, RetreatEntered)  # the skills module's own Retreat! is off with morale
    assert not command.can_retreat(sc.state, "b")  # only a Religious Troop left: no Courage Test


# -- Veteran L2 ----------------------------------------------------------------------------------------------------


def test_a_possessed_veteran_l2_shakes_it_off_with_a_wip_roll_in_the_end_phase():
    sc = game([("a1", "a", "plain", 0, 0), ("b1", "b", "vet2", 0, 7)])
    sc.play_to_turn("a1")
    sc.given(StateChanged(unit="b1", state="possessed", on=True))
    ev = end_round(sc, dice=(5,) + (10, 1) * 3)
    reset = [r for r in of_type(ev, SkillRolled) if r.purpose == "reset"]
    assert reset and reset[0].unit == "b1" and "b1" not in sc.state.possessed


# -- bots, narration, labels ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
@pytest.mark.parametrize("victim", ["brave", "zealot"])
def test_the_bots_answer_the_guts_decision(bot, victim):
    sc, _ = shot(victim)
    player = MctsBot(7, iterations=30) if bot == "mcts" else make_bot(bot, 7)
    player.new_game("b")
    option = player.choose(clone(sc.state), sc.pending)
    assert option in sc.pending.options
    ev = sc.when(*option, dice=(5,))
    assert of_type(ev, GutsTaken)[0].how == {"hold": "hold", "cover": "cover", "roll": "voluntary"}[option[0]]


def test_the_new_events_and_options_are_narrated_and_labelled():
    sc, _ = shot("zealot")
    labels = [render.label(o, sc.state, sc.pending) for o in sc.pending.options]
    assert labels[0].endswith("holds its ground") and "voluntary Guts Roll" in labels[1]
    before = clone(sc.state)
    ev = sc.when("roll", "b1", dice=(5,))
    text = "\n".join(describe(e, before) or "" for e in ev)
    assert "makes a voluntary Guts Roll (Religious Troop)" in text
    s = lt_game().state
    assert "Special Lieutenant Order" in describe(LieutenantOrder(unit="a1", round=1, coordinated=("a2",)), s)
    assert "Coordinated Order" in describe(LieutenantOrder(unit="a1", round=1, coordinated=("a2",)), s)
    assert "Retreat!" in describe(RetreatEntered(side="b"), s) and "leaves the table" in describe(UnitWithdrew(unit="a2"), s)


def test_a_unit_that_may_not_move_goes_prone_instead_of_seeking_cover_fear_with_the_morale_module():
    # the registry's can_move (seed 004's Fear Token): the guard of tests/engine/rules/test_movement_paths.py
    sc = game([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 3), ("b2", "b", "plain", 7, 7)], map=WALLED,
              modules=("skills", "morale"))
    assert guts.cover_cell(sc.state, sc.unit("b1")) == (2, 3)  # it could step behind the wall
    sc.given(FearTaken(unit="b1"))
    ctx = Context(clone(sc.state), ScriptedDice(()))
    guts.seek_cover(ctx, "b1")
    assert ctx.events == [ProneChanged(unit="b1", prone=True)]

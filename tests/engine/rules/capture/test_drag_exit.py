"""Dragging a captive, taking it off the table, and what captives score. given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.rules.core.flow import points

from tests.engine.rules.capture.capture_scenario import capture_scenario
from tests.engine.rules.scenario import of_type

RULES = 'captor = "a"\nexit = "south"\ncaptive_points = 2\nexit_points = 3\ncharacter_points = 4'


def dragging_scene():
    s = capture_scenario([("a1", "a", "hero", 3, 4), ("b1", "b", "grunt", 3, 3), ("b2", "b", "grunt", 7, 0)],
                         capture=RULES)
    return s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"),
                   ev.PoolChanged(side="a", pool="momentum", delta=3, reason="test"))


def test_a_character_engaged_with_a_captive_may_drag_it_and_it_follows_every_move():
    # "A captured bogey can be left in place until the end of the mission or dragged by a character."
    s = dragging_scene().play_to_turn("a1")
    assert ("drag", "b1") in s.pending.options
    events = s.when("drag", "b1")
    assert ev.MinorActionTaken(unit="a1", action="drag", cost=0) in events
    assert cev.DragStarted(unit="a1", captive="b1") in events and s.unit("a1").dragging == "b1"
    events = s.when("move", 3, 7)
    # the captive goes to the free cell next to its dragger nearest to where it stood
    moved = of_type(events, ev.UnitMoved)
    assert moved == [ev.UnitMoved(unit="a1", x=3, y=7), ev.UnitMoved(unit="b1", x=2, y=6)]
    assert (s.unit("b1").x, s.unit("b1").y) == (2, 6)


def test_a_captive_left_in_place_stays_where_it_is():
    s = dragging_scene().play_to_turn("a1")
    s.when("move", 3, 7)
    assert (s.unit("b1").x, s.unit("b1").y) == (3, 3)


def test_removing_a_dragged_captive_by_the_exit_gives_the_hero_1_xp_and_the_missions_points():
    # "a captured bogey who is removed from the table in the normal rules for exiting the table is
    # going to be worth +1 XP to the hero removing them"
    s = dragging_scene().play_to_turn("a1")
    assert points(s.state)["a"] == 1 + 2  # held: taken out (its 1 point) + captive_points
    s.when("drag", "b1")
    s.when("move", 3, 7)
    assert ("exit", "b1") in s.pending.options  # a1 stands on the south edge
    events = s.when("exit", "b1")
    assert cev.CaptiveRemoved(unit="a1", captive="b1", xp=1) in events
    assert ev.PoolChanged(side="a", pool="momentum", delta=-2, reason="minor action") in events  # the third
    b1 = s.unit("b1")
    assert b1.removed and b1.dead and s.unit("a1").xp == 1 and s.unit("a1").dragging == ""
    assert points(s.state)["a"] == 1 + 3  # taken off: taken out + exit_points


def test_there_is_no_exit_off_the_exit_edge_nor_without_one():
    s = dragging_scene().play_to_turn("a1")
    s.when("drag", "b1")
    s.when("move", 3, 6)
    assert not [o for o in s.pending.options if o[0] == "exit"]
    t = capture_scenario([("a1", "a", "hero", 3, 6), ("b1", "b", "grunt", 3, 7), ("b2", "b", "grunt", 7, 0)],
                         capture='captor = "a"')
    t.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"))
    t.play_to_turn("a1")
    t.when("drag", "b1")
    assert not [o for o in t.pending.options if o[0] == "exit"]


def test_an_escape_ends_the_drag():
    s = dragging_scene().play_to_turn("a1")
    s.when("drag", "b1")
    s.when("end")
    events = s.when("unit", "b1", dice=(12, 20, 20, 20, 20))  # escapes (engaged: a 12), CQB both fail
    assert cev.DragEnded(unit="a1") in events and cev.CaptiveEscaped(unit="b1") in events
    assert s.unit("a1").dragging == ""


def test_a_captured_enemy_character_scores_what_the_mission_says():
    # "Captured characters in a Versus mission are their own reward" -- the mission sets how much
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1), ("b2", "b", "grunt", 6, 6)],
                         capture=RULES)
    s.given(ev.StressLost(unit="b1", amount=8), cev.UnitCaptured(unit="b1", by="a1"))
    assert s.unit("b1").captured and not s.unit("b1").incapacitated
    assert points(s.state) == {"a": 1 + 4, "b": 0}


def test_the_game_ends_on_points_with_captives_held():
    s = dragging_scene()
    s.state.rounds = 1
    s.play_to_turn("a1")
    s.when("end")
    s.when("unit", "b1", dice=(3,))  # b1 fails to escape
    events = s.when("unit", "b2") + s.when("end")
    ended = of_type(events, ev.GameEnded)[0].outcome
    assert ended.winner == "a" and ended.points == {"a": 3, "b": 0}


def test_with_no_free_cell_next_to_its_dragger_the_captive_is_left_behind():
    # house rule: the captive goes to a free cell next to its dragger, or the drag ends
    from skirmish.engine.dice import ScriptedDice
    from skirmish.engine.rules.capture.actions import follow
    from skirmish.engine.rules.context import Context

    wall = "\n".join(["#.######"] + ["........"] * 7)  # (1, 0) is a pocket in the wall
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 0, 1), ("a3", "a", "hero", 2, 1),
                          ("b1", "b", "grunt", 1, 2), ("b2", "b", "grunt", 7, 7)], capture=RULES, map=wall)
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"),
            cev.DragStarted(unit="a1", captive="b1"), ev.UnitMoved(unit="a1", x=1, y=0),
            ev.UnitMoved(unit="b1", x=5, y=5))  # the captive is no longer next to a1, in the pocket
    ctx = Context(s.state, ScriptedDice(()))
    follow(ctx, "a1")  # (0, 1), (2, 1) are taken; (1, 1) is free
    assert ctx.events == [ev.UnitMoved(unit="b1", x=1, y=1)]
    s.given(ev.UnitMoved(unit="b1", x=5, y=5), ev.UnitMoved(unit="b2", x=1, y=1))
    ctx = Context(s.state, ScriptedDice(()))
    follow(ctx, "a1")  # now every cell next to a1 is wall or taken
    assert ctx.events == [cev.DragEnded(unit="a1")] and s.unit("b1").x == 5


def test_a_captive_next_to_its_captor_is_no_enemy_within_reach_for_its_ranged_attacks():
    # seed 001 4B: "The Difficulty of this Task increases by 1 if there is an enemy within Reach of
    # the attacker." A helpless captive is no threat (issue 12 #25): a1's shot at b2 stays at 2.
    s = dragging_scene().play_to_turn("a1")  # the captive b1 stands in a1's Reach
    events = s.task("attack", "b2", 0, 0, dice=(10, 10, 3, 3, 3, 3, 3))  # two successes
    assert [r.purpose for r in of_type(events, ev.DiceRolled)] == ["task:attack", "damage"]


def test_an_enemy_that_escaped_threatens_again():
    s = dragging_scene().given(cev.CaptiveEscaped(unit="b1")).play_to_turn("a1")
    events = s.task("attack", "b2", 0, 0, dice=(10, 10))  # two successes against 3
    assert [r.purpose for r in of_type(events, ev.DiceRolled)] == ["task:attack"]

"""Seed 003's worked example "IMPERSONATION EXAMPLE: REGAINING IMPERSONATION VS HIDDEN DEPLOYMENT",
step by step (issue 15; docs/rules.md I32; skills/imp_regain.py, impersonation.py,
hidden_deployment.py). An 8 x 8 board, a wall across row 2: side b's impersonator b1 (a Fiday,
deployed as a figure at (4,6)) is out of the LoF of side a's Fusilier a1 (2,1), behind the wall;
side a's a2 is in Hidden Deployment, at (0,3) (this side of the wall: LoF to b1) or at (7,0)
(behind it: none)."""

from __future__ import annotations

import random
import re

from skirmish.engine import board as geo
from skirmish.engine.codec import encode_event
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.events import DiceRolled, ProcedureStarted, TurnEnded
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created, parse_mission
from skirmish.engine.model import TaskFrame
from skirmish.engine.rules.skills import hidden_deployment as hd
from skirmish.engine.rules.skills import impersonation
from skirmish.engine.rules.skills.frames import RegainFrame
from skirmish.engine.rules.skills.hd_parts import HiddenFrame, HiddenRevealed, OrderDisrupted
from skirmish.engine.rules.skills.imp_events import MarkerPlaced
from skirmish.engine.view import pending, viewed

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills import imp_scenario
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text
from tests.engine.views_check import Follow

GHOST = """
[profiles.ghost]
kind = "hero"
control = 11
fitness = 9
security = 2
weapons = ["phaser", "knife"]
skills = ["hidden deployment"]
"""
WALL = "aaa#aaaa\naaaaaaaa\n########\na.......\n........\n........\nbbbbbbbb\nbbbbbbbb"
UNITS = [("a1", "a", "fusilier", 2, 1), ("a2", "a", "ghost", 0, 3), ("b1", "b", "fiday", 4, 7),
         ("b2", "b", "fusilier", 7, 7)]
SEES, BLIND = (0, 3), (7, 0)  # where a2 hides: LoF to b1 at (4,6), or behind the wall


def example(hide_at) -> SkillsScenario:
    """b1 deployed as a figure at (4,6), a2 hidden at ``hide_at``, side b first, b1 activated."""
    text = re.sub(r'(\nid = "a2"\n)', r'\1hidden = true\n', skills_text(UNITS, WALL, ("b1",), imp_scenario.EXTRA + GHOST))
    s = SkillsScenario.__new__(SkillsScenario)
    s.mission = parse_mission(text, "test")
    s.first = game_created("t", s.mission, "local", "")
    s.state = initial_state(s.first)
    s.log = [s.first]
    s.start(*imp_scenario.SALT)
    s.when("deploy", 4, 6)
    s.when("hide", *hide_at, dice=(10, 1))  # then the initiative: side a 10, side b 1
    s.when("first", "b")
    s.when("unit", "b1")
    return s


def declared(hide_at) -> tuple[SkillsScenario, list]:
    """Steps 1-2: side b confirms no enemy figure or marker has LoF to b1, and declares the Entire Order."""
    s = example(hide_at)
    b1 = s.unit("b1")
    assert not impersonation.in_enemy_lof(s.state, b1)  # a1 is behind the wall; a2 is not on the table
    assert "a2" not in s.state.units and s.state.hidden["a2"].deployed
    assert ("impersonate",) in s.pending.options  # the hidden trooper cannot stop the declaration
    return s, s.when("impersonate")


def test_step_by_step_the_hidden_trooper_reveals_itself_with_lof_and_the_order_is_lost():
    s, events = declared(SEES)
    x, y = SEES
    assert geo.line_of_fire(s.state.board, x, y, 4, 6)  # it would have LoF to the active trooper
    # step 3: once the Entire Order is declared, the hidden trooper's side gets its reveal window
    started = [e.frame for e in of_type(events, ProcedureStarted)]
    assert started == [RegainFrame(unit="b1"), HiddenFrame(actor="b1", side="a")]
    assert not of_type(events, MarkerPlaced)  # not carried out yet
    p = s.pending
    assert p.side == "a" and p.kind == hd.REVEAL and p.unit == "b1" and ("reveal", "a2") in p.options
    # step 4: it reveals itself and declares an ARO: the Order fails its Requirement
    events = s.when("reveal", "a2")
    assert of_type(events, HiddenRevealed)[0].unit == "a2" and s.unit("a2").x == 0 and s.unit("a2").y == 3
    assert of_type(events, OrderDisrupted) == [OrderDisrupted(unit="b1", by="a2")]
    assert impersonation.in_enemy_lof(s.state, s.unit("b1"))  # on the table now, with LoF
    # step 5: it cannot be carried out, and the active trooper loses his Order: he stays a figure
    assert not of_type(events, MarkerPlaced) and s.state.imp_states == {}
    assert not impersonation.is_marker(s.state, "b1")
    assert of_type(events, TurnEnded) == [TurnEnded(unit="b1")] and s.unit("b1").acted
    assert not any(isinstance(f, RegainFrame) for f in s.state.stack)


def test_the_hidden_troopers_attack_as_its_aro_is_a_normal_roll():
    """"if the trooper in Hidden Deployment were to declare an Attack as his ARO, he would make a
    Normal Roll": the attack comes after the Order is lost, a Task rolled unopposed."""
    s, _ = declared(SEES)
    events = s.when("reveal", "a2", 0, 0)  # reveal and shoot, with the phaser
    assert of_type(events, OrderDisrupted) and not of_type(events, MarkerPlaced)
    i = next(i for i, e in enumerate(events) if isinstance(e, OrderDisrupted))
    assert any(isinstance(e, TurnEnded) for e in events[i:])
    frame = s.state.stack[-1]
    assert isinstance(frame, TaskFrame) and (frame.unit, frame.task, frame.target) == ("a2", "attack", "b1")
    assert s.pending.kind == "buy_dice" and s.pending.side == "a"
    rolled = s.when("buy", 0, dice=(1, 1, 1, 1, 1, 1, 1))
    d20 = [e for e in of_type(rolled, DiceRolled) if e.sides == 20]
    assert [e.unit for e in d20] == ["a2"]  # only the attacker rolls: no Face to Face Roll
    assert all(isinstance(e, DiceRolled) and e.unit == "a2" for e in rolled if isinstance(e, DiceRolled))


def test_control_no_reveal_the_order_is_carried_out_and_b1_regains_imp1():
    s, _ = declared(SEES)
    events = s.when(*hd.STAY)
    placed = of_type(events, MarkerPlaced)
    assert len(placed) == 1 and placed[0].unit == "b1" and placed[0].why == "regained"
    assert s.state.imp_states == {"b-imp1": "imp1"} and of_type(events, TurnEnded) == [TurnEnded(unit="b1")]
    assert not of_type(events, OrderDisrupted) and s.state.stack == [] and "a2" in s.state.hidden


def test_control_a_hidden_trooper_without_lof_may_only_stay_and_the_regain_succeeds():
    s, _ = declared(BLIND)
    assert not geo.line_of_fire(s.state.board, *BLIND, 4, 6)
    assert s.pending.kind == hd.REVEAL and s.pending.options == (hd.STAY,)  # the window all the same
    events = s.when(*hd.STAY)
    assert of_type(events, MarkerPlaced)[0].why == "regained" and s.state.imp_states == {"b-imp1": "imp1"}


def test_the_impersonators_side_sees_the_same_whether_or_not_the_hidden_trooper_has_lof():
    """The window is offered either way and shown as ``hd.SHOWN``: side b's frames (and a
    spectator's) of two games differing only in where a2 hides are byte-identical."""
    games = [declared(at)[0] for at in (SEES, BLIND)]
    for v in ("b", "spectator"):
        assert [pending(g.state, v).options for g in games] == [hd.SHOWN, hd.SHOWN]
        frames = [[encode_event(e) for e in viewed(g.log, v) if e is not None] for g in games]
        assert frames[0] == frames[1]
        assert not any(b"a2" in f for f in frames[0][1:])  # nothing names the hidden unit
    for g in games:
        g.when(*hd.STAY)
    for v in ("b", "spectator"):
        frames = [[encode_event(e) for e in viewed(g.log, v) if e is not None] for g in games]
        assert frames[0] == frames[1]
    assert [g.state.hidden["a2"].x for g in games] == [0, 7]  # the truths differ


def test_random_playouts_favouring_the_regain_end_hold_every_secret_and_take_both_branches():
    """The example's mission played at random (``("impersonate",)`` taken half the times it is
    offered), followed event by event by the real views: every game ends, nothing hidden leaks, and
    the regaining is both disrupted and carried out."""
    created = example(SEES).first
    seen = {"held": 0, "disrupted": 0, "regained": 0}
    for seed in range(150):
        f = Follow(created)
        dice, rng = LocalDice(seed), random.Random(seed)
        events, log = decide(f.truth.state, Start(), dice), []
        while events:
            f.apply(events)
            log += events
            p = f.truth.state.pending
            if p is None:
                break
            o = ("impersonate",) if ("impersonate",) in p.options and rng.random() < 0.5 else rng.choice(p.options)
            events = decide(f.truth.state, Choose(p.id, o, p.side), dice)
        assert f.truth.state.outcome is not None and not f.leaks, (seed, f.leaks)
        seen["held"] += sum(isinstance(e, ProcedureStarted) and isinstance(e.frame, RegainFrame) for e in log)
        seen["disrupted"] += len(of_type(log, OrderDisrupted))
        seen["regained"] += sum(e.why == "regained" for e in of_type(log, MarkerPlaced))
    assert seen["disrupted"] >= 1 and seen["regained"] >= 10
    assert seen["held"] == seen["disrupted"] + seen["regained"]  # every held Order ends one way or the other

"""The built-in bots value the capture module's options (seed 000) from their own view."""

from __future__ import annotations

from skirmish.bots import make_bot
from skirmish.bots import evaluate as ev
from skirmish.bots.policy import option_scores
from skirmish.engine import events as e
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.rules.capture.bots import d12_pass_odds
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created, parse_mission

from tests.engine.rules.scenario import Scenario, mission_text

UNITS = [("a1", "a", "snatcher", 1, 1), ("b1", "b", "grunt", 2, 1), ("b2", "b", "grunt", 6, 6)]
WALLED = "\n".join(["........"] * 4 + ["########"] + ["........"] * 3)  # b2 is out of sight
RULES = '\n[profiles.snatcher]\nkind = "hero"\ninsight = 11\nweapons = ["knife"]\n' \
    '\n[capture]\ncaptor = "a"\nexit = "north"\ncaptive_points = 2\nexit_points = 2\n'


def scene() -> Scenario:
    s = Scenario.__new__(Scenario)
    text = mission_text(UNITS, map=WALLED, extra=RULES, modules=("capture",))
    s.mission = parse_mission(text, "bot-capture")
    s.first = game_created("t", s.mission, "local", "")
    s.state = initial_state(s.first)
    s.log = [s.first]
    s.given(e.InjurySuffered(unit="b1", lethal=False, result="nonlethal"))
    return s.play_to_turn("a1")


def test_the_exact_d12_odds_of_one_success():
    assert d12_pass_odds(1, 12) == 1 / 12
    assert abs(d12_pass_odds(2, 16) - 45 / 144) < 1e-12  # 9 + 8 + ... + 1 pairs of 144


def test_the_static_policy_prefers_capturing_a_down_bogey_to_ending_the_turn():
    s = scene()
    scores = dict(zip(s.pending.options, option_scores(s.state, s.pending)))
    assert scores[("capture", "b1")] > scores[("end",)]


def test_a_capture_raises_the_captors_evaluation():
    s = scene()
    before = ev.evaluate(s.state, "a")
    assert ev.terms(s.state)["a"]["capture_near"] > 0  # the chance is already worth something
    s.given(cev.UnitCaptured(unit="b1", by="a1"))
    t = ev.terms(s.state)["a"]
    assert t["points"] == 1 + 2 and t["capture_near"] == 0 and abs(t["captive_risk"] - 3 / 12) < 1e-9  # engaged: a 12
    assert ev.evaluate(s.state, "a") > before


def test_greedy_captures_the_down_bogey_it_is_engaged_with():
    # Acuity 5 (Insight 11): 5d12 reach D(16) almost always, so the capture is worth its 2 points
    s = scene()
    bot = make_bot("greedy", 7)
    assert bot.choose(s.state, s.pending) == ("capture", "b1")

"""The holdout mission (the skills module's command and courage skills, issue 14): random, greedy
and mcts play it to the end, alone and with each other module on, and every game replays and
verifies; the command skills' events and decisions come up in play."""

from __future__ import annotations

import pytest

from skirmish.engine.events import OptionChosen
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.rules.skills.events import GutsTaken, LieutenantOrder, SkillRolled

from tests.engine.rules.skills.missions import bundled_with, play


def holdout_with(*others: str):
    return bundled_with("holdout", *others)


def test_holdout_uses_every_command_and_courage_skill():
    state = initial_state(game_created("t", holdout_with(), "local", ""))
    units = state.units.values()
    skills = {s for u in units for s in u.skills}
    assert {"lieutenant 1", "inspiring leadership", "morat", "religious troop", "v: courage", "veteran 2"} <= skills
    assert {u.side for u in units if "lieutenant 1" in u.skills} == {"a", "b"}  # one Lieutenant a side
    assert {u.side for u in units if u.training == "irregular"} == {"a", "b"}  # IL makes a's Regular


@pytest.mark.parametrize("others", [(), ("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")],
                         ids=lambda o: "+".join(o) or "alone")
def test_holdout_random_playouts_end_and_verify(others):
    for result, events, report in play(holdout_with(*others), ("random", "random"), range(3)):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok and report.finished and report.seed_verified, report.problem


def test_greedy_and_mcts_play_holdout_to_the_end_and_the_command_skills_come_up():
    seen, guts, chosen = set(), set(), set()
    for names in (("greedy", "random"), ("mcts:20", "greedy")):
        for result, events, report in play(holdout_with(), names, range(2)):
            assert result.outcome is not None
            assert report.ok and report.finished, report.problem
            seen |= {type(e) for e in events}
            guts |= {e.how for e in events if isinstance(e, GutsTaken)}
            chosen |= {e.option[0] for e in events if isinstance(e, OptionChosen)}
    assert {LieutenantOrder, GutsTaken, SkillRolled} <= seen
    assert "roll" in guts and guts & {"hold", "cover", "voluntary"}  # rolled, and a side chose

"""The uplink mission (the skills module's combat skills, issue 14): random, greedy and mcts play
it to the end, alone and with each other module on, and every game replays and verifies; the
combat skills' events and decisions come up in play."""

from __future__ import annotations

import pytest

from skirmish.engine.rules.skills.events import AmmunitionUsed, AttackModified

from tests.engine.rules.skills.missions import bundled_with, play


def uplink_with(*others: str):
    return bundled_with("uplink", *others)


@pytest.mark.parametrize("others", [(), ("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")],
                         ids=lambda o: "+".join(o) or "alone")
def test_uplink_random_playouts_end_and_verify(others):
    for result, events, report in play(uplink_with(*others), ("random", "random"), range(3)):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok and report.finished and report.seed_verified, report.problem


def test_greedy_and_mcts_play_uplink_to_the_end_and_the_combat_skills_come_up():
    seen = set()
    for names in (("greedy", "random"), ("mcts:20", "greedy")):
        for result, events, report in play(uplink_with(), names, range(2)):
            assert result.outcome is not None
            assert report.ok and report.finished, report.problem
            seen |= {type(e) for e in events}
    assert {AmmunitionUsed, AttackModified} <= seen

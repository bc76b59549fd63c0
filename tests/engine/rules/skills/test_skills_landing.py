"""The landing mission (the skills module's Deployment Skills, issue 14): random, greedy and mcts play
it to the end, alone and with each other module on, and every game replays and verifies; the
Deployment Skills' events and decisions come up in play."""

from __future__ import annotations

from collections import Counter

import pytest

from skirmish.engine.events import DecisionRequested, RoundStarted
from skirmish.engine.rules.skills.events import DeploymentEnded, MetaChemistryRolled, SkillRolled, UnitDeployed

from tests.engine.rules.skills.missions import bundled_with, play


def landing_with(*others: str):
    return bundled_with("landing", *others)


@pytest.mark.parametrize("others", [(), ("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")],
                         ids=lambda o: "+".join(o) or "alone")
def test_landing_random_playouts_deploy_every_unit_end_and_verify(others):
    for result, events, report in play(landing_with(*others), ("random", "random"), range(3)):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok and report.finished and report.seed_verified, report.problem
        kinds = [type(e) for e in events]
        assert kinds.index(DeploymentEnded) < kinds.index(RoundStarted)
        deployed = {e.unit for e in events if isinstance(e, UnitDeployed)}
        assert deployed == {"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}
        # b2 (Infiltrate L0) always rolls; b3 and b4 (MetaChemistry) are always asked
        assert any(isinstance(e, SkillRolled) and e.unit == "b2" and e.purpose == "infiltration" for e in events)
        assert {e.unit for e in events if isinstance(e, MetaChemistryRolled)} == {"b3", "b4"}


def test_greedy_and_mcts_play_landing_to_the_end_and_the_deployment_skills_come_up():
    kinds = Counter()
    for names in (("greedy", "random"), ("mcts:20", "greedy")):
        for result, events, report in play(landing_with(), names, range(2)):
            assert result.outcome is not None and report.ok and report.finished
            kinds.update(e.decision.kind for e in events if isinstance(e, DecisionRequested))
            kinds.update(f"row:{e.row}" for e in events if isinstance(e, MetaChemistryRolled))
    assert kinds["deploy"] >= 32 and kinds["metachemistry"] == 8  # b3 and b4 in each of the four games
    assert sum(n for k, n in kinds.items() if k.startswith("row:") and k != "row:") >= 1  # some rolled

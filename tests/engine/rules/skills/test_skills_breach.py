"""The breach mission (the skills module's reactions and movement skills, issue 14): random,
greedy and mcts play it to the end, alone and with each other module on, and every game replays
and verifies; the reactions, the Dodge, Multiterrain's choice and the gates come up in play."""

from __future__ import annotations

import pytest

from skirmish.engine.events import DecisionRequested, UnitMoved
from skirmish.engine.rules.skills.events import ReactionDeclared, TerrainChosen
from skirmish.server.missions import bundled

from tests.engine.rules.skills.missions import bundled_with, play


def breach_with(*others: str):
    return bundled_with("breach", *others)


def test_breach_is_bundled_with_gates_terrain_and_every_skill_of_the_brief():
    m = bundled()["breach"]
    assert m.modules == ("skills",) and {"n", "w", "~", "%"} <= set(m.board.cells)
    skills = {s.split()[0] for u in m.units for s in u.skills}
    assert {"heavyweight", "multiterrain", "kinematika", "dodge", "engage", "change"} <= skills


@pytest.mark.parametrize("others", [(), ("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")],
                         ids=lambda o: "+".join(o) or "alone")
def test_breach_random_playouts_end_and_verify(others):
    for result, events, report in play(breach_with(*others), ("random", "random"), range(3)):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok and report.finished and report.seed_verified, report.problem


def test_greedy_and_mcts_play_breach_to_the_end_and_the_reactions_come_up():
    seen, kinds = set(), set()
    heavy_cells = []
    for names in (("greedy", "random"), ("mcts:20", "greedy")):
        for result, events, report in play(breach_with(), names, range(2)):
            assert result.outcome is not None
            assert report.ok and report.finished, report.problem
            seen |= {type(e) for e in events}
            kinds |= {e.decision.kind for e in events if isinstance(e, DecisionRequested)}
            heavy_cells += [(e.x, e.y) for e in events if isinstance(e, UnitMoved) and e.unit in ("a2", "b2")]
    assert {ReactionDeclared, TerrainChosen} <= seen
    assert {"react", "terrain", "deploy"} <= kinds
    assert (3, 6) not in heavy_cells and (6, 6) not in heavy_cells  # the TAGs never stop in a gate

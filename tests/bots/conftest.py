"""Fixtures for the bot tests (no ``__init__.py`` in this folder: it would shadow the real ``bots``).

Helpers live in ``bot_helpers.py``; positions are built with the rule tests' ``Scenario``.
"""

from __future__ import annotations

import pytest

from skirmish.engine.model import Decision, State
from skirmish.server import missions

from tests.bots.bot_helpers import sample_decisions


@pytest.fixture(scope="session")
def decisions_by_kind() -> dict[str, list[tuple[State, Decision]]]:
    """A few decisions of every kind, from random playouts of every bundled mission."""
    by_kind: dict[str, list] = {}
    for mission_id in sorted(missions.bundled()):
        for kind, items in sample_decisions(mission_id, 20, 2).items():
            by_kind.setdefault(kind, []).extend(items)
    return by_kind

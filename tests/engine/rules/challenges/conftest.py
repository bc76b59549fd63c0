"""Fixtures of the challenges module's tests; the mission they play is in ``setting.py``."""

from __future__ import annotations

import pytest

from tests.engine.rules.challenges.setting import CScenario


@pytest.fixture
def scenario():
    return CScenario

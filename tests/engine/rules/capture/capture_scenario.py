"""Capture scenarios: the rules tests' small mission with the capture module on."""

from __future__ import annotations

from tests.engine.rules.scenario import OPEN_MAP, Scenario

# Extra profiles: a weak character (Fight 1 x Mobility 1: FxM 1) and a fast one (Mobility 5).
PROFILES = """
[profiles.rookie]
kind = "hero"
daring = 7
fitness = 7
weapons = ["knife"]

[profiles.runner]
kind = "hero"
daring = 10
fitness = 11
insight = 10
security = 2
weapons = ["knife"]
"""


def capture_scenario(units, capture: str = 'captor = "a"', map: str = OPEN_MAP, rounds: int = 3) -> Scenario:
    """A Scenario of ``units`` with ``modules = ["capture"]`` and the ``[capture]`` table given."""
    extra = PROFILES + ("\n[capture]\n" + capture + "\n" if capture else "")
    return Scenario(units, map, rounds, extra=extra, modules=("capture",))

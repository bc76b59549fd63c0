"""Golden option counts for the challenges module's mission, as ``tests/engine/rules/test_golden.py``
keeps them for the core's (regenerate with ``python tests/engine/rules/challenges/test_golden_knives.py``;
a deliberate change says why in its commit)."""

from __future__ import annotations

import pytest

from tests.engine.rules.test_golden import position

GOLDEN = [
    ("knives", 1, 22, ("act", 43, {"aim": 1, "assist": 3, "attack": 2, "create": 1, "create_advantage": 1, "direct": 4, "end": 1, "guard": 1, "move": 24, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("knives", 3, 33, ("prerogative", 3, {"accept": 1, "card": 2})),
    ("knives", 20, 108, ("respond", 5, {"accept": 1, "card": 3, "fate": 1})),
    ("knives", 2, 16, ("threshold", 4, {"accept": 1, "card": 2, "fate": 1})),
    ("knives", 1, 1, ("activate", 5, {"unit": 5})),
]


@pytest.mark.parametrize("mission, seed, steps, expected", GOLDEN, ids=lambda v: str(v) if not isinstance(v, tuple) else v[0])
def test_golden_option_counts(mission, seed, steps, expected):
    assert position(mission, seed, steps) == expected


if __name__ == "__main__":
    for mission, seed, steps, _ in GOLDEN:
        print(f"    ({mission!r}, {seed}, {steps}, {position(mission, seed, steps)!r}),")

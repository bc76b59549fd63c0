"""Golden option counts for the challenges module's mission, as ``tests/engine/rules/test_golden.py``
keeps them for the core's (regenerate with ``python tests/engine/rules/challenges/test_golden_knives.py``;
a deliberate change says why in its commit)."""

from __future__ import annotations

import pytest

from tests.engine.rules.test_golden import position

GOLDEN = [
    ("knives", 1, 22, ("act", 43, {"aim": 1, "assist": 3, "attack": 2, "create": 1, "create_advantage": 1, "direct": 4, "end": 1, "guard": 1, "move": 24, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    # issue 12 #35: the salt grew from 4 to 8 d65536, so every later roll of a seed changed and the
    # positions of a prerogative, a respond and a threshold decision moved (their options did not)
    ("knives", 8, 97, ("prerogative", 5, {"accept": 1, "card": 3, "fate": 1})),
    ("knives", 8, 98, ("respond", 6, {"accept": 1, "card": 4, "fate": 1})),
    ("knives", 1, 191, ("threshold", 5, {"accept": 1, "card": 3, "fate": 1})),
    ("knives", 1, 1, ("activate", 5, {"unit": 5})),
]


@pytest.mark.parametrize("mission, seed, steps, expected", GOLDEN, ids=lambda v: str(v) if not isinstance(v, tuple) else v[0])
def test_golden_option_counts(mission, seed, steps, expected):
    assert position(mission, seed, steps) == expected


if __name__ == "__main__":
    for mission, seed, steps, _ in GOLDEN:
        print(f"    ({mission!r}, {seed}, {steps}, {position(mission, seed, steps)!r}),")

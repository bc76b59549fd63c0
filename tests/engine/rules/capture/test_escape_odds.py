"""The escape odds of a captured bogey over many games with real seeded dice.

seed 000: 1, 2 or 3 d12 for a Grunt, an Elite or a Boss; any 10+ escapes, or only a 12 while
engaged with a character. So the chance is 1 - (9/12)^k, and 1 - (11/12)^k while engaged. Each
trial activates the captive through ``decide`` with ``LocalDice`` (one seeded stream for the whole
series), and counts the ``CaptiveEscaped`` events the rules emit.
"""

from __future__ import annotations

import math

import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.commands import Choose
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice

from tests.engine.rules.capture.capture_scenario import capture_scenario

TRIALS = 6000
SIGMAS = 4.5  # a true rate lands this far out about once in 150,000 runs


def activation_point(tier: str, engaged: bool):
    x, y = (2, 1) if engaged else (5, 5)
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("b1", "b", tier, x, y), ("b2", "b", "grunt", 7, 7)])
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal"), cev.UnitCaptured(unit="b1", by="a1"))
    s.start()
    s.when("first", "b")
    assert ("unit", "b1") in s.pending.options
    return s.state


@pytest.mark.parametrize("tier, k", [("grunt", 1), ("elite", 2), ("boss", 3)])
@pytest.mark.parametrize("engaged", [False, True])
def test_a_captured_bogeys_escape_rate_matches_the_seed(tier, k, engaged):
    state = activation_point(tier, engaged)
    dice = LocalDice(seed=1000 + k + 10 * engaged)
    choose = Choose(state.pending.id, ("unit", "b1"), "b")
    escapes = 0
    for _ in range(TRIALS):
        events = decide(state, choose, dice)
        escapes += any(type(e) is cev.CaptiveEscaped for e in events)
    keep = (11 if engaged else 9) / 12
    expected = 1 - keep ** k
    tolerance = SIGMAS * math.sqrt(expected * (1 - expected) / TRIALS)
    # the tolerance is tight enough to tell the seed's odds from one face more or fewer
    for wrong_keep in (keep - 1 / 12, keep + 1 / 12):
        assert abs((1 - wrong_keep ** k) - expected) > 2 * tolerance
    rate = escapes / TRIALS
    assert abs(rate - expected) <= tolerance, (tier, engaged, rate, expected)

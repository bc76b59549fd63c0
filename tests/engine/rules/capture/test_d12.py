"""seed 000's tests, N d12 against D(n), as RULES-BRIEF "Dice, by module" maps them."""

from __future__ import annotations

import itertools

import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.rules.capture.dice import fxm, group_successes

from tests.engine.rules.capture.capture_scenario import capture_scenario
from tests.engine.rules.scenario import of_type


def test_the_designers_example_against_d20_is_one_success():
    # given 3, 7, 8, 8, 12 against D(20): 38 in all, so two groups of 20 are impossible
    groups = group_successes((3, 7, 8, 8, 12), 20)
    assert len(groups) == 1 and sum(groups[0]) >= 20
    assert groups == ((12, 8),)  # the fewest dice that reach it


def test_the_designers_example_against_d5_is_four_successes():
    groups = group_successes((3, 7, 8, 8, 12), 5)
    assert groups == ((12,), (8,), (8,), (7,))  # the 3 reaches 5 with nothing left to join


def test_the_grouping_is_the_largest_number_of_disjoint_groups():
    # a greedy pairing of big with big (12+12, 1+1+1+...) finds fewer than the best (12+1, 12+1)
    assert len(group_successes((12, 12, 1, 1), 13)) == 2
    assert group_successes((6, 6, 6, 6, 4, 4), 12) == ((6, 6), (6, 6))
    assert group_successes((1, 1, 1), 5) == ()


def _brute(results, n):
    """Every assignment of each die to a group or to none: the most groups that reach n."""
    best = 0
    k = len(results)
    for labels in itertools.product(range(k + 1), repeat=k):  # label 0: unused
        totals = {}
        for r, g in zip(results, labels):
            if g:
                totals[g] = totals.get(g, 0) + r
        best = max(best, sum(1 for t in totals.values() if t >= n))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_the_grouping_matches_a_brute_force_search(seed):
    import random

    rng = random.Random(seed)
    results = tuple(rng.randint(1, 12) for _ in range(rng.randint(1, 5)))
    n = rng.choice((5, 8, 12, 13, 16, 20))
    groups = group_successes(results, n)
    assert len(groups) == _brute(results, n)
    assert all(sum(g) >= n for g in groups)
    used = sorted(d for g in groups for d in g)
    pool = sorted(results)
    for d in used:
        pool.remove(d)  # the groups are disjoint and made of the rolled dice


def test_fxm_is_fight_times_mobility_from_the_attributes():
    s = capture_scenario([("a1", "a", "hero", 1, 1), ("b1", "b", "runner", 5, 5)])
    # hero: Daring 10 -> Fight 4, Fitness 9 -> Mobility 3; runner: Daring 10, Fitness 11 -> 4 x 5
    assert fxm(s.unit("a1")) == 12 and fxm(s.unit("b1")) == 20


def test_the_roll_event_is_followed_by_the_grouping():
    s = capture_scenario([("a1", "a", "runner", 1, 1), ("b1", "b", "grunt", 2, 1), ("b2", "b", "grunt", 6, 6)])
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal")).play_to_turn("a1")
    # given the runner's Acuity (Insight 10: 4 dice) when it captures against D(16)
    events = s.when("capture", "b1", dice=(12, 8, 8, 7))
    roll = of_type(events, ev.DiceRolled)[0]
    test = of_type(events, cev.D12Tested)[0]
    assert (roll.sides, roll.results, roll.target, roll.purpose) == (12, (12, 8, 8, 7), 16, "capture:capture")
    assert events.index(test) == events.index(roll) + 1
    assert test == cev.D12Tested(unit="a1", test="capture", nonce=roll.nonce, difficulty=16,
                                groups=((12, 7), (8, 8)), successes=2, needed=1, passed=True)


def test_a_profile_may_give_the_d12_stats_itself():
    from skirmish.engine.errors import MissionError

    given = '\n[profiles.tracker]\nkind = "hero"\nmobility = 6\nfight = 2\nacuity = 5\nweapons = ["knife"]\n'
    units = [("a1", "a", "tracker", 1, 1), ("b1", "b", "grunt", 2, 1), ("b2", "b", "grunt", 6, 6)]
    s = capture_scenario(units, capture='captor = "a"\n' + given.replace("[profiles", "\n[profiles"))
    a1 = s.unit("a1")
    assert (a1.mobility, a1.fight, a1.acuity, fxm(a1)) == (6, 2, 5, 12)  # not the Attributes' 2, 2, 2
    s.given(ev.InjurySuffered(unit="b1", lethal=False, result="nonlethal")).play_to_turn("a1")
    events = s.when("capture", "b1", dice=(1, 1, 1, 1, 1))
    assert len(of_type(events, ev.DiceRolled)[0].results) == 5  # Acuity 5: five d12
    with pytest.raises(MissionError, match="profiles.tracker.acuity"):
        capture_scenario(units, capture='captor = "a"\n' + given.replace("acuity = 5", "acuity = 7"))

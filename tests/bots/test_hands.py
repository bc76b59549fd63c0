"""``skirmish.engine.rules.challenges.sampler``: the determinization sampler of the challenges module (seed 002)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from skirmish.engine.rules.challenges.sampler import sample_hands
from skirmish.bots.simulate import clone

from tests.bots.bot_helpers import SideViews


def _midgame(seed: int, steps: int) -> SideViews:
    sv = SideViews("knives", seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if sv.over:
            break
        sv.play(rng.choice(sv.state.pending.options))
    return sv


@pytest.mark.parametrize("seed", range(4))
def test_the_sampled_hand_and_deck_are_the_true_cards_dealt_anew(seed):
    sv = _midgame(seed, 150)
    truth = sv.state
    for side, opp in (("a", "b"), ("b", "a")):
        view = sv.views[side]
        hands = Counter()
        for k in range(40):
            world = clone(view)
            sample_hands(world, side, random.Random(k))
            # b cannot tell where each unseen card is, but the cards are exactly a's
            assert Counter(world.hands[opp] + world.decks[opp]) == Counter(truth.hands[opp] + truth.decks[opp])
            assert len(world.hands[opp]) == len(truth.hands[opp])
            assert world.hands[side] == view.hands[side] == truth.hands[side]
            hands[tuple(sorted(world.hands[opp]))] += 1
        if truth.hands[opp] and truth.decks[opp]:
            assert len(hands) > 1  # different deals: it samples


def test_a_game_without_the_module_is_left_as_it_is():
    sv = SideViews("ridge", 1)
    world = clone(sv.views["a"])
    sample_hands(world, "a", random.Random(1))
    assert world == sv.views["a"]

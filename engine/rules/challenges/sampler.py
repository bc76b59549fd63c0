"""The challenges module's determinization sampler (seed 002; ``skirmish.bots.determinize``): the opponent's
hand and both decks.

What a side's view shows of the tactic cards (``skirmish.engine.rules.challenges.hidden``): its own hand
and deck; of the other side only how many cards it holds and has left (each a ``Hidden``), plus
every card it has played or created (public when it happens). The sampler deals the unseen
cards -- the other side's deck list and created cards, less those played and those its hand
shows -- uniformly at random into its hidden hand slots and its deck, which stays sorted, as
the engine keeps it. The salt that guards the Checkpoint hashes is a ``Hidden`` and stays
so: no rule reads it. A spectator's view would need both hands sampled; bots play a side.
"""

from __future__ import annotations

import random
from collections import Counter

from skirmish.engine.base import Hidden
from skirmish.engine.model import SIDES, Side, State


def unseen(state: State, side: Side) -> list[str]:
    """The cards of ``side`` whose place (hand or deck) its opponent cannot see, sorted."""
    pool = Counter(state.challenges.decks.get(side, ())) + Counter(state.created.get(side, ()))
    pool -= Counter(state.played.get(side, ()))
    pool -= Counter(c for c in state.hands.get(side, ()) if not isinstance(c, Hidden))
    return sorted(pool.elements())


def sample_hands(state: State, side: Side, rng: random.Random) -> None:
    if state.challenges is None:
        return
    for owner in SIDES:
        if owner == side:
            continue
        hand = state.hands.get(owner, [])
        deck = state.decks.get(owner, [])
        hidden_hand = sum(1 for c in hand if isinstance(c, Hidden))
        if not hidden_hand and not any(isinstance(c, Hidden) for c in deck):
            continue
        cards = unseen(state, owner)
        rng.shuffle(cards)
        if len(cards) != hidden_hand + len(deck):
            raise ValueError(f"the view of side {owner}'s cards does not add up: {len(cards)} unseen, "
                             f"{hidden_hand} in hand, {len(deck)} in deck")
        it = iter(cards[:hidden_hand])
        state.hands[owner] = [next(it) if isinstance(c, Hidden) else c for c in hand]
        state.decks[owner] = sorted(cards[hidden_hand:])


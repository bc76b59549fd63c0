"""Tactic cards (seed 002): a hidden hand per side, drawn from the deck its mission gives it.

There is no deck order to keep secret: the deck is the multiset of cards left (kept sorted), and
each draw is one provably fair roll over the cards left ("challenges:draw"), so every draw can
be recomputed from the revealed seed after the game. Until then the draw's roll and card are
redacted for everyone but the drawing side (``skirmish.engine.rules.challenges.hidden``).
"""

from __future__ import annotations

from skirmish.engine.base import Hidden
from skirmish.engine.model import SIDES, Side
from skirmish.engine.rules.challenges.events import CardDrawn
from skirmish.engine.rules.context import Context

DRAW = "challenges:draw"


def draw(ctx: Context, side: Side, count: int) -> None:
    s = ctx.state
    limit = s.challenges.hand_limit
    for _ in range(count):
        deck = s.decks[side]
        if not deck or len(s.hands[side]) >= limit:
            return
        index = 0 if len(deck) == 1 else ctx.roll(len(deck), 1, DRAW, unit=side)[0] - 1
        ctx.emit(CardDrawn(side=side, card=deck[index]))


def deal(ctx: Context) -> None:
    """The opening hands."""
    for side in SIDES:
        draw(ctx, side, ctx.state.challenges.hand)


def playable(hand: list) -> list[str]:
    """The distinct cards of a hand, sorted: every card held is offered, useful or not, so the
    options say nothing about the hand that its size does not. (In a view, a card the viewer
    cannot name is a ``Hidden``: a search from the view cannot play it.)"""
    return sorted({c for c in hand if not isinstance(c, Hidden)})

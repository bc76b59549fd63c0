"""What the challenges module hides, and from whom (DESIGN.md section 5; ``skirmish.engine.view``).

Until the game is over (the viewer ``"all"``, which ``skirmish.engine.view`` never redacts), each
as an explicit ``Hidden`` (``skirmish.engine.base``):

- ``CardDrawn``: the card, for everyone but the drawing side (``Hidden("card")``);
- ``DiceRolled`` "challenges:draw": the roll that picked the card (it would name it), likewise
  (``results`` a ``Hidden("roll")``);
- ``SaltDrawn`` and its roll: for everyone (``Hidden("salt")``, ``Hidden("roll")``; the salt keeps
  a ``Checkpoint``'s state hash from being searched for the hands: without it, the few hands a
  side could hold would be hashed one by one until one matched);
- ``DecisionRequested`` of a challenge decision: the other side and spectators see its card
  options as one ``("card", Hidden("card"))`` (that it holds a card, which its hand size says anyway);
- ``OptionChosen``: a card chosen shows as ``("card", Hidden("card"))``; the ``CardPlayed`` that
  follows reveals the card, as playing it does.

A viewer's state folds these as they are: a ``Hidden`` in the other side's hand for each card it
cannot name, and that side's deck as ``Hidden``s once it has drawn (``sampler`` deals them back
for a search). Everything else of the module is public: fate, Action Points, facilities, stealth,
the dice of a challenge, the cards played and created, each hand's size. ``secrets`` declares
the same, from the full state, for ``tests/engine/test_views_hide_secrets.py``.
"""

from __future__ import annotations

from collections import Counter

import msgspec

from skirmish.engine.base import Hidden
from skirmish.engine.events import DecisionRequested, DiceRolled, OptionChosen
from skirmish.engine.model import SIDES
from skirmish.engine.rules.challenges.cards import DRAW
from skirmish.engine.rules.challenges.events import CardDrawn, SaltDrawn
from skirmish.engine.rules.challenges.procedure import KINDS
from skirmish.engine.rules.registry import ROLLS, Secret

SALT = "challenges:salt"
CARD = Hidden("card")
HIDDEN_CARD = ("card", CARD)
ROLL = Hidden("roll")


def dice_rolled(state, e: DiceRolled, viewer: str):
    if e.purpose == SALT or (e.purpose == DRAW and e.unit != viewer):
        return msgspec.structs.replace(e, results=ROLL)
    return e


def salt_drawn(state, e: SaltDrawn, viewer: str):
    return msgspec.structs.replace(e, salt=Hidden("salt"))


def card_drawn(state, e: CardDrawn, viewer: str):
    return e if e.side == viewer else msgspec.structs.replace(e, card=CARD)


def decision_requested(state, e: DecisionRequested, viewer: str):
    d = e.decision
    if d.kind not in KINDS or d.side == viewer:
        return e
    opts = []
    for o in d.options:
        o = HIDDEN_CARD if o[0] == "card" else o
        if o not in opts:
            opts.append(o)
    return msgspec.structs.replace(e, decision=msgspec.structs.replace(d, options=tuple(opts)))


def option_chosen(state, e: OptionChosen, viewer: str):
    if e.side != viewer and e.option and e.option[0] == "card":
        return msgspec.structs.replace(e, option=HIDDEN_CARD)
    return e


REDACTIONS = {DiceRolled: dice_rolled, SaltDrawn: salt_drawn, CardDrawn: card_drawn,
              DecisionRequested: decision_requested, OptionChosen: option_chosen}


def secrets(state, viewer: str):
    """What ``viewer`` may not know of the cards: the other side's hand but the cards it created
    and still holds (public), its deck once it has drawn from it, the dice of its draws; the
    salt and its dice, for everyone."""
    if state.challenges is None:
        return
    for side in SIDES:
        if side == viewer:
            continue
        public = Counter(state.created.get(side, ())) - Counter(state.played.get(side, ()))
        hand = Counter(state.hands.get(side, ())) - public
        yield Secret(f"side {side}'s hand", ("hands", side), tuple(sorted(hand.elements())))
        if len(state.decks.get(side, ())) < len(state.challenges.decks.get(side, ())):
            yield Secret(f"side {side}'s deck", ("decks", side))
        yield Secret(f"the draws of side {side}", (ROLLS, DRAW, side))
    yield Secret("the salt", ("salt",))
    yield Secret("the salt's dice", (ROLLS, SALT, ""))

"""What the challenges module hides, and from whom (DESIGN.md section 5; ``skirmish.engine.view``).

Until the game is over (the viewer ``"all"``, which ``skirmish.engine.view`` never redacts):

- ``CardDrawn``: the card, for everyone but the drawing side;
- ``DiceRolled`` "challenges:draw": the roll that picked the card (it would name it), likewise;
- ``SaltDrawn`` and its roll: for everyone (the salt keeps a ``Checkpoint``'s state hash from
  being searched for the hands: without it, the few hands a side could hold would be hashed
  one by one until one matched);
- ``DecisionRequested`` of a challenge decision: the other side and spectators see its card
  options as one ``("card", "")`` (that it holds a card, which its hand size says anyway);
- ``OptionChosen``: a card chosen shows as ``("card", "")``; the ``CardPlayed`` that follows
  reveals the card, as playing it does.

Everything else of the module is public: fate, Action Points, facilities, stealth, the dice of a
challenge, the cards played and created, each hand's size.
"""

from __future__ import annotations

import msgspec

from skirmish.engine.events import CardDrawn, DecisionRequested, DiceRolled, OptionChosen, SaltDrawn
from skirmish.engine.rules.challenges.cards import DRAW
from skirmish.engine.rules.challenges.procedure import KINDS

SALT = "challenges:salt"
HIDDEN_CARD = ("card", "")


def dice_rolled(state, e: DiceRolled, viewer: str):
    if e.purpose == SALT or (e.purpose == DRAW and e.unit != viewer):
        return msgspec.structs.replace(e, results=())
    return e


def salt_drawn(state, e: SaltDrawn, viewer: str):
    return msgspec.structs.replace(e, salt=())


def card_drawn(state, e: CardDrawn, viewer: str):
    return e if e.side == viewer else msgspec.structs.replace(e, card="")


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

"""What a viewer may receive of the challenges module's hidden cards, checked event by event.

``leaks(event, viewer, truth)`` lists what ``event`` (as ``viewer`` received it, before the game
ended) reveals of the cards hidden from ``viewer``: a card drawn by another side, the roll that
drew it, the salt, a card option of another side's decision or choice. ``truth`` is the true
state *after* the event, so a card that another side holds then can be named: its name showing
up anywhere in the received event (but for a ``CardPlayed``/``CardCreated``, which are public,
and ``GameCreated``, which lists the decks) counts as a leak as well, unless that name is also
known to the viewer another way (its own hand, a public card list), which the check accounts for.
"""

from __future__ import annotations

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.rules.challenges import events as cev

_enc = msgspec.json.Encoder()


def leaks(event, viewer: str) -> list[str]:
    out = []
    if isinstance(event, cev.CardDrawn) and event.side != viewer and not isinstance(event.card, Hidden):
        out.append(f"card drawn by {event.side}: {event.card}")
    if isinstance(event, ev.DiceRolled):
        if event.purpose == "challenges:salt" and not isinstance(event.results, Hidden):
            out.append("salt roll")
        if event.purpose == "challenges:draw" and event.unit != viewer and not isinstance(event.results, Hidden):
            out.append(f"draw roll of {event.unit}")
    if isinstance(event, cev.SaltDrawn) and not isinstance(event.salt, Hidden):
        out.append("salt")
    if isinstance(event, ev.DecisionRequested) and event.decision.side != viewer:
        named = [o for o in event.decision.options if o[0] == "card" and not isinstance(o[1], Hidden)]
        if named:
            out.append(f"card options of {event.decision.side}: {named}")
    if isinstance(event, ev.OptionChosen) and event.side != viewer and event.option[0] == "card" \
            and not isinstance(event.option[1], Hidden):
        out.append(f"card chosen by {event.side} before it is played")
    return out


def hidden_cards_of_others(state, viewer: str) -> dict[str, list[str]]:
    """The true hands and decks a viewer may not see."""
    return {side: sorted(state.hands[side]) + sorted(state.decks[side])
            for side in ("a", "b") if side != viewer}


def view_knows_nothing_hidden(view_state, viewer: str) -> list[str]:
    """A viewer's reduced state: every card of another side's hand is a Hidden unless that side
    created it (public), and another side's deck is all Hidden once it has drawn."""
    out = []
    for side in ("a", "b"):
        if side == viewer:
            continue
        created = list(view_state.created.get(side, ()))
        for c in view_state.hands.get(side, ()):
            if not isinstance(c, Hidden):
                if c in created:
                    created.remove(c)
                else:
                    out.append(f"{viewer}'s view shows {side}'s card {c}")
        if view_state.hands.get(side) and any(not isinstance(c, Hidden) for c in view_state.decks.get(side, ())):
            out.append(f"{viewer}'s view shows {side}'s deck {view_state.decks[side]}")
    return out

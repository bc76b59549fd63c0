"""The challenges module's evolve handlers (seed 002): ``skirmish.engine.evolve`` applies its events with
them, and starts its state fields from ``GameCreated.challenges`` with ``initial``."""

from __future__ import annotations

from typing import Callable

import msgspec

from skirmish.engine.base import Hidden
from skirmish.engine.base import unit_of as _unit
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import SIDES, State
from skirmish.engine.rules.challenges import events as cev


def initial(state: State, created) -> None:
    """The mission's data (``GameCreated.challenges``), when the module is on: the facilities on the
    board, each side's deck, empty hands, no cards played or created, no Action Points yet."""
    setup = created.challenges
    if setup is None:
        return
    state.challenges = setup
    state.facilities = {f.id: msgspec.structs.replace(f) for f in setup.facilities}  # events stay immutable
    state.decks = {side: list(setup.decks.get(side, ())) for side in SIDES}
    state.hands = {side: [] for side in SIDES}
    state.played = {side: [] for side in SIDES}
    state.created = {side: [] for side in SIDES}
    state.action_points = {side: 0 for side in SIDES}


def _challenge_sides(s: State, side: str) -> None:
    if s.challenges is None:
        raise InvalidEvent("the challenges module is not on in this game")
    if side not in SIDES:
        raise InvalidEvent(f"no side {side!r}")


def _salt_drawn(s: State, e: cev.SaltDrawn) -> None:
    s.salt = e.salt if isinstance(e.salt, Hidden) else tuple(e.salt)


def _action_points_changed(s: State, e: cev.ActionPointsChanged) -> None:
    _challenge_sides(s, e.side)
    value = s.action_points[e.side] + e.delta
    if value < 0:
        raise InvalidEvent(f"side {e.side} would have {value} Action Points")
    s.action_points[e.side] = value


def _card_drawn(s: State, e: cev.CardDrawn) -> None:
    _challenge_sides(s, e.side)
    deck = s.decks[e.side]
    if isinstance(e.card, Hidden) and deck:  # a viewer's: which card left the deck is unknown to it
        s.decks[e.side] = [e.card] * (len(deck) - 1)
    elif e.card in deck:
        deck.remove(e.card)
    else:
        raise InvalidEvent(f"side {e.side}'s deck holds no card {e.card!r}")
    s.hands[e.side].append(e.card)


def _card_played(s: State, e: cev.CardPlayed) -> None:
    _challenge_sides(s, e.side)
    hand = s.hands[e.side]
    if e.card in hand:
        hand.remove(e.card)
    elif (hidden := next((c for c in hand if isinstance(c, Hidden)), None)) is not None:
        hand.remove(hidden)  # a card this viewer had not seen until now
    else:
        raise InvalidEvent(f"side {e.side} holds no card {e.card!r}")
    s.played[e.side].append(e.card)


def _card_created(s: State, e: cev.CardCreated) -> None:
    _challenge_sides(s, e.side)
    if s.challenges is not None and e.card not in s.challenges.cards:
        raise InvalidEvent(f"no card {e.card!r} in this game")
    s.hands[e.side].append(e.card)
    s.created[e.side].append(e.card)


def _fate_changed(s: State, e: cev.FateChanged) -> None:
    u = _unit(s, e.unit)
    if u.fate + e.delta < 0:
        raise InvalidEvent(f"{e.unit} has only {u.fate} fate")
    u.fate += e.delta


def _challenge_resolved(s: State, e: cev.ChallengeResolved) -> None:
    pass  # its effects follow as their own events


def _facility(s: State, fid: str):
    f = s.facilities.get(fid)
    if f is None or f.destroyed:
        raise InvalidEvent(f"no facility {fid!r} standing in game {s.game_id}")
    return f


def _facility_damaged(s: State, e: cev.FacilityDamaged) -> None:
    _facility(s, e.facility).damage += e.amount


def _facility_destroyed(s: State, e: cev.FacilityDestroyed) -> None:
    _facility(s, e.facility).destroyed = True


def _stealth_changed(s: State, e: cev.StealthChanged) -> None:
    _unit(s, e.unit).stealthed = e.stealthed


HANDLERS: dict[type, Callable[[State, cev.Event], None]] = {
    cev.SaltDrawn: _salt_drawn,
    cev.ActionPointsChanged: _action_points_changed,
    cev.CardDrawn: _card_drawn,
    cev.CardPlayed: _card_played,
    cev.CardCreated: _card_created,
    cev.FateChanged: _fate_changed,
    cev.ChallengeResolved: _challenge_resolved,
    cev.FacilityDamaged: _facility_damaged,
    cev.FacilityDestroyed: _facility_destroyed,
    cev.StealthChanged: _stealth_changed,
}

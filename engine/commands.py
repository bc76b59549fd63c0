"""Commands: what a seat asks the game to do. Imperative names; small, typed values.

``side`` is the seat the command comes from; the server fills it in from the seat token, so
nobody can act for a seat they do not hold.
"""

from __future__ import annotations

from typing import Union

import msgspec

from skirmish.engine.model import Option


class Command(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    pass


class Start(Command):
    """Begin play once the seats are filled."""


class Choose(Command):
    """Answer the pending decision ``decision_id`` with one of its options."""

    decision_id: int
    option: Option
    side: str
    timeout: bool = False  # played by the server for a seat whose clock ran out (never from a client)


class Resign(Command):
    side: str
    reason: str = ""  # "" for a player's resignation; the server's forfeits say why ("forfeit: 3 time-outs")


class Cancel(Command):
    """End a game that has not started (nobody joined it): ``reason`` "cancelled" by the player
    holding ``seat``, or "expired" (the server, when nobody joined in time; ``seat`` "")."""

    reason: str = "cancelled"
    seat: str = ""


class OfferDraw(Command):
    """``side`` offers a draw, or, when the other side's offer stands (``State.draw_offer``),
    accepts it: the game ends drawn. An offer lapses when the other side answers a decision
    instead (playing on declines it)."""

    side: str


CANCEL_REASONS = ("cancelled", "expired")

AnyCommand = Union[Start, Choose, Resign, Cancel, OfferDraw]

"""What a game's stored events say, for the lobby and its actors: who forfeited, which seat a
request took, each seat's time-outs, and under which command id a request is stored."""

from __future__ import annotations

from skirmish.engine.events import ClientSeedAdded, Event, OptionChosen, Resigned, SeatTaken
from skirmish.protocol.errors import ProtocolError

SEATS = ("a", "b")


def forfeit_of(events) -> str:
    """The seat that forfeited on time, if these events hold its forfeit."""
    for e in events:
        if isinstance(e, Resigned) and e.reason.startswith("forfeit"):
            return e.side
    return ""


def request_key(request_id: str) -> str | None:
    """The command id under which a seat-taking request (or a creation) is stored; None for none."""
    return f"request:{request_id}" if request_id else None


def seat_of_request(events, request_id: str, requested: str, client_seed: str, game_id: str) -> str:
    """The seat the events a request stored took, checked against what its retry asks for."""
    taken = next((e.seat for e in events if isinstance(e, SeatTaken)), "")
    seeds = [e.seed for e in events if isinstance(e, ClientSeedAdded) and e.seat == taken]
    if not taken or requested not in ("any", taken) or (seeds[0] if seeds else "") != client_seed:
        raise ProtocolError("protocol.invalid_field",
                            f"request_id {request_id!r} was used for another request in game {game_id} "
                            "(another seat or client seed); send a fresh request_id with each new request")
    return taken


def timeouts_in(events: list[Event]) -> dict[str, int]:
    """Each seat's time-outs so far, counted from the log."""
    counts = {seat: 0 for seat in SEATS}
    for e in events:
        if isinstance(e, OptionChosen) and e.timeout:
            counts[e.side] = counts.get(e.side, 0) + 1
    return counts

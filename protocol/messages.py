"""Wire messages, version 1. Every message is a map with a ``type`` field.

Client -> server messages carry an ``id`` (a number the client chooses); the server's reply to
it (or the ``error``) carries the same ``id``. Server -> client pushes (``event``,
``decision``, ``game_over``; ``updates`` for a client that said ``batch``) carry no ``id``.
Field by field, with examples: ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Annotated, Union

import msgspec

from engine.events import AnyEvent
from engine.model import Decision, Option, Outcome

PROTOCOL_VERSION = 1

# A seq a client names (``resume.last_seq``, ``spectate.after_seq``): negative or past 64 bits is
# ``protocol.invalid_field`` when it decodes; past the game's last event, ``lobby.seq_out_of_range``.
Seq = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]


class Msg(msgspec.Struct, tag_field="type", forbid_unknown_fields=False):
    pass


# -- client -> server --------------------------------------------------------------------------


class Hello(Msg, tag="hello"):
    """``batch``: receive each step's pushes as one ``updates`` message (see ``Updates``)."""

    protocol: int
    client: str = ""
    batch: bool = False
    id: int = 0


class ListMissions(Msg, tag="list_missions"):
    id: int = 0


class ListGames(Msg, tag="list_games"):
    id: int = 0


class CreateGame(Msg, tag="create_game"):
    """Create a game of ``mission``; with ``seat``, take that seat at once ("a", "b", "any").
    ``request_id`` makes a retry safe: the same request id gets the same game, seat and token."""

    mission: str
    seat: str = ""
    client_seed: str = ""
    id: int = 0
    request_id: str = ""  # 16-64 of [A-Za-z0-9_.:-], secret, fresh per request (docs/protocol.md)


class Join(Msg, tag="join"):
    game_id: str
    seat: str = "any"  # "a", "b" or "any"
    client_seed: str = ""
    id: int = 0
    request_id: str = ""  # as CreateGame's: a retry with it gets the same seat and token


class Spectate(Msg, tag="spectate"):
    game_id: str
    after_seq: Seq = 0
    id: int = 0


class Resume(Msg, tag="resume"):
    """Reconnect to a seat: the server sends every event after ``last_seq`` in this seat's view."""

    game_id: str
    token: str
    last_seq: Seq = 0
    id: int = 0


class Command(Msg, tag="command"):
    """Answer decision ``decision_id`` with ``option``. ``command_id`` makes a retry safe."""

    game_id: str
    decision_id: int
    option: Option
    command_id: str = ""
    id: int = 0


class ResignGame(Msg, tag="resign"):
    game_id: str
    command_id: str = ""
    id: int = 0


class Ping(Msg, tag="ping"):
    id: int = 0


class CancelGame(Msg, tag="cancel"):
    """End a game nobody joined: the holder of a seat's ``token`` cancels it before it starts."""

    game_id: str
    token: str
    id: int = 0


ClientMessage = Union[Hello, ListMissions, ListGames, CreateGame, Join, Spectate, Resume, Command,
                      ResignGame, Ping, CancelGame]
CLIENT_TYPES = {cls.__struct_config__.tag: cls for cls in ClientMessage.__args__}

# -- server -> client --------------------------------------------------------------------------


class MissionInfo(msgspec.Struct):
    id: str
    name: str
    description: str
    width: int
    height: int
    units: int
    rounds: int
    modules: list[str]


class GameSummary(msgspec.Struct):
    game_id: str
    mission: str
    seats: list[str]  # the seats taken
    started: bool
    over: bool
    seq: int
    head_hash: str = ""  # once over: the chain hash of the log's last event, hex ("" before)


class Clock(msgspec.Struct):
    """The deciding seat's clock, in milliseconds, when the decision was sent."""

    move_ms: int  # time for this decision before the reserve is used
    reserve_ms: int  # the banked reserve left
    timeouts: int  # time-outs so far (the seat forfeits at the limit)


class Welcome(Msg, tag="welcome"):
    protocol: int
    server: str
    id: int = 0


class Missions(Msg, tag="missions"):
    missions: list[MissionInfo]
    id: int = 0


class Games(Msg, tag="games"):
    games: list[GameSummary]
    id: int = 0


class Created(Msg, tag="created"):
    """The reply to ``create_game`` without a seat: the new game's id (join or spectate it next)."""

    game_id: str
    mission: str
    id: int = 0


class Seated(Msg, tag="seated"):
    """You hold ``seat`` of ``game_id``; keep ``token`` secret, it is how you resume."""

    game_id: str
    seat: str
    token: str
    id: int = 0


class Watching(Msg, tag="watching"):
    game_id: str
    viewer: str  # "a", "b" or "spectator"
    id: int = 0


class Ack(Msg, tag="ack"):
    """The command's events are durably stored; ``seq`` is the last of them."""

    game_id: str
    seq: int
    id: int = 0


class Live(Msg, tag="live"):
    """The end of the backlog after ``seated`` / ``watching``: every event up to ``seq`` (and what
    was pending then: the ``decision`` or ``game_over``) has been sent; what follows is new."""

    game_id: str
    seq: int


class EventMsg(Msg, tag="event"):
    """One event of the game as the receiving viewer may see it."""

    game_id: str
    seq: int
    event: AnyEvent


class DecisionMsg(Msg, tag="decision"):
    """The pending decision, sent to both seats and spectators, with the deciding seat's clock."""

    game_id: str
    seq: int
    decision: Decision
    clock: Clock


class GameOverMsg(Msg, tag="game_over"):
    game_id: str
    outcome: Outcome
    forfeit: str = ""  # the seat that forfeited (time-outs), if any
    head_hash: str = ""  # the chain hash of the log's last event, hex: ``skirmish verify --expect-head``


class EventItem(msgspec.Struct):
    """One event inside ``updates``: an ``event`` push without its ``type`` and ``game_id``."""

    seq: int
    event: AnyEvent


class Updates(Msg, tag="updates", omit_defaults=True):
    """To a connection that said ``hello`` with ``batch``: everything one server step (a command,
    the start, a time-out, a backlog) pushes to it, in one frame, in the order of the separate
    pushes: ``events``, then ``decision``, then ``game_over``, then ``ack`` (the reply to this
    connection's own command: its ``id`` is the command's). Empty parts are left out (read a missing
    ``events`` as ``[]``, a missing ``decision``/``game_over``/``ack`` as null)."""

    game_id: str
    events: list[EventItem] = []
    decision: DecisionMsg | None = None
    game_over: GameOverMsg | None = None
    ack: Ack | None = None


class Pong(Msg, tag="pong"):
    id: int = 0


class Error(Msg, tag="error"):
    code: str
    message: str
    id: int = 0


ServerMessage = Union[Welcome, Missions, Games, Created, Seated, Watching, Ack, EventMsg, DecisionMsg, GameOverMsg,
                      Updates, Pong, Error, Live]

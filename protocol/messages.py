"""Wire messages, version 1. Every message is a map with a ``type`` field.

Client -> server messages carry an ``id`` (a number the client chooses); the server's reply to
it (or the ``error``) carries the same ``id``. Server -> client pushes (``event``,
``decision``, ``game_over``; ``updates`` for a client that said ``batch``) carry no ``id``.
Field by field, with examples: ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

import msgspec

from skirmish.engine.events import AnyEvent
from skirmish.engine.model import Decision, Outcome

PROTOCOL_VERSION = 1

# A seq a client names (``resume.last_seq``, ``spectate.after_seq``): negative or past 64 bits is
# ``protocol.invalid_field`` when it decodes; past the game's last event, ``lobby.seq_out_of_range``.
Seq = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]

# -- client strings ------------------------------------------------------------------------------
# Every string a client sends has one of these types: the codec checks its length and characters
# while it decodes the frame, and a string that breaks its rule is ``protocol.invalid_field``
# naming the field and the rule (the ``description``). A new client field takes one of them
# (docs/protocol.md, "Strings").

# No control characters (C0, DEL, C1), line or paragraph separators, or bidirectional controls:
# nothing that moves a terminal's cursor, clears it, starts a line or reorders what follows.
_NO_CONTROLS = r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]*\Z"


def _text(max_length: int, pattern: str, rule: str, min_length: int = 0):
    return Annotated[str, msgspec.Meta(min_length=min_length, max_length=max_length, pattern=pattern,
                                       description=rule)]


Name = _text(64, _NO_CONTROLS, "at most 64 characters, without control characters, line separators or "
                               "bidirectional controls")
Key = _text(64, r"^[!-~]*\Z", "at most 64 printable ASCII characters, without spaces")  # ids, tokens
GameId = _text(200, _NO_CONTROLS, "at most 200 characters, without control characters")
ClientSeed = _text(64, r"^[ -+\--9;-~]*\Z", "at most 64 printable ASCII characters, without ':' and ','")
OptionText = _text(64, _NO_CONTROLS, "at most 64 characters, without control characters")
WireOption = Annotated[tuple[Union[OptionText, int], ...],
                       msgspec.Meta(max_length=32, description="an array of at most 32 strings and integers, "
                                                               "each string at most 64 characters")]
JoinSeat = Annotated[Literal["a", "b", "any"], msgspec.Meta(description="'a', 'b' or 'any'")]
CreateSeat = Annotated[Literal["", "a", "b", "any"], msgspec.Meta(description="'a', 'b', 'any' or ''")]


class Msg(msgspec.Struct, tag_field="type", forbid_unknown_fields=False):
    pass


# -- client -> server --------------------------------------------------------------------------


class Hello(Msg, tag="hello"):
    """``batch``: receive each step's pushes as one ``updates`` message (see ``Updates``)."""

    protocol: int
    client: Name = ""
    batch: bool = False
    id: int = 0


class ListMissions(Msg, tag="list_missions"):
    id: int = 0


class ListGames(Msg, tag="list_games"):
    """A page of the games, newest first counted: skip the ``offset`` newest that match ``status``
    ("open": waiting for players, "live": started, "finished": over, "": any), then up to
    ``limit`` (0: the server's page size, also the most it gives); the page lists them oldest first."""

    status: Annotated[Literal["", "open", "live", "finished"],
                      msgspec.Meta(description="'open', 'live', 'finished' or ''")] = ""
    offset: Annotated[int, msgspec.Meta(ge=0, description="an integer >= 0")] = 0
    limit: Annotated[int, msgspec.Meta(ge=0, description="an integer >= 0")] = 0
    id: int = 0


class CreateGame(Msg, tag="create_game"):
    """Create a game of ``mission``; with ``seat``, take that seat at once ("a", "b", "any").
    ``request_id`` makes a retry safe: the same request id gets the same game, seat and token.
    ``reserve_for``: the name of the only player who may take the other seat (the seat the
    creator does not take; "b" when the creator takes none): others get ``lobby.seat_reserved``."""

    mission: Key
    seat: CreateSeat = ""
    client_seed: ClientSeed = ""
    id: int = 0
    request_id: Key = ""  # 16-64 of [A-Za-z0-9_.:-], secret, fresh per request (docs/protocol.md)
    reserve_for: Name = ""


class Join(Msg, tag="join"):
    game_id: GameId
    seat: JoinSeat = "any"  # "a", "b" or "any"
    client_seed: ClientSeed = ""
    id: int = 0
    request_id: Key = ""  # as CreateGame's: a retry with it gets the same seat and token


class Spectate(Msg, tag="spectate"):
    game_id: GameId
    after_seq: Seq = 0
    id: int = 0


class Resume(Msg, tag="resume"):
    """Reconnect to a seat: the server sends every event after ``last_seq`` in this seat's view."""

    game_id: GameId
    token: Key
    last_seq: Seq = 0
    id: int = 0


class Command(Msg, tag="command"):
    """Answer decision ``decision_id`` with ``option``. ``command_id`` makes a retry safe."""

    game_id: GameId
    decision_id: int
    option: WireOption
    command_id: Key = ""
    id: int = 0


class ResignGame(Msg, tag="resign"):
    game_id: GameId
    command_id: Key = ""
    id: int = 0


class OfferDraw(Msg, tag="offer_draw"):
    """Offer a draw, or accept the other seat's standing offer (``skirmish.engine.commands.OfferDraw``):
    replied ``ack`` once the ``draw_offered`` (or ``draw_agreed`` and the game's end) is stored."""

    game_id: GameId
    command_id: Key = ""
    id: int = 0


class Ping(Msg, tag="ping"):
    id: int = 0


class CancelGame(Msg, tag="cancel"):
    """End a game nobody joined: the holder of a seat's ``token`` cancels it before it starts."""

    game_id: str
    token: str
    id: int = 0


class ReplayFrames(Msg, tag="replay_frames"):
    """Replay a game from its replay file (``docs/replay-format.md``), which the server need not hold:
    ``file`` is the file's bytes in base64; the server verifies it (``skirmish.engine.verify``) and
    answers ``frames``, the game step by step in the ``as`` view, as ``/api/games/ID/frames`` does.
    Nothing is stored. A file past ``ServerConfig.replay_max`` bytes is ``replay.too_large``; one that
    is not a replay file, or does not verify, is ``replay.bad_file`` naming the first bad event."""

    file: str
    as_: Annotated[Literal["a", "b", "spectator", "all"],
                   msgspec.Meta(description="'a', 'b', 'spectator' or 'all'")] = msgspec.field(default="all", name="as")
    id: int = 0


ClientMessage = Union[Hello, ListMissions, ListGames, CreateGame, Join, Spectate, Resume, Command,
                      ResignGame, Ping, CancelGame, OfferDraw,
                      ReplayFrames]
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
    players: dict[str, str] = {}  # seat taken -> the name its player gave in hello
    reserved: dict[str, str] = {}  # a free seat reserved for one player (create_game's reserve_for) -> that name


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
    """A page of ``list_games``; ``total``: the games that match its ``status`` (on every page)."""

    games: list[GameSummary]
    total: int = 0
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


class Frames(Msg, tag="frames"):
    """The reply to ``replay_frames``: the verified file's game in the ``viewer``'s view, as
    ``/api/games/ID/frames`` gives a stored game (``first`` state, then per event a ``steps`` entry
    with its narration and its ``change``), with the file's ``head_hash`` and the terrain ``legend``."""

    game_id: str
    viewer: str
    head_hash: str
    first: dict
    steps: list[dict]
    legend: dict
    id: int = 0


ServerMessage = Union[Welcome, Missions, Games, Created, Seated, Watching, Ack, EventMsg, DecisionMsg, GameOverMsg,
                      Updates, Pong, Error, Live,
                      Frames]

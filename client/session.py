"""The client's side of the wire protocol, sans I/O: requests out, frames in, the view folded.

Like the ``websockets`` library's protocol object, a :class:`ClientSession` never touches a
socket, a task or a queue: the caller encodes its requests with it (``request``: a fresh ``id``,
remembered until its reply), hands it every frame the server sends (``receive_frame``), and gets
back what happened, in order: the ``Reply`` to a request (its message, or the server's ``error``),
and each game's updates (``EventUpdate``, ``DecisionUpdate``, ``GameOverUpdate``) for whoever
reads that game. What it keeps (``GameView``, one per game):

- **the view**: each game's stream of view events is folded with ``skirmish.engine.evolve`` into this
  client's own ``State`` (from the ``GameCreated`` it receives), as soon as it arrives; the
  latest ``decision`` push (with the deciding seat's clock) and the game's end;
- **sequence numbers**: ``last_seq`` is the highest seq received. An event at or below it is a
  duplicate and is dropped (counted in ``duplicates``); a jump is recorded in ``gaps`` (a viewer
  may legitimately skip events the server redacts away); ``live``: where the backlog ended;
- **pending replies**: the requests sent and not yet answered, by id (``pending``); what the
  server sends under another id, or without one, is a notice (``notices``) or dropped;
- **batching**: an ``updates`` frame is unpacked into the pushes v1 sends separately, in their
  order (and its ``ack`` is the reply to the command it answers).

The asyncio client (``skirmish.client.connection``) only moves the bytes, waits for replies and
reconnects; the tests drive this object directly, without sockets (tests/client/test_session.py).
"""

from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass, field
from typing import Union

from skirmish.client.narrate import describe
from skirmish.engine import events as ev
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.model import Decision, Option, Outcome, State
from skirmish.protocol import messages as m
from skirmish.protocol.codec import Codec
from skirmish.protocol.errors import ProtocolError
from skirmish.protocol.messages import PROTOCOL_VERSION

log = logging.getLogger("skirmish.client")

__all__ = ["ClientSession", "DecisionUpdate", "EventUpdate", "GameOverUpdate", "GameView", "Reply", "Update"]


# -- what a frame gives ------------------------------------------------------------------------


@dataclass(frozen=True)
class EventUpdate:
    """One view event, already applied to the view state; ``text`` narrates it (or is None)."""

    game_id: str
    seq: int
    event: ev.Event
    text: str | None


@dataclass(frozen=True)
class DecisionUpdate:
    """The pending decision (for either seat), with the deciding seat's clock when sent."""

    game_id: str
    seq: int
    decision: Decision
    clock: m.Clock
    received: float  # time.monotonic() when it arrived


@dataclass(frozen=True)
class GameOverUpdate:
    game_id: str
    outcome: Outcome
    forfeit: str
    head_hash: str = ""  # the chain hash of the log's last event, hex (skirmish verify --expect-head)


Update = Union[EventUpdate, DecisionUpdate, GameOverUpdate]


@dataclass(frozen=True)
class Reply:
    """The answer to the request sent with ``id``: its reply message, or the server's ``m.Error``."""

    id: int
    message: object

    @property
    def error(self) -> m.Error | None:
        return self.message if isinstance(self.message, m.Error) else None


@dataclass
class GameView:
    """What this client knows of one game: its own view state and its place in the stream."""

    game_id: str
    viewer: str = ""  # "a", "b" or "spectator"
    token: str = ""
    state: State | None = None  # None until GameCreated arrives
    last_seq: int = 0  # the highest seq received
    live: int = 0  # the seq of the server's last ``live`` (the backlog is in up to there); 0: not yet
    seqs: list[int] = field(default_factory=list)  # the seqs applied, in order
    duplicates: int = 0  # events at or below last_seq, dropped
    gaps: list[tuple[int, int]] = field(default_factory=list)  # (expected, received)
    error: str = ""  # set if an event could not be applied to the view (the view is stale)
    decision: DecisionUpdate | None = None  # the latest decision push
    outcome: Outcome | None = None
    forfeit: str = ""
    head_hash: str = ""  # from game_over: the hash the finished log ends at (keep it to check a replay file)
    answers: dict[int, tuple[int, Option, bool]] = field(default_factory=dict)  # decision -> (seq, option, timeout)
    over_seen: bool = False  # the game's end was read (``Client.updates``)

    @property
    def over(self) -> bool:
        return self.outcome is not None


# -- the session ---------------------------------------------------------------------------------


class ClientSession:
    """One client's protocol state (see the module docstring). ``codec``: the negotiated one
    (``codec_for``); it may change on a new connection (``connection_made``)."""

    def __init__(self, codec: Codec, name: str = "skirmish-client", batch: bool = True):
        self.codec = codec
        self.name = name[:64]  # the server takes names of up to 64 characters (docs/protocol.md, strings)
        self.batch = batch
        self.games: dict[str, GameView] = {}
        self.pending: dict[int, object] = {}  # id -> the request sent under it, not yet answered
        self.notices: list[m.Error] = []  # errors the server sent without an id (or under an unknown one)
        self._ids = itertools.count(1)

    # -- requests out ------------------------------------------------------------------------------

    def connection_made(self, codec: Codec) -> None:
        """A new connection (``codec``: its subprotocol's); nothing sent before is still answered."""
        self.codec = codec
        self.pending.clear()

    def hello(self) -> m.Hello:
        return m.Hello(protocol=PROTOCOL_VERSION, client=self.name, batch=self.batch)

    def request(self, msg) -> bytes | str:
        """``msg`` with a fresh ``id`` (set on it), encoded; its reply is awaited (``pending``)."""
        msg.id = next(self._ids)
        self.pending[msg.id] = msg
        return self.codec.encode(msg)

    def forget(self, msg_id: int) -> None:
        """No reply to ``msg_id`` is awaited any more (it timed out, or was never sent)."""
        self.pending.pop(msg_id, None)

    def connection_lost(self) -> list[int]:
        """The connection dropped: the ids of the requests that will get no reply now."""
        lost = list(self.pending)
        self.pending.clear()
        return lost

    def resumptions(self) -> list:
        """After a new ``hello``: the requests that take up every game followed and not over again
        from its ``last_seq`` (``resume`` with the seat's token, or ``spectate``)."""
        out = []
        for g in list(self.games.values()):
            if g.over:
                continue
            if g.token:
                out.append(m.Resume(game_id=g.game_id, token=g.token, last_seq=g.last_seq))
            elif g.viewer:
                out.append(m.Spectate(game_id=g.game_id, after_seq=g.last_seq))
        return out

    def resuming(self, game_id: str, token: str, last_seq: int) -> m.Resume:
        """A ``resume`` of a seat: the token is kept, and ``last_seq`` counts as received."""
        g = self.game(game_id)
        g.token = token
        if last_seq > g.last_seq:
            g.last_seq = last_seq
        return m.Resume(game_id=game_id, token=token, last_seq=last_seq)

    # -- frames in ---------------------------------------------------------------------------------

    def decode(self, frame: bytes | str):
        """The server message in ``frame``, or None (logged) if it does not decode."""
        try:
            return self.codec.decode_server(frame)
        except ProtocolError as exc:
            log.warning("undecodable frame from the server: %s", exc)
            return None

    def receive_frame(self, frame: bytes | str) -> list:
        """What ``frame`` means, in order: ``Reply``s and ``Update``s (see ``receive_message``)."""
        msg = self.decode(frame)
        return [] if msg is None else self.receive_message(msg)

    def receive_message(self, msg, now: float | None = None) -> list:
        """Fold one decoded server message into the session; what it gives, in order: the ``Reply``
        to a pending request, and the games' ``Update``s (each carries its ``game_id``)."""
        out: list = []
        self._receive(msg, out, time.monotonic() if now is None else now)
        return out

    def _receive(self, msg, out: list, now: float) -> None:
        if isinstance(msg, m.Updates):  # batch: unpack into the pushes v1 sends, in their order
            for item in msg.events:
                self.receive_event(m.EventMsg(game_id=msg.game_id, seq=item.seq, event=item.event), out)
            for part in (msg.decision, msg.game_over, msg.ack):
                if part is not None:
                    self._receive(part, out, now)
        elif isinstance(msg, m.EventMsg):
            self.receive_event(msg, out)
        elif isinstance(msg, m.DecisionMsg):
            g = self.game(msg.game_id)
            g.decision = DecisionUpdate(msg.game_id, msg.seq, msg.decision, msg.clock, now)
            out.append(g.decision)
        elif isinstance(msg, m.GameOverMsg):
            g = self.game(msg.game_id)
            g.outcome, g.forfeit, g.head_hash = msg.outcome, msg.forfeit, msg.head_hash
            out.append(GameOverUpdate(msg.game_id, msg.outcome, msg.forfeit, msg.head_hash))
        elif isinstance(msg, m.Live):
            self.game(msg.game_id).live = msg.seq
        else:
            if isinstance(msg, m.Seated):  # before the events that follow it are folded
                g = self.game(msg.game_id)
                g.viewer, g.token = msg.seat, msg.token
            elif isinstance(msg, m.Watching):
                self.game(msg.game_id).viewer = msg.viewer
            msg_id = getattr(msg, "id", 0)
            if msg_id and self.pending.pop(msg_id, None) is not None:
                out.append(Reply(msg_id, msg))
            elif isinstance(msg, m.Error):
                log.warning("server error: %s: %s", msg.code, msg.message)
                self.notices.append(msg)
            else:
                log.debug("unexpected reply %r", msg)

    def receive_event(self, msg: m.EventMsg, out: list) -> None:
        """One event push: dropped if a duplicate, a gap noted, folded into the view."""
        g = self.game(msg.game_id)
        if msg.seq <= g.last_seq:
            g.duplicates += 1
            return
        if msg.seq != g.last_seq + 1 and g.state is not None:
            g.gaps.append((g.last_seq + 1, msg.seq))
        g.last_seq = msg.seq
        g.seqs.append(msg.seq)
        event = msg.event
        text = None
        if g.state is None:
            if isinstance(event, ev.GameCreated):
                g.state = initial_state(event)
                text = describe(event, g.state)
        elif not g.error:
            try:
                text = describe(event, g.state)
            except Exception:  # narration is a courtesy; never let it break the stream
                text = type(event).__name__
            try:
                evolve(g.state, event)
            except (InvalidEvent, KeyError, IndexError, ValueError) as exc:
                g.error = f"event {msg.seq} ({type(event).__name__}) does not follow the view: {exc}"
                log.warning("game %s: %s", g.game_id, g.error)
        if isinstance(event, ev.OptionChosen):
            g.answers[event.decision_id] = (msg.seq, tuple(event.option), event.timeout)
        if isinstance(event, ev.GameEnded) and g.outcome is None:
            g.outcome = event.outcome  # game_over follows; the view already knows
        out.append(EventUpdate(msg.game_id, msg.seq, event, text))

    # -- the views ---------------------------------------------------------------------------------

    def game(self, game_id: str) -> GameView:
        """What this client knows of ``game_id`` (created empty on first use)."""
        g = self.games.get(game_id)
        if g is None:
            g = self.games[game_id] = GameView(game_id)
        return g

    def pending_decision(self, game_id: str) -> tuple[Decision, m.Clock | None] | None:
        """The pending decision in this view and its clock (None if the clock has not come yet)."""
        g = self.game(game_id)
        p = g.state.pending if g.state is not None else None
        if p is None:
            return None
        clock = g.decision.clock if g.decision is not None and g.decision.decision.id == p.id else None
        return p, clock

    def clock_left(self, game_id: str, now: float) -> tuple[int, int, int] | None:
        """(move ms left, reserve ms left, time-outs) for the pending decision at ``now``
        (``time.monotonic()``), counted down from when it arrived; None if no clock is known."""
        g = self.game(game_id)
        pend = self.pending_decision(game_id)
        if not pend or pend[1] is None:
            return None
        clock = pend[1]
        used = int((now - g.decision.received) * 1000)
        move = clock.move_ms - used
        reserve = clock.reserve_ms + min(0, move)
        return max(0, move), max(0, reserve), clock.timeouts

    def answered(self, game_id: str, decision: Decision, option: Option) -> int | None:
        """The seq of the OptionChosen that answered ``decision`` with ``option`` (not a time-out)."""
        g = self.games.get(game_id)
        seq, chosen, timeout = g.answers.get(decision.id, (0, (), True)) if g else (0, (), True)
        return seq if chosen == option and not timeout else None

    def game_of(self, decision: Decision) -> str:
        """The one game whose pending decision is ``decision``; ValueError if not exactly one."""
        found = [g.game_id for g in self.games.values()
                 if g.state is not None and g.state.pending is not None and g.state.pending.id == decision.id
                 and g.state.pending == decision]
        if len(found) != 1:
            raise ValueError("say which game: choose(decision, option, game_id=...)")
        return found[0]

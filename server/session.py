"""One connection's side of the wire protocol, sans I/O: frames in, typed requests and frames out.

Like the ``websockets`` library's protocol object, a :class:`ServerSession` never touches a
socket, a task or the clock: the caller hands it each frame received (``receive_frame``) with the
time, and it answers with the typed request the server must act on (a ``skirmish.protocol.messages``
struct), or None when the session answered by itself; whatever it has to say goes to its outbox,
which the caller drains with ``data_to_send`` and writes out, in order, before anything else::

    request = session.receive_frame(frame, now)      # None: handled here (or refused)
    for out in session.data_to_send(): write(out)    # replies and errors, already encoded
    if session.close_request: close(*session.close_request)   # after writing what was queued

What the session owns (docs/protocol.md):

- **hello state**: ``hello`` first (``protocol.hello_first``), once (``protocol.hello_again``), in
  our version (``protocol.version``, then close 1002); the client's name and its ``batch`` wish;
  ``welcome``. ``quiet_limit``/``timed_out`` say when a silent connection is closed
  (``protocol.hello_timeout``, ``server.idle_timeout``; close 1008);
- **rate limit**: a token bucket (``protocol.rate_limited``: dropped, answered under its id);
- **frame checks**: the size (``protocol.too_large``), then the codec's decoding (nesting, UTF-8,
  every field's rule: ``protocol.malformed``, ``protocol.unknown_type``, ``protocol.invalid_field``),
  errors under the frame's ``id`` when it has one;
- **ping** (``pong``), and refusing requests while the server shuts down;
- **batching**: what one server step pushes to a ``batch`` connection is staged here
  (``stage``/``stage_events``), in the order of the separate pushes, and taken out at the step's
  end (``take_staged``) as the parts of its ``updates`` messages.

The asyncio server (``skirmish.server.app``, ``skirmish.server.connection``) only moves bytes between the socket
and this object; the tests drive it directly, without sockets (tests/server/test_session.py).
"""

from __future__ import annotations

import itertools
import time

import msgspec

from skirmish.protocol import messages as m
from skirmish.protocol.codec import Codec
from skirmish.protocol.errors import ProtocolError

__all__ = ["ServerSession", "TokenBucket", "frame_id", "SERVER_NAME", "MAX_NAME"]

SERVER_NAME = "skirmish/0.1.0"
MAX_NAME = 64  # a player's name as recorded in SeatTaken
PROTOCOL_ERROR, POLICY = 1002, 1008  # close codes the session asks for
_ids = itertools.count(1)
_SLOT = {m.EventItem: 0, m.DecisionMsg: 1, m.GameOverMsg: 2, m.Ack: 3}  # the order of an ``updates``' parts


class TokenBucket:
    def __init__(self, rate: float, burst: int, now: float | None = None):
        self.rate, self.burst = float(rate), float(burst)
        self.tokens = float(burst)
        self.at = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class _IdOnly(msgspec.Struct, forbid_unknown_fields=False):
    id: int = 0


_ID_MSGPACK = msgspec.msgpack.Decoder(_IdOnly)
_ID_JSON = msgspec.json.Decoder(_IdOnly)


def frame_id(frame: bytes | str) -> int:
    """The ``id`` of a frame that did not decode as a message, if it has one (0 otherwise).

    Read in the frame's own kind (text: JSON, binary: MessagePack), whatever the codec, so that
    a JSON frame sent on the MessagePack subprotocol still gets its error under its id. Best
    effort: whatever the frame holds (not UTF-8, nested too deep to skip...), 0.
    """
    try:
        value = (_ID_JSON if isinstance(frame, str) else _ID_MSGPACK).decode(frame).id
    except (msgspec.DecodeError, ValueError, RecursionError):
        return 0
    if -(2**63) <= value < 2**63:
        return value
    return 0


class _NoLog:
    def __getattr__(self, name):
        return lambda *a, **k: None


class ServerSession:
    """The protocol state of one client connection (see the module docstring).

    ``rate``/``burst``: the per-connection rate limit; ``max_frame``: the largest frame decoded
    (bytes); ``hello_timeout``/``idle_timeout``: seconds (0: none); ``now``: the monotonic time the
    connection opened; ``log``: a structlog-style logger (errors sent are logged, as before)."""

    def __init__(self, codec: Codec, *, rate: float = 50.0, burst: int = 100, max_frame: int = 64 * 1024,
                 replay_frame: int = 0,
                 hello_timeout: float = 0.0, idle_timeout: float = 0.0, now: float | None = None,
                 log=None, conn_id: int | None = None):
        self.id = next(_ids) if conn_id is None else conn_id
        self.codec = codec
        self.rate, self.burst, self.max_frame = rate, burst, max_frame
        self.replay_frame = replay_frame  # a larger frame is taken only if it is a replay_frames
        self.hello_timeout, self.idle_timeout = hello_timeout, idle_timeout
        self.bucket = TokenBucket(rate, burst, now)
        self.opened = self.bucket.at
        self.log = log if log is not None else _NoLog()
        self.hello = False
        self.name = ""
        self.batch = False  # said hello with batch: a step's pushes go out as one ``updates``
        self.shutting_down = False  # the server is stopping: requests are refused
        self.on_error = None  # called with each error code sent (the server's metrics)
        self.roles: dict[str, str] = {}  # game id -> "a", "b" or "spectator"
        self.close_request: tuple[int, str] | None = None  # (code, reason): close once the outbox is sent
        self._out: list[bytes | str] = []
        self._staged: dict[str, list[list]] = {}  # batch, per game: [events, decision, game_over, ack]...

    # -- frames out --------------------------------------------------------------------------------

    def data_to_send(self) -> list[bytes | str]:
        """The encoded frames to write, in order; the outbox is empty afterwards."""
        out, self._out = self._out, []
        return out

    def send(self, message) -> None:
        self._out.append(self.codec.encode(message))

    def error(self, code: str, message: str, msg_id: int = 0) -> None:
        log = self.log.debug if code == "protocol.rate_limited" else self.log.info
        log("error", conn=self.id, code=code, message=message, id=msg_id)
        if self.on_error is not None:
            self.on_error(code)
        self._out.append(self.codec.encode(m.Error(code=code, message=message, id=msg_id)))

    def _close(self, code: int, reason: str) -> None:
        if self.close_request is None:
            self.close_request = (code, reason)

    # -- frames in ---------------------------------------------------------------------------------

    def receive_frame(self, frame: bytes | str, now: float | None = None):
        """Check and decode one frame. Returns the typed request the server must act on (any client
        message but ``hello`` and ``ping``), or None: the session answered (``welcome``, ``pong``) or
        refused it (an ``error`` under its id), into ``data_to_send``."""
        if self.close_request is not None:
            return None  # closing: nothing more is read
        if not self.bucket.take(now):
            self.error("protocol.rate_limited", f"more than {self.rate:g} messages/s (burst {self.burst}); dropped",
                       frame_id(frame) if len(frame) <= self.max_frame else 0)
            return None
        limit = max(self.max_frame, self.replay_frame)
        size = len(frame) if isinstance(frame, bytes) or len(frame) * 4 <= self.max_frame else len(frame.encode())
        if size > limit:
            self.error("protocol.too_large", f"a frame of {size} bytes; the limit is {self.max_frame}", frame_id(frame))
            return None
        try:
            msg = self.codec.decode_client(frame)
        except ProtocolError as exc:
            self.error(exc.code, exc.message, frame_id(frame))
            return None
        if size > self.max_frame and type(msg) is not m.ReplayFrames:  # (only a replay file may be that large)
            self.error("protocol.too_large", f"a frame of {size} bytes; the limit is {self.max_frame}", msg.id)
            return None
        if not self.hello and type(msg) is not m.Hello:
            self.error("protocol.hello_first", f"say hello first (protocol {m.PROTOCOL_VERSION})", msg.id)
            return None
        if type(msg) is m.Ping:
            self.send(m.Pong(id=msg.id))
            return None
        if self.shutting_down:
            self.error("server.shutting_down", "the server is shutting down; reconnect and resume later", msg.id)
            return None
        if type(msg) is m.Hello:
            self._hello(msg)
            return None
        return msg

    def _hello(self, msg: m.Hello) -> None:
        if self.hello:
            self.error("protocol.hello_again", "hello was already said on this connection", msg.id)
            return
        if msg.protocol != m.PROTOCOL_VERSION:
            self.error("protocol.version", f"this server speaks protocol {m.PROTOCOL_VERSION}, not {msg.protocol}",
                       msg.id)
            self._close(PROTOCOL_ERROR, "unsupported protocol version")
            return
        self.hello = True
        self.name = msg.client[:MAX_NAME]
        self.batch = msg.batch
        self.log.info("hello", conn=self.id, client=self.name, batch=msg.batch)
        self.send(m.Welcome(protocol=m.PROTOCOL_VERSION, server=SERVER_NAME, id=msg.id))

    # -- silence -----------------------------------------------------------------------------------

    def quiet_limit(self, now: float) -> float | None:
        """How long the connection may now stay silent (None: as long as it likes): until
        ``hello_timeout`` after it opened (frames that are not a hello do not extend it), then
        ``idle_timeout`` after its last frame."""
        if not self.hello:
            return max(0.0, self.opened + self.hello_timeout - now) if self.hello_timeout else None
        return self.idle_timeout or None

    def timed_out(self, following: bool) -> bool:
        """The connection said nothing for its quiet limit: say why and ask to close it (True),
        unless it said hello and ``following`` (it holds a seat in, or watches, a live game)."""
        if not self.hello:
            code, reason = "protocol.hello_timeout", f"no hello within {self.hello_timeout:g} s"
        elif following:
            return False  # a player thinking, a spectator watching: never idle
        else:
            code, reason = "server.idle_timeout", f"nothing said for {self.idle_timeout:g} s and no game followed"
        self.log.info("connection.timeout", conn=self.id, code=code)
        self.error(code, f"{reason}; closing")
        self._close(POLICY, reason)
        return True

    # -- batching ----------------------------------------------------------------------------------
    # Staged per game: each game's actor stages its step's pushes and takes them at the step's end,
    # and the steps of two games may interleave.

    def stage(self, game_id: str, part) -> None:
        """Add ``part`` (an EventItem, DecisionMsg, GameOverMsg or Ack) to this step's updates of
        ``game_id``; a part that would come out of order starts another ``updates``."""
        slot = _SLOT[type(part)]
        staged = self._staged.get(game_id)
        if staged is None:
            staged = self._staged[game_id] = []
        cur = staged[-1] if staged else None
        if cur is None or any(cur[k] is not None for k in range(slot + 1, 4)) or (slot and cur[slot] is not None):
            cur = [[], None, None, None]
            staged.append(cur)
        if slot:
            cur[slot] = part
        else:
            cur[0].append(part)

    def stage_events(self, game_id: str, items: list) -> None:
        """``stage`` of each of ``items`` (EventItems), in one step."""
        staged = self._staged.get(game_id)
        if staged is None:
            staged = self._staged[game_id] = []
        cur = staged[-1] if staged else None
        if cur is None or cur[1] is not None or cur[2] is not None or cur[3] is not None:
            cur = [[], None, None, None]
            staged.append(cur)
        cur[0].extend(items)

    def staging(self, game_id: str) -> bool:
        """Whether something is staged for this step of ``game_id``."""
        return game_id in self._staged

    def take_staged(self, game_id: str) -> list[list]:
        """This step's updates of ``game_id``, each ``[events, decision, game_over, ack]``
        (``Updates``' parts, in order); nothing is staged for it afterwards."""
        return self._staged.pop(game_id, [])

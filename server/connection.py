"""One client connection's I/O: frames written straight into the socket's buffer, around its
protocol session.

Everything the protocol decides (hello, the rate limit, checking frames, batching, the games it
follows) is the connection's ``session`` (``skirmish.server.session.ServerSession``, sans I/O); this
module only moves the frames it and the game actors produce into the socket.

**Sending never waits.** Game actors and the lobby only *push* encoded frames: each is framed by
websockets' sans-I/O protocol (``send_binary``/``send_text``, with its extensions) and handed to the
transport at once, as websockets' own ``send`` does, but without waiting for the socket to drain:
what the kernel has not taken waits in the transport's buffer, in order. That buffer is bounded in
bytes (``ServerConfig.send_buffer``): a reader that falls that far behind is disconnected with close
code 1008 (policy violation, reason "send queue overflow") and can resume its games later. One slow
reader never stalls a game (docs/decisions.md, "Frames written at the push").

**Rate limit** (in the session). A token bucket per connection (``rate`` tokens per second,
``burst`` at most): each message takes one token, a message without one is answered
``protocol.rate_limited`` and dropped.
"""

from __future__ import annotations

import asyncio

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

from skirmish.protocol.codec import Codec
from skirmish.server.session import ServerSession, TokenBucket

__all__ = ["Connection", "TokenBucket", "OVERFLOW_CODE"]

OVERFLOW_CODE = 1008  # policy violation: the client reads too slowly
_OPEN = State.OPEN


class Connection:
    def __init__(self, ws: ServerConnection, codec: Codec, *, send_buffer: int, rate: float = 50.0,
                 burst: int = 100, close_timeout: float, log, session: ServerSession | None = None):
        self.session = session or ServerSession(codec, rate=rate, burst=burst, log=log)
        self.id = self.session.id
        self.ws = ws
        self.codec = self.session.codec
        self.send_buffer = send_buffer
        self.close_timeout = close_timeout
        self.log = log
        self.address = ""  # the client's IP address (the per-address limits count by it)
        self.roles = self.session.roles  # game id -> "a", "b" or "spectator" (the session's)
        self.closing = False
        self.sent = 0

    @property
    def batch(self) -> bool:
        """Said hello with batch: a step's pushes go out as one ``updates``."""
        return self.session.batch

    @property
    def hello(self) -> bool:
        return self.session.hello

    @property
    def name(self) -> str:
        return self.session.name

    # -- sending -----------------------------------------------------------------------------

    def send(self, message) -> None:
        self.push(self.codec.encode(message))

    def error(self, code: str, message: str, msg_id: int = 0) -> None:
        """An ``error`` from the server (the session logs it), queued after what the session has."""
        self.session.error(code, message, msg_id)
        self.transmit()

    def transmit(self) -> None:
        """Send what the session has to send."""
        for frame in self.session.data_to_send():
            self.push(frame)

    def push(self, frame: bytes | str) -> None:
        """Write an encoded frame (a ``str`` as a text frame); never blocks. Dropped once the
        connection closes; past ``send_buffer`` bytes unsent, this client is disconnected."""
        if self.closing:
            return
        ws = self.ws
        protocol, transport = ws.protocol, ws.transport
        if protocol.state is not _OPEN or transport.is_closing():
            return  # closing: nothing more goes out
        waiting = transport.get_write_buffer_size()
        if waiting + len(frame) > self.send_buffer:
            self.log.warning("connection.overflow", conn=self.id, queued=waiting, limit=self.send_buffer)
            self.close_soon(OVERFLOW_CODE, "send queue overflow: resume later")
            return
        if type(frame) is str:
            protocol.send_text(frame.encode())
        else:
            protocol.send_binary(frame)
        for data in protocol.data_to_send():  # the frame (never an end of stream: the state is open)
            transport.write(data)
        self.sent += 1

    # -- closing ---------------------------------------------------------------------------

    def close_soon(self, code: int, reason: str) -> None:
        """Close in the background; nothing more is sent before the closing frame."""
        if self.closing:
            return
        self.closing = True
        asyncio.get_running_loop().create_task(self._close(code, reason))

    async def close(self, code: int, reason: str) -> None:
        """Close after what was pushed (it is in the socket's buffer already, before the closing
        frame), waiting at most ``close_timeout`` (+1 s) for the client to answer."""
        if self.closing:
            return
        self.closing = True
        await self._close(code, reason)

    async def _close(self, code: int, reason: str) -> None:
        # ws.close() waits for the peer's closing frame (close_timeout) but first writes and
        # drains, which a reader that does not read would hold forever: bound the whole of it.
        try:
            async with asyncio.timeout(self.close_timeout + 1):
                await self.ws.close(code, reason)
        except TimeoutError:
            self.ws.transport.abort()
        except Exception:  # pragma: no cover - the connection is going anyway
            self.ws.transport.abort()

    def stop(self) -> None:
        """The connection is gone: nothing more is sent."""
        self.closing = True

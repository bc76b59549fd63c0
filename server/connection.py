"""One client connection's I/O: its send queue and its writer task, around its protocol session.

Everything the protocol decides (hello, the rate limit, checking frames, batching, the games it
follows) is the connection's ``session`` (``skirmish.server.session.ServerSession``, sans I/O); this
module only moves the frames it and the game actors produce into the socket.

**Send queue.** Nothing in the server awaits a client: game actors and the lobby only *put*
encoded frames into the connection's queue (``push``), and one writer task per connection
drains it into the socket. The queue is bounded in bytes (``ServerConfig.send_buffer``): a
reader that falls that far behind is disconnected with close code 1008 (policy violation,
reason "send queue overflow") and can resume its games later. One slow reader never stalls a
game.

**Rate limit** (in the session). A token bucket per connection (``rate`` tokens per second,
``burst`` at most): each message takes one token, a message without one is answered
``protocol.rate_limited`` and dropped.
"""

from __future__ import annotations

import asyncio
from collections import deque

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from skirmish.protocol.codec import Codec
from skirmish.server.session import ServerSession, TokenBucket

__all__ = ["Connection", "TokenBucket", "OVERFLOW_CODE"]

OVERFLOW_CODE = 1008  # policy violation: the client reads too slowly


class Flag:
    """``asyncio.Event``'s ``set``, ``clear``, ``is_set`` and ``wait``, without its deque of waiters
    (740 bytes even when empty, and a connection has two flags): a waiter's future goes in a list
    made only while someone waits (docs/decisions.md, "Memory: 1,000 games")."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if self._set:
            return
        self._set = True
        waiters, self._waiters = self._waiters, None
        for fut in waiters or ():
            if not fut.done():
                fut.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        if self._set:
            return
        fut = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(fut)
        try:
            await fut
        finally:
            if self._waiters is not None and fut in self._waiters:
                self._waiters.remove(fut)


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
        self._queue: deque[bytes | str] = deque()
        self._queued = 0  # bytes waiting in the queue
        self._wake = Flag()
        self._drained = Flag()
        self._drained.set()
        self.closing = False
        self.sent = 0
        self.writer = asyncio.create_task(self._write(), name=f"conn-{self.id}-writer")

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
        """Queue what the session has to send."""
        for frame in self.session.data_to_send():
            self.push(frame)

    def push(self, frame: bytes | str) -> None:
        """Queue an encoded frame; never blocks. A full queue disconnects this client."""
        if self.closing:
            return
        size = len(frame)
        if self._queued + size > self.send_buffer:
            self.log.warning("connection.overflow", conn=self.id, queued=self._queued, limit=self.send_buffer)
            self.close_soon(OVERFLOW_CODE, "send queue overflow: resume later")
            return
        self._queue.append(frame)
        self._queued += size
        self._drained.clear()
        self._wake.set()

    async def _write(self) -> None:
        try:
            while True:
                while not self._queue:
                    self._drained.set()
                    self._wake.clear()
                    await self._wake.wait()
                frame = self._queue.popleft()
                self._queued -= len(frame)
                await self.ws.send(frame)
                del frame  # (not held while the writer waits for the next one)
                self.sent += 1
        except ConnectionClosed:
            pass
        finally:
            self._queue.clear()
            self._queued = 0
            self._drained.set()

    async def flush(self, timeout: float) -> bool:
        """Wait until everything queued so far is written (or the timeout passes)."""
        try:
            async with asyncio.timeout(timeout):
                await self._drained.wait()
            return True
        except TimeoutError:
            return False

    # -- closing ---------------------------------------------------------------------------

    def close_soon(self, code: int, reason: str) -> None:
        """Close without waiting for the queue (what is queued is dropped)."""
        if self.closing:
            return
        self.closing = True
        self._queue.clear()
        self._queued = 0
        asyncio.get_running_loop().create_task(self._close(code, reason))

    async def close_after_flush(self, code: int, reason: str, timeout: float) -> None:
        """Send what is queued (within ``timeout``), then close."""
        if self.closing:
            return
        await self.flush(timeout)
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

    async def stop(self) -> None:
        self.closing = True
        self.writer.cancel()
        try:
            await self.writer
        except (asyncio.CancelledError, Exception):
            pass

"""One client connection: its codec, its send queue, its rate limit, the games it follows.

**Send queue.** Nothing in the server awaits a client: game actors and the lobby only *put*
encoded frames into the connection's queue (``push``), and one writer task per connection
drains it into the socket. The queue is bounded in bytes (``ServerConfig.send_buffer``): a
reader that falls that far behind is disconnected with close code 1008 (policy violation,
reason "send queue overflow") and can resume its games later. One slow reader never stalls a
game.

**Rate limit.** A token bucket per connection (``rate`` tokens per second, ``burst`` at most):
each message takes one token, a message without one is answered ``protocol.rate_limited`` and
dropped.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol.codec import Codec
from protocol.messages import Error

OVERFLOW_CODE = 1008  # policy violation: the client reads too slowly
_ids = itertools.count(1)


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


class Connection:
    def __init__(self, ws: ServerConnection, codec: Codec, *, send_buffer: int, rate: float, burst: int,
                 close_timeout: float, log):
        self.id = next(_ids)
        self.ws = ws
        self.codec = codec
        self.send_buffer = send_buffer
        self.bucket = TokenBucket(rate, burst)
        self.close_timeout = close_timeout
        self.log = log
        self.hello = False
        self.batch = False  # said hello with batch: a step's pushes go out as one ``updates``
        self.name = ""
        self.address = ""  # the client's IP address (the per-address limits count by it)
        self.roles: dict[str, str] = {}  # game id -> "a", "b" or "spectator"
        self._queue: deque[bytes | str] = deque()
        self._queued = 0  # bytes waiting in the queue
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()
        self._drained.set()
        self.closing = False
        self.sent = 0
        self.writer = asyncio.create_task(self._write(), name=f"conn-{self.id}-writer")

    # -- sending -----------------------------------------------------------------------------

    def send(self, message) -> None:
        self.push(self.codec.encode(message))

    def error(self, code: str, message: str, msg_id: int = 0) -> None:
        log = self.log.debug if code == "protocol.rate_limited" else self.log.info
        log("error", conn=self.id, code=code, message=message, id=msg_id)
        self.send(Error(code=code, message=message, id=msg_id))

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

"""The client's transport: one WebSocket connection to the server at a time, the task reading its
frames, calls waiting for their replies, and reconnection (resuming every game followed).

The protocol itself is the sans-I/O ``skirmish.client.session.ClientSession``; :class:`Transport` moves its
frames, resolves each call with its reply and puts each game's updates on that game's queue. The
calls of the protocol, and what ``updates()`` yields, are ``skirmish.client.connection.Client``'s.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass
from typing import Self

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from skirmish.client.errors import ClientError, ConnectFailed, ConnectionLost
from skirmish.client.session import ClientSession, Reply
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK, codec_for

__all__ = ["CALL_TIMEOUT", "CODECS", "OPEN_RETRIES", "RATE_RETRIES", "Lost", "Transport"]

log = logging.getLogger("skirmish.client")

CODECS = {"msgpack": MSGPACK, "json": JSON}
CALL_TIMEOUT = 30.0  # seconds a call waits for its reply
RATE_RETRIES = 8  # times a call dropped by the server's rate limit is sent again
OPEN_RETRIES = 10  # with auto_reconnect: times open() tries again a server that closed before its welcome


@dataclass(frozen=True)
class Lost:
    """Put on every game's queue when the connection of ``generation`` drops (-1: for good)."""

    generation: int


class Transport:
    """The connection, the reader and the calls of a ``Client`` (which adds the protocol's calls)."""

    def __init__(self, url: str, *, codec: str = "msgpack", name: str = "skirmish-client",
                 auto_reconnect: bool = False, open_timeout: float = 10.0, batch: bool = True):
        if codec not in CODECS:
            raise ValueError(f"codec is one of {', '.join(CODECS)}, not {codec!r}")
        self.url = url
        self.codec_name = codec
        self.auto_reconnect = auto_reconnect
        self.open_timeout = open_timeout
        # the protocol, sans I/O: ``batch`` asks for ``updates`` (one frame per server step)
        self.session = ClientSession(codec_for(CODECS[codec]), name=name, batch=batch)
        self.server = ""  # the server's name, from welcome
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task | None = None
        self._calls: dict[int, asyncio.Future] = {}
        self._queues: dict[str, asyncio.Queue] = {}  # game id -> what updates() reads
        self._generation = 0
        self._ready = asyncio.Event()  # connected, hello done, games resumed
        self._reconnecting: asyncio.Task | None = None
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def name(self) -> str:
        return self.session.name

    @property
    def batch(self) -> bool:
        return self.session.batch

    @property
    def _codec(self):
        return self.session.codec

    @property
    def notices(self) -> list[m.Error]:
        """Errors the server sent without an id."""
        return self.session.notices

    # -- connection ----------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def open(self) -> Self:
        """Connect and say hello. With ``auto_reconnect``, a server that closes the connection before
        its welcome (a node shutting down: behind a balancer the next try may reach another) is tried
        again, ``OPEN_RETRIES`` times with the pauses of a reconnect; one that cannot be reached at all
        (``ConnectFailed``) fails at once."""
        async with self._lock:
            self._closed = False
            for attempt in itertools.count():
                try:
                    await self._open()
                    break
                except ConnectionLost:
                    if not self.auto_reconnect or attempt >= OPEN_RETRIES:
                        raise
                    await asyncio.sleep(min(0.2 * 2**attempt, 5.0))
            self._ready.set()
        return self

    async def _open(self) -> None:
        try:
            ws = await ws_connect(self.url, subprotocols=[CODECS[self.codec_name]], proxy=None,
                                  open_timeout=self.open_timeout, max_size=16 * 2**20)
        except websockets.InvalidURI as exc:
            raise ConnectFailed(f"{self.url} is not a WebSocket address (ws://HOST:PORT): {exc}") from None
        except websockets.InvalidStatus as exc:
            raise ConnectFailed(f"{self.url} refused the WebSocket handshake "
                                f"(HTTP {exc.response.status_code})") from None
        except ConnectionRefusedError:
            raise ConnectFailed(f"cannot connect to {self.url}: connection refused (is the server running?)") from None
        except TimeoutError:
            raise ConnectFailed(f"cannot connect to {self.url}: no answer within {self.open_timeout:g}s") from None
        except (websockets.InvalidHandshake, OSError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else (str(exc) or type(exc).__name__)
            raise ConnectFailed(f"cannot connect to {self.url}: {why}") from None
        self.session.connection_made(codec_for(ws.subprotocol))
        self._ws = ws
        self._generation += 1
        self._reader = asyncio.create_task(self._read(ws, self._generation), name="skirmish-client-reader")
        try:
            welcome = await self._call(self.session.hello())
        except BaseException:
            await self._drop_ws()
            raise
        self.server = welcome.server

    async def close(self) -> None:
        """Close the connection (the seats stay yours: resume later with their tokens)."""
        self._closed = True
        task = self._reconnecting
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        await self._drop_ws()

    async def _drop_ws(self) -> None:
        """Close the current connection on purpose: calls waiting on it fail with ConnectionLost."""
        ws, reader = self._ws, self._reader
        self._ws = self._reader = None
        self._ready.clear()
        self._generation += 1  # the reader's end is not a loss to report
        self._fail_calls()
        if ws is not None:
            await ws.close()
        if reader is not None and reader is not asyncio.current_task():
            try:
                await reader
            except asyncio.CancelledError:
                pass

    def _fail_calls(self) -> None:
        self.session.connection_lost()
        for fut in self._calls.values():
            if not fut.done():
                fut.set_exception(ConnectionLost())
        self._calls.clear()

    @property
    def connected(self) -> bool:
        """Connected, said hello, and resumed every game followed."""
        return self._ws is not None and self._ready.is_set()

    @property
    def websocket(self) -> ClientConnection | None:
        """The current WebSocket connection (tests break it on purpose)."""
        return self._ws

    async def reconnect(self, attempts: int = 10, delay: float = 0.2) -> None:
        """Open a new connection and resume every game followed from its ``last_seq``."""
        async with self._lock:
            await self._drop_ws()
            self._closed = False
            for attempt in range(attempts):
                try:
                    await self._open()
                    for request in self.session.resumptions():
                        await self._call(request)
                    break
                except ClientError as exc:  # not there (yet), restarting, or it dropped again
                    retry = isinstance(exc, (ConnectFailed, ConnectionLost)) or exc.code == "server.shutting_down"
                    if not retry or attempt == attempts - 1:
                        raise
                    await self._drop_ws()
                    await asyncio.sleep(min(delay * 2**attempt, 5.0))
            self._ready.set()

    async def _auto_reconnect(self) -> None:
        try:
            await self.reconnect(attempts=20)
        except ClientError as exc:
            log.warning("reconnecting failed: %s", exc)
            self._closed = True
            for queue in self._queues.values():
                queue.put_nowait(Lost(-1))
        finally:
            self._reconnecting = None

    # -- the reader: replies to calls, pushes to games --------------------------------------------

    async def _read(self, ws: ClientConnection, generation: int) -> None:
        try:
            async for frame in ws:
                msg = self.session.decode(frame)
                if msg is not None:
                    self._dispatch(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            self._lost(ws, generation)

    def _lost(self, ws: ClientConnection, generation: int) -> None:
        if generation != self._generation:
            return  # closed on purpose (close, reconnect)
        self._ready.clear()
        self._ws = None
        self._fail_calls()
        if self._closed:
            return
        if self.auto_reconnect:
            # (open and reconnect, which hold the lock, try again by themselves)
            if self._reconnecting is None and not self._lock.locked():
                self._reconnecting = asyncio.create_task(self._auto_reconnect())
        else:
            for queue in self._queues.values():
                queue.put_nowait(Lost(generation))

    def _dispatch(self, msg) -> None:
        """One message from the server, to the session; its replies to the calls waiting for them,
        its updates to their games' queues."""
        for item in self.session.receive_message(msg):
            if type(item) is Reply:
                fut = self._calls.pop(item.id, None)
                if fut is not None and not fut.done():
                    error = item.error
                    if error is not None:
                        fut.set_exception(ClientError(error.code, error.message))
                    else:
                        fut.set_result(item.message)
            else:
                self._queue(item.game_id).put_nowait(item)

    def _queue(self, game_id: str) -> asyncio.Queue:
        queue = self._queues.get(game_id)
        if queue is None:
            queue = self._queues[game_id] = asyncio.Queue()
        return queue

    # -- calls ---------------------------------------------------------------------------------------

    async def _call(self, msg, timeout: float = CALL_TIMEOUT):
        """Send ``msg`` with a fresh id and wait for the reply with that id. A message the server
        dropped for the rate limit (``protocol.rate_limited``) is sent again after a pause."""
        for attempt in itertools.count():
            try:
                return await self._call_once(msg, timeout)
            except ClientError as exc:
                if exc.code != "protocol.rate_limited" or attempt >= RATE_RETRIES:
                    raise
                await asyncio.sleep(min(0.05 * 2**attempt, 1.0))

    async def _call_once(self, msg, timeout: float):
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        frame = self.session.request(msg)
        fut = asyncio.get_running_loop().create_future()
        self._calls[msg.id] = fut
        try:
            await ws.send(frame)
        except websockets.ConnectionClosed:
            self._calls.pop(msg.id, None)
            self.session.forget(msg.id)
            if fut.done():  # the reader, seeing the close first, failed the call (_fail_calls): retrieved
                fut.exception()  # here, not logged by asyncio as "never retrieved"
            raise ConnectionLost() from None
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise ClientError("client.timeout", f"no reply to {type(msg).__name__} within {timeout:g}s") from None
        finally:
            self._calls.pop(msg.id, None)
            self.session.forget(msg.id)

    async def wait_connected(self, timeout: float = 30.0) -> None:
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            raise ConnectionLost("could not reconnect to the server") from None

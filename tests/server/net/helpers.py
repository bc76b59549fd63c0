"""Helpers for the server's network tests: raw WebSocket clients on 127.0.0.1, no client library.

``RawClient`` keeps every frame it receives (``frames``), decodes each with the protocol's own
codec, routes replies (by ``id``) to the call waiting for them and queues the rest (pushes:
``event``, ``decision``, ``game_over``; unmatched errors) for ``next``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import msgspec
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from skirmish.engine.codec import decode_event
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.engine.view import viewed as viewed_log
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK, codec_for

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 10.0
CLOSED = object()


class RawClient:
    def __init__(self, ws, name: str):
        self.ws = ws
        self.name = name
        self.codec = codec_for(ws.subprotocol)
        self.frames: list[bytes | str] = []
        self.msgs: list = []
        self.queue: asyncio.Queue = asyncio.Queue()
        self._ids = itertools.count(1)
        self._calls: dict[int, asyncio.Future] = {}
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, *, codec: str | None = MSGPACK, name: str = "t", hello: bool = True, **kw):
        subprotocols = [codec] if codec else None
        ws = await connect(url, subprotocols=subprotocols, max_size=16 * 2**20, proxy=None, **kw)
        client = cls(ws, name)
        if hello:
            reply = await client.call(m.Hello(protocol=m.PROTOCOL_VERSION, client=name))
            assert isinstance(reply, m.Welcome), reply
        return client

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                self.frames.append(frame)
                msg = self.codec.decode_server(frame)
                self.msgs.append(msg)
                fut = self._calls.pop(getattr(msg, "id", 0), None) if getattr(msg, "id", 0) else None
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                else:
                    self.queue.put_nowait(msg)
        except ConnectionClosed:
            pass
        finally:
            for fut in self._calls.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("closed"))
            self.queue.put_nowait(CLOSED)

    async def send(self, msg) -> int:
        if getattr(msg, "id", None) == 0:
            msg.id = next(self._ids)
        await self.ws.send(self.codec.encode(msg))
        return getattr(msg, "id", 0)

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def call(self, msg, timeout: float = TIMEOUT):
        msg.id = next(self._ids)
        fut = asyncio.get_running_loop().create_future()
        self._calls[msg.id] = fut
        await self.ws.send(self.codec.encode(msg))
        return await asyncio.wait_for(fut, timeout)

    async def call_raw(self, frame: bytes | str, msg_id: int, timeout: float = TIMEOUT):
        """Send a hand-made frame whose ``id`` is ``msg_id``; the reply with that id."""
        fut = asyncio.get_running_loop().create_future()
        self._calls[msg_id] = fut
        await self.ws.send(frame)
        return await asyncio.wait_for(fut, timeout)

    async def next(self, timeout: float = TIMEOUT):
        return await asyncio.wait_for(self.queue.get(), timeout)

    async def next_of(self, kind, timeout: float = TIMEOUT):
        while True:
            msg = await self.next(timeout)
            if msg is CLOSED:
                raise ConnectionError(f"{self.name}: closed while waiting for {kind.__name__}")
            if isinstance(msg, kind):
                return msg

    async def until_closed(self, timeout: float = TIMEOUT) -> list:
        """Every message still to come, until the connection closes."""
        rest = []
        while (msg := await self.next(timeout)) is not CLOSED:
            rest.append(msg)
        return rest

    async def ping(self) -> None:
        assert isinstance(await self.call(m.Ping()), m.Pong)

    def events(self, game_id: str) -> list[tuple[int, object]]:
        return [(x.seq, x.event) for x in self.msgs if isinstance(x, m.EventMsg) and x.game_id == game_id]

    async def close(self) -> None:
        await self.ws.close()
        await self.reader


async def play(client: RawClient, game_id: str, seat: str, *, rng: random.Random | None = None,
               stop=None, acks: list[int] | None = None) -> m.GameOverMsg | m.DecisionMsg:
    """Answer each of ``seat``'s decisions (first option, or a random one with ``rng``) until the
    game is over (returns the ``game_over``) or ``stop(decision_msg)`` says stop (returns it)."""
    answered = 0
    n = 0
    while True:
        msg = await client.next()
        if msg is CLOSED:
            raise ConnectionError(f"{client.name} closed")
        if isinstance(msg, m.GameOverMsg) and msg.game_id == game_id:
            return msg
        if not isinstance(msg, m.DecisionMsg) or msg.game_id != game_id:
            continue
        d = msg.decision
        if stop is not None and stop(msg):
            return msg
        if d.side != seat or d.id <= answered:
            continue
        option = rng.choice(d.options) if rng else d.options[0]
        answered = d.id
        n += 1
        command = m.Command(game_id=game_id, decision_id=d.id, option=option, command_id=f"{seat}-{d.id}")
        reply = await client.call(command)
        while isinstance(reply, m.Error) and reply.code == "protocol.rate_limited":
            # the server dropped it (a random game can outrun 50 commands/s): pause and send it
            # again, as the client library does; the command id makes the resend idempotent
            await asyncio.sleep(0.2)
            reply = await client.call(command)
        assert isinstance(reply, m.Ack), reply
        if acks is not None:
            acks.append(reply.seq)


async def seated_pair(url: str, mission: str = "ridge", *, codecs=(MSGPACK, MSGPACK)):
    a = await RawClient.open(url, codec=codecs[0], name="alice")
    b = await RawClient.open(url, codec=codecs[1], name="bob")
    sa = await a.call(m.CreateGame(mission=mission, seat="a", client_seed="alice-seed"))
    assert isinstance(sa, m.Seated), sa
    sb = await b.call(m.Join(game_id=sa.game_id, seat="any", client_seed="bob-seed"))
    assert isinstance(sb, m.Seated) and sb.seat == "b", sb
    return a, b, sa, sb


async def log_bytes(store, game_id: str) -> list[tuple[int, bytes, bytes]]:
    return [(s.seq, s.data, s.hash) for s in await store.read(game_id)]


async def verify_store(store, game_id: str):
    stored = await store.read(game_id)
    return verify_log(game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])


async def viewed(store, game_id: str, viewer: str, after_seq: int = 0) -> list[tuple[int, object]]:
    stored = await store.read(game_id)  # from the start: each view sees the state before its event
    return [(s.seq, seen) for s, seen in zip(stored, viewed_log((decode_event(s.data) for s in stored), viewer))
            if s.seq > after_seq and seen is not None]


def encode_raw(codec_name: str, obj) -> bytes | str:
    if codec_name == JSON:
        return msgspec.json.encode(obj).decode()
    return msgspec.msgpack.encode(obj)


# -- a server in its own process ---------------------------------------------------------------


class ServerProcess:
    """``skirmish serve --port 0 --db DB`` in a subprocess; its JSON log goes to ``log`` (appended)."""

    def __init__(self, db: Path, log: Path, *args: str, env: dict | None = None):
        self.db = db
        self.log = log
        cmd = [sys.executable, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", str(db), *args]
        full_env = {**os.environ, **(env or {})}
        self._err = open(log, "a")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=subprocess.PIPE, stderr=self._err,
                                     text=True)
        self.url = ""
        self.first_line = ""

    async def started(self, timeout: float = 20.0) -> "ServerProcess":
        loop = asyncio.get_running_loop()
        line = await asyncio.wait_for(loop.run_in_executor(None, self.proc.stdout.readline), timeout)
        self.first_line = line
        assert line.startswith("listening on ws://127.0.0.1:"), (line, self.proc.poll())
        self.url = line.split(" ", 2)[2].strip()
        return self

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    async def terminate(self, timeout: float = 20.0) -> int:
        self.proc.send_signal(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        return await asyncio.wait_for(loop.run_in_executor(None, self.proc.wait), timeout)

    def stdout(self) -> str:
        """Everything the process printed on stdout (after it exited)."""
        out, _ = self.proc.communicate(timeout=10)
        return self.first_line + out

    def log_lines(self) -> list[str]:
        self._err.flush()
        return self.log.read_text().splitlines()

    def cleanup(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc.stdout:
            self.proc.stdout.close()
        self._err.close()

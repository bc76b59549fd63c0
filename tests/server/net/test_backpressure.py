"""One slow reader never stalls a game: its send queue overflows and it alone is disconnected."""

from __future__ import annotations

import asyncio
import socket

import pytest

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Opcode
from websockets.protocol import Protocol, Side, State

from skirmish.protocol import messages as m
from skirmish.protocol.codec import MSGPACK, MsgpackCodec
from skirmish.server.connection import Connection, TokenBucket

from .helpers import play, seated_pair, verify_store


async def _stuck_spectator(server, game_id: str):
    """A spectator that asks for a game and then never reads: small socket buffers at both ends
    (as over a slow network; on loopback the kernel would otherwise hold megabytes), and
    websockets' client stops reading the socket once one message waits unread."""
    url = server.url
    host, port = url.removeprefix("ws://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.setblocking(False)
    ws = await connect(url, sock=sock, subprotocols=[MSGPACK], max_queue=1, proxy=None)
    codec = MsgpackCodec()
    await ws.send(codec.encode(m.Hello(protocol=m.PROTOCOL_VERSION, client="stuck", id=1)))
    assert isinstance(codec.decode_server(await ws.recv()), m.Welcome)
    (mine,) = [c for c in server.connections if c.name == "stuck"]
    mine.ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    await ws.send(codec.encode(m.Spectate(game_id=game_id, id=2)))
    return ws


async def test_a_reader_that_falls_behind_is_closed_1008_and_the_game_goes_on(make_server):
    # 16 KiB unsent past what the socket buffers hold: a spectator that reads nothing passes it
    # as the game goes on (it is sent ~40 KiB of catch-up, ~77 KiB over the game: every unit, every event)
    async with make_server(send_buffer=16 * 1024, close_timeout=60) as server:
        a, b, sa, sb = await seated_pair(server.url)
        stop = lambda d: d.decision.id >= 60  # noqa: E731
        await asyncio.gather(play(a, sa.game_id, "a", stop=stop), play(b, sa.game_id, "b", stop=stop))
        stuck = await _stuck_spectator(server, sa.game_id)
        # the players were never held up: they play to the end while the spectator reads nothing
        a.queue.put_nowait(next(x for x in reversed(a.msgs) if isinstance(x, m.DecisionMsg)))
        b.queue.put_nowait(next(x for x in reversed(b.msgs) if isinstance(x, m.DecisionMsg)))
        over = await asyncio.gather(play(a, sa.game_id, "a"), play(b, sa.game_id, "b"))
        assert over[0] == over[1]
        assert (await verify_store(server.store, sa.game_id)).ok
        # reading at last: what was written before the overflow, then the server's closing frame
        frames = []
        with pytest.raises(ConnectionClosed):
            while True:  # (10 s: a spectator never closed fails here, not at the suite's time-out)
                frames.append(await asyncio.wait_for(stuck.recv(), 10))
        assert stuck.close_code == 1008 and stuck.close_reason == "send queue overflow: resume later"
        assert sum(map(len, frames)) > 16 * 1024
        # nothing pushed after the overflow went out: the spectator never saw the game end
        msgs = [MsgpackCodec().decode_server(f) for f in frames]
        assert isinstance(msgs[0], m.Watching) and not any(isinstance(x, m.GameOverMsg) for x in msgs)


class _StuckTransport:
    """A socket whose peer never reads: every byte written stays in the buffer."""

    def __init__(self):
        self.buffered = 0
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.buffered += len(data)

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.aborted

    def abort(self) -> None:
        self.aborted = True


class _StuckSocket:
    """A websocket over a ``_StuckTransport``, with websockets' own sans-I/O protocol (open)."""

    def __init__(self):
        self.protocol = Protocol(Side.SERVER, state=State.OPEN)
        self.transport = _StuckTransport()
        self.closed_with = None

    async def close(self, code, reason):
        self.closed_with = (code, reason)


class _Log:
    def __init__(self):
        self.warnings = []

    def warning(self, event, **fields):
        self.warnings.append((event, fields))

    def __getattr__(self, name):
        return lambda *a, **k: None


async def test_push_never_blocks_and_overflow_closes_1008():
    ws, log = _StuckSocket(), _Log()
    conn = Connection(ws, MsgpackCodec(), send_buffer=1000, rate=1, burst=1, close_timeout=1, log=log)
    for _ in range(100):  # returns at once every time, though the peer never reads
        conn.push(b"x" * 30)
    # 31 frames of 32 bytes (a 2-byte header each) wait unsent; 30 more would pass 1,000
    assert conn.sent == 31 and ws.transport.buffered == 31 * 32
    assert log.warnings == [("connection.overflow", {"conn": conn.id, "queued": 992, "limit": 1000})]
    await asyncio.sleep(0.01)
    assert ws.closed_with == (1008, "send queue overflow: resume later")
    assert conn.closing
    conn.push(b"y")  # closing: dropped
    assert conn.sent == 31


async def test_push_frames_text_and_binary_as_websockets_does():
    ws = _StuckSocket()
    written = []
    ws.transport.write = written.append
    conn = Connection(ws, MsgpackCodec(), send_buffer=1000, close_timeout=1, log=_Log())
    conn.push(b"\x81\xa1a\x01")
    conn.push('{"a":1}')
    reader = Protocol(Side.CLIENT, state=State.OPEN)
    reader.receive_data(b"".join(written))
    frames = reader.events_received()
    assert [(f.opcode, f.data) for f in frames] == [(Opcode.BINARY, b"\x81\xa1a\x01"), (Opcode.TEXT, b'{"a":1}')]
    ws.protocol.send_close(1000, "bye")  # once the protocol is closing, a push is dropped
    conn.push(b"late")
    assert conn.sent == 2


def test_token_bucket():
    bucket = TokenBucket(rate=10, burst=3, now=0.0)
    assert [bucket.take(now=0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(now=0.05) is False  # half a token
    assert bucket.take(now=0.1) is True
    assert [bucket.take(now=100.0) for _ in range(4)] == [True, True, True, False]  # never above the burst



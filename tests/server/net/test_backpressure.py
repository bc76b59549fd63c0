"""One slow reader never stalls a game: its send queue overflows and it alone is disconnected."""

from __future__ import annotations

import asyncio

from skirmish.protocol import messages as m
from skirmish.server.connection import Connection, TokenBucket

from .helpers import RawClient, play, seated_pair, verify_store


async def test_a_connection_whose_queue_overflows_is_closed_and_the_game_goes_on(make_server):
    # 16 KiB: room for a seated player's frames (its join carries GameCreated, every unit with every
    # module's fields: over 8 KiB since the skills module), far less than 60 decisions' catch-up
    async with make_server(send_buffer=16 * 1024) as server:
        a, b, sa, sb = await seated_pair(server.url)
        stop = lambda d: d.decision.id >= 60  # noqa: E731
        await asyncio.gather(play(a, sa.game_id, "a", stop=stop), play(b, sa.game_id, "b", stop=stop))
        # a spectator's catch-up is far more than 16 KiB, queued at once: too much for its queue
        late = await RawClient.open(server.url, name="late")
        await late.send(m.Spectate(game_id=sa.game_id))
        await late.until_closed()
        assert late.ws.close_code == 1008
        # the players were never held up
        a.queue.put_nowait(next(x for x in reversed(a.msgs) if isinstance(x, m.DecisionMsg)))
        b.queue.put_nowait(next(x for x in reversed(b.msgs) if isinstance(x, m.DecisionMsg)))
        over = await asyncio.gather(play(a, sa.game_id, "a"), play(b, sa.game_id, "b"))
        assert over[0] == over[1]
        assert (await verify_store(server.store, sa.game_id)).ok


class _StuckSocket:
    """A websocket whose peer never reads: ``send`` never returns."""

    def __init__(self):
        self.closed_with = None
        self.transport = self

    async def send(self, frame):
        await asyncio.Event().wait()

    async def close(self, code, reason):
        self.closed_with = (code, reason)

    def abort(self):
        self.closed_with = self.closed_with or ("aborted",)


class _Log:
    def __getattr__(self, name):
        return lambda *a, **k: None


async def test_push_never_blocks_and_overflow_closes_1008():
    from skirmish.protocol.codec import MsgpackCodec

    ws = _StuckSocket()
    conn = Connection(ws, MsgpackCodec(), send_buffer=1000, rate=1, burst=1, close_timeout=1, log=_Log())
    for _ in range(100):  # returns at once every time, though nothing is ever written
        conn.push(b"x" * 30)
    await asyncio.sleep(0.01)
    assert ws.closed_with == (1008, "send queue overflow: resume later")
    assert conn.closing
    await conn.stop()


def test_token_bucket():
    bucket = TokenBucket(rate=10, burst=3, now=0.0)
    assert [bucket.take(now=0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(now=0.05) is False  # half a token
    assert bucket.take(now=0.1) is True
    assert [bucket.take(now=100.0) for _ in range(4)] == [True, True, True, False]  # never above the burst



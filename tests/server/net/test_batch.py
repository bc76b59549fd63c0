"""hello ``batch``: one ``updates`` frame per server step, the same events as protocol v1's pushes."""

from __future__ import annotations

import asyncio

from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK

from .helpers import CLOSED, RawClient, viewed


async def open_batch(url: str, name: str, codec: str = MSGPACK) -> RawClient:
    c = await RawClient.open(url, codec=codec, name=name, hello=False)
    reply = await c.call(m.Hello(protocol=m.PROTOCOL_VERSION, client=name, batch=True))
    assert isinstance(reply, m.Welcome), reply
    return c


def updates(c: RawClient, game_id: str) -> list[m.Updates]:
    return [x for x in c.msgs if isinstance(x, m.Updates) and x.game_id == game_id]


def batch_events(c: RawClient, game_id: str) -> list[tuple[int, object]]:
    return [(i.seq, i.event) for u in updates(c, game_id) for i in u.events]


async def next_updates(c: RawClient, game_id: str) -> m.Updates:
    while True:
        msg = await c.next()
        if msg is CLOSED:
            raise ConnectionError(f"{c.name} closed")
        if isinstance(msg, m.Updates) and msg.game_id == game_id:
            return msg


async def test_batch_and_v1_seats_see_the_same_events_batch_gets_one_frame_per_command(server):
    a = await open_batch(server.url, "alice")  # batch, MessagePack
    b = await RawClient.open(server.url, codec=JSON, name="bob")  # protocol v1, JSON
    spec = await open_batch(server.url, "watcher", codec=JSON)  # a batch spectator
    sa = await a.call(m.CreateGame(mission="ridge", seat="a", client_seed="alice-seed"))
    game = sa.game_id
    assert isinstance(await spec.call(m.Spectate(game_id=game)), m.Watching)
    sb = await b.call(m.Join(game_id=game, seat="any", client_seed="bob-seed"))
    assert sb.seat == "b"

    commands = 0
    while True:
        u = await next_updates(a, game)
        if u.game_over is not None:
            over = u.game_over
            break
        d = u.decision
        if d is None:  # its backlog when it took its seat: the game had not started
            continue
        before = len(a.frames)
        if d.decision.side == "a":
            await a.send(m.Command(game_id=game, decision_id=d.decision.id, option=d.decision.options[0],
                                   command_id=f"a-{d.decision.id}"))
            nxt = await next_updates(a, game)
            # a's own command: ONE frame, its events + the next decision (or the end) + the ack folded in
            assert nxt.ack is not None and nxt.ack.id > 0 and nxt.ack.seq == nxt.events[-1].seq
            assert nxt.decision is not None or nxt.game_over is not None
        else:
            bd = await b.next_of(m.DecisionMsg)
            while bd.decision.id != d.decision.id:
                bd = await b.next_of(m.DecisionMsg)
            ack = await b.call(m.Command(game_id=game, decision_id=bd.decision.id, option=bd.decision.options[0],
                                         command_id=f"b-{bd.decision.id}"))
            assert isinstance(ack, m.Ack)
            nxt = await next_updates(a, game)
            assert nxt.ack is None and nxt.events[-1].seq == ack.seq
        assert len(a.frames) == before + 1  # one frame per command to a batch seat
        a.queue.put_nowait(nxt)  # read it again at the top
        commands += 1
        assert commands < 500, "the game did not end"

    b_over = await b.next_of(m.GameOverMsg)
    assert b_over.outcome == over.outcome
    # seq for seq, each in its own view: batch a, v1 b, batch spectator
    assert batch_events(a, game) == await viewed(server.store, game, "a")
    assert b.events(game) == await viewed(server.store, game, "b")
    await asyncio.sleep(0.05)
    assert batch_events(spec, game) == await viewed(server.store, game, "spectator")
    assert [s for s, _ in batch_events(a, game)] == [s for s, _ in b.events(game)]  # seats see every seq
    # batch connections never get v1 pushes; the spectator got one frame per step, none with an ack
    for c in (a, spec):
        assert not any(isinstance(x, (m.EventMsg, m.DecisionMsg, m.GameOverMsg)) for x in c.msgs)
    assert all(u.ack is None for u in updates(spec, game))
    assert updates(spec, game)[-1].game_over.outcome == over.outcome
    # the decisions a batch seat saw are the ones the v1 seat saw
    assert [u.decision.decision for u in updates(a, game) if u.decision] == \
        [x.decision for x in b.msgs if isinstance(x, m.DecisionMsg)]
    for c in (a, b, spec):
        await c.close()


async def test_batch_resume_gets_the_missed_events_in_one_updates(server):
    a = await RawClient.open(server.url, name="alice")
    b = await open_batch(server.url, "bob")
    sa = await a.call(m.CreateGame(mission="ridge", seat="a", client_seed="alice-seed"))
    game = sa.game_id
    sb = await b.call(m.Join(game_id=game, seat="any", client_seed="bob-seed"))
    first = await next_updates(b, game)  # the backlog, the start and the first decision: one frame
    assert first.events[0].seq == 1 and first.decision is not None
    u = first
    while u.decision.decision.side == "b":  # answer until it is a's turn
        await b.send(m.Command(game_id=game, decision_id=u.decision.decision.id,
                               option=u.decision.decision.options[0]))
        u = await next_updates(b, game)
        assert u.ack is not None
    assert batch_events(b, game) == await viewed(server.store, game, "b")
    seen = batch_events(b, game)[-1][0]
    await b.close()

    # a plays on alone while it decides
    while True:
        d = await a.next_of(m.DecisionMsg)
        if d.decision.id < u.decision.decision.id:
            continue  # older ones, answered already
        if d.decision.side != "a":
            break
        await a.call(m.Command(game_id=game, decision_id=d.decision.id, option=d.decision.options[0]))
    last = await server.store.last_seq(game)
    assert last > seen

    b2 = await open_batch(server.url, "bob-again")
    reply = await b2.call(m.Resume(game_id=game, token=sb.token, last_seq=seen))
    assert isinstance(reply, m.Seated)
    u = await next_updates(b2, game)
    assert [x for x in b2.msgs if isinstance(x, m.Updates)] == [u]  # everything missed, in one frame
    assert [(i.seq, i.event) for i in u.events] == await viewed(server.store, game, "b", after_seq=seen)
    assert u.events[-1].seq == last and u.decision is not None and u.decision.decision.side == "b"
    assert u.ack is None
    for c in (a, b2):
        await c.close()


async def test_client_library_batches_and_plays_like_v1(server):
    from skirmish.client.connection import DecisionUpdate, EventUpdate, GameOverUpdate, connect

    streams = {}
    for batch in (True, False):
        async with connect(server.url, name="a", batch=batch) as ca, connect(server.url, name="b", batch=batch) as cb:
            seat_a = await ca.create_game("ridge", seat="a", client_seed="alice-seed")
            await cb.join(seat_a.game_id, client_seed="bob-seed")

            async def run(c, game_id):
                kinds = []
                async for up in c.updates(game_id):
                    kinds.append(up.seq if isinstance(up, EventUpdate) else type(up).__name__)
                    if isinstance(up, DecisionUpdate) and c.my_decision(game_id):
                        seq = await c.choose(up, up.decision.options[0])
                        assert seq == c.last_seq(game_id)  # the events came before the ack
                    assert isinstance(up, (EventUpdate, DecisionUpdate, GameOverUpdate))
                return kinds

            ka, kb = await asyncio.gather(run(ca, seat_a.game_id), run(cb, seat_a.game_id))
            assert ka[-1] == kb[-1] == "GameOverUpdate"
            assert ca.game(seat_a.game_id).gaps == [] and not ca.game(seat_a.game_id).error
            for c, kinds in ((ca, ka), (cb, kb)):
                g = c.game(seat_a.game_id)
                seqs = [k for k in kinds if isinstance(k, int)]
                assert seqs == g.seqs and seqs[0] == 1 and g.duplicates == 0
            streams[batch] = (ca.game(seat_a.game_id).gaps, cb.game(seat_a.game_id).gaps)
            assert ca.view(seat_a.game_id).outcome == cb.view(seat_a.game_id).outcome is not None
    assert streams[True] == streams[False] == ([], [])  # (the server seed differs: not the same game)

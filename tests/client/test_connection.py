"""The client library (``skirmish.client.connection``) against a real server over loopback sockets."""

from __future__ import annotations

import asyncio
import time

import pytest

from skirmish.bots import make_bot
from skirmish.bots.base import Bot
from skirmish.bots.runner import run_bot
from skirmish.client.connection import (Client, ClientError, ConnectFailed, ConnectionLost, DecisionUpdate,
                               EventUpdate, GameOverUpdate, connect)
from skirmish.engine import events as ev
from skirmish.engine.codec import state_hash
from skirmish.engine.model import Decision
from skirmish.protocol import messages as m
from skirmish.server.app import ServerConfig, running_server


def assert_continuous(game, start: int = 1) -> None:
    """Core rules hide nothing: every viewer gets every seq, once, in order."""
    assert game.duplicates == 0
    assert game.gaps == []
    assert game.seqs == list(range(start, game.last_seq + 1))


async def settle(clients_games, final_seq: int, timeout: float = 5.0) -> None:
    async def wait():
        while any(c.last_seq(g) < final_seq for c, g in clients_games):
            await asyncio.sleep(0.01)
    await asyncio.wait_for(wait(), timeout)


@pytest.mark.parametrize("codec", ["msgpack", "json"])
async def test_lobby_calls_and_typed_errors(server, codec):
    async with connect(server.url, codec=codec, name="lobby-test") as c:
        assert c.server
        missions = await c.list_missions()
        assert {"ridge", "outpost"} <= {mi.id for mi in missions}
        seat = await c.create_game("ridge", seat="b")
        assert (seat.seat, len(seat.token) > 8) == ("b", True)
        games = {g.game_id: g for g in await c.list_games()}
        assert games[seat.game_id].seats == ["b"] and not games[seat.game_id].started
        with pytest.raises(ClientError) as err:
            await c.join("g-nosuchgame")
        assert err.value.code == "lobby.no_such_game"
        with pytest.raises(ClientError) as err:
            await c.create_game("no-such-mission")
        assert err.value.code == "lobby.no_such_mission"
        await c.ping()  # the connection is still usable after errors


async def test_connect_failures_are_typed():
    with pytest.raises(ConnectFailed, match="connection refused"):
        async with connect("ws://127.0.0.1:1"):
            pass
    with pytest.raises(ConnectFailed, match="not a WebSocket address"):
        async with connect("http://127.0.0.1:1"):
            pass


async def test_two_seats_and_a_spectator_play_to_the_end(server):
    """Seat a (MessagePack) and seat b (JSON) play; two spectators (one per codec) watch. All see
    the game end, every seq exactly once, and reduce the same view state."""
    async with connect(server.url, codec="msgpack") as ca, connect(server.url, codec="json") as cb, \
            connect(server.url, codec="json") as sj, connect(server.url, codec="msgpack") as sm:
        seat_a = await ca.create_game("ridge", seat="a")
        gid = seat_a.game_id
        assert await sj.spectate(gid) == "spectator"
        seat_b = await cb.join(gid)
        assert seat_b.seat == "b" and seat_b.token != seat_a.token
        await sm.spectate(gid)
        bots = {"a": make_bot("random", 11), "b": make_bot("random", 12)}
        for side, bot in bots.items():
            bot.new_game(side)

        async def play(c, side):
            kinds = set()
            async for update in c.updates(gid):
                kinds.add(type(update))
                d = c.my_decision(gid)
                if isinstance(update, DecisionUpdate):
                    assert update.clock.move_ms > 0
                if d is not None:
                    await c.choose(d, bots[side].choose(c.view(gid), d), game_id=gid)
            return kinds

        async def watch(c):
            texts = [u.text async for u in c.updates(gid) if isinstance(u, EventUpdate) and u.text]
            return texts

        kinds_a, kinds_b, texts, _ = await asyncio.wait_for(
            asyncio.gather(play(ca, "a"), play(cb, "b"), watch(sj), watch(sm)), 60)
        assert kinds_a == kinds_b == {EventUpdate, DecisionUpdate, GameOverUpdate}
        assert any(t.startswith("GAME OVER") for t in texts)

        final = {g.game_id: g.seq for g in await ca.list_games()}[gid]
        everyone = [(ca, gid), (cb, gid), (sj, gid), (sm, gid)]
        await settle(everyone, final)
        outcomes = [c.game(gid).outcome for c, _ in everyone]
        assert outcomes[0] is not None and all(o == outcomes[0] for o in outcomes)
        for c, _ in everyone:
            assert_continuous(c.game(gid))
            assert c.view(gid).outcome == ca.game(gid).outcome
        # the core rules hide nothing, so every view is the whole game
        assert len({state_hash(c.view(gid)) for c, _ in everyone}) == 1


async def test_a_dropped_client_resumes_with_exactly_what_it_missed(server):
    async with connect(server.url, codec="json") as c:
        seat = await c.create_game("ridge", seat="a")
        gid = seat.game_id
        bot = make_bot("random", 5)
        bot.new_game("a")
        opponent = asyncio.create_task(run_bot(server.url, make_bot("random", 6), game_id=gid))
        dropped_at = None
        resumed = False
        answered = 0
        while not c.game(gid).over_seen:
            try:
                async for update in c.updates(gid):
                    d = c.my_decision(gid)
                    if d is not None and d.id > answered:
                        await c.choose(d, bot.choose(c.view(gid), d), game_id=gid)
                        answered = d.id
                        if dropped_at is None and d.id >= 6:
                            # break the socket under the client, as a network failure would
                            dropped_at = c.last_seq(gid)
                            c.websocket.transport.abort()
            except ConnectionLost:
                assert not resumed
                await asyncio.sleep(0.3)  # the opponent plays on meanwhile
                await c.reconnect()
                resumed = True
        assert resumed and dropped_at
        outcome = await asyncio.wait_for(opponent, 30)
        g = c.game(gid)
        assert g.outcome == outcome
        final = {x.game_id: x.seq for x in await c.list_games()}[gid]
        await settle([(c, gid)], final)
        assert_continuous(g)  # no duplicates, no gaps across the reconnection
        assert g.last_seq > dropped_at


async def test_choose_retried_with_the_same_command_id_acts_once(server):
    async with connect(server.url, codec="msgpack") as c:
        seat = await c.create_game("ridge", seat="a")
        gid = seat.game_id
        opponent = asyncio.create_task(run_bot(server.url, make_bot("random", 8), game_id=gid))
        async for _ in c.updates(gid):
            if c.my_decision(gid):
                break
        d = c.my_decision(gid)
        option = d.options[-1]
        # the command goes out, and the connection breaks before the ack can come back
        frame = m.Command(game_id=gid, decision_id=d.id, option=option, command_id="retry-1", id=999)
        await c.websocket.send(c._codec.encode(frame))
        c.websocket.transport.abort()
        await asyncio.sleep(0.2)
        await c.reconnect()
        seq = await c.choose(d, option, game_id=gid, command_id="retry-1")
        assert seq >= d.id
        # and again, on a healthy connection: still one answer
        seq2 = await c.choose(d, option, game_id=gid, command_id="retry-1")
        assert seq2 == seq
        await asyncio.sleep(0.2)
        answers = [e for e in await _log(c, gid) if isinstance(e, ev.OptionChosen) and e.decision_id == d.id]
        assert len(answers) == 1 and tuple(answers[0].option) == tuple(option)
        await c.resign(gid)
        assert (await asyncio.wait_for(opponent, 30)).winner == "b"


async def _log(c, gid):
    """The events this client received for the game, as a spectator would replay them."""
    async with connect(c.url) as s:
        await s.spectate(gid)
        final = {x.game_id: x.seq for x in await s.list_games()}[gid]
        events = []

        async def read():
            async for u in s.updates(gid):
                if isinstance(u, EventUpdate):
                    events.append(u.event)
                    if u.seq >= final:
                        return
        await asyncio.wait_for(read(), 10)
        return events


async def test_bad_commands_get_typed_errors_and_change_nothing(server):
    async with connect(server.url) as c:
        seat = await c.create_game("ridge", seat="a")
        gid = seat.game_id
        opponent = asyncio.create_task(run_bot(server.url, make_bot("random", 9), game_id=gid))
        async for _ in c.updates(gid):
            if c.my_decision(gid):
                break
        d = c.my_decision(gid)
        before = c.last_seq(gid)
        with pytest.raises(ClientError) as err:
            await c.choose(d, ("no-such-option",), game_id=gid)
        assert err.value.code == "game.illegal_option"
        with pytest.raises(ClientError) as err:
            await c.choose(Decision(d.id + 50, d.side, d.kind, d.options), d.options[0], game_id=gid)
        assert err.value.code == "game.stale_decision"
        assert c.last_seq(gid) == before
        await c.resign(gid)
        await asyncio.wait_for(opponent, 30)


async def test_auto_reconnect_resumes_and_retries_an_unacknowledged_command(server):
    """With auto_reconnect the client mends a broken connection by itself: the command in flight
    is sent again with its command id (acted on once), and the stream carries on without a gap."""
    async with connect(server.url, codec="json", auto_reconnect=True) as c:
        gid = (await c.create_game("ridge", seat="a")).game_id
        opponent = asyncio.create_task(run_bot(server.url, make_bot("random", 15), game_id=gid))
        bot = make_bot("random", 16)
        bot.new_game("a")
        broken = []
        async for _ in c.updates(gid):
            d = c.my_decision(gid)
            if d is None or any(dd == d.id for dd, _ in broken):
                continue
            option = bot.choose(c.view(gid), d)
            if len(broken) < 2 and d.id >= 4:
                task = asyncio.create_task(c.choose(d, option, game_id=gid))
                await asyncio.sleep(0)  # the command is on its way ...
                c.websocket.transport.abort()  # ... and the connection breaks under it
                seq = await asyncio.wait_for(task, 15)
                broken.append((d.id, seq))
            else:
                await c.choose(d, option, game_id=gid)
        assert len(broken) == 2
        outcome = await asyncio.wait_for(opponent, 30)
        g = c.game(gid)
        assert g.outcome == outcome
        final = {x.game_id: x.seq for x in await c.list_games()}[gid]
        await settle([(c, gid)], final)
        assert_continuous(g)
        for decision_id, seq in broken:
            assert seq in g.seqs and decision_id in g.answers and not g.answers[decision_id][2]
        events = await _log(c, gid)
        for decision_id, _ in broken:
            assert sum(isinstance(e, ev.OptionChosen) and e.decision_id == decision_id for e in events) == 1


async def test_run_bot_plays_a_game_either_way_of_thinking(server):
    """``run_bot``: one bot thinks in the event loop, the other in a worker thread."""
    loop = asyncio.get_running_loop()
    seated = loop.create_future()
    seen = []
    a = asyncio.create_task(run_bot(server.url, make_bot("random", 1), mission="outpost", seat="b",
                                    on_seated=seated.set_result, on_update=seen.append))
    seat = await asyncio.wait_for(seated, 10)
    assert seat.seat == "b" and seat.token
    b = asyncio.create_task(run_bot(server.url, make_bot("random", 2), game_id=seat.game_id, codec="json",
                                    think_in_thread=True))
    oa, ob = await asyncio.wait_for(asyncio.gather(a, b), 60)
    assert oa == ob and isinstance(seen[-1], GameOverUpdate)
    with pytest.raises(ValueError):
        await run_bot(server.url, make_bot("random"), mission="ridge", game_id="g-x")


class Slow(Bot):
    """Answers after the clock has run out."""

    name = "slow"

    def choose(self, view, decision):
        time.sleep(0.25)
        return decision.options[0]


async def test_a_bot_too_slow_for_its_clock_forfeits_and_the_stream_says_so():
    config = ServerConfig(port=0, db=":memory:", move_ms=60, reserve_ms=0, max_timeouts=2)
    async with running_server(config) as srv:
        loop = asyncio.get_running_loop()
        seated = loop.create_future()
        updates = []
        slow = asyncio.create_task(run_bot(srv.url, Slow(), mission="ridge", seat="a", on_seated=seated.set_result,
                                           on_update=updates.append, think_in_thread=True))
        gid = (await asyncio.wait_for(seated, 10)).game_id
        quick = asyncio.create_task(run_bot(srv.url, make_bot("random", 3), game_id=gid))
        outcome_slow, outcome_quick = await asyncio.wait_for(asyncio.gather(slow, quick), 30)
    assert outcome_slow == outcome_quick and outcome_slow.winner == "b"
    over = updates[-1]
    assert isinstance(over, GameOverUpdate) and over.forfeit == "a"
    timed_out = [u.event for u in updates if isinstance(u, EventUpdate) and isinstance(u.event, ev.OptionChosen)
                 and u.event.timeout]
    assert len(timed_out) == 2 and all(e.side == "a" for e in timed_out)
    clocks = [u.clock for u in updates if isinstance(u, DecisionUpdate) and u.decision.side == "a"]
    assert clocks and all(cl.move_ms <= 60 and cl.reserve_ms == 0 for cl in clocks)
    assert [cl.timeouts for cl in clocks][-1] == 1


def lose_first(c, kind):
    """Make ``c`` lose the first ``kind`` reply: the connection breaks as it arrives, unread, as
    when a server dies between taking a seat and its ``seated`` reaching the client."""
    dispatch, lost = c._dispatch, []

    def patched(msg):
        if isinstance(msg, kind) and not lost:
            lost.append(msg)
            c.websocket.transport.abort()
            return
        dispatch(msg)

    c._dispatch = patched
    return lost


async def test_auto_reconnect_retries_a_join_whose_seated_was_lost_and_gets_the_same_seat(server):
    async with connect(server.url, name="alice") as alice, connect(server.url, name="bob", auto_reconnect=True) as bob:
        gid = (await alice.create_game("ridge", seat="a")).game_id
        lost = lose_first(bob, m.Seated)
        seat = await asyncio.wait_for(bob.join(gid), 15)  # before: lobby.game_full (the seat went to the lost try)
        assert len(lost) == 1 and (seat.game_id, seat.seat, seat.token) == (gid, "b", lost[0].token)
        assert bob.game(gid).token == seat.token
        async for _ in bob.updates(gid):  # the game started with bob in seat b
            if bob.pending(gid):
                break
        assert bob.view(gid).started and bob.game(gid).seqs[0] == 1
        names = [e.name for e in await _log(alice, gid) if isinstance(e, ev.SeatTaken)]
        assert names == ["alice", "bob"]  # one seat each: the retry took nothing more
        async with connect(server.url) as other:  # the token handed to the retry is the seat's
            assert (await other.resume(gid, seat.token)).seat == "b"


async def test_a_create_game_whose_seated_was_lost_is_retried_with_its_request_id(server):
    async with connect(server.url, name="alice") as c:
        lost = lose_first(c, m.Seated)
        with pytest.raises(ConnectionLost) as err:
            await c.create_game("ridge", seat="a", client_seed="alice-seed")
        assert len(err.value.request_id) == 32 and len(lost) == 1
        await c.reconnect()
        seat = await c.create_game("ridge", seat="a", client_seed="alice-seed", request_id=err.value.request_id)
        assert (seat.game_id, seat.seat, seat.token) == (lost[0].game_id, "a", lost[0].token)
        assert [g.game_id for g in await c.list_games()] == [seat.game_id]  # one game, not two
        fresh = await c.create_game("ridge")  # a new request: a new id, a new game
        assert fresh.game_id != seat.game_id and len(await c.list_games()) == 2


async def test_the_library_cancels_a_waiting_game_and_knows_when_it_is_live(server):
    async with connect(server.url, codec="json", name="waiter") as c:
        seat = await c.create_game("ridge", seat="a")
        await asyncio.wait_for(_until(lambda: c.game(seat.game_id).live > 0), 5)  # the backlog is in
        seq = await c.cancel(seat.game_id)  # its own seat's token
        assert seq == c.game(seat.game_id).live + 4  # GameCancelled, Checkpoint, GameEnded, SeedRevealed
        await asyncio.wait_for(_until(lambda: c.game(seat.game_id).outcome is not None), 5)
        assert c.game(seat.game_id).outcome.reason == "cancelled by seat a before anyone joined"
        with pytest.raises(ClientError) as err:
            await c.cancel(seat.game_id)
        assert err.value.code == "game.over"


async def _until(check) -> None:
    while not check():
        await asyncio.sleep(0.01)


async def test_a_command_for_a_game_seen_to_end_is_game_over_without_asking_the_server(server):
    """After a reconnect the library does not resume a game it saw end, so the server would only
    say ``auth.not_seated``: a command or resignation for such a game is ``game.over`` at once."""
    async with connect(server.url, name="alice") as alice, connect(server.url, name="bob") as bob:
        gid = (await alice.create_game("ridge", seat="a")).game_id
        await bob.join(gid)
        await asyncio.wait_for(_until(lambda: bob.view(gid) is not None and bob.view(gid).started), 5)
        await alice.resign(gid)
        await asyncio.wait_for(_until(lambda: bob.game(gid).over), 5)
        await bob.close()  # nothing can reach the server now: the answer is the library's
        for attempt in (bob.resign(gid), bob.choose(Decision(1, "a", "act", ()), ("end",), game_id=gid)):
            with pytest.raises(ClientError) as err:
                await attempt
            assert err.value.code == "game.over"


async def test_a_call_whose_send_meets_the_close_fails_once_and_leaves_nothing_unretrieved():
    # The server closing (a node shutting down): websockets' send waits for the close while the
    # reader task, woken first, fails every call in flight; send then raises too. The caller gets
    # one ConnectionLost, and asyncio has no "exception was never retrieved" to log.
    import gc

    from websockets.exceptions import ConnectionClosedOK
    from websockets.frames import Close

    from skirmish.client.transport import Transport

    class Closing:  # a connection whose close the reader sees while send still waits
        def __init__(self, transport):
            self.transport = transport

        async def send(self, frame):
            await asyncio.sleep(0)
            self.transport._fail_calls()
            raise ConnectionClosedOK(Close(1001, "going away"), None)

    unretrieved = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, ctx: unretrieved.append(ctx))
    try:
        t = Transport("ws://127.0.0.1:9")
        t._ws = Closing(t)
        with pytest.raises(ConnectionLost):
            await t._call_once(m.ListMissions(), 1.0)
        assert not t._calls
        gc.collect()
        await asyncio.sleep(0)
        assert unretrieved == []
    finally:
        loop.set_exception_handler(None)


async def test_opening_tries_again_a_server_that_is_shutting_down_when_asked_to_reconnect(server):
    # A node shutting down still accepts a connection, says server.shutting_down and closes it
    # before its welcome; behind a balancer the next try reaches another node. With
    # auto_reconnect, open() tries again (here the same server, back after 0.5 s); without, it
    # fails at once. No reconnect task is left behind either way.
    url = f"ws://127.0.0.1:{server.port}"
    server.closing = True
    plain = Client(url)
    with pytest.raises(ConnectionLost):
        await plain.open()
    assert plain._reconnecting is None

    loop = asyncio.get_running_loop()
    loop.call_later(0.5, setattr, server, "closing", False)
    patient = Client(url, auto_reconnect=True)
    started = time.perf_counter()
    try:
        await patient.open()
        assert patient.connected and patient._reconnecting is None
        assert time.perf_counter() - started >= 0.5
        assert await patient.list_missions()  # a working connection
    finally:
        await patient.close()
        await plain.close()

"""Two raw clients play a whole game over real sockets while a third spectates."""

from __future__ import annotations

import asyncio
import random

import pytest
from websockets.exceptions import InvalidStatus

from skirmish.engine.events import GameEnded, OptionChosen, SeatTaken
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK

from .helpers import RawClient, play, seated_pair, verify_store, viewed


async def test_two_seats_and_a_spectator_play_a_whole_game(server):
    a, b, sa, sb = await seated_pair(server.url, codecs=(MSGPACK, JSON))
    game = sa.game_id
    spectator = await RawClient.open(server.url, codec=JSON, name="carol")
    watching = await spectator.call(m.Spectate(game_id=game))
    assert watching == m.Watching(game_id=game, viewer="spectator", id=watching.id)

    ra, rb = random.Random(1), random.Random(2)
    over_a, over_b = await asyncio.gather(play(a, game, "a", rng=ra), play(b, game, "b", rng=rb))
    over_s = await spectator.next_of(m.GameOverMsg)
    assert over_a == over_b == over_s
    assert over_a.outcome is not None and over_a.forfeit == ""

    report = await verify_store(server.store, game)
    assert report.ok and report.finished and report.seed_verified, report.summary()
    for client, viewer in ((a, "a"), (b, "b"), (spectator, "spectator")):
        assert client.events(game) == await viewed(server.store, game, viewer), viewer
    stored = [e for _, e in await viewed(server.store, game, "all")]
    assert [e for e in stored if isinstance(e, SeatTaken)] == [SeatTaken("a", "alice"), SeatTaken("b", "bob")]
    assert isinstance(stored[-2], GameEnded)
    assert not any(isinstance(e, OptionChosen) and e.timeout for e in stored)
    for c in (a, b, spectator):
        await c.ping()
        await c.close()


async def test_every_decision_carries_the_deciding_seats_clock(make_server):
    async with make_server(move_ms=5_000, reserve_ms=7_000) as srv:
        a, b, sa, _ = await seated_pair(srv.url)
        first, same = await a.next_of(m.DecisionMsg), await b.next_of(m.DecisionMsg)
        assert first.decision == same.decision and first.seq == same.seq
        assert first.clock.timeouts == 0
        assert 4_000 < first.clock.move_ms <= 5_000 and first.clock.reserve_ms == 7_000
        assert first.seq == (await srv.store.last_seq(sa.game_id))


async def test_lobby_lists_missions_and_games_and_creates_without_a_seat(server):
    c = await RawClient.open(server.url)
    missions = await c.call(m.ListMissions())
    assert {mi.id for mi in missions.missions} >= {"ridge", "outpost"}
    ridge = next(mi for mi in missions.missions if mi.id == "ridge")
    assert ridge.units > 0 and ridge.width > 0 and ridge.rounds > 0

    created = await c.call(m.CreateGame(mission="outpost"))
    assert isinstance(created, m.Created) and created.mission == "outpost"
    games = (await c.call(m.ListGames())).games
    assert m.GameSummary(created.game_id, "outpost", [], False, False, 1) in games

    seated = await c.call(m.Join(game_id=created.game_id, seat="b"))
    assert isinstance(seated, m.Seated) and seated.seat == "b" and len(seated.token) >= 32
    d = await RawClient.open(server.url)
    taken = await d.call(m.Join(game_id=created.game_id, seat="b"))
    assert isinstance(taken, m.Error) and taken.code == "lobby.seat_taken"
    again = await c.call(m.Join(game_id=created.game_id, seat="a"))
    assert isinstance(again, m.Error) and again.code == "lobby.seat_taken"  # one seat per connection
    joined = await d.call(m.Join(game_id=created.game_id))
    assert isinstance(joined, m.Seated) and joined.seat == "a" and joined.token != seated.token
    e = await RawClient.open(server.url)
    full = await e.call(m.Join(game_id=created.game_id))
    assert isinstance(full, m.Error) and full.code == "lobby.game_full"
    summary = next(g for g in (await e.call(m.ListGames())).games if g.game_id == created.game_id)
    assert summary.seats == ["a", "b"] and summary.started and not summary.over

    for bad, code in ((m.CreateGame(mission="nowhere"), "lobby.no_such_mission"),
                      (m.CreateGame(mission="../../etc/passwd"), "lobby.no_such_mission"),
                      (m.CreateGame(mission="ridge", seat="c"), "protocol.invalid_field"),
                      (m.CreateGame(mission="ridge", seat="a", client_seed="bad:seed"), "protocol.invalid_field"),
                      (m.Join(game_id="g-nope"), "lobby.no_such_game"),
                      (m.Join(game_id=""), "lobby.no_such_game"),
                      (m.Spectate(game_id="g-nope"), "lobby.no_such_game")):
        reply = await e.call(bad)
        assert isinstance(reply, m.Error) and reply.code == code, (bad, reply)
        assert reply.id == bad.id
    await e.ping()


async def test_no_subprotocol_means_msgpack_and_an_unknown_one_is_refused(server):
    c = await RawClient.open(server.url, codec=None)
    assert c.ws.subprotocol is None
    await c.ping()
    with pytest.raises(InvalidStatus) as info:
        await RawClient.open(server.url, codec="skirmish.v9.xml")
    assert info.value.response.status_code == 400


async def test_resigning_ends_the_game_for_everyone(server):
    a, b, sa, sb = await seated_pair(server.url)
    spectator = await RawClient.open(server.url)
    await spectator.call(m.Spectate(game_id=sa.game_id))
    ack = await b.call(m.ResignGame(game_id=sa.game_id, command_id="bye"))
    assert isinstance(ack, m.Ack) and ack.seq == await server.store.last_seq(sa.game_id)
    overs = [await c.next_of(m.GameOverMsg) for c in (a, b, spectator)]
    assert overs[0] == overs[1] == overs[2]
    assert overs[0].outcome.winner == "a" and overs[0].outcome.reason == "side b resigned"
    assert overs[0].forfeit == ""
    late = await RawClient.open(server.url)  # a finished game can still be watched, to the end
    await late.call(m.Spectate(game_id=sa.game_id))
    assert (await late.next_of(m.GameOverMsg)) == overs[0]
    assert late.events(sa.game_id) == await viewed(server.store, sa.game_id, "spectator")
    assert (await verify_store(server.store, sa.game_id)).ok


async def test_after_a_restart_games_load_from_the_store(make_server):
    from skirmish.server.store import MemoryStore

    store = MemoryStore()
    async with make_server(store=store) as srv:
        c = await RawClient.open(srv.url)
        open_game = (await c.call(m.CreateGame(mission="ridge"))).game_id
        a, b, sa, sb = await seated_pair(srv.url)
        await b.call(m.ResignGame(game_id=sa.game_id))
        half = (await c.call(m.CreateGame(mission="ridge", seat="a"))).game_id
    async with make_server(store=store) as srv:
        c = await RawClient.open(srv.url)
        games = {g.game_id: g for g in (await c.call(m.ListGames())).games}
        assert games[open_game].seats == [] and not games[open_game].started
        assert games[sa.game_id].over and games[sa.game_id].seats == ["a", "b"]
        assert games[half].seats == ["a"]
        # a seat nobody took can still be taken: its token is derived again from the stored key
        took = await c.call(m.Join(game_id=open_game, seat="any"))
        assert isinstance(took, m.Seated) and took.seat == "a" and took.token
        assert (await c.call(m.Join(game_id=sa.game_id))).code == "lobby.game_full"
        reply = await c.call(m.Resume(game_id=sa.game_id, token=sb.token, last_seq=0))
        assert isinstance(reply, m.Seated) and reply.seat == "b"
        over = await c.next_of(m.GameOverMsg)
        assert over.outcome.winner == "a"
        assert c.events(sa.game_id) == await viewed(store, sa.game_id, "b")


async def test_the_server_declines_deflate_by_default_and_accepts_it_when_told(make_server):
    for compression, extension in (("none", None), ("deflate", "permessage-deflate")):
        async with make_server(compression=compression) as srv:
            c = await RawClient.open(srv.url)  # websockets' client offers permessage-deflate
            offered = c.ws.request.headers.get("Sec-WebSocket-Extensions", "")
            accepted = c.ws.response.headers.get("Sec-WebSocket-Extensions")
            assert "permessage-deflate" in offered
            assert (accepted.split(";")[0] if accepted else None) == extension, accepted
            await c.ping()
            await c.close()
    async with make_server() as srv:
        c = await RawClient.open(srv.url)
        assert c.ws.response.headers.get("Sec-WebSocket-Extensions") is None
        await c.close()

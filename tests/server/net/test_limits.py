"""Resources a client can hold without playing (issue 12, item 9): the hello and idle timeouts, the
per-address connection cap and game-creation rate, and list_games' filters and paging (so that
spam cannot hide real games). Over real WebSockets; other addresses are 127.0.0.x."""

from __future__ import annotations

import asyncio
import time

import pytest

from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK
from skirmish.server.app import ServerConfig
from skirmish.server.store import MemoryStore

from .helpers import RawClient, encode_raw, play, seated_pair


async def closed_with(client: RawClient, timeout: float = 5.0) -> tuple[list, int]:
    """What ``client`` received until the server closed it, and the close code."""
    rest = await client.until_closed(timeout)
    return rest, client.ws.close_code


def test_defaults_a_public_server_can_run_with():
    c = ServerConfig()
    assert (c.hello_timeout, c.idle_timeout, c.connections_per_address, c.games_per_minute, c.games_burst,
            c.list_limit) == (10.0, 300.0, 64, 30.0, 10, 200)
    env = {"SKIRMISH_HELLO_TIMEOUT": "2.5", "SKIRMISH_IDLE_TIMEOUT": "0", "SKIRMISH_CONNECTIONS_PER_ADDRESS": "5",
           "SKIRMISH_GAMES_PER_MINUTE": "6", "SKIRMISH_GAMES_BURST": "2", "SKIRMISH_LIST_LIMIT": "20"}
    c = ServerConfig.from_env(env, games_burst=3)
    assert (c.hello_timeout, c.idle_timeout, c.connections_per_address, c.games_per_minute, c.games_burst,
            c.list_limit) == (2.5, 0.0, 5, 6.0, 3, 20)
    for bad in ({"hello_timeout": -1}, {"connections_per_address": -2}, {"games_per_minute": -1},
                {"games_burst": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ServerConfig(**bad)


def test_serve_takes_the_limits_as_flags():
    from skirmish.server.cli import build_parser

    args = build_parser().parse_args(["serve", "--hello-timeout", "3", "--idle-timeout", "60",
                                      "--connections-per-address", "8", "--games-per-minute", "12",
                                      "--games-burst", "4", "--list-limit", "50"])
    assert (args.hello_timeout, args.idle_timeout, args.connections_per_address, args.games_per_minute,
            args.games_burst, args.list_limit) == (3.0, 60.0, 8, 12.0, 4, 50)


# -- hello timeout ---------------------------------------------------------------------------------


async def test_a_connection_that_never_says_hello_is_closed(make_server):
    async with make_server(hello_timeout=0.4) as server:
        silent = await RawClient.open(server.url, hello=False)
        chatty = await RawClient.open(server.url, hello=False, codec=JSON)
        polite = await RawClient.open(server.url)  # said hello at once
        started = time.monotonic()

        async def chatter():  # frames that are not hello do not extend the deadline
            try:
                while True:
                    await chatty.send_raw(encode_raw(JSON, {"type": "ping", "id": 1}))
                    await asyncio.sleep(0.05)
            except Exception:
                return

        task = asyncio.create_task(chatter())
        for client in (silent, chatty):
            rest, code = await closed_with(client)
            assert code == 1008, code
            errors = [x for x in rest if isinstance(x, m.Error) and x.code != "protocol.hello_first"]
            assert [e.code for e in errors] == ["protocol.hello_timeout"], rest
            assert errors[0].id == 0 and "hello" in errors[0].message
        assert time.monotonic() - started < 8
        task.cancel()
        await asyncio.sleep(0.5)
        await polite.ping()  # hello in time: the hello timeout is done with it
        assert len(server.connections) == 1


# -- idle timeout ----------------------------------------------------------------------------------


async def test_idle_connections_that_follow_no_game_are_closed(make_server):
    async with make_server(idle_timeout=1.0) as server:
        idle = await RawClient.open(server.url)
        lister = await RawClient.open(server.url)
        pinger = await RawClient.open(server.url)
        a, b, sa, sb = await seated_pair(server.url)  # a live game: its seats say nothing for a while
        watcher = await RawClient.open(server.url)
        assert isinstance(await watcher.call(m.Spectate(game_id=sa.game_id)), m.Watching)
        await lister.call(m.ListGames())
        for _ in range(12):  # 2.4 s: pinging keeps a connection
            await pinger.ping()
            await asyncio.sleep(0.2)
        for client in (idle, lister):
            rest, code = await closed_with(client)
            assert code == 1008
            assert [x.code for x in rest if isinstance(x, m.Error)] == ["server.idle_timeout"], rest
        # players and the spectator of the unfinished game are kept, however long they think
        for client in (a, b, watcher, pinger):
            assert client.ws.close_code is None
            await client.ping()
        # once the game is over they follow nothing: idle like the rest
        resign = await a.call(m.ResignGame(game_id=sa.game_id, command_id="bye"))
        assert isinstance(resign, m.Ack)
        for client in (a, b, watcher):
            rest, code = await closed_with(client)
            assert code == 1008 and any(isinstance(x, m.Error) and x.code == "server.idle_timeout" for x in rest)


async def test_timeouts_can_be_turned_off(make_server):
    async with make_server(hello_timeout=0, idle_timeout=0) as server:
        silent = await RawClient.open(server.url, hello=False)
        idle = await RawClient.open(server.url)
        await asyncio.sleep(0.6)
        assert isinstance(await silent.call(m.Hello(protocol=m.PROTOCOL_VERSION)), m.Welcome)
        await idle.ping()


# -- connections per address -------------------------------------------------------------------------


async def test_connections_per_address_are_capped(make_server):
    async with make_server(connections_per_address=3, host="127.0.0.1") as server:
        mine = [await RawClient.open(server.url, name=f"c{i}") for i in range(3)]
        extra = await RawClient.open(server.url, hello=False)
        rest, code = await closed_with(extra)
        assert code == 1013
        assert [x.code for x in rest if isinstance(x, m.Error)] == ["server.too_many_connections"]
        for c in mine:
            await c.ping()
        # another address has its own count
        other = [await RawClient.open(server.url, name=f"o{i}", local_addr=("127.0.0.2", 0)) for i in range(3)]
        for c in other:
            await c.ping()
        # closing one makes room for one more
        await mine[0].close()
        for _ in range(50):
            if server.per_address.get("127.0.0.1") == 2:
                break
            await asyncio.sleep(0.02)
        again = await RawClient.open(server.url, name="again")
        await again.ping()
        assert server.per_address == {"127.0.0.1": 3, "127.0.0.2": 3}


# -- game creation per address -----------------------------------------------------------------------


async def test_game_creation_is_rate_limited_per_address(make_server):
    async with make_server(games_per_minute=30, games_burst=3) as server:  # one every 2 s after a burst of 3
        c = await RawClient.open(server.url)
        d = await RawClient.open(server.url)  # same address, other connection: same budget
        for client in (c, c, d):
            assert isinstance(await client.call(m.CreateGame(mission="ridge")), m.Created)
        stored = len(await server.store.list_games())
        for client, msg in ((d, m.CreateGame(mission="ridge")), (c, m.CreateGame(mission="ridge", seat="a"))):
            refused = await client.call(msg)
            assert isinstance(refused, m.Error) and refused.code == "lobby.rate_limited", refused
            assert "try again in" in refused.message
        assert len(await server.store.list_games()) == stored  # nothing created
        assert c.ws.close_code is None and d.ws.close_code is None
        # joining, listing, playing are not creating
        other = await RawClient.open(server.url, local_addr=("127.0.0.3", 0))
        assert isinstance(await other.call(m.CreateGame(mission="ridge", seat="a")), m.Seated)
        await asyncio.sleep(2.1)  # the bucket refills
        assert isinstance(await c.call(m.CreateGame(mission="ridge")), m.Created)


# -- list_games: filters and paging ---------------------------------------------------------------


async def make_games(url: str) -> dict[str, str]:
    """game id -> status: 2 open (one with a seat), 2 live, 2 finished (one after many events)."""
    out = {}
    c = await RawClient.open(url, name="maker")
    out[(await c.call(m.CreateGame(mission="ridge"))).game_id] = "open"
    for status in ("live", "finished", "live", "finished"):
        a, b, sa, sb = await seated_pair(url)
        out[sa.game_id] = status
        if status == "finished":
            if len(out) > 4:  # play first: a log longer than what listing reads of a stored game
                def far(msg):
                    return msg.seq > 40

                await asyncio.gather(play(a, sa.game_id, "a", stop=far), play(b, sa.game_id, "b", stop=far))
            assert isinstance(await a.call(m.ResignGame(game_id=sa.game_id, command_id="r")), m.Ack)
    out[(await c.call(m.CreateGame(mission="outpost", seat="b"))).game_id] = "open"
    return out


async def listing(client: RawClient, **kw) -> m.Games:
    reply = await client.call(m.ListGames(**kw))
    assert isinstance(reply, m.Games), reply
    return reply


@pytest.fixture
def roomy(make_server):
    def factory(**config):
        config.setdefault("games_per_minute", 0)
        return make_server(**config)

    return factory


async def test_list_games_filters_by_status_and_pages(roomy):
    store = MemoryStore()
    async with roomy(store=store, list_limit=4) as server:
        made = await make_games(server.url)
        order = list(made)  # oldest first
        c = await RawClient.open(server.url)
        for status in ("open", "live", "finished"):
            page = await listing(c, status=status)
            want = [g for g in order if made[g] == status]
            assert [g.game_id for g in page.games] == want and page.total == len(want)
        every = await listing(c)
        assert every.total == 6 and [g.game_id for g in every.games] == order[-4:]  # list_limit: the newest 4
        assert [g.game_id for g in (await listing(c, limit=2)).games] == order[-2:]
        assert [g.game_id for g in (await listing(c, limit=2, offset=2)).games] == order[-4:-2]
        assert [g.game_id for g in (await listing(c, offset=4, limit=100)).games] == order[:2]  # capped at 4
        past = await listing(c, offset=10)
        assert past.games == [] and past.total == 6
        # the same after a restart, from the store alone (logs longer than what listing reads)
        summaries = {g.game_id: g for g in (await listing(c, limit=0, offset=0)).games}
    async with roomy(store=store, list_limit=10) as server:
        c = await RawClient.open(server.url)
        for status in ("open", "live", "finished"):
            page = await listing(c, status=status)
            assert [g.game_id for g in page.games] == [g for g in order if made[g] == status]
        again = {g.game_id: g for g in (await listing(c)).games}
        for gid, summary in summaries.items():
            assert again[gid] == summary
        long_finished = again[order[4]]
        assert long_finished.over and long_finished.seq > 40 and long_finished.seats == ["a", "b"]


async def test_spam_cannot_hide_a_real_game(roomy):
    async with roomy(list_limit=50, rate=1000, burst=1000) as server:
        a, b, sa, sb = await seated_pair(server.url)  # the real game, before the spam
        spammer = await RawClient.open(server.url, name="spam")
        for _ in range(120):
            assert isinstance(await spammer.call(m.CreateGame(mission="ridge")), m.Created)
        viewer = await RawClient.open(server.url)
        everything = await listing(viewer)
        assert sa.game_id not in [g.game_id for g in everything.games] and everything.total == 121
        live = await listing(viewer, status="live")
        assert [g.game_id for g in live.games] == [sa.game_id] and live.total == 1
        opened = await listing(viewer, status="open", limit=50, offset=100)
        assert len(opened.games) == 20 and opened.total == 120


async def test_bad_list_games_fields_are_invalid(server):
    c = await RawClient.open(server.url)
    for i, raw in enumerate(({"status": "mine"}, {"offset": -1}, {"limit": -5}, {"status": 3}), start=50):
        reply = await c.call_raw(encode_raw(MSGPACK, {"type": "list_games", "id": i, **raw}), i)
        assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field", reply
        assert reply.message.startswith(next(iter(raw)) + ": "), reply

"""Issue 12, items 11, 14 and 16 over a real server: bad games in the store break nothing else,
the head hash is announced, clients send client seeds.

- item 11: corrupt games written straight into the SQLite file (as disk damage or a bad import
  would leave them) must not break ``list_games``, nor loading or serving the other games, of a
  real ``skirmish serve`` process;
- item 14: ``game_over`` and, for finished games, ``list_games`` carry the chain hash of the
  log's last event (``head_hash``), which is what ``skirmish verify --expect-head`` checks;
- item 16: the client library (and so ``play`` and ``bot``) sends a random client seed unless
  told one, and every seat's seed is logged as ``ClientSeedAdded`` before the first roll.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from contextlib import closing

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event, encode_event
from skirmish.engine.log import chain_hashes
from skirmish.protocol import messages as m
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import SQLiteStore

from .helpers import RawClient, ServerProcess, play, seated_pair, verify_store

GOOD = "g-good"


def insert_game(db, game_id: str, datas: list[bytes]) -> None:
    """A game written straight into the SQLite file, its chain hashes right for its bytes."""
    rows = [(game_id, seq, data, h) for seq, (data, h) in enumerate(zip(datas, chain_hashes(game_id, datas)), 1)]
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("INSERT INTO games (game_id, created_at, meta, secret) VALUES (?, ?, ?, ?)",
                     (game_id, time.time(), json.dumps({"mission": "ridge"}).encode(), b""))
        conn.executemany("INSERT INTO events (game_id, seq, data, hash) VALUES (?, ?, ?, ?)", rows)


def corrupt_games(good: list[bytes]) -> dict[str, list[bytes]]:
    first = decode_event(good[0])
    turn = next(i for i, d in enumerate(good) if isinstance(decode_event(d), ev.TurnStarted))
    not_utf8 = list(good)
    not_utf8[turn] = not_utf8[turn][:-2] + b"\xff\xfe"  # the unit id is not UTF-8
    created = lambda gid: encode_event(ev.GameCreated(**{**{f: getattr(first, f) for f in first.__struct_fields__},  # noqa: E731
                                                          "game_id": gid}))
    return {
        "g-not-utf8": not_utf8,
        # decodes, but replaying it fails inside the engine (a pool of a side that does not exist)
        "g-no-such-side": [created("g-no-such-side"),
                           encode_event(ev.PoolChanged(side="z", pool="momentum", delta=1, reason=""))],
        "g-garbage": [b"\xc1\x00\x01"],
        "g-not-an-event": [created("g-not-an-event"), b"\x81\xa4type\xa9NoSuchOne"],
    }


async def test_corrupt_games_in_the_store_break_neither_listing_nor_the_other_games(tmp_path, processes) -> None:
    db, log = tmp_path / "games.sqlite", tmp_path / "server.log"
    async with await SQLiteStore.open(db) as store:
        await play_match(store, missions.load("ridge"), {"a": make_bot("random", 1), "b": make_bot("random", 2)},
                         seed=3, game_id=GOOD)
        good = await store.read(GOOD)
    bad = corrupt_games([s.data for s in good])
    for game_id, datas in bad.items():
        insert_game(db, game_id, datas)

    server = ServerProcess(db, log)
    processes.append(server)
    await server.started()
    watcher = await RawClient.open(server.url, name="watcher")
    for _ in range(2):  # the second listing is answered from what the first learnt
        listing = await watcher.call(m.ListGames())
        assert isinstance(listing, m.Games), listing
        assert [g.game_id for g in listing.games] == [GOOD]
        assert listing.games[0].over and listing.games[0].head_hash == good[-1].hash.hex()
    for game_id in bad:
        reply = await watcher.call(m.Spectate(game_id=game_id))
        assert isinstance(reply, m.Error) and reply.code == "lobby.no_such_game", reply
        assert "cannot be loaded" in reply.message
    # the good game is served: its whole log, then game_over with its head hash
    reply = await watcher.call(m.Spectate(game_id=GOOD))
    assert isinstance(reply, m.Watching), reply
    over = await watcher.next_of(m.GameOverMsg)
    assert over.head_hash == good[-1].hash.hex()
    assert [s for s, _ in watcher.events(GOOD)] == list(range(1, len(good) + 1))

    # and new games are played to their end
    a, b, sa, sb = await seated_pair(server.url)
    rng = random.Random(5)
    over_a, over_b = await asyncio.gather(play(a, sa.game_id, "a", rng=rng), play(b, sa.game_id, "b", rng=rng))
    assert over_a.head_hash == over_b.head_hash != ""
    listing = await watcher.call(m.ListGames())
    assert [g.game_id for g in listing.games] == [GOOD, sa.game_id]
    assert listing.games[1].head_hash == over_a.head_hash
    for c in (watcher, a, b):
        await c.close()
    assert await server.terminate() == 0

    async with await SQLiteStore.open(db) as store:
        stored = await store.read(sa.game_id)
        assert stored[-1].hash.hex() == over_a.head_hash
        assert (await verify_store(store, sa.game_id)).ok
    lines = [json.loads(line) for line in server.log_lines()]  # JSON lines only, no traceback
    unlistable = sorted(x["game"] for x in lines if x["event"] == "game.unlistable")
    assert unlistable == sorted(bad)  # each said once, though listed twice
    assert not [x for x in lines if x["event"] in ("server.internal", "actor.failed") or x.get("exception")]


async def test_game_over_and_the_listing_announce_the_head_hash(server) -> None:
    a, b, sa, sb = await seated_pair(server.url)
    game = sa.game_id
    listing = await a.call(m.ListGames())
    assert [(g.game_id, g.over, g.head_hash) for g in listing.games] == [(game, False, "")]
    await b.call(m.ResignGame(game_id=game, command_id="r"))
    over = await a.next_of(m.GameOverMsg)
    stored = await server.store.read(game)
    assert over.head_hash == stored[-1].hash.hex()
    assert isinstance(decode_event(stored[-1].data), ev.SeedRevealed)  # the head is the last event, the reveal
    listing = await b.call(m.ListGames())
    assert [(g.game_id, g.over, g.head_hash) for g in listing.games] == [(game, True, over.head_hash)]
    for c in (a, b):
        await c.close()


async def test_the_client_library_sends_a_random_client_seed_unless_told_one(server) -> None:
    games = []
    for creator_seed, joiner_seed in ((None, None), ("mine", None), ("", "")):
        seated: asyncio.Future = asyncio.get_running_loop().create_future()
        creator = asyncio.create_task(run_bot(server.url, make_bot("random", 1), mission="ridge", seat="a",
                                              client_seed=creator_seed, on_seated=seated.set_result))
        game = (await asyncio.wait_for(seated, 10)).game_id
        games.append(game)
        await asyncio.wait_for(asyncio.gather(
            creator, run_bot(server.url, make_bot("random", 2), game_id=game, client_seed=joiner_seed)), 60)
    logged = []
    for game in games:
        stored = [decode_event(s.data) for s in await server.store.read(game)]
        first_roll = next(i for i, e in enumerate(stored) if isinstance(e, ev.DiceRolled))
        assert all(not isinstance(e, ev.ClientSeedAdded) for e in stored[first_roll:])
        logged.append({e.seat: e.seed for e in stored if isinstance(e, ev.ClientSeedAdded)})
        assert (await verify_store(server.store, game)).ok
    random_seeds = [logged[0]["a"], logged[0]["b"], logged[1]["b"]]
    assert all(len(s) == 32 and int(s, 16) >= 0 for s in random_seeds)
    assert len(set(random_seeds)) == 3  # fresh each time
    assert logged[1]["a"] == "mine"
    assert logged[2] == {}  # "": the caller chose to send none


async def test_the_client_library_keeps_the_head_hash(server) -> None:
    from skirmish.client.connection import GameOverUpdate, connect

    async with connect(server.url, name="lib") as c:
        seat = await c.create_game("ridge", seat="a")
        other = await RawClient.open(server.url, name="other")
        assert isinstance(await other.call(m.Join(game_id=seat.game_id)), m.Seated)
        await other.call(m.ResignGame(game_id=seat.game_id, command_id="r"))
        overs = [u async for u in c.updates(seat.game_id) if isinstance(u, GameOverUpdate)]
        head = (await server.store.read(seat.game_id))[-1].hash.hex()
        assert [u.head_hash for u in overs] == [head]
        assert c.game(seat.game_id).head_hash == head
        await other.close()


async def test_an_imported_game_is_listed_and_served(tmp_path, make_server) -> None:
    """A finished game imported from a replay file (no secret beside it: its seed is in the log)
    is listed with its head hash and can be watched to its end, on a server over that store."""
    from skirmish.server.replayfile import export_game, import_game

    async with await SQLiteStore.open(tmp_path / "a.sqlite") as store:
        await play_match(store, missions.load("ridge"), {"a": make_bot("random", 1), "b": make_bot("random", 2)},
                         seed=4, game_id=GOOD)
        data = await export_game(store, GOOD)
        head = (await store.read(GOOD))[-1].hash.hex()
    other = await SQLiteStore.open(tmp_path / "b.sqlite")
    await import_game(other, data)
    async with make_server(store=other) as srv:
        c = await RawClient.open(srv.url)
        listing = await c.call(m.ListGames())
        assert [(g.game_id, g.over, g.head_hash) for g in listing.games] == [(GOOD, True, head)]
        assert isinstance(await c.call(m.Spectate(game_id=GOOD)), m.Watching)
        assert (await c.next_of(m.GameOverMsg)).head_hash == head
        await c.close()
    await other.close()

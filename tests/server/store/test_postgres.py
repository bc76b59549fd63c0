"""PostgresStore against the shared EventStore suite, plus what only PostgreSQL has: durable
settings, migrations from an older schema version, and two stores racing on one game."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
from skirmish.engine.log import GENESIS_HASH, chain_hash
from skirmish.server.store import AppendResult, ConcurrencyError, StoreError
from skirmish.server.store.postgres import PostgresStore, redact
from skirmish.server.store.postgres_schema import SCHEMA_VERSION, migrate

from .pg import drop_schema, new_schema, require_postgres
from .suite import EventStoreSuite, assert_chain

pytestmark = pytest.mark.postgres


@pytest.fixture
def schema() -> Iterator[tuple[str, str]]:
    url = require_postgres()
    name = new_schema()
    yield url, name
    drop_schema(name)


class TestPostgresStore(EventStoreSuite):
    @pytest.fixture
    async def store(self, schema: tuple[str, str]) -> AsyncIterator[PostgresStore]:
        s = await PostgresStore.open(schema[0], schema=schema[1])
        yield s
        await s.close()


class TestPostgresStoreOneBatchAtATime(EventStoreSuite):
    """The same contract with one batch in flight at a time (no overlapping transactions)."""

    @pytest.fixture
    async def store(self, schema: tuple[str, str]) -> AsyncIterator[PostgresStore]:
        s = await PostgresStore.open(schema[0], schema=schema[1], max_inflight=1)
        yield s
        await s.close()


async def test_appends_are_committed_with_synchronous_commit_on(schema: tuple[str, str]) -> None:
    async with await PostgresStore.open(schema[0], schema=schema[1]) as store:
        settings = await store.settings()
        assert settings["synchronous_commit"] == "on"
        assert settings["search_path"].strip('"') == schema[1]
        assert settings["schema_version"] == str(SCHEMA_VERSION)


async def test_concurrent_appends_are_group_committed(schema: tuple[str, str]) -> None:
    async with await PostgresStore.open(schema[0], schema=schema[1]) as store:
        games = [f"g{i}" for i in range(40)]
        await asyncio.gather(*(store.create_game(g) for g in games))
        before = store.stats.transactions
        await asyncio.gather(*(store.append(g, 0, [b"a", b"b"], command_id="c") for g in games))
        assert store.stats.transactions - before < 10  # 40 appends of 40 games, a few transactions
        assert [await store.last_seq(g) for g in games] == [2] * 40


async def test_two_stores_racing_on_one_game_one_wins_the_other_gets_a_conflict(schema: tuple[str, str]) -> None:
    url, name = schema
    async with await PostgresStore.open(url, schema=name) as a, await PostgresStore.open(url, schema=name) as b:
        await a.create_game("g", events=[b"created"])
        assert await b.last_seq("g") == 1
        for round_ in range(5):  # each store has the game's head cached: only the database can decide
            seq = await a.last_seq("g")
            if round_ == 0:
                await b.append("g", seq, [b"warm b's cache"])
                seq += 1
                await a.append("g", seq, [b"a moves on"])  # a's cache is stale: the database refuses
                seq = await a.last_seq("g")
            outcomes = await asyncio.gather(a.append("g", seq, [f"a{round_}".encode()]),
                                            b.append("g", seq, [f"b{round_}".encode()]), return_exceptions=True)
            wins = [o for o in outcomes if isinstance(o, AppendResult)]
            losses = [o for o in outcomes if isinstance(o, ConcurrencyError)]
            assert len(wins) == 1 and len(losses) == 1, outcomes
            assert (losses[0].expected_seq, losses[0].actual_seq) == (seq, seq + 1)
        events = await a.read("g")
        assert_chain("g", events)
        assert len(events) == 1 + 2 + 5 == await b.last_seq("g")  # created, two warm-ups, a winner a round


async def test_a_stale_cache_is_refused_by_the_database(schema: tuple[str, str]) -> None:
    url, name = schema
    async with await PostgresStore.open(url, schema=name) as a, await PostgresStore.open(url, schema=name) as b:
        await a.create_game("g")
        await a.append("g", 0, [b"1"])
        await b.append("g", 1, [b"2"])  # a does not know
        with pytest.raises(ConcurrencyError) as info:
            await a.append("g", 1, [b"stale"])
        assert (info.value.expected_seq, info.value.actual_seq) == (1, 2)
        r = await a.append("g", 2, [b"3"])  # a reloaded the head
        assert r.first_seq == 3
        assert [e.data for e in await b.read("g")] == [b"1", b"2", b"3"]
        assert_chain("g", await b.read("g"))


async def test_a_version_1_schema_is_migrated_with_its_heads(schema: tuple[str, str]) -> None:
    url, name = schema
    h1 = chain_hash(GENESIS_HASH, "old", 1, b"e1")
    h2 = chain_hash(h1, "old", 2, b"e2")
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        assert await migrate(conn, name, upto=1) == 0
        await conn.execute(f'SET search_path TO "{name}"')
        await conn.execute("INSERT INTO games (game_id, created_at, meta) VALUES ('old', 1.0, 'm'), ('empty', 2.0, '')")
        await conn.execute("INSERT INTO events VALUES ('old', 1, 'e1', %s), ('old', 2, 'e2', %s)", (h1, h2))
    async with await PostgresStore.open(url, schema=name) as store:
        assert (await store.settings())["schema_version"] == str(SCHEMA_VERSION)
        assert [(g.game_id, g.last_seq) for g in await store.list_games()] == [("old", 2), ("empty", 0)]
        r = await store.append("old", 2, [b"e3"])
        assert (r.first_seq, r.last_hash) == (3, chain_hash(h2, "old", 3, b"e3"))
        assert (await store.append("empty", 0, [b"x"])).last_hash == chain_hash(GENESIS_HASH, "empty", 1, b"x")
        assert_chain("old", await store.read("old"))
        # the games from before listings are to be listed (version 4), and so is a game made now
        await store.create_game("new", events=[b"n"])
        assert [(i.game_id, i.last_seq, status) for i, status in await store.stale_listings()] == [
            ("old", 3, ""), ("empty", 1, ""), ("new", 1, "")]
        await store.save_listing("old", 3, "finished", b"over")
        assert [i.game_id for i, _ in await store.stale_listings()] == ["empty", "new"]
        assert [(li.game_id, li.data) for li in (await store.list_listings())[0]] == [("old", b"over")]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        cur = await conn.execute(f'SELECT version FROM "{name}".schema_version ORDER BY version')
        assert [row[0] for row in await cur.fetchall()] == list(range(1, SCHEMA_VERSION + 1))


async def test_a_newer_schema_is_refused_and_a_missing_one_is_not_made_without_create(
        schema: tuple[str, str]) -> None:
    url, name = schema
    with pytest.raises(StoreError, match="no skirmish store"):
        await PostgresStore.open(url, schema=name, create=False)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        cur = await conn.execute("SELECT to_regnamespace(%s)", (name,))
        assert (await cur.fetchone())[0] is None  # nothing was created
    await (await PostgresStore.open(url, schema=name)).close()
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(f'INSERT INTO "{name}".schema_version (version) VALUES (99)')
    with pytest.raises(StoreError, match="version 99"):
        await PostgresStore.open(url, schema=name)


async def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError, match="cannot open") as info:
        await PostgresStore.open("postgresql://u:secret@127.0.0.1:1/test", connect_timeout=2)
    assert "secret" not in str(info.value) and "u:***@" in str(info.value)
    assert redact("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"


async def test_open_store_opens_a_postgresql_address(schema: tuple[str, str]) -> None:
    from skirmish.server.store import open_store

    url, name = schema
    store = await open_store(f"{url}?schema={name}")
    try:
        assert isinstance(store, PostgresStore) and store.schema == name
        await store.create_game("g", events=[b"e"])
    finally:
        await store.close()
    async with await PostgresStore.open(url, schema=name, create=False) as again:
        assert [g.game_id for g in await again.list_games()] == ["g"]


def test_a_postgres_address_is_parsed_without_touching_the_disk(tmp_path, monkeypatch) -> None:
    from skirmish.server.store.location import Postgres, StoreLocationError, resolve

    monkeypatch.chdir(tmp_path)
    loc = resolve("postgresql://u:pw@db.example:5433/games?schema=league_1&sslmode=require")
    assert loc == Postgres("postgresql://u:pw@db.example:5433/games?sslmode=require", "league_1")
    assert str(loc) == "postgresql://u:***@db.example:5433/games?sslmode=require (schema league_1)"
    assert resolve("postgres://localhost/x") == Postgres("postgres://localhost/x", "public")
    with pytest.raises(StoreLocationError, match="schema name"):
        resolve("postgresql://localhost/x?schema=drop;table")
    with pytest.raises(StoreLocationError, match="a PostgreSQL address is a URL"):
        resolve("postgresql:games")
    assert list(tmp_path.iterdir()) == []


def test_unreachable_postgres_skips_on_a_laptop_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    from . import pg

    monkeypatch.setattr(pg, "_reachable", "OperationalError: connection refused")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="SKIRMISH_TEST_PG"):
        pg.require_postgres()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: these tests must run"):
        pg.require_postgres()

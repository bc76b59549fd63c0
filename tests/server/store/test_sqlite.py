"""SQLiteStore against the shared EventStore suite, plus what only a file-backed store promises:
reopening, WAL/synchronous=FULL, group commit, failures isolated per request and per batch,
a non-blocked event loop, and acknowledged appends surviving SIGKILL.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from skirmish.engine.log import chain_hash
from skirmish.server.store import (
    AppendResult,
    ConcurrencyError,
    SQLiteStore,
    StoreError,
    UnknownGame,
    open_store,
)
from skirmish.server.store import sqlite as sqlite_mod
from skirmish.server.store import sqlite_writer

from .suite import EventStoreSuite, assert_chain

REPO_ROOT = Path(__file__).resolve().parents[3]


class TestSQLiteStore(EventStoreSuite):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[SQLiteStore]:
        s = await SQLiteStore.open(tmp_path / "events.sqlite")
        yield s
        await s.close()


# ---------------------------------------------------------------------------- the file


async def test_reopening_gives_everything_back(db: Path) -> None:
    async with await SQLiteStore.open(db) as s:
        await s.create_game("a", meta=b"meta-a")
        await s.create_game("b")
        ra = await s.append("a", 0, [b"a1", b"a2"], command_id="cmd-1")
        await s.append("a", 2, [b"a3"])
        await s.append("b", 0, [b"b1"])
        await s.save_snapshot("a", 2, b"snap")
        before_games = await s.list_games()
        before_a = await s.read("a")
    s = await SQLiteStore.open(str(db))  # a str path works too
    try:
        assert await s.list_games() == before_games
        assert await s.read("a") == before_a
        assert_chain("a", before_a)
        assert await s.load_snapshot("a") == (2, b"snap")
        # Command ids survive: the retry is still recognised.
        dup = await s.append("a", 0, [b"a1", b"a2"], command_id="cmd-1")
        assert dup == AppendResult(1, 2, ra.last_hash, duplicate=True)
        # The writer picks up the chain head from the file.
        with pytest.raises(ConcurrencyError):
            await s.append("a", 2, [b"x"])
        r = await s.append("a", 3, [b"a4"])
        assert r.last_hash == chain_hash(before_a[-1].hash, "a", 4, b"a4")
        assert_chain("a", await s.read("a"))
    finally:
        await s.close()


async def test_pragmas_are_wal_and_synchronous_full(db: Path) -> None:
    async with await SQLiteStore.open(db) as s:
        p = await s.pragmas()
        assert p["journal_mode"] == "wal"
        assert p["synchronous"] == 2  # FULL
        assert p["user_version"] == sqlite_mod.SCHEMA_VERSION
    raw = sqlite3.connect(db)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persistent in the file
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"games", "events", "commands", "snapshots"} <= tables
    finally:
        raw.close()


async def test_schema_enforces_unique_keys(db: Path) -> None:
    async with await SQLiteStore.open(db) as s:
        await s.create_game("g")
        await s.append("g", 0, [b"e"], command_id="c")
    raw = sqlite3.connect(db)
    try:
        with pytest.raises(sqlite3.IntegrityError):
            raw.execute("INSERT INTO events (game_id, seq, data, hash) VALUES ('g', 1, x'00', x'00')")
        with pytest.raises(sqlite3.IntegrityError):
            raw.execute("INSERT INTO commands VALUES ('g', 'c', 9, 9, x'00')")
        with pytest.raises(sqlite3.IntegrityError):
            raw.execute("INSERT INTO games VALUES ('g', 0, x'', x'')")
    finally:
        raw.close()


async def test_other_schema_version_is_refused(db: Path) -> None:
    raw = sqlite3.connect(db)
    raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(StoreError, match="99"):
        await SQLiteStore.open(db)


SCHEMA_V2 = """
CREATE TABLE games (game_id TEXT NOT NULL PRIMARY KEY, created_at REAL NOT NULL, meta BLOB NOT NULL,
                    secret BLOB NOT NULL DEFAULT x'') WITHOUT ROWID;
CREATE TABLE events (game_id TEXT NOT NULL, seq INTEGER NOT NULL CHECK (seq >= 1), data BLOB NOT NULL,
                     hash BLOB NOT NULL, PRIMARY KEY (game_id, seq));
CREATE TABLE commands (game_id TEXT NOT NULL, command_id TEXT NOT NULL, first_seq INTEGER NOT NULL,
                       last_seq INTEGER NOT NULL, last_hash BLOB NOT NULL, PRIMARY KEY (game_id, command_id));
CREATE TABLE snapshots (game_id TEXT NOT NULL PRIMARY KEY, seq INTEGER NOT NULL, data BLOB NOT NULL);
"""


async def test_every_game_has_a_listing_row_whoever_writes_the_file(db: Path) -> None:
    """A game inserted or deleted by another program (a tournament's workers, its resume) gets or
    loses its listing row with it: to be listed, and never in the way of the game made again."""
    async with await SQLiteStore.open(db) as s:
        await s.create_game("kept", events=[b"e"])
    raw = sqlite3.connect(db)
    raw.execute("INSERT INTO games (game_id, created_at, meta) VALUES ('by-hand', 2.0, x'')")
    raw.execute("INSERT INTO events VALUES ('by-hand', 1, x'65', x'00')")
    raw.commit()
    async with await SQLiteStore.open(db) as s:
        stale = await s.stale_listings()
        assert sorted((info.game_id, status) for info, status in stale) == [("by-hand", ""), ("kept", "")]
    raw.execute("DELETE FROM events WHERE game_id = 'by-hand'")
    raw.execute("DELETE FROM games WHERE game_id = 'by-hand'")
    raw.execute("INSERT INTO games (game_id, created_at, meta) VALUES ('by-hand', 3.0, x'')")  # made again
    raw.commit()
    assert raw.execute("SELECT game_id, created_at, status FROM listings ORDER BY game_id").fetchall()[0] == (
        "by-hand", 3.0, "")
    raw.close()


@pytest.mark.parametrize("version", [1, 2, 3])
async def test_older_schema_versions_are_migrated(db: Path, version: int) -> None:
    """A store written by an older skirmish (version 3: no listings; 2: no creations table
    either; 1: no secrets either) opens, keeps its games, takes idempotent creations from then on,
    and lists its games as stale until they are listed."""
    raw = sqlite3.connect(db)
    no_secret = SCHEMA_V2.replace(",\n                    secret BLOB NOT NULL DEFAULT x''", "")
    schema = SCHEMA_V2 if version >= 2 else no_secret
    raw.executescript(schema)
    if version == 3:
        raw.execute("CREATE TABLE creations (command_id TEXT NOT NULL PRIMARY KEY, game_id TEXT NOT NULL) WITHOUT ROWID")
    h = chain_hash(b"\x00" * 32, "old", 1, b"e1")
    if version >= 2:
        raw.execute("INSERT INTO games VALUES ('old', 1.0, x'6d', x'73')")
    else:
        raw.execute("INSERT INTO games VALUES ('old', 1.0, x'6d')")
    raw.execute("INSERT INTO events VALUES ('old', 1, x'6531', ?)", (h,))
    raw.execute(f"PRAGMA user_version = {version}")
    raw.commit()
    raw.close()
    for writer in ("thread", "process"):
        async with await SQLiteStore.open(db, writer=writer) as s:
            assert (await s.pragmas())["user_version"] == sqlite_mod.SCHEMA_VERSION == 4
            assert [(e.seq, e.data, e.hash) for e in await s.read("old")] == [(1, b"e1", h)]
            assert await s.load_secret("old") == (b"s" if version >= 2 else b"")
            assert [(info.game_id, status) for info, status in await s.stale_listings()][:1] == [("old", "")]
            r = await s.create_game(f"new-{writer}", events=[b"x"], command_id="req")
            assert r.game_id == "new-thread" and r.duplicate == (writer == "process")


async def test_a_creation_failing_halfway_through_its_transaction_leaves_nothing(db: Path) -> None:
    """A failure injected between the game's row and its events (a trigger refusing the second
    event) rolls the whole creation back: no game without its events, no command id, no creation."""
    for writer in ("thread", "process"):
        async with await SQLiteStore.open(db, writer=writer) as s:
            raw = sqlite3.connect(db)
            raw.execute("CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.data = x'626f6f6d' "
                        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
            raw.commit()
            raw.close()
            with pytest.raises(StoreError, match="injected failure"):
                await s.create_game(f"g-{writer}", b"m", b"s", [b"created", b"boom"], command_id=f"r-{writer}")
            assert f"g-{writer}" not in {g.game_id for g in await s.list_games()}
            with sqlite3.connect(db) as raw:
                for table, key in (("games", "game_id"), ("events", "game_id"), ("commands", "game_id"),
                                   ("creations", "command_id")):
                    query = f"SELECT count(*) FROM {table} WHERE {key} LIKE ?"
                    assert raw.execute(query, (f"%-{writer}",)).fetchone()[0] == 0, table
                raw.execute("DROP TRIGGER boom")
            r = await s.create_game(f"g-{writer}", b"m", b"s", [b"created", b"boom"], command_id=f"r-{writer}")
            assert not r.duplicate and r.last_seq == 2  # the retry is a first creation: nothing was kept


async def test_memory_path_is_refused() -> None:
    with pytest.raises(ValueError, match="MemoryStore"):
        await SQLiteStore.open(":memory:")


async def test_constructor_is_private(db: Path) -> None:
    with pytest.raises(TypeError, match="open"):
        SQLiteStore(db, max_batch=1, cache_size=1)


# ---------------------------------------------------------------------------- group commit


async def test_concurrent_appends_share_transactions(db: Path) -> None:
    async with await SQLiteStore.open(db) as s:
        games = [f"g{i}" for i in range(100)]
        await asyncio.gather(*(s.create_game(g) for g in games))
        t0 = s.stats.transactions
        results = await asyncio.gather(*(s.append(g, 0, [b"a", b"b", b"c"]) for g in games))
        assert all(r.last_seq == 3 for r in results)
        used = s.stats.transactions - t0
        assert 1 <= used <= 10, f"100 concurrent appends took {used} transactions"
        assert s.stats.events == 300
        assert s._writer is not None and len(s._writer.cache) == 100  # the heads stay cached


async def test_max_batch_caps_a_transaction(db: Path) -> None:
    async with await SQLiteStore.open(db, max_batch=7) as s:
        games = [f"g{i}" for i in range(50)]
        await asyncio.gather(*(s.create_game(g) for g in games))
        assert s.stats.transactions >= 8  # ceil(50 / 7)
        await asyncio.gather(*(s.append(g, 0, [b"x"]) for g in games))
        assert s.stats.requests == 100


async def test_a_small_head_cache_reloads_from_the_file(db: Path) -> None:
    async with await SQLiteStore.open(db, cache_size=2) as s:
        games = [f"g{i}" for i in range(10)]
        for g in games:
            await s.create_game(g)
        for round_ in range(3):
            for g in games:
                await s.append(g, round_ * 2, [f"{g}{round_}a".encode(), f"{g}{round_}b".encode()])
        assert s._writer is not None and len(s._writer.cache) <= 2
        for g in games:
            with pytest.raises(ConcurrencyError):
                await s.append(g, 5, [b"stale"])
            assert_chain(g, await s.read(g))


async def test_failed_commit_fails_the_whole_batch_and_drops_the_cache(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with await SQLiteStore.open(db) as s:
        games = [f"g{i}" for i in range(20)]
        await asyncio.gather(*(s.create_game(g) for g in games))
        await asyncio.gather(*(s.append(g, 0, [b"first"]) for g in games))

        real_commit = sqlite_writer.Writer.commit
        failed_batches: list[int] = []

        def failing_commit(self: sqlite_writer.Writer) -> None:
            if not failed_batches:
                failed_batches.append(1)
                raise sqlite3.OperationalError("disk I/O error (injected)")
            real_commit(self)

        monkeypatch.setattr(sqlite_writer.Writer, "commit", failing_commit)
        outcomes = await asyncio.gather(*(s.append(g, 1, [b"lost"]) for g in games), return_exceptions=True)
        failed = [o for o in outcomes if isinstance(o, StoreError)]
        assert failed, "the injected COMMIT failure reached no caller"
        assert all("injected" in str(o) and isinstance(o.__cause__, sqlite3.OperationalError) for o in failed)
        assert s.stats.failed_transactions == 1
        # Whatever failed wrote nothing, and the writer's cache forgot the rolled-back heads:
        for g, o in zip(games, outcomes):
            events = await s.read(g)
            if isinstance(o, StoreError):
                assert [e.data for e in events] == [b"first"]
                r = await s.append(g, 1, [b"retry"])
                assert r.last_seq == 2
            else:
                assert [e.data for e in events] == [b"first", b"lost"]
            assert_chain(g, await s.read(g))


async def test_event_loop_keeps_running_during_a_slow_commit(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with await SQLiteStore.open(db) as s:
        await s.create_game("g")
        real_commit = sqlite_writer.Writer.commit

        def slow_commit(self: sqlite_writer.Writer) -> None:
            time.sleep(0.3)
            real_commit(self)

        monkeypatch.setattr(sqlite_writer.Writer, "commit", slow_commit)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.create_task(ticker())
        try:
            await s.append("g", 0, [b"x"])
        finally:
            t.cancel()
        assert ticks >= 10, f"the event loop ticked only {ticks} times during a 0.3 s commit"


async def test_close_writes_what_was_queued(db: Path) -> None:
    s = await SQLiteStore.open(db)
    await s.create_game("g")
    pending = [asyncio.ensure_future(s.append("g", 0, [b"x"], command_id=f"c{i}")) for i in range(5)]
    await asyncio.sleep(0)  # let them enqueue
    await s.close()
    outcomes = await asyncio.gather(*pending, return_exceptions=True)
    assert sum(isinstance(o, AppendResult) for o in outcomes) == 1
    assert sum(isinstance(o, ConcurrencyError) for o in outcomes) == 4
    async with await SQLiteStore.open(db) as again:
        assert [e.data for e in await again.read("g")] == [b"x"]


async def test_a_dead_writer_fails_calls_instead_of_hanging(db: Path) -> None:
    s = await SQLiteStore.open(db)
    try:
        await s.create_game("g")
        assert s._writer_task is not None
        s._writer_task.cancel()  # simulates the writer dying (a bug, or the loop shutting down)
        await asyncio.sleep(0)
        with pytest.raises(StoreError, match="writer stopped"):
            await asyncio.wait_for(s.append("g", 0, [b"x"]), timeout=5)
        assert await s.last_seq("g") == 0  # reads still work
    finally:
        await asyncio.wait_for(s.close(), timeout=5)


async def test_a_writer_dying_mid_batch_fails_in_flight_and_queued_calls(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = await SQLiteStore.open(db)
    try:
        await s.create_game("g")
        real_commit = sqlite_writer.Writer.commit

        def slow_commit(self: sqlite_writer.Writer) -> None:
            time.sleep(0.2)
            real_commit(self)

        monkeypatch.setattr(sqlite_writer.Writer, "commit", slow_commit)
        in_flight = asyncio.ensure_future(s.append("g", 0, [b"a"]))
        await asyncio.sleep(0.05)  # the writer has taken it and is committing on its thread
        queued = asyncio.ensure_future(s.append("g", 1, [b"b"]))
        await asyncio.sleep(0)
        assert s._writer_task is not None
        s._writer_task.cancel()
        for fut in (in_flight, queued):
            with pytest.raises(StoreError, match="writer stopped"):
                await asyncio.wait_for(fut, timeout=5)
    finally:
        await asyncio.wait_for(s.close(), timeout=5)


# ---------------------------------------------------------------------------- open_store


async def test_open_store_addresses(tmp_path: Path) -> None:
    for address in (f"sqlite:{tmp_path / 'a.sqlite'}", str(tmp_path / "b.sqlite")):
        s = await open_store(address)
        try:
            assert isinstance(s, SQLiteStore)
            await s.create_game("g")
        finally:
            await s.close()
    assert (tmp_path / "a.sqlite").exists() and (tmp_path / "b.sqlite").exists()
    with pytest.raises(ValueError, match="'postgres'"):
        await open_store("postgres:skirmish")  # PostgreSQL is postgresql://HOST/DB (tests/server/store/test_postgres.py)
    with pytest.raises(ValueError, match="'redis'"):
        await open_store("redis://localhost")
    with pytest.raises(ValueError, match="needs a file path"):
        await open_store("sqlite:")
    with pytest.raises(ValueError):
        await open_store("")


# ---------------------------------------------------------------------------- durability

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from skirmish.server.store import SQLiteStore

    async def main(path, n_games):
        store = await SQLiteStore.open(path)
        async def play(i):
            gid = f"game-{i}"
            await store.create_game(gid)
            seq = 0
            while True:
                n = 1 + (seq + i) % 4
                r = await store.append(gid, seq, [f"{gid}:{seq + k}".encode() * 3 for k in range(1, n + 1)])
                # Acknowledged: print only after append() returned.
                sys.stdout.write(f"ACK {gid} {r.last_seq} {r.last_hash.hex()}\\n")
                sys.stdout.flush()
                seq = r.last_seq
        await asyncio.gather(*(play(i) for i in range(n_games)))

    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    """
)


async def test_acknowledged_appends_survive_sigkill(tmp_path: Path) -> None:
    db = tmp_path / "killed.sqlite"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), str(db), "16",
        cwd=REPO_ROOT, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    acked: dict[str, tuple[int, str]] = {}
    n_acks = 0

    def note(line: bytes) -> None:
        nonlocal n_acks
        parts = line.decode().split()
        if len(parts) != 4 or parts[0] != "ACK":
            return  # the kill may cut the last line short: an incomplete line was never an acknowledgement
        gid, seq, h = parts[1], int(parts[2]), parts[3]
        if seq > acked.get(gid, (0, ""))[0]:
            acked[gid] = (seq, h)
        n_acks += 1

    try:
        async def read_acks() -> None:
            while n_acks < 2000:
                line = await proc.stdout.readline()
                if not line:
                    raise AssertionError(f"child exited early: {(await proc.stderr.read()).decode()[-2000:]}")
                note(line)

        await asyncio.wait_for(read_acks(), timeout=60)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        rest = await proc.stdout.read()
        await proc.wait()
    for line in rest.splitlines(keepends=True):
        if line.endswith(b"\n"):
            note(line)
    assert proc.returncode == -signal.SIGKILL
    assert len(acked) == 16

    raw = sqlite3.connect(db)
    try:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        raw.close()
    async with await SQLiteStore.open(db) as s:
        for gid, (seq, h) in acked.items():
            events = await s.read(gid)
            assert len(events) >= seq, f"{gid}: acknowledged seq {seq} but only {len(events)} events on disk"
            assert events[seq - 1].hash.hex() == h
            assert_chain(gid, events)
            assert [e.data for e in events] == [f"{gid}:{e.seq}".encode() * 3 for e in events]
        # The store carries on from the recovered heads.
        gid = next(iter(acked))
        last = await s.last_seq(gid)
        r = await s.append(gid, last, [b"after the crash"])
        assert r.first_seq == last + 1
        with pytest.raises(UnknownGame):
            await s.append("game-999", 0, [b"x"])


# ---------------------------------------------------------------------------- the writer process

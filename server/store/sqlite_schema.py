"""The SQLite store's file: its schema and migrations, its connection settings and the SQL that
writes its rows (shared by the writer, the tournament database and the store benchmark).

``connect`` opens a connection with the store's settings (WAL, ``synchronous=FULL``, 2 KiB
pages); ``create_schema`` creates the tables, or migrates a file of an older schema version.
"""

from __future__ import annotations

import sqlite3
from os import PathLike

from .base import StoreError

__all__ = [
    "INSERT_COMMAND",
    "INSERT_CREATION",
    "INSERT_EVENT",
    "INSERT_GAME",
    "SCHEMA_VERSION",
    "UPSERT_LISTING",
    "UPSERT_SNAPSHOT",
    "connect",
    "create_schema",
]

SCHEMA_VERSION = 4  # 2: games.secret; 3: creations; 4: listings
# 2 KiB pages: every transaction rewrites each touched game's tail page of the (game_id, seq) and
# (game_id, command_id) indexes, so the WAL bytes (and fsync time) per commit scale with the page
# size. 2 KiB gave ~15% more durable appends than 4 KiB in bench/bench_store.py; 1 KiB was no
# better and pushes events over ~1 KB into overflow pages.
PAGE_SIZE = 2048
WAL_AUTOCHECKPOINT_PAGES = 20_000  # ~40 MB of WAL between automatic checkpoints
JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024  # bytes the WAL file is truncated to after a checkpoint

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id    TEXT NOT NULL PRIMARY KEY,
    created_at REAL NOT NULL,
    meta       BLOB NOT NULL,
    secret     BLOB NOT NULL DEFAULT x''
) WITHOUT ROWID;

-- events and commands are rowid tables on purpose: rows are appended in commit order (dense
-- pages), and only the small (game_id, seq) index is updated at each game's tail. Clustering
-- them by game (WITHOUT ROWID) dirtied a full page per game per transaction and cost about
-- 40% of the durable append throughput (bench/bench_store.py).
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT    NOT NULL,
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    data    BLOB    NOT NULL,
    hash    BLOB    NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE IF NOT EXISTS commands (
    game_id    TEXT    NOT NULL,
    command_id TEXT    NOT NULL,
    first_seq  INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    last_hash  BLOB    NOT NULL,
    PRIMARY KEY (game_id, command_id)
);

-- the command id a game was created with (create_game's command_id): a retried creation finds
-- its game here, the seat-taking request ids of create_game (docs/protocol.md)
CREATE TABLE IF NOT EXISTS creations (
    command_id TEXT NOT NULL PRIMARY KEY,
    game_id    TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT    NOT NULL PRIMARY KEY,
    seq     INTEGER NOT NULL,
    data    BLOB    NOT NULL
);

-- what the lobby lists of each game (a cache, like snapshots), with the game's created_at, so
-- that a page of one status is read from one index in order. Every game has a row from its
-- creation on (the trigger: whoever writes the file), status '' until the lobby lists it, so
-- that the games to list are found by the index too, not by a walk of every game.
CREATE TABLE IF NOT EXISTS listings (
    game_id    TEXT    NOT NULL PRIMARY KEY,
    created_at REAL    NOT NULL,
    status     TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    data       BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS listings_by_status ON listings (status, created_at, game_id);
CREATE INDEX IF NOT EXISTS listings_by_age ON listings (created_at, game_id);
CREATE TRIGGER IF NOT EXISTS games_listed AFTER INSERT ON games BEGIN
    INSERT INTO listings (game_id, created_at, status, seq, data) VALUES (new.game_id, new.created_at, '', 0, x'');
END;
-- (a game deleted, as a tournament deletes a game it will play again, takes its listing along)
CREATE TRIGGER IF NOT EXISTS games_unlisted AFTER DELETE ON games BEGIN
    DELETE FROM listings WHERE game_id = old.game_id;
END;
"""

INSERT_GAME = "INSERT INTO games (game_id, created_at, meta, secret) VALUES (?, ?, ?, ?)"
INSERT_EVENT = "INSERT INTO events (game_id, seq, data, hash) VALUES (?, ?, ?, ?)"
INSERT_COMMAND = (
    "INSERT INTO commands (game_id, command_id, first_seq, last_seq, last_hash) VALUES (?, ?, ?, ?, ?)"
)
INSERT_CREATION = "INSERT INTO creations (command_id, game_id) VALUES (?, ?)"
UPSERT_SNAPSHOT = (
    "INSERT INTO snapshots (game_id, seq, data) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, data = excluded.data "
    "WHERE excluded.seq >= snapshots.seq"
)
UPSERT_LISTING = (
    "INSERT INTO listings (game_id, created_at, status, seq, data) "
    "SELECT game_id, created_at, ?, ?, ? FROM games WHERE game_id = ? "
    "ON CONFLICT (game_id) DO UPDATE SET status = excluded.status, seq = excluded.seq, data = excluded.data "
    "WHERE excluded.seq >= listings.seq"
)


def connect(path: str | PathLike[str], *, busy_timeout_s: float = 30.0) -> sqlite3.Connection:
    """A connection in autocommit mode (explicit BEGIN/COMMIT) with WAL and ``synchronous=FULL``.

    Raises :class:`StoreError` if the file cannot be put in WAL mode. Also used by the benchmark
    so that its raw baseline runs with exactly the store's settings.
    """
    conn = sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_s, check_same_thread=True)
    try:
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # takes effect only when the file is new
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"sqlite file {str(path)!r}: could not enable WAL mode (journal_mode={mode})")
        conn.execute("PRAGMA synchronous=FULL")
        # Checkpoint every ~40 MB of WAL rather than every 2 MB (the default 1000 pages): each
        # game's index tail is rewritten by many transactions in a row, and a checkpoint copies
        # it to the file once.
        conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
        conn.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
    except BaseException:
        conn.close()
        raise
    return conn


def _statements(script: str):
    """The statements of ``script`` one by one (a trigger's body holds semicolons of its own)."""
    statement = ""
    for part in script.split(";"):
        statement += part + ";"
        if sqlite3.complete_statement(statement):
            if statement.strip(" \n;"):
                yield statement
            statement = ""


def create_schema(conn: sqlite3.Connection, path: str) -> None:
    """Create the tables if missing; raise :class:`StoreError` for a file of another schema version."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        backfill = version in (1, 2, 3)  # a file of games from before listings
        if version == 1:  # migrate: version 2 keeps each game's secret beside it
            conn.execute("ALTER TABLE games ADD COLUMN secret BLOB NOT NULL DEFAULT x''")
            version = 2
        if version in (2, 3):  # migrate: 3 adds the creations table, 4 the listings (made by SCHEMA below)
            version = SCHEMA_VERSION
        if version not in (0, SCHEMA_VERSION):
            raise StoreError(f"sqlite file {path!r} has schema version {version}, expected {SCHEMA_VERSION}")
        for statement in _statements(SCHEMA):
            conn.execute(statement)
        if backfill:  # the games of an older file, each to be listed
            conn.execute("INSERT INTO listings (game_id, created_at, status, seq, data) "
                         "SELECT game_id, created_at, '', 0, x'' FROM games")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise

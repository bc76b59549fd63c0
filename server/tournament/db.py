"""``DIR/games.sqlite``: the tournament's games and results, in one SQLite file.

The file is an ordinary event store (``skirmish.server.store.sqlite``'s schema and settings: WAL,
``synchronous=FULL``), so ``skirmish verify GAME --db DIR/games.sqlite`` and every other
command read it as they read any store. Two tables are added:

- ``tournament (key, value)``: the config's fingerprint (JSON) and its full settings;
- ``tournament_results (idx, game_id, record, recorded_at)``: one JSON record per finished game.

**A game is stored only when finished, and counts only once its result is recorded.** A worker
process of the local pool stores the game it played (its row and events, exact bytes and chain
hashes as the worker's MemoryStore made them) in one transaction of its own, with
``synchronous=NORMAL`` (no fsync); the parent then commits the result row, with
``synchronous=FULL``, after checking that the game's events are all there. That commit syncs
the WAL, which holds the game's rows before it, so a recorded result never outlives its game.
(Where the worker cannot reach the file, on Ray, it hands the events back and the parent stores
game and result in one transaction, :meth:`TournamentDB.record_many`.) So a tournament killed at
any moment leaves recorded games whole; a game stored without a result (its worker finished it,
the parent was killed before recording it) is deleted by :meth:`TournamentDB.discard_unrecorded`
when the tournament resumes, and played again. Storing in the workers takes ~3 ms of SQLite a
game off the parent, the one process every worker waits on (docs/decisions.md, "Tournament
throughput").

Open no SQLiteStore on the file while a tournament runs (its writer caches each game's chain head).
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skirmish.server.store.sqlite_schema import INSERT_GAME, connect, create_schema

from .config import TournamentError

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_results (
    idx         INTEGER NOT NULL PRIMARY KEY,
    game_id     TEXT    NOT NULL UNIQUE,
    record      TEXT    NOT NULL,
    recorded_at REAL    NOT NULL
);
"""

HASH_BYTES = 32  # a chain hash: sha256 (skirmish.engine.log.chain_hash)

# A game's events in one statement, cut by SQLite out of the worker's flat values (worker.Played):
# ?2 every event's bytes one after another, ?3 the 32-byte chain hashes one after another, ?4 the
# JSON array of where each event ends in ?2. substr() of a BLOB counts bytes and returns a BLOB:
# the rows are the exact bytes executemany would bind, without ~1,000 bindings made in Python
# (docs/decisions.md, "Tournament throughput"). An empty or misplaced event (end <= start) is left
# out, and the caller checks the count of rows.
INSERT_EVENTS = f"""
INSERT INTO events (game_id, seq, data, hash)
SELECT ?1, key + 1, substr(?2, start + 1, value - start), substr(?3, {HASH_BYTES} * key + 1, {HASH_BYTES})
FROM (SELECT key, value, lag(value, 1, 0) OVER (ORDER BY key) AS start FROM json_each(?4))
WHERE value > start
ORDER BY key
"""


class TournamentDB:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = connect(path)
        try:
            create_schema(self.conn, str(path))
            self.conn.executescript(SCHEMA)
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "TournamentDB":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the config ----------------------------------------------------------------------------

    def get(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM tournament WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, value: Any) -> None:
        with transaction(self.conn):
            self.conn.execute("INSERT INTO tournament (key, value) VALUES (?, ?) "
                              "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, json.dumps(value)))

    def has_foreign_games(self) -> bool:
        """Games in the file that no tournament record accounts for, while no tournament is recorded."""
        if self.get("fingerprint") is not None:
            return False
        return self.conn.execute("SELECT 1 FROM games LIMIT 1").fetchone() is not None

    # -- results -------------------------------------------------------------------------------

    def records(self) -> dict[int, dict]:
        """Every recorded game's result, by game index."""
        return {idx: json.loads(rec) for idx, rec in
                self.conn.execute("SELECT idx, record FROM tournament_results ORDER BY idx")}

    def discard_unrecorded(self, prefix: str) -> list[str]:
        """Delete the games of this tournament (ids ``prefix-…``) that have no result; their ids."""
        ids = [gid for (gid,) in self.conn.execute(
            "SELECT game_id FROM games WHERE substr(game_id, 1, ?) = ? "
            "AND game_id NOT IN (SELECT game_id FROM tournament_results)", (len(prefix) + 1, prefix + "-"))]
        if ids:
            with transaction(self.conn):
                for gid in ids:
                    for table in ("events", "commands", "snapshots", "games"):
                        self.conn.execute(f"DELETE FROM {table} WHERE game_id = ?", (gid,))
        return ids

    def record(self, index: int, record: dict, played=None) -> None:
        """Commit a finished game (``played``: a worker's :class:`~.worker.Played`, with its
        events; None for a game kept by a server) together with its result record."""
        self.record_many([(index, record, played)])

    def record_many(self, games: list[tuple[int, dict, object]]) -> None:
        """Commit several finished games, each with its result, in one transaction (group commit).
        A game its worker stored (``played.stored``) gets its result only, once its events are
        found in the file, one row each.

        The events' chain hashes are the worker's ``MemoryStore``'s, computed by the store
        contract over the exact bytes (``skirmish verify`` recomputes them); here each game's
        events are stored as they are by one statement (``INSERT_EVENTS``: SQLite cuts the rows
        out of the worker's flat values) and checked to be whole: one 32-byte hash per event,
        every event non-empty, the last one ending at the end of the bytes, one row per event.
        """
        now = time.time()
        with transaction(self.conn):
            for index, record, played in games:
                game_id = record["id"]
                if played is not None:
                    self._insert_game(game_id, played)
                self.conn.execute(
                    "INSERT INTO tournament_results (idx, game_id, record, recorded_at) VALUES (?, ?, ?, ?)",
                    (index, game_id, json.dumps(record, sort_keys=True), now))

    def _insert_game(self, game_id: str, played) -> None:
        """The game's row and its events (in the open transaction); or, for a game its worker
        stored, a check that all its events are there."""
        if played.stored:
            (rows,) = self.conn.execute("SELECT count(*) FROM events WHERE game_id = ?", (game_id,)).fetchone()
            if rows != played.stored:
                raise TournamentError(f"game {game_id}: its worker stored {played.stored} events, the file holds {rows}")
            return
        insert_game(self.conn, game_id, played)


def insert_game(conn: sqlite3.Connection, game_id: str, played) -> None:
    """A played game's row and its events, from a worker's flat values (in the open transaction)."""
    n = len(played.ends)
    if not n or len(played.hashes) != HASH_BYTES * n or played.ends[-1] != len(played.events):
        raise TournamentError(f"game {game_id}: the worker sent {n} events ending at {played.ends[-1:]} in "
                              f"{len(played.events)} bytes and {len(played.hashes)} bytes of hashes")
    conn.execute(INSERT_GAME, (game_id, played.created_at, played.meta, played.secret))
    rows = conn.execute(INSERT_EVENTS, (game_id, played.events, played.hashes, json.dumps(played.ends))).rowcount
    if rows != n:
        raise TournamentError(f"game {game_id}: {n - rows} of its {n} events are empty or out of order")


def open_for_worker(path: Path) -> sqlite3.Connection:
    """A worker's connection to the tournament's file: it stores the games it plays, unsynced
    (the parent's commit of each result syncs them, see the module docstring)."""
    conn = connect(path)
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def store_game(conn: sqlite3.Connection, game_id: str, played) -> None:
    """Store one played game in a transaction of its own (a worker's side of ``record_many``)."""
    with transaction(conn):
        insert_game(conn, game_id, played)


@contextmanager
def transaction(conn: sqlite3.Connection):
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK if the body raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise

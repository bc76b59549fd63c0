"""The SQLite store's write side: the only write connection, the cache of each game's chain head,
the write requests, and the one transaction each batch of them is written in.

A :class:`Writer` is used by one thread only: the store's writer thread (``writer="thread"``) or
the main thread of the writer process (``writer="process"``, :mod:`skirmish.server.store.sqlite_process`).
The asyncio side, which gathers the batches, is :class:`skirmish.server.store.sqlite.SQLiteStore`.
"""

from __future__ import annotations

import sqlite3
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from skirmish.engine.log import GENESIS_HASH, chain_hash

from .base import (
    AppendResult,
    ConcurrencyError,
    CreateResult,
    GameExists,
    StoreError,
    UnknownGame,
    check_listing,
    check_snapshot,
)
from .sqlite_checkpoint import BACKSTOP_PAGES, Checkpointer
from .sqlite_schema import (
    INSERT_COMMAND,
    INSERT_CREATION,
    INSERT_EVENT,
    INSERT_GAME,
    UPSERT_LISTING,
    UPSERT_SNAPSHOT,
    connect,
    create_schema,
)

__all__ = ["Append", "CreateGame", "Request", "SaveListing", "SaveSnapshot", "Writer", "open_writer"]


class Head:
    """The cached head of one game's chain."""

    __slots__ = ("seq", "hash")

    def __init__(self, seq: int, hash: bytes) -> None:
        self.seq = seq
        self.hash = hash


class Batch:
    """The rows one transaction will write, gathered while checking its requests (writer thread only).

    ``known_commands`` maps each (game id, command id) of the batch that is already stored, or
    was appended earlier in the batch, to its result.
    """

    __slots__ = ("games", "events", "commands", "snapshots", "listings", "known_commands", "creations",
                 "known_creations")

    def __init__(self, known_commands: dict[tuple[str, str], AppendResult]) -> None:
        self.creations: list[tuple[str, str]] = []
        self.known_creations: dict[str, CreateResult] = {}  # command id -> creation, in this batch
        self.games: list[tuple[str, float, bytes]] = []
        self.events: list[tuple[str, int, bytes, bytes]] = []
        self.commands: list[tuple[str, str, int, int, bytes]] = []
        self.snapshots: list[tuple[str, int, bytes]] = []
        self.listings: list[tuple[str, int, bytes, str]] = []  # (status, seq, data, game id): UPSERT_LISTING's order
        self.known_commands = known_commands


# ----------------------------------------------------------------------------- write requests
# Each request checks itself against the writer's state, then adds its rows to the batch. It
# must raise before touching the batch or the cache, so that a failed request leaves no trace.


class CreateGame:
    __slots__ = ("game_id", "meta", "secret", "events", "command_id")

    def __init__(self, game_id: str, meta: bytes, secret: bytes, events: tuple[bytes, ...] = (),
                 command_id: str | None = None) -> None:
        self.game_id = game_id
        self.meta = meta
        self.secret = secret
        self.events = events
        self.command_id = command_id

    def __reduce__(self):  # sent to the writer process: slots' default pickling is slow
        return CreateGame, (self.game_id, self.meta, self.secret, self.events, self.command_id)

    def apply(self, w: Writer, batch: Batch) -> CreateResult:
        game_id, command_id = self.game_id, self.command_id
        if command_id is not None:
            prior = batch.known_creations.get(command_id) or w.stored_creation(command_id)
            if prior is not None:
                return prior
        if w.game_exists(game_id):
            raise GameExists(game_id)
        batch.games.append((game_id, time.time(), self.meta, self.secret))
        h = GENESIS_HASH
        seq = 0
        for data in self.events:
            seq += 1
            h = chain_hash(h, game_id, seq, data)
            batch.events.append((game_id, seq, data, h))
        w.cache[game_id] = Head(seq, h)
        if command_id is not None:
            batch.known_commands[(game_id, command_id)] = AppendResult(1, seq, h, duplicate=False)
            batch.commands.append((game_id, command_id, 1, seq, h))
            batch.known_creations[command_id] = CreateResult(game_id, seq, h, duplicate=True)
            batch.creations.append((command_id, game_id))
        return CreateResult(game_id, seq, h, duplicate=False)


class Append:
    __slots__ = ("game_id", "expected_seq", "events", "command_id")

    def __init__(self, game_id: str, expected_seq: int, events: tuple[bytes, ...], command_id: str | None) -> None:
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.events = events
        self.command_id = command_id

    def __reduce__(self):  # one per command to the writer process: 0.3 us instead of 3.5 (slots' default)
        return Append, (self.game_id, self.expected_seq, self.events, self.command_id)

    def apply(self, w: Writer, batch: Batch) -> AppendResult:
        game_id, command_id = self.game_id, self.command_id
        if command_id is not None:
            prior = batch.known_commands.get((game_id, command_id))
            if prior is not None:
                return AppendResult(prior.first_seq, prior.last_seq, prior.last_hash, duplicate=True)
        head = w.head(game_id)
        last = head.seq
        if self.expected_seq != last:
            raise ConcurrencyError(game_id, self.expected_seq, last)
        h = head.hash
        rows = batch.events
        seq = last
        for data in self.events:
            seq += 1
            h = chain_hash(h, game_id, seq, data)
            rows.append((game_id, seq, data, h))
        head.seq, head.hash = seq, h
        result = AppendResult(last + 1, seq, h, duplicate=False)
        if command_id is not None:
            batch.known_commands[(game_id, command_id)] = result
            batch.commands.append((game_id, command_id, last + 1, seq, h))
        return result


class SaveSnapshot:
    __slots__ = ("game_id", "seq", "data")

    def __init__(self, game_id: str, seq: int, data: bytes) -> None:
        self.game_id = game_id
        self.seq = seq
        self.data = data

    def __reduce__(self):
        return SaveSnapshot, (self.game_id, self.seq, self.data)

    def apply(self, w: Writer, batch: Batch) -> None:
        check_snapshot(self.game_id, self.seq, w.head(self.game_id).seq)
        batch.snapshots.append((self.game_id, self.seq, self.data))


class SaveListing:
    __slots__ = ("game_id", "seq", "status", "data")

    def __init__(self, game_id: str, seq: int, status: str, data: bytes) -> None:
        self.game_id = game_id
        self.seq = seq
        self.status = status
        self.data = data

    def __reduce__(self):
        return SaveListing, (self.game_id, self.seq, self.status, self.data)

    def apply(self, w: Writer, batch: Batch) -> None:
        check_listing(self.game_id, self.seq, self.status, w.head(self.game_id).seq)
        batch.listings.append((self.status, self.seq, self.data, self.game_id))


Request = CreateGame | Append | SaveSnapshot | SaveListing
_LOOKUP_CHUNK = 400  # (game id, command id) pairs per lookup query: 800 parameters


class Writer:
    """The write side: the only write connection and the cache, used on one thread only."""

    def __init__(self, conn: sqlite3.Connection, path: str, cache_size: int,
                 checkpointer: Checkpointer | None = None) -> None:
        self.conn = conn
        self.path = path
        self.cache: OrderedDict[str, Head] = OrderedDict()
        self.cache_size = cache_size
        self.checkpointer = checkpointer
        if checkpointer is not None:  # it checkpoints; the writer's own automatic checkpoint is the backstop
            conn.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")

    def close(self) -> None:
        """Stop the checkpoint thread, then close the write connection."""
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self.conn.close()

    # --- state lookups (inside the batch's transaction, so they see committed rows) ---

    def game_exists(self, game_id: str) -> bool:
        if game_id in self.cache:
            return True
        return self.conn.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone() is not None

    def head(self, game_id: str) -> Head:
        """The game's chain head, from the cache or loaded from the file; UnknownGame if missing."""
        head = self.cache.get(game_id)
        if head is not None:
            self.cache.move_to_end(game_id)
            return head
        row = self.conn.execute(
            "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ).fetchone()
        if row is not None:
            head = Head(row[0], row[1])
        elif self.game_exists(game_id):
            head = Head(0, GENESIS_HASH)
        else:
            raise UnknownGame(game_id)
        self.cache[game_id] = head
        return head

    def stored_creation(self, command_id: str) -> CreateResult | None:
        """The game created with ``command_id`` and its first events, if one was (committed)."""
        row = self.conn.execute(
            "SELECT c.game_id, m.last_seq, m.last_hash FROM creations c "
            "JOIN commands m ON m.game_id = c.game_id AND m.command_id = c.command_id WHERE c.command_id = ?",
            (command_id,),
        ).fetchone()
        return None if row is None else CreateResult(row[0], row[1], row[2], duplicate=True)

    def stored_commands(self, requests: list[Request]) -> dict[tuple[str, str], AppendResult]:
        """The stored results of the command ids the appends in ``requests`` carry, in one query per chunk.

        (A join from a VALUES list searches the primary key once per pair; ``(a, b) IN (VALUES
        ...)`` would scan it.) Chunks stay under SQLite's oldest limit of 999 parameters.
        """
        keys = {
            (r.game_id, r.command_id) for r in requests if type(r) is Append and r.command_id is not None
        }
        found: dict[tuple[str, str], AppendResult] = {}
        pairs = list(keys)
        for i in range(0, len(pairs), _LOOKUP_CHUNK):
            chunk = pairs[i : i + _LOOKUP_CHUNK]
            sql = (
                "WITH k(game_id, command_id) AS (VALUES " + ",".join(["(?, ?)"] * len(chunk)) + ") "
                "SELECT c.game_id, c.command_id, c.first_seq, c.last_seq, c.last_hash FROM k "
                "JOIN commands c ON c.game_id = k.game_id AND c.command_id = k.command_id"
            )
            params = [x for pair in chunk for x in pair]
            for game_id, command_id, first, last, h in self.conn.execute(sql, params):
                found[(game_id, command_id)] = AppendResult(first, last, h, duplicate=True)
        return found

    # --- one transaction ---

    def write_batch(self, requests: list[Request]) -> tuple[list[Any], int]:
        """Check and write ``requests`` in one transaction.

        Returns, per request, its result or the exception it fails with, and the number of event
        rows committed. If the transaction fails, every request gets a StoreError and the cache
        is dropped.
        """
        conn = self.conn
        results: list[Any] = []
        ckpt = self.checkpointer
        if ckpt is not None and ckpt.restart_due():
            try:  # the rest of the thread's copy, so that this transaction restarts the WAL
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error:
                pass  # not this time: the thread asks again, the backstop bounds the WAL meanwhile
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                batch = Batch(self.stored_commands(requests))
                for req in requests:
                    try:
                        results.append(req.apply(self, batch))
                    except (StoreError, ValueError, TypeError) as exc:
                        results.append(exc)
                if batch.games:
                    conn.executemany(INSERT_GAME, batch.games)
                if batch.events:
                    conn.executemany(INSERT_EVENT, batch.events)
                if batch.commands:
                    conn.executemany(INSERT_COMMAND, batch.commands)
                if batch.creations:
                    conn.executemany(INSERT_CREATION, batch.creations)
                if batch.snapshots:
                    conn.executemany(UPSERT_SNAPSHOT, batch.snapshots)
                if batch.listings:
                    conn.executemany(UPSERT_LISTING, batch.listings)
                self.commit()
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except Exception as exc:
            self.cache.clear()
            n = len(requests)
            failures: list[Any] = []
            for _ in requests:
                err = StoreError(f"sqlite file {self.path!r}: a transaction of {n} writes failed: {exc!r}")
                err.__cause__ = exc
                failures.append(err)
            return failures, -1
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        if ckpt is not None:
            ckpt.wrote()
        return results, len(batch.events)

    def commit(self) -> None:
        """COMMIT the open transaction (a seam for fault-injection tests)."""
        self.conn.execute("COMMIT")

    def pragmas(self) -> dict[str, Any]:
        return {
            name: self.conn.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "synchronous", "user_version")
        }


def open_writer(path: Path, cache_size: int) -> Writer:
    try:
        conn = connect(path)
        try:
            create_schema(conn, str(path))
        except BaseException:
            conn.close()
            raise
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open sqlite store {str(path)!r}: {exc}") from exc
    try:
        return Writer(conn, str(path), cache_size, Checkpointer(str(path)))
    except BaseException:
        conn.close()
        raise

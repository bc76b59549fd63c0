"""The SQLite event store: one file, WAL mode, ``synchronous=FULL``, group commit.

Guarantees, on top of the :class:`~server.store.base.EventStore` contract:

- **Durable acknowledgements.** ``append`` (and ``create_game``, ``save_snapshot``) return only
  after the COMMIT holding their rows has returned, with ``synchronous=FULL`` in WAL mode:
  whatever was acknowledged survives the process being killed.
- **Group commit.** One writer task per store drains an :class:`asyncio.Queue` of write
  requests; every request waiting when it wakes (up to ``max_batch``) goes into ONE transaction
  (``BEGIN IMMEDIATE`` ... ``COMMIT``) run on ONE dedicated thread owning the only write
  connection. While a transaction is being written, new requests queue up for the next one.
- **Failures stay alone.** Each request is checked against an in-memory cache of each game's
  last seq and last hash (loaded from the file on first use; the writer is the only one to
  change the file, so the cache is exact). A request that fails its checks
  (:class:`ConcurrencyError`, :class:`UnknownGame`, ...) adds no rows and fails alone. If
  writing the batch or its COMMIT fails, the transaction is rolled back, every request of the
  batch fails with a :class:`StoreError` naming the cause, and the cache is dropped.
- **One store per file.** Open a file with one SQLiteStore at a time. (Were another process to
  write to it, the cache would go stale; the ``(game_id, seq)`` primary key would then fail the
  batch rather than store a broken chain, and the cache would be reloaded.)
- **The event loop never blocks on SQLite.** Reads use a second connection on a second
  dedicated thread (WAL lets it read while the writer writes), and see exactly what has been
  committed.
- **The writer may run in a child process** (``writer="process"``, what ``skirmish serve``
  does): the write connection and the cache then live in a process of their own, which gets
  each batch over a socket and answers after its COMMIT, so the acknowledgements mean the same.
  A writer thread shares the GIL with the event loop: every SQLite step lets go of it and takes
  it back, and on a busy server the loop paid for that in waiting (docs/decisions.md). The
  child ignores SIGINT and SIGTERM and stops when its socket closes: when the store closes, or
  when the server dies, after the transaction it is writing.

Open with ``await SQLiteStore.open(path)``; the file and schema are created if missing.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import socket
import sqlite3
import struct
import sys
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Callable, TypeVar

from engine.log import GENESIS_HASH, chain_hash

from .base import (
    AppendResult,
    ConcurrencyError,
    CreateResult,
    EventStore,
    GameExists,
    GameInfo,
    StoreClosed,
    StoredEvent,
    StoreError,
    UnknownGame,
    as_bytes,
    check_command_id,
    check_creation,
    check_events,
    check_expected_seq,
    check_game_id,
    check_read_range,
    check_snapshot,
)

__all__ = ["SCHEMA_VERSION", "SQLiteStore", "WRITERS", "WriterStats"]

T = TypeVar("T")

SCHEMA_VERSION = 3  # 2: games.secret; 3: creations
WRITERS = ("thread", "process")  # where the write connection lives (SQLiteStore.open)
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


def create_schema(conn: sqlite3.Connection, path: str) -> None:
    """Create the tables if missing; raise :class:`StoreError` for a file of another schema version."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 1:  # migrate: version 2 keeps each game's secret beside it
            conn.execute("ALTER TABLE games ADD COLUMN secret BLOB NOT NULL DEFAULT x''")
            version = 2
        if version == 2:  # migrate: version 3 adds the creations table (made by SCHEMA below)
            version = SCHEMA_VERSION
        if version not in (0, SCHEMA_VERSION):
            raise StoreError(f"sqlite file {path!r} has schema version {version}, expected {SCHEMA_VERSION}")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


@dataclass(slots=True)
class WriterStats:
    """Counters of the writer since the store was opened (for benchmarks and monitoring)."""

    transactions: int = 0  # committed batches
    requests: int = 0  # write requests in committed batches (failed ones included)
    events: int = 0  # event rows committed
    failed_transactions: int = 0


class _Head:
    """The cached head of one game's chain."""

    __slots__ = ("seq", "hash")

    def __init__(self, seq: int, hash: bytes) -> None:
        self.seq = seq
        self.hash = hash


class _Batch:
    """The rows one transaction will write, gathered while checking its requests (writer thread only).

    ``known_commands`` maps each (game id, command id) of the batch that is already stored, or
    was appended earlier in the batch, to its result.
    """

    __slots__ = ("games", "events", "commands", "snapshots", "known_commands", "creations", "known_creations")

    def __init__(self, known_commands: dict[tuple[str, str], AppendResult]) -> None:
        self.creations: list[tuple[str, str]] = []
        self.known_creations: dict[str, CreateResult] = {}  # command id -> creation, in this batch
        self.games: list[tuple[str, float, bytes]] = []
        self.events: list[tuple[str, int, bytes, bytes]] = []
        self.commands: list[tuple[str, str, int, int, bytes]] = []
        self.snapshots: list[tuple[str, int, bytes]] = []
        self.known_commands = known_commands


# ----------------------------------------------------------------------------- write requests
# Each request checks itself against the writer's state, then adds its rows to the batch. It
# must raise before touching the batch or the cache, so that a failed request leaves no trace.


class _CreateGame:
    __slots__ = ("game_id", "meta", "secret", "events", "command_id")

    def __init__(self, game_id: str, meta: bytes, secret: bytes, events: tuple[bytes, ...] = (),
                 command_id: str | None = None) -> None:
        self.game_id = game_id
        self.meta = meta
        self.secret = secret
        self.events = events
        self.command_id = command_id

    def apply(self, w: _Writer, batch: _Batch) -> CreateResult:
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
        w.cache[game_id] = _Head(seq, h)
        if command_id is not None:
            batch.known_commands[(game_id, command_id)] = AppendResult(1, seq, h, duplicate=False)
            batch.commands.append((game_id, command_id, 1, seq, h))
            batch.known_creations[command_id] = CreateResult(game_id, seq, h, duplicate=True)
            batch.creations.append((command_id, game_id))
        return CreateResult(game_id, seq, h, duplicate=False)


class _Append:
    __slots__ = ("game_id", "expected_seq", "events", "command_id")

    def __init__(self, game_id: str, expected_seq: int, events: tuple[bytes, ...], command_id: str | None) -> None:
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.events = events
        self.command_id = command_id

    def apply(self, w: _Writer, batch: _Batch) -> AppendResult:
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


class _SaveSnapshot:
    __slots__ = ("game_id", "seq", "data")

    def __init__(self, game_id: str, seq: int, data: bytes) -> None:
        self.game_id = game_id
        self.seq = seq
        self.data = data

    def apply(self, w: _Writer, batch: _Batch) -> None:
        check_snapshot(self.game_id, self.seq, w.head(self.game_id).seq)
        batch.snapshots.append((self.game_id, self.seq, self.data))


_Request = _CreateGame | _Append | _SaveSnapshot
_LOOKUP_CHUNK = 400  # (game id, command id) pairs per lookup query: 800 parameters
_STOP = object()  # queued by close(): the writer finishes what was queued before it, then stops


class _Writer:
    """The write side: the only write connection and the cache, used on the writer thread only."""

    def __init__(self, conn: sqlite3.Connection, path: str, cache_size: int) -> None:
        self.conn = conn
        self.path = path
        self.cache: OrderedDict[str, _Head] = OrderedDict()
        self.cache_size = cache_size

    # --- state lookups (inside the batch's transaction, so they see committed rows) ---

    def game_exists(self, game_id: str) -> bool:
        if game_id in self.cache:
            return True
        return self.conn.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone() is not None

    def head(self, game_id: str) -> _Head:
        """The game's chain head, from the cache or loaded from the file; UnknownGame if missing."""
        head = self.cache.get(game_id)
        if head is not None:
            self.cache.move_to_end(game_id)
            return head
        row = self.conn.execute(
            "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ).fetchone()
        if row is not None:
            head = _Head(row[0], row[1])
        elif self.game_exists(game_id):
            head = _Head(0, GENESIS_HASH)
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

    def stored_commands(self, requests: list[_Request]) -> dict[tuple[str, str], AppendResult]:
        """The stored results of the command ids the appends in ``requests`` carry, in one query per chunk.

        (A join from a VALUES list searches the primary key once per pair; ``(a, b) IN (VALUES
        ...)`` would scan it.) Chunks stay under SQLite's oldest limit of 999 parameters.
        """
        keys = {
            (r.game_id, r.command_id) for r in requests if type(r) is _Append and r.command_id is not None
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

    def write_batch(self, requests: list[_Request]) -> tuple[list[Any], int]:
        """Check and write ``requests`` in one transaction.

        Returns, per request, its result or the exception it fails with, and the number of event
        rows committed. If the transaction fails, every request gets a StoreError and the cache
        is dropped.
        """
        conn = self.conn
        results: list[Any] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                batch = _Batch(self.stored_commands(requests))
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
        return results, len(batch.events)

    def commit(self) -> None:
        """COMMIT the open transaction (a seam for fault-injection tests)."""
        self.conn.execute("COMMIT")

    def pragmas(self) -> dict[str, Any]:
        return {
            name: self.conn.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "synchronous", "user_version")
        }


def _open_writer(path: Path, cache_size: int) -> _Writer:
    try:
        conn = connect(path)
        try:
            create_schema(conn, str(path))
        except BaseException:
            conn.close()
            raise
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open sqlite store {str(path)!r}: {exc}") from exc
    return _Writer(conn, str(path), cache_size)


# ----------------------------------------------------------------------------- the writer process

_LEN = struct.Struct(">I")  # each message on the writer's socket: its length, then a pickle


def _writer_process(sock: socket.socket, path: str, cache_size: int) -> None:
    """The child's main (``writer="process"``): answer each ``(method, args)`` of the parent with
    ``(True, _Writer.method(*args))`` or ``(False, exception)``, in order, until the socket closes.

    A parent that vanishes (the store closed, or the server killed) is the normal way this ends,
    however the socket says so: end of file, a request cut short, ``ConnectionResetError``
    (closed with answers unread), ``BrokenPipeError`` (closed before an answer): it returns
    quietly, after committing the transaction it was writing, for its stderr is the server's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent says when to stop, by closing the socket
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    writer: _Writer | None = None
    f = sock.makefile("rwb")
    try:
        try:
            writer, failure = _open_writer(Path(path), cache_size), None
        except BaseException as exc:
            failure = exc
        while True:
            head = f.read(_LEN.size)
            if len(head) < _LEN.size:
                return  # the store closed, or the server died
            (n,) = _LEN.unpack(head)
            body = f.read(n)
            if len(body) < n:
                return  # the server died while it sent this request
            method, args = pickle.loads(body)
            try:
                if writer is None:
                    raise failure  # type: ignore[misc]
                reply = (True, None if method == "ready" else getattr(writer, method)(*args))
            except Exception as exc:
                reply = (False, exc)
            try:
                data = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # an error that does not pickle: its text does
                data = pickle.dumps((False, StoreError(f"sqlite store {path!r}: {reply[1]!r} ({exc})")))
            f.write(_LEN.pack(len(data)) + data)
            f.flush()
    except (ConnectionError, EOFError):  # the parent is gone: nobody is left to answer
        return
    finally:
        if writer is not None:
            writer.conn.close()
        for closing in (f.close, sock.close):  # f.close flushes: the parent may be gone
            try:
                closing()
            except OSError:
                pass


class _WriterProcess:
    """The parent's side of the writer process: ``await call("write_batch", requests)``.

    The child is ``python -m server.store.writer`` (not ``multiprocessing``, which would import
    the parent's main script again in the child), given its end of a socket pair."""

    def __init__(self, proc: asyncio.subprocess.Process, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, path: str) -> None:
        self.proc = proc
        self.path = path
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()  # one call at a time: replies come in the order of the calls

    @classmethod
    async def start(cls, path: Path, cache_size: int) -> _WriterProcess:
        """Start the process; it opens the file (StoreError if it cannot) before this returns."""
        ours, theirs = socket.socketpair()
        root = str(Path(__file__).resolve().parents[2])  # the project: ``server`` and ``engine``
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server.store.writer", str(theirs.fileno()), str(path), str(cache_size),
                pass_fds=[theirs.fileno()], stdin=asyncio.subprocess.DEVNULL, env=env)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        self = cls(proc, reader, writer, str(path))
        try:
            await self.call("ready")
        except BaseException:
            await self.stop()
            raise
        return self

    async def call(self, method: str, *args: Any) -> Any:
        data = pickle.dumps((method, args), pickle.HIGHEST_PROTOCOL)
        async with self._lock:
            try:
                self._writer.write(_LEN.pack(len(data)) + data)
                await self._writer.drain()
                (n,) = _LEN.unpack(await self._reader.readexactly(_LEN.size))
                ok, value = pickle.loads(await self._reader.readexactly(n))
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                raise StoreError(
                    f"sqlite store {self.path!r}: the writer process is gone (exit status {self.proc.returncode})"
                ) from exc
        if not ok:
            raise value
        return value

    async def stop(self, timeout: float = 30.0) -> None:
        """Close the socket (the child finishes the transaction it is writing, if any, and exits)
        and wait for the process to end; past ``timeout`` seconds, kill it."""
        self._writer.close()
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


# ----------------------------------------------------------------------------- the store


class SQLiteStore(EventStore):
    """:class:`EventStore` in one SQLite file. Open with ``await SQLiteStore.open(path)``."""

    def __init__(self, path: Path, *, max_batch: int, cache_size: int, _token: object = None) -> None:
        if _token is not _OPEN_TOKEN:
            raise TypeError("use 'await SQLiteStore.open(path)' to open a SQLiteStore")
        self.path = path
        self.max_batch = max_batch
        self.stats = WriterStats()
        self._wexec = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-store-writer")
        self._rexec = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-store-reader")
        self._writer: _Writer | None = None  # writer="thread"
        self._process: _WriterProcess | None = None  # writer="process"
        self._rconn: sqlite3.Connection | None = None
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._writer_task: asyncio.Task[None] | None = None
        self._broken: BaseException | None = None
        self._closed = False
        self._close_task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls, path: str | PathLike[str], *, max_batch: int = 2048, cache_size: int = 100_000, writer: str = "thread"
    ) -> SQLiteStore:
        """Open (creating if needed) the store in the file ``path``.

        ``max_batch`` caps the write requests per transaction; ``cache_size`` caps the games
        whose chain head the writer keeps in memory; ``writer`` is where the write connection
        lives: "thread" (a thread of this process) or "process" (a child process, see the module
        docstring). Raises ValueError for ``:memory:`` (use MemoryStore) or another ``writer``,
        and :class:`StoreError` if the file cannot be opened as a store.
        """
        if writer not in WRITERS:
            raise ValueError(f"writer is one of {', '.join(WRITERS)}, not {writer!r}")
        p = Path(path)
        if str(path) == ":memory:" or str(path).startswith("file:"):
            raise ValueError(f"SQLiteStore needs a file path, not {str(path)!r} (use MemoryStore for memory)")
        if max_batch < 1 or cache_size < 1:
            raise ValueError(f"max_batch ({max_batch}) and cache_size ({cache_size}) must be >= 1")
        store = cls(p, max_batch=max_batch, cache_size=cache_size, _token=_OPEN_TOKEN)
        loop = asyncio.get_running_loop()
        try:
            if writer == "process":
                store._process = await _WriterProcess.start(p, cache_size)
            else:
                store._writer = await loop.run_in_executor(store._wexec, _open_writer, p, cache_size)
            store._rconn = await loop.run_in_executor(store._rexec, store._open_reader)
        except BaseException:
            await store._release()
            raise
        store._writer_task = asyncio.create_task(store._write_loop(), name=f"sqlite-store-writer:{p}")
        return store

    # --- connections (each created, used and closed on its own thread) ---

    def _open_reader(self) -> sqlite3.Connection:
        try:
            conn = connect(self.path)
            conn.execute("PRAGMA query_only=ON")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open sqlite store {str(self.path)!r} for reading: {exc}") from exc
        return conn

    # --- writes ---

    async def _submit(self, request: _Request) -> Any:
        if self._closed:
            raise StoreClosed(f"sqlite store {str(self.path)!r}")
        if self._broken is not None:
            raise StoreError(f"sqlite store {str(self.path)!r}: the writer stopped: {self._broken!r}")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((request, fut))
        return await fut

    async def _write_loop(self) -> None:
        """The one writer: take every queued request, write them in one transaction, resolve them."""
        assert self._writer is not None or self._process is not None
        loop = asyncio.get_running_loop()
        queue, writer, process, stats = self._queue, self._writer, self._process, self.stats
        items: list[tuple[_Request, asyncio.Future[Any]]] = []
        try:
            while True:
                items = []
                stop = False
                item = await queue.get()
                while True:
                    if item is _STOP:
                        stop = True
                    else:
                        items.append(item)
                    if len(items) >= self.max_batch or queue.empty():
                        break
                    item = queue.get_nowait()
                if items:
                    requests = [req for req, _ in items]
                    if process is not None:
                        results, n_events = await process.call("write_batch", requests)
                    else:
                        results, n_events = await loop.run_in_executor(self._wexec, writer.write_batch, requests)
                    if n_events < 0:
                        stats.failed_transactions += 1
                    else:
                        stats.transactions += 1
                        stats.requests += len(items)
                        stats.events += n_events
                    for (_, fut), res in zip(items, results):
                        if fut.done():  # the caller was cancelled; its write stands or failed anyway
                            continue
                        if isinstance(res, BaseException):
                            fut.set_exception(res)
                        else:
                            fut.set_result(res)
                    items = []
                if stop:
                    return
        except BaseException as exc:
            # Only reachable on a bug or on cancellation: fail everything in flight and queued.
            self._broken = exc
            while not queue.empty():
                item = queue.get_nowait()
                if item is not _STOP:
                    items.append(item)
            for _, fut in items:
                if not fut.done():
                    fut.set_exception(StoreError(f"sqlite store {str(self.path)!r}: the writer stopped: {exc!r}"))
            raise

    async def create_game(self, game_id: str, meta: bytes = b"", secret: bytes = b"",
                          events: Sequence[bytes] = (), command_id: str | None = None) -> CreateResult:
        check_game_id(game_id)
        datas, command_id = check_creation(game_id, events, command_id)
        return await self._submit(_CreateGame(game_id, as_bytes(meta, f"game {game_id!r}: meta"),
                                              as_bytes(secret, f"game {game_id!r}: secret"), datas, command_id))

    async def append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[bytes],
        command_id: str | None = None,
    ) -> AppendResult:
        expected_seq = check_expected_seq(game_id, expected_seq)
        datas = check_events(game_id, events)
        command_id = check_command_id(command_id)
        return await self._submit(_Append(game_id, expected_seq, datas, command_id))

    async def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TypeError(f"game {game_id!r}: snapshot seq must be an int, not {type(seq).__name__}")
        await self._submit(_SaveSnapshot(game_id, seq, as_bytes(data, f"game {game_id!r}: snapshot")))

    # --- reads ---

    async def _read(self, what: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._closed:
            raise StoreClosed(f"sqlite store {str(self.path)!r}")
        conn = self._rconn
        assert conn is not None

        def run() -> T:
            try:
                return fn(conn)
            except sqlite3.Error as exc:
                raise StoreError(f"sqlite store {str(self.path)!r}: reading {what} failed: {exc}") from exc

        return await asyncio.get_running_loop().run_in_executor(self._rexec, run)

    async def read(self, game_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredEvent]:
        from_seq, to_seq = check_read_range(game_id, from_seq, to_seq)

        def q(conn: sqlite3.Connection) -> list[StoredEvent]:
            rows = conn.execute(
                "SELECT seq, data, hash FROM events WHERE game_id = ? AND seq >= ? AND seq <= ? ORDER BY seq",
                (game_id, from_seq, to_seq if to_seq is not None else 2**63 - 1),
            ).fetchall()
            if not rows and conn.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone() is None:
                raise UnknownGame(game_id)
            return [StoredEvent(game_id, seq, data, h) for seq, data, h in rows]

        return await self._read(f"events of game {game_id!r}", q)

    async def last_seq(self, game_id: str) -> int:
        return (await self.game_info(game_id)).last_seq

    async def find_command(self, game_id: str, command_id: str) -> AppendResult | None:
        check_command_id(command_id)

        def q(conn: sqlite3.Connection) -> AppendResult | None:
            row = conn.execute(
                "SELECT first_seq, last_seq, last_hash FROM commands WHERE game_id = ? AND command_id = ?",
                (game_id, command_id),
            ).fetchone()
            if row is None:
                if conn.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone() is None:
                    raise UnknownGame(game_id)
                return None
            return AppendResult(row[0], row[1], row[2], duplicate=True)

        return await self._read(f"command {command_id!r} of game {game_id!r}", q)

    _INFO = (
        "SELECT g.game_id, g.created_at, "
        "COALESCE((SELECT max(e.seq) FROM events e WHERE e.game_id = g.game_id), 0), g.meta FROM games g"
    )

    async def list_games(self) -> list[GameInfo]:
        def q(conn: sqlite3.Connection) -> list[GameInfo]:
            rows = conn.execute(self._INFO + " ORDER BY g.created_at, g.game_id").fetchall()
            return [GameInfo(*row) for row in rows]

        return await self._read("the list of games", q)

    async def game_info(self, game_id: str) -> GameInfo:
        def q(conn: sqlite3.Connection) -> GameInfo:
            row = conn.execute(self._INFO + " WHERE g.game_id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGame(game_id)
            return GameInfo(*row)

        return await self._read(f"game {game_id!r}", q)

    async def load_secret(self, game_id: str) -> bytes:
        def q(conn: sqlite3.Connection) -> bytes:
            row = conn.execute("SELECT secret FROM games WHERE game_id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGame(game_id)
            return bytes(row[0])

        return await self._read(f"game {game_id!r}", q)

    async def load_snapshot(self, game_id: str) -> tuple[int, bytes] | None:
        def q(conn: sqlite3.Connection) -> tuple[int, bytes] | None:
            row = conn.execute(
                "SELECT s.seq, s.data FROM games g LEFT JOIN snapshots s ON s.game_id = g.game_id "
                "WHERE g.game_id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                raise UnknownGame(game_id)
            return None if row[0] is None else (row[0], row[1])

        return await self._read(f"the snapshot of game {game_id!r}", q)

    async def pragmas(self) -> dict[str, Any]:
        """The write connection's ``journal_mode``, ``synchronous`` (2 = FULL) and ``user_version``."""
        if self._closed:
            raise StoreClosed(f"sqlite store {str(self.path)!r}")
        if self._process is not None:
            return await self._process.call("pragmas")
        assert self._writer is not None
        return await asyncio.get_running_loop().run_in_executor(self._wexec, self._writer.pragmas)

    # --- closing ---

    async def close(self) -> None:
        """Write everything queued so far, stop the writer, close both connections. Idempotent."""
        if self._close_task is None:
            self._closed = True
            self._close_task = asyncio.ensure_future(self._close())
        await asyncio.shield(self._close_task)

    async def _close(self) -> None:
        if self._writer_task is not None:
            self._queue.put_nowait(_STOP)
            try:
                await self._writer_task
            except BaseException:  # already reported to every pending caller
                pass
        await self._release()

    async def _release(self) -> None:
        loop = asyncio.get_running_loop()
        if self._writer is not None:
            await loop.run_in_executor(self._wexec, self._writer.conn.close)
            self._writer = None
        if self._process is not None:
            await self._process.stop()
            self._process = None
        if self._rconn is not None:
            await loop.run_in_executor(self._rexec, self._rconn.close)
            self._rconn = None
        self._wexec.shutdown(wait=False)
        self._rexec.shutdown(wait=False)


_OPEN_TOKEN = object()

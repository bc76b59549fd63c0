"""The SQLite event store: one file, WAL mode, ``synchronous=FULL``, group commit.

Guarantees, on top of the :class:`~skirmish.server.store.base.EventStore` contract:

- **Durable acknowledgements.** ``append`` (and ``create_game``, ``save_snapshot``,
  ``save_listing``) return only after the COMMIT holding their rows has returned, with
  ``synchronous=FULL`` in WAL mode: whatever was acknowledged survives the process being killed.
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

This module is the asyncio side (the queue, the group-commit loop, the reads); the file's schema
and settings are in :mod:`skirmish.server.store.sqlite_schema`, the write side (cache, requests, one
transaction) in :mod:`skirmish.server.store.sqlite_writer`, the writer process in
:mod:`skirmish.server.store.sqlite_process`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Callable, TypeVar

from .base import (
    AppendResult,
    CreateResult,
    EventStore,
    GameInfo,
    Listing,
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
    check_page,
    check_read_range,
)
from .sqlite_process import WriterProcess
from .sqlite_schema import SCHEMA_VERSION, connect
from .sqlite_writer import Append, CreateGame, Request, SaveListing, SaveSnapshot, Writer, open_writer

__all__ = ["SCHEMA_VERSION", "SQLiteStore", "WRITERS", "WriterStats"]

T = TypeVar("T")

WRITERS = ("thread", "process")  # where the write connection lives (SQLiteStore.open)


@dataclass(slots=True)
class WriterStats:
    """Counters of the writer since the store was opened (for benchmarks and monitoring)."""

    transactions: int = 0  # committed batches
    requests: int = 0  # write requests in committed batches (failed ones included)
    events: int = 0  # event rows committed
    failed_transactions: int = 0


_STOP = object()  # queued by close(): the writer finishes what was queued before it, then stops


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
        self._writer: Writer | None = None  # writer="thread"
        self._process: WriterProcess | None = None  # writer="process"
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
                store._process = await WriterProcess.start(p, cache_size)
            else:
                store._writer = await loop.run_in_executor(store._wexec, open_writer, p, cache_size)
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

    async def _submit(self, request: Request) -> Any:
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
        items: list[tuple[Request, asyncio.Future[Any]]] = []
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
        return await self._submit(CreateGame(game_id, as_bytes(meta, f"game {game_id!r}: meta"),
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
        return await self._submit(Append(game_id, expected_seq, datas, command_id))

    async def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TypeError(f"game {game_id!r}: snapshot seq must be an int, not {type(seq).__name__}")
        await self._submit(SaveSnapshot(game_id, seq, as_bytes(data, f"game {game_id!r}: snapshot")))

    async def save_listing(self, game_id: str, seq: int, status: str, data: bytes) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TypeError(f"game {game_id!r}: listing seq must be an int, not {type(seq).__name__}")
        await self._submit(SaveListing(game_id, seq, status, as_bytes(data, f"game {game_id!r}: listing")))

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

    async def list_listings(self, status: str = "", offset: int = 0, limit: int = 100) -> tuple[list[Listing], int]:
        status, offset, limit = check_page(status, offset, limit)
        where, args = ("WHERE status = ?", (status,)) if status else ("WHERE status <> ''", ())

        def q(conn: sqlite3.Connection) -> tuple[list[Listing], int]:
            conn.execute("BEGIN")  # the page and the count from one snapshot of the file
            try:
                rows = conn.execute(
                    f"SELECT game_id, created_at, status, seq, data FROM listings {where} "
                    "ORDER BY created_at DESC, game_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)).fetchall()
                (count,) = conn.execute(f"SELECT count(*) FROM listings {where}", args).fetchone()
            finally:
                conn.execute("COMMIT")
            return [Listing(*row) for row in rows], count

        return await self._read("the listed games", q)

    # the games with events and no listing (status '': every game has a row, see sqlite_schema), or
    # listed open or live at an older seq than their last: found by the status index, not by a
    # walk of every game
    _STALE = (
        "SELECT g.game_id, g.created_at, l.last, g.meta, l.status FROM ("
        " SELECT game_id, status, seq, (SELECT max(e.seq) FROM events e WHERE e.game_id = listings.game_id) AS last"
        " FROM listings WHERE status IN ('', 'open', 'live')"
        ") l JOIN games g ON g.game_id = l.game_id WHERE l.last > l.seq ORDER BY g.created_at, g.game_id"
    )

    async def stale_listings(self) -> list[tuple[GameInfo, str]]:
        def q(conn: sqlite3.Connection) -> list[tuple[GameInfo, str]]:
            return [(GameInfo(*row[:4]), row[4]) for row in conn.execute(self._STALE)]

        return await self._read("the games listed out of date", q)

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
            await loop.run_in_executor(self._wexec, self._writer.close)
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
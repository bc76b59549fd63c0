"""The PostgreSQL event store: psycopg 3 (async) over a psycopg_pool connection pool, group commit.

Guarantees, on top of the :class:`~skirmish.server.store.base.EventStore` contract:

- **Durable acknowledgements.** Every connection runs with ``synchronous_commit = on``: ``append``
  (and ``create_game``, ``save_snapshot``, ``save_listing``) return only after the COMMIT holding their rows has
  returned, i.e. after PostgreSQL flushed its WAL to disk.
- **Group commit.** One writer task per store drains an :class:`asyncio.Queue` of write requests;
  every request waiting when it wakes (up to ``max_batch``), of any number of games, goes into ONE
  transaction written in two pipelined round trips (:mod:`skirmish.server.store.postgres_writer`):
  one statement per kind of row, the rows passed as arrays. Up to ``max_inflight`` such batches
  are written at once on separate connections, over disjoint games (a game's next write waits for
  its batch in flight): their commits share PostgreSQL's WAL flushes.
- **Failures stay alone**, as in SQLite: each request is checked against a cache of each game's
  chain head; one that fails (:class:`ConcurrencyError`, :class:`UnknownGame`, ...) adds no rows.
- **Optimistic concurrency in the database too.** ``(game_id, seq)`` is the events' primary key,
  and an append moves the game's head row only ``WHERE last_seq = expected``: a second store (a
  second process) appending to the same game at the same time loses cleanly with a
  ConcurrencyError, never a broken chain.
- **Schema by the program**, in a PostgreSQL schema of its own (``public`` by default), with
  ordered migrations recorded in ``schema_version`` (:mod:`skirmish.server.store.postgres_schema`).

Open with ``await PostgresStore.open("postgresql://host/db", schema="public")``. Reads take a
pooled connection each and see what has been committed.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from .base import (
    AppendResult,
    CreateResult,
    EventStore,
    GameInfo,
    LeaseLost,
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
from .postgres_schema import SCHEMA_VERSION, current_version, migrate
from .postgres_writer import RETRY, Append, CreateGame, Request, SaveListing, SaveSnapshot, Writer

__all__ = ["SCHEMA_VERSION", "PostgresStore", "redact"]

_STOP = object()
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_OPEN_TOKEN = object()


def redact(url: str) -> str:
    """The address without its password (for messages and logs)."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


class PostgresStore(EventStore):
    """:class:`EventStore` in a PostgreSQL database. Open with ``await PostgresStore.open(url)``."""

    def __init__(self, url: str, schema: str, pool: AsyncConnectionPool, *, max_batch: int, cache_size: int,
                 max_inflight: int = 1, _token: object = None) -> None:
        if _token is not _OPEN_TOKEN:
            raise TypeError("use 'await PostgresStore.open(url)' to open a PostgresStore")
        self.url, self.schema, self.max_batch = url, schema, max_batch
        self.name = f"{redact(url)} (schema {schema})"
        self.stats = _Stats()
        self._pool = pool
        self._writer = Writer(self.name, cache_size)
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._held: list[tuple[Request, asyncio.Future[Any]]] = []  # waiting for a batch
        self._busy: set[str] = set()  # the keys (_keys) of the batches in flight
        self._inflight: list[list[tuple[Request, asyncio.Future[Any]]]] = []
        self.max_inflight = max_inflight
        self._writer_task: asyncio.Task[None] | None = None
        self._broken: BaseException | None = None
        self._closed = False
        self._close_task: asyncio.Task[None] | None = None
        # several nodes on this store (skirmish.server.cluster): the lease epoch of each game this
        # node owns; every append carries it and is refused (LeaseLost) if it is not the game's
        # live lease. None: unfenced (one node, the command line's tools).
        self.fences: dict[str, int] | None = None

    @classmethod
    async def open(cls, url: str, *, schema: str = "public", create: bool = True, max_batch: int = 2048,
                   cache_size: int = 100_000, pool_size: int = 8, max_inflight: int = 4,
                   connect_timeout: float = 10.0) -> PostgresStore:
        """Connect to the database at ``url``, create or migrate the store's tables in ``schema``.

        ``create=False`` refuses a schema without a store (StoreError) rather than making one.
        ``max_inflight`` batches are written at once (each on a connection of the pool of
        ``pool_size``; the others serve reads).
        Raises :class:`StoreError` naming the address (without its password) if the server cannot be
        reached or the schema is of a newer version; ValueError for an invalid schema name.
        """
        if not _SCHEMA_NAME.match(schema):
            raise ValueError(f"postgresql schema name {schema!r}: letters, digits and _ only, not starting with a digit")
        if max_batch < 1 or cache_size < 1 or not 1 <= max_inflight < pool_size:
            raise ValueError("max_batch and cache_size must be >= 1, and 1 <= max_inflight < pool_size")
        where = f"{redact(url)} (schema {schema})"
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True,
                                                             connect_timeout=max(1, round(connect_timeout))) as conn:
                if not create and not await current_version(conn, schema):
                    raise StoreError(f"postgresql store {where}: there is no skirmish store there")
                await migrate(conn, schema)
        except psycopg.Error as exc:
            raise StoreError(f"postgresql store {where}: cannot open it: {_first_line(exc)}") from None
        options = sql.SQL("-c search_path={} -c synchronous_commit=on").format(sql.Identifier(schema))
        pool = AsyncConnectionPool(url, min_size=2, max_size=pool_size, open=False, timeout=connect_timeout,
                                   kwargs={"autocommit": True, "options": options.as_string(None)},
                                   name=f"skirmish-store:{schema}")
        try:
            await pool.open(wait=True, timeout=connect_timeout)
        except psycopg.Error as exc:  # psycopg_pool.PoolTimeout among them
            await pool.close()
            raise StoreError(f"postgresql store {where}: cannot open a connection pool: {_first_line(exc)}") from None
        store = cls(url, schema, pool, max_batch=max_batch, cache_size=cache_size, max_inflight=max_inflight,
                    _token=_OPEN_TOKEN)
        store._writer_task = asyncio.create_task(store._write_loop(), name=f"postgres-store-writer:{schema}")
        return store

    @property
    def pool(self) -> AsyncConnectionPool:
        """The connection pool (the benchmark's raw baseline runs over the same one)."""
        return self._pool

    # --- writes ---

    async def _submit(self, request: Request) -> Any:
        if self._closed:
            raise StoreClosed(f"postgresql store {self.name}")
        if self._broken is not None:
            raise StoreError(f"postgresql store {self.name}: the writer stopped: {self._broken!r}")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((request, fut))
        return await fut

    async def _write_loop(self) -> None:
        """Form batches from the queue and keep up to ``max_inflight`` of them writing at once, each
        on a pooled connection of its own: PostgreSQL flushes the WAL of concurrent commits together,
        so a batch does not wait for the previous one's fsync. A request whose game (or creation
        command id) has a batch in flight waits for that batch: each game's writes stay in order,
        and no batch depends on rows another has not committed yet."""
        queue, held = self._queue, self._held
        running: set[asyncio.Future[None]] = set()
        getter: asyncio.Future[Any] | None = None
        stop = False
        try:
            while True:
                while not queue.empty():
                    item = queue.get_nowait()
                    if item is _STOP:
                        stop = True
                    else:
                        held.append(item)
                if len(running) < self.max_inflight and held and self._start_batch(running):
                    continue
                if stop and not held and not running:
                    if getter is not None:
                        getter.cancel()
                    return
                if getter is None and not stop:
                    getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait(running | ({getter} if getter else set()),
                                             return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    if task is getter:
                        item, getter = getter.result(), None
                        if item is _STOP:
                            stop = True
                        else:
                            held.append(item)
                    else:
                        running.discard(task)
                        task.result()  # a bug in a batch stops the writer
        except BaseException as exc:  # a bug, or cancellation: fail everything in flight and waiting
            self._broken = exc
            if getter is not None:
                getter.cancel()
            for task in running:
                task.cancel()
            items = list(held) + [i for i in (queue.get_nowait() for _ in range(queue.qsize())) if i is not _STOP]
            for _, fut in items + self._inflight_items():
                if not fut.done():
                    fut.set_exception(StoreError(f"postgresql store {self.name}: the writer stopped: {exc!r}"))
            raise

    def _start_batch(self, running: set[asyncio.Future[None]]) -> bool:
        """Take the waiting requests that no batch in flight touches (up to max_batch) and start writing them."""
        batch, keys, rest = [], set(), []
        for item in self._held:
            k = _keys(item[0])
            if len(batch) < self.max_batch and self._busy.isdisjoint(k):
                batch.append(item)
                keys |= k
            else:
                rest.append(item)
        if not batch:
            return False
        self._held[:] = rest
        self._busy |= keys
        running.add(asyncio.ensure_future(self._run_batch(batch, keys)))
        return True

    async def _run_batch(self, items: list[tuple[Request, asyncio.Future[Any]]], keys: set[str]) -> None:
        self._inflight.append(items)
        try:
            results, n_events = await self._write_batch([req for req, _ in items])
        finally:
            self._inflight.remove(items)
            self._busy -= keys
        self.stats.count(len(items), n_events)
        retry = []
        for (req, fut), res in zip(items, results):
            if fut.done():  # the caller was cancelled; its write stands or failed anyway
                continue
            if res is RETRY:
                retry.append((req, fut))
            elif isinstance(res, BaseException):
                fut.set_exception(res)
            else:
                fut.set_result(res)
        self._held[:0] = retry  # first into the next batch, before later requests of their games

    def _inflight_items(self) -> list[tuple[Request, asyncio.Future[Any]]]:
        return [item for items in self._inflight for item in items]

    async def _write_batch(self, requests: list[Request]) -> tuple[list[Any], int]:
        try:
            async with self._pool.connection() as conn:
                return await self._writer.write_batch(conn, requests)
        except psycopg.Error as exc:  # no connection to be had (the pool timed out): this batch fails alone
            self._writer.cache.clear()
            return [StoreError(f"postgresql store {self.name}: no connection for {len(requests)} writes: "
                               f"{_first_line(exc)}") for _ in requests], -1

    async def create_game(self, game_id: str, meta: bytes = b"", secret: bytes = b"",
                          events: Sequence[bytes] = (), command_id: str | None = None) -> CreateResult:
        check_game_id(game_id)
        datas, command_id = check_creation(game_id, events, command_id)
        return await self._submit(CreateGame(game_id, as_bytes(meta, f"game {game_id!r}: meta"),
                                             as_bytes(secret, f"game {game_id!r}: secret"), datas, command_id))

    async def append(self, game_id: str, expected_seq: int, events: Sequence[bytes],
                     command_id: str | None = None) -> AppendResult:
        expected_seq = check_expected_seq(game_id, expected_seq)
        datas = check_events(game_id, events)
        command_id = check_command_id(command_id)
        epoch = None
        if self.fences is not None:
            epoch = self.fences.get(game_id)
            if epoch is None:  # a node appending to a game it holds no lease of: refused at once
                raise LeaseLost(game_id, None)
        return await self._submit(Append(game_id, expected_seq, datas, command_id, epoch))

    async def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TypeError(f"game {game_id!r}: snapshot seq must be an int, not {type(seq).__name__}")
        await self._submit(SaveSnapshot(game_id, seq, as_bytes(data, f"game {game_id!r}: snapshot")))

    async def save_listing(self, game_id: str, seq: int, status: str, data: bytes) -> None:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TypeError(f"game {game_id!r}: listing seq must be an int, not {type(seq).__name__}")
        await self._submit(SaveListing(game_id, seq, status, as_bytes(data, f"game {game_id!r}: listing")))

    # --- reads ---

    async def _query(self, what: str, query: str, params: Sequence[Any]) -> list[tuple]:
        if self._closed:
            raise StoreClosed(f"postgresql store {self.name}")
        try:
            async with self._pool.connection() as conn:
                cur = await conn.execute(query, params, binary=True)
                return await cur.fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"postgresql store {self.name}: reading {what} failed: {_first_line(exc)}") from exc

    async def _exists(self, game_id: str) -> None:
        if not await self._query(f"game {game_id!r}", "SELECT 1 FROM games WHERE game_id = %s", (game_id,)):
            raise UnknownGame(game_id)

    async def read(self, game_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredEvent]:
        from_seq, to_seq = check_read_range(game_id, from_seq, to_seq)
        rows = await self._query(
            f"events of game {game_id!r}",
            "SELECT seq, data, hash FROM events WHERE game_id = %s AND seq >= %s AND seq <= %s ORDER BY seq",
            (game_id, from_seq, to_seq if to_seq is not None else 2**63 - 1))
        if not rows:
            await self._exists(game_id)
        return [StoredEvent(game_id, seq, data, h) for seq, data, h in rows]

    async def last_seq(self, game_id: str) -> int:
        return (await self.game_info(game_id)).last_seq

    async def find_command(self, game_id: str, command_id: str) -> AppendResult | None:
        check_command_id(command_id)
        rows = await self._query(
            f"command {command_id!r} of game {game_id!r}",
            "SELECT first_seq, last_seq, last_hash FROM commands WHERE game_id = %s AND command_id = %s",
            (game_id, command_id))
        if not rows:
            await self._exists(game_id)
            return None
        first, last, h = rows[0]
        return AppendResult(first, last, h, duplicate=True)

    _INFO = "SELECT game_id, created_at, last_seq, meta FROM games"

    async def list_games(self) -> list[GameInfo]:
        rows = await self._query("the list of games", self._INFO + " ORDER BY created_at, game_id", ())
        return [GameInfo(*row) for row in rows]

    async def game_info(self, game_id: str) -> GameInfo:
        rows = await self._query(f"game {game_id!r}", self._INFO + " WHERE game_id = %s", (game_id,))
        if not rows:
            raise UnknownGame(game_id)
        return GameInfo(*rows[0])

    async def list_listings(self, status: str = "", offset: int = 0, limit: int = 100) -> tuple[list[Listing], int]:
        status, offset, limit = check_page(status, offset, limit)
        where, args = ("WHERE status = %s", (status,)) if status else ("WHERE status <> ''", ())
        rows = await self._query(  # one statement: the page and the count from one snapshot
            "the listed games",
            f"SELECT c.n, p.* FROM (SELECT count(*) AS n FROM listings {where}) c LEFT JOIN LATERAL ("
            f"SELECT game_id, created_at, status, seq, data FROM listings {where} "
            "ORDER BY created_at DESC, game_id DESC LIMIT %s OFFSET %s) p ON true",
            (*args, *args, limit, offset))
        return [Listing(*row[1:]) for row in rows if row[1] is not None], rows[0][0]

    async def stale_listings(self) -> list[tuple[GameInfo, str]]:
        rows = await self._query(
            "the games listed out of date",
            # (every game has a listing row, status '' until listed: postgres_schema)
            "SELECT g.game_id, g.created_at, g.last_seq, g.meta, l.status FROM listings l "
            "JOIN games g ON g.game_id = l.game_id WHERE l.status IN ('', 'open', 'live') AND l.seq < g.last_seq "
            "ORDER BY g.created_at, g.game_id",
            ())
        return [(GameInfo(*row[:4]), row[4]) for row in rows]

    async def load_secret(self, game_id: str) -> bytes:
        rows = await self._query(f"game {game_id!r}", "SELECT secret FROM games WHERE game_id = %s", (game_id,))
        if not rows:
            raise UnknownGame(game_id)
        return rows[0][0]

    async def load_snapshot(self, game_id: str) -> tuple[int, bytes] | None:
        rows = await self._query(
            f"the snapshot of game {game_id!r}",
            "SELECT s.seq, s.data FROM games g LEFT JOIN snapshots s ON s.game_id = g.game_id WHERE g.game_id = %s",
            (game_id,))
        if not rows:
            raise UnknownGame(game_id)
        return None if rows[0][0] is None else (rows[0][0], rows[0][1])

    async def settings(self) -> dict[str, str]:
        """What a pooled connection runs with: ``synchronous_commit``, ``fsync``, ``search_path``, version."""
        rows = await self._query("settings", "SELECT current_setting('synchronous_commit'), current_setting('fsync'), "
                                 "current_setting('search_path'), (SELECT max(version) FROM schema_version)", ())
        sync, fsync, path, version = rows[0]
        return {"synchronous_commit": sync, "fsync": fsync, "search_path": path, "schema_version": str(version)}

    # --- closing ---

    async def close(self) -> None:
        """Write everything queued so far, stop the writer, close the pool. Idempotent."""
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
        await self._pool.close()


def _keys(request: Request) -> set[str]:
    """What a request must not share with a batch in flight: its game, and a creation's command id."""
    if type(request) is CreateGame and request.command_id is not None:
        return {request.game_id, "\x00" + request.command_id}  # (ids hold no NUL: no clash with a game id)
    return {request.game_id}


class _Stats:
    """Counters of the writer since the store was opened (for benchmarks and monitoring)."""

    __slots__ = ("events", "failed_transactions", "requests", "transactions")

    def __init__(self) -> None:
        self.transactions = self.requests = self.events = self.failed_transactions = 0

    def count(self, requests: int, events: int) -> None:
        if events < 0:
            self.failed_transactions += 1
        else:
            self.transactions += 1
            self.requests += requests
            self.events += events


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]

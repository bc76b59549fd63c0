"""The PostgreSQL store's write side: the requests, the cache of each game's chain head, and the
one transaction each batch of requests is written in (two round trips, pipelined).

A batch is written as:

1. ``BEGIN`` and, pipelined, the lookups the requests need: the heads of games not in the cache,
   the stored results of the command ids the appends carry, the games made by the creations'
   command ids;
2. the requests are checked and applied in Python against those heads (as SQLite's writer does:
   a request that fails its checks adds no rows and fails alone), then, pipelined, one statement
   per kind of row (games created, appends, snapshots) with the rows as arrays, and ``COMMIT``.

The appends' statement updates each game's head row ``WHERE last_seq = expected`` and inserts
only the events and commands of the games whose head it updated. Another store appending to the
same game (another process on the same database) makes that update match nothing: the events are
not written, the commit goes on for the other games, and the requests of that game fail with
:class:`ConcurrencyError` naming the head read after the commit.

**Fencing.** An append may carry a lease's fencing epoch (``Append.epoch``; several nodes on one
store, ``skirmish.server.cluster``). :data:`APPEND_SQL`'s head update (its ``{guard}``) then moves
the head only if the game's lease row has that epoch and has not expired, by PostgreSQL's clock,
and holds that row ``FOR SHARE`` until the commit: a takeover (which updates the row) waits for
the append's commit, so the new owner reads the log after it. A game whose head the guard refuses
shows up in ``lost`` like a lost race; ``_report_lost`` reads the lease to tell the two apart
and fails the appends with :class:`LeaseLost` (nothing written). An append without an epoch
(one node, the command line's tools) is not checked.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

import psycopg
from skirmish.engine.log import GENESIS_HASH, chain_hash

from .base import (
    AppendResult,
    ConcurrencyError,
    CreateResult,
    GameExists,
    LeaseLost,
    StoreError,
    UnknownGame,
    check_listing,
    check_snapshot,
)

__all__ = ["APPEND_SQL", "RETRY", "Append", "CreateGame", "Request", "SaveListing", "SaveSnapshot", "Writer"]


class _Retry(Exception):
    """A request checked against a cached head that disagrees with it: the cache may be stale
    (another store appended), so the head is dropped and the request goes into the next batch,
    which reads the head from the database."""


RETRY = _Retry()


class Head:
    __slots__ = ("hash", "seq")

    def __init__(self, seq: int, hash: bytes) -> None:
        self.seq = seq
        self.hash = hash


class Group:
    """The appends of one existing game in one batch: head ``expected`` -> ``last``/``hash``,
    under the lease ``epoch`` (None: unfenced)."""

    __slots__ = ("commands", "epoch", "events", "expected", "hash", "last")

    def __init__(self, expected: int, epoch: int | None = None) -> None:
        self.expected = expected
        self.epoch = epoch
        self.last = expected
        self.hash = b""
        self.events: list[tuple[int, bytes, bytes]] = []
        self.commands: list[tuple[str, int, int, bytes]] = []


class NewGame:
    __slots__ = ("commands", "created_at", "creation", "events", "head", "meta", "secret")

    def __init__(self, meta: bytes, secret: bytes) -> None:
        self.created_at = time.time()
        self.meta = meta
        self.secret = secret
        self.head = Head(0, GENESIS_HASH)
        self.events: list[tuple[int, bytes, bytes]] = []
        self.commands: list[tuple[str, int, int, bytes]] = []
        self.creation: str | None = None


class Batch:
    """What one transaction writes, and what the lookups found (heads, stored commands, creations)."""

    __slots__ = ("commands", "creations", "groups", "heads", "listings", "new", "snapshots", "touched")

    def __init__(self) -> None:
        self.heads: dict[str, Head] = {}
        self.commands: dict[tuple[str, str], AppendResult] = {}  # stored, or appended earlier in the batch
        self.creations: dict[str, CreateResult] = {}
        self.new: dict[str, NewGame] = {}
        self.groups: dict[str, Group] = {}
        self.snapshots: dict[str, tuple[int, bytes]] = {}
        self.listings: dict[str, tuple[int, str, bytes]] = {}
        self.touched: list[str | None] = []  # per request: the existing game it appended to


class CreateGame:
    __slots__ = ("command_id", "events", "game_id", "meta", "secret")

    def __init__(self, game_id: str, meta: bytes, secret: bytes, events: tuple[bytes, ...] = (),
                 command_id: str | None = None) -> None:
        self.game_id, self.meta, self.secret, self.events, self.command_id = game_id, meta, secret, events, command_id

    def apply(self, w: Writer, b: Batch) -> CreateResult:
        game_id, command_id = self.game_id, self.command_id
        if command_id is not None and command_id in b.creations:
            return b.creations[command_id]
        if game_id in b.new or w.head(b, game_id, missing_ok=True) is not None:
            raise GameExists(game_id)
        g = b.new[game_id] = NewGame(self.meta, self.secret)
        seq, h = 0, GENESIS_HASH
        for data in self.events:
            seq += 1
            h = chain_hash(h, game_id, seq, data)
            g.events.append((seq, data, h))
        g.head = w.cache[game_id] = Head(seq, h)
        if command_id is not None:
            b.commands[(game_id, command_id)] = AppendResult(1, seq, h, duplicate=False)
            g.commands.append((command_id, 1, seq, h))
            b.creations[command_id] = CreateResult(game_id, seq, h, duplicate=True)
            g.creation = command_id
        return CreateResult(game_id, seq, h, duplicate=False)


class Append:
    __slots__ = ("command_id", "epoch", "events", "expected_seq", "game_id")

    def __init__(self, game_id: str, expected_seq: int, events: tuple[bytes, ...], command_id: str | None,
                 epoch: int | None = None) -> None:
        self.game_id, self.expected_seq, self.events, self.command_id = game_id, expected_seq, events, command_id
        self.epoch = epoch

    def apply(self, w: Writer, b: Batch) -> AppendResult:
        game_id, command_id = self.game_id, self.command_id
        if game_id not in b.new:
            b.touched[-1] = game_id
        if command_id is not None:
            prior = b.commands.get((game_id, command_id))
            if prior is not None:
                return AppendResult(prior.first_seq, prior.last_seq, prior.last_hash, duplicate=True)
        new = b.new.get(game_id)
        head = new.head if new is not None else w.head(b, game_id)
        if self.expected_seq != head.seq:
            w.doubt(b, game_id)
            raise ConcurrencyError(game_id, self.expected_seq, head.seq)
        if new is None:
            group = b.groups.get(game_id) or b.groups.setdefault(game_id, Group(head.seq, self.epoch))
            if group.epoch != self.epoch:  # (one node's appends to a game carry one epoch at a time)
                raise RETRY
            rows, commands = group.events, group.commands
        else:
            rows, commands = new.events, new.commands
        seq, h = head.seq, head.hash
        for data in self.events:
            seq += 1
            h = chain_hash(h, game_id, seq, data)
            rows.append((seq, data, h))
        result = AppendResult(head.seq + 1, seq, h, duplicate=False)
        head.seq, head.hash = seq, h
        if new is None:
            group.last, group.hash = seq, h
        if command_id is not None:
            b.commands[(game_id, command_id)] = result
            commands.append((command_id, result.first_seq, seq, h))
        return result


class SaveSnapshot:
    __slots__ = ("data", "game_id", "seq")

    def __init__(self, game_id: str, seq: int, data: bytes) -> None:
        self.game_id, self.seq, self.data = game_id, seq, data

    def apply(self, w: Writer, b: Batch) -> None:
        new = b.new.get(self.game_id)
        last = (new.head if new else w.head(b, self.game_id)).seq
        if self.seq > last:
            w.doubt(b, self.game_id)
        check_snapshot(self.game_id, self.seq, last)
        kept = b.snapshots.get(self.game_id)
        if kept is None or self.seq >= kept[0]:  # the store keeps the highest seq, the last of equals
            b.snapshots[self.game_id] = (self.seq, self.data)


class SaveListing:
    __slots__ = ("data", "game_id", "seq", "status")

    def __init__(self, game_id: str, seq: int, status: str, data: bytes) -> None:
        self.game_id, self.seq, self.status, self.data = game_id, seq, status, data

    def apply(self, w: Writer, b: Batch) -> None:
        new = b.new.get(self.game_id)
        last = (new.head if new else w.head(b, self.game_id)).seq
        if self.seq > last:
            w.doubt(b, self.game_id)
        check_listing(self.game_id, self.seq, self.status, last)
        kept = b.listings.get(self.game_id)
        if kept is None or self.seq >= kept[0]:  # the store keeps the highest seq, the last of equals
            b.listings[self.game_id] = (self.seq, self.status, self.data)


Request = CreateGame | Append | SaveSnapshot | SaveListing

INSERT_GAMES = (
    "INSERT INTO games (game_id, created_at, meta, secret, last_seq, last_hash) "
    "SELECT * FROM unnest(%s::text[], %s::float8[], %s::bytea[], %s::bytea[], %s::int8[], %s::bytea[])"
)
INSERT_EVENTS = "INSERT INTO events (game_id, seq, data, hash) SELECT * FROM unnest(%s::text[], %s::int8[], %s::bytea[], %s::bytea[])"
INSERT_COMMANDS = (
    "INSERT INTO commands (game_id, command_id, first_seq, last_seq, last_hash) "
    "SELECT * FROM unnest(%s::text[], %s::text[], %s::int8[], %s::int8[], %s::bytea[])"
)
INSERT_CREATIONS = "INSERT INTO creations (command_id, game_id) SELECT * FROM unnest(%s::text[], %s::text[])"
# (only up to the game's head as this transaction left it: never a snapshot of events another
# store's race kept out of the log)
UPSERT_SNAPSHOTS = (
    "INSERT INTO snapshots AS s (game_id, seq, data) SELECT u.game_id, u.seq, u.data "
    "FROM unnest(%s::text[], %s::int8[], %s::bytea[]) AS u(game_id, seq, data) "
    "JOIN games g ON g.game_id = u.game_id AND u.seq <= g.last_seq "
    "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, data = excluded.data WHERE excluded.seq >= s.seq"
)
# (as snapshots: only up to the game's head as this transaction left it)
UPSERT_LISTINGS = (
    "INSERT INTO listings AS l (game_id, created_at, status, seq, data) "
    "SELECT u.game_id, g.created_at, u.status, u.seq, u.data "
    "FROM unnest(%s::text[], %s::int8[], %s::text[], %s::bytea[]) AS u(game_id, seq, status, data) "
    "JOIN games g ON g.game_id = u.game_id AND u.seq <= g.last_seq "
    "ON CONFLICT (game_id) DO UPDATE SET status = excluded.status, seq = excluded.seq, data = excluded.data "
    "WHERE excluded.seq >= l.seq"
)
# every append of the batch in one statement: the heads it could move, then only their rows
APPEND_SQL = """
WITH ok AS (
    UPDATE games g SET last_seq = r.last, last_hash = r.hash
      FROM unnest(%s::text[], %s::int8[], %s::int8[], %s::bytea[], %s::int8[]) AS r(game_id, expected, last, hash, epoch)
     WHERE g.game_id = r.game_id AND g.last_seq = r.expected {guard}
    RETURNING g.game_id
), ev AS (
    INSERT INTO events (game_id, seq, data, hash)
    SELECT e.* FROM unnest(%s::text[], %s::int8[], %s::bytea[], %s::bytea[]) AS e(game_id, seq, data, hash)
     WHERE e.game_id IN (SELECT game_id FROM ok)
), cm AS (
    INSERT INTO commands (game_id, command_id, first_seq, last_seq, last_hash)
    SELECT c.* FROM unnest(%s::text[], %s::text[], %s::int8[], %s::int8[], %s::bytea[])
           AS c(game_id, command_id, first_seq, last_seq, last_hash)
     WHERE c.game_id IN (SELECT game_id FROM ok)
)
SELECT game_id FROM ok
""".format(guard="""
       AND (r.epoch IS NULL OR EXISTS (
            SELECT 1 FROM leases l WHERE l.game_id = r.game_id AND l.epoch = r.epoch
               AND l.expires_at > clock_timestamp() FOR SHARE))""")
LOOKUP_HEADS = "SELECT game_id, last_seq, coalesce(last_hash, %s) FROM games WHERE game_id = ANY(%s::text[])"
LOOKUP_COMMANDS = (
    "SELECT c.game_id, c.command_id, c.first_seq, c.last_seq, c.last_hash FROM commands c "
    "JOIN unnest(%s::text[], %s::text[]) AS k(game_id, command_id) "
    "ON c.game_id = k.game_id AND c.command_id = k.command_id"
)
LOOKUP_CREATIONS = (
    "SELECT c.command_id, c.game_id, m.last_seq, m.last_hash FROM creations c "
    "JOIN commands m ON m.game_id = c.game_id AND m.command_id = c.command_id WHERE c.command_id = ANY(%s::text[])"
)


def _columns(rows: list[tuple], n: int) -> list[list[Any]]:
    return [list(col) for col in zip(*rows)] if rows else [[] for _ in range(n)]


class Writer:
    """The cache of chain heads and the batch transaction; used by the store's one writer task."""

    def __init__(self, name: str, cache_size: int) -> None:
        self.name = name
        self.cache: OrderedDict[str, Head] = OrderedDict()
        self.cache_size = cache_size

    def head(self, b: Batch, game_id: str, *, missing_ok: bool = False) -> Head | None:
        head = self.cache.get(game_id)
        if head is not None:
            self.cache.move_to_end(game_id)
            return head
        head = b.heads.get(game_id)
        if head is None:
            if missing_ok:
                return None
            raise UnknownGame(game_id)
        self.cache[game_id] = head
        return head

    def doubt(self, b: Batch, game_id: str) -> None:
        """Raise RETRY if ``game_id``'s head came from the cache untested by this batch (see _Retry)."""
        if game_id in b.heads or game_id in b.groups or game_id in b.new:
            return  # read from the database in this batch, or moved by it: exact
        self.cache.pop(game_id, None)
        raise RETRY

    async def _lookups(self, conn: psycopg.AsyncConnection, pipeline: Any, requests: list[Request], b: Batch) -> None:
        games = {r.game_id for r in requests if r.game_id not in self.cache}
        keys = {(r.game_id, r.command_id) for r in requests if type(r) is Append and r.command_id is not None}
        made = {r.command_id for r in requests if type(r) is CreateGame and r.command_id is not None}
        cursors = []
        if games:
            cursors.append(("h", await conn.execute(LOOKUP_HEADS, (GENESIS_HASH, list(games)))))
        if keys:
            cursors.append(("c", await conn.execute(LOOKUP_COMMANDS, _columns(list(keys), 2))))
        if made:
            cursors.append(("m", await conn.execute(LOOKUP_CREATIONS, (list(made),))))
        if cursors:
            await pipeline.sync()  # one round trip: BEGIN and the lookups
        for kind, cur in cursors:
            for row in await cur.fetchall():
                if kind == "h":
                    b.heads[row[0]] = Head(row[1], row[2])
                elif kind == "c":
                    b.commands[(row[0], row[1])] = AppendResult(row[2], row[3], row[4], duplicate=True)
                else:
                    b.creations[row[0]] = CreateResult(row[1], row[2], row[3], duplicate=True)

    async def _writes(self, conn: psycopg.AsyncConnection, b: Batch) -> Any:
        if b.new:
            ids = list(b.new)
            await conn.execute(INSERT_GAMES, (ids, [g.created_at for g in b.new.values()],
                                              [g.meta for g in b.new.values()], [g.secret for g in b.new.values()],
                                              [g.head.seq for g in b.new.values()], [g.head.hash for g in b.new.values()]))
            events = [(gid, *e) for gid, g in b.new.items() for e in g.events]
            if events:
                await conn.execute(INSERT_EVENTS, _columns(events, 4))
            commands = [(gid, *c) for gid, g in b.new.items() for c in g.commands]
            if commands:
                await conn.execute(INSERT_COMMANDS, _columns(commands, 5))
            creations = [(g.creation, gid) for gid, g in b.new.items() if g.creation is not None]
            if creations:
                await conn.execute(INSERT_CREATIONS, _columns(creations, 2))
        cur = None
        if b.groups:
            heads = [(gid, g.expected, g.last, g.hash, g.epoch) for gid, g in b.groups.items()]
            events = [(gid, *e) for gid, g in b.groups.items() for e in g.events]
            commands = [(gid, *c) for gid, g in b.groups.items() for c in g.commands]
            cur = await conn.execute(APPEND_SQL, [*_columns(heads, 5), *_columns(events, 4), *_columns(commands, 5)])
        if b.snapshots:
            snaps = [(gid, seq, data) for gid, (seq, data) in b.snapshots.items()]
            await conn.execute(UPSERT_SNAPSHOTS, _columns(snaps, 3))
        if b.listings:
            listed = [(gid, seq, status, data) for gid, (seq, status, data) in b.listings.items()]
            await conn.execute(UPSERT_LISTINGS, _columns(listed, 4))
        return cur

    async def write_batch(self, conn: psycopg.AsyncConnection, requests: list[Request]) -> tuple[list[Any], int]:
        """Check and write ``requests`` in one transaction on ``conn`` (autocommit, not in a pipeline).

        Returns, per request, its result, the exception it fails with or :data:`RETRY` (submit it
        again: it was checked against a stale cached head), and the number of event rows committed (-1: the transaction failed, every request got a StoreError, the cache was
        dropped).
        """
        b = Batch()
        results: list[Any] = []
        try:
            async with conn.pipeline() as pipeline, conn.transaction():
                await self._lookups(conn, pipeline, requests, b)
                for req in requests:
                    b.touched.append(None)
                    try:
                        results.append(req.apply(self, b))
                    except (StoreError, ValueError, TypeError, _Retry) as exc:
                        results.append(exc)
                cur = await self._writes(conn, b)
            moved = {row[0] for row in await cur.fetchall()} if cur is not None else set()
        except (psycopg.Error, OSError) as exc:
            self.cache.clear()
            failures = []
            for _ in requests:
                err = StoreError(f"postgresql store {self.name}: a transaction of {len(requests)} writes failed: {exc}")
                err.__cause__ = exc
                failures.append(err)
            return failures, -1
        lost = [gid for gid in b.groups if gid not in moved]
        if lost:
            await self._report_lost(conn, lost, requests, results, b)
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        n = sum(len(g.events) for gid, g in b.groups.items() if gid in moved)
        return results, n + sum(len(g.events) for g in b.new.values())

    async def _report_lost(self, conn: psycopg.AsyncConnection, lost: list[str], requests: list[Request],
                           results: list[Any], b: Batch) -> None:
        """Another writer moved these games' heads first, or (fenced appends) the lease is not theirs:
        their appends failed (nothing was written)."""
        for gid in lost:
            self.cache.pop(gid, None)
        cur = await conn.execute("SELECT game_id, last_seq FROM games WHERE game_id = ANY(%s::text[])", (lost,))
        actual = dict(await cur.fetchall())
        fenced = {gid: b.groups[gid].epoch for gid in lost if b.groups[gid].epoch is not None}
        if fenced:
            cur = await conn.execute(
                "SELECT l.game_id FROM leases l JOIN unnest(%s::text[], %s::int8[]) AS f(game_id, epoch) "
                "ON l.game_id = f.game_id AND l.epoch = f.epoch WHERE l.expires_at > clock_timestamp()",
                (list(fenced), list(fenced.values())))
            live = {row[0] for row in await cur.fetchall()}
            fenced = {gid: e for gid, e in fenced.items() if gid not in live}
        for i, req in enumerate(requests):
            gid = b.touched[i]
            if gid in fenced and not isinstance(results[i], BaseException):
                results[i] = LeaseLost(gid, fenced[gid])
            elif gid in actual and not isinstance(results[i], BaseException):
                expected = req.expected_seq if type(req) is Append else b.groups[gid].expected
                results[i] = ConcurrencyError(gid, expected, actual[gid])

"""Leases on live games in a PostgreSQL store: which node runs each game's actor (several nodes on
one store, ``skirmish.server.cluster``).

A lease is a row of ``leases`` (``skirmish.server.store.postgres_schema``, version 3): the node,
a fencing ``epoch`` and ``expires_at``, all timed by PostgreSQL's clock (no node's clock matters).

- ``take``: one atomic statement; a game with no row gets epoch 1, a game whose lease expired (or
  was handed over) gets the next epoch; a game released as over is nobody's to take. A live lease of another node, or of this node's name from a
  previous life, is never taken: a restarted node gets games only as any other node does.
- ``renew``: the owner's heartbeat, for all its games in one statement; only a lease that has not
  expired yet is renewed (a node paused past its TTL has lost its games, even if nobody took them).
  It skips the rows that appends in flight hold (``FOR SHARE``, see ``postgres_writer``) and tries
  them again, rather than wait: waiting would let a renewal and a batch of appends deadlock.
- ``release``: ``handover`` (another node may take it at once) or ``done`` (the game is over:
  nobody needs to take it over).
- ``expired``: the games whose lease expired and that somebody must take over.

Every fenced append (``PostgresStore.fences``) checks, in its transaction, that its epoch is the
game's current one and unexpired; so a node that lost its lease can never append again.
"""

from __future__ import annotations

import asyncio

from psycopg import sql

from .postgres import PostgresStore

__all__ = ["Leases"]

TAKE = """
INSERT INTO leases AS l (game_id, node, epoch, expires_at)
SELECT %(game)s, %(node)s, 1, clock_timestamp() + %(ttl)s * interval '1 second'
 WHERE EXISTS (SELECT 1 FROM games WHERE game_id = %(game)s)
ON CONFLICT (game_id) DO UPDATE SET node = excluded.node, epoch = l.epoch + 1, expires_at = excluded.expires_at
 WHERE l.expires_at < clock_timestamp() AND l.node <> ''
RETURNING epoch
"""
# (rows an append holds FOR SHARE are skipped, never waited for: a renewal waiting on appends that
# wait on it would deadlock; ``renew`` tries the skipped ones again)
RENEW = """
UPDATE leases l SET expires_at = clock_timestamp() + %s * interval '1 second'
 WHERE l.game_id IN (
       SELECT k.game_id FROM leases k JOIN unnest(%s::text[], %s::int8[]) AS h(game_id, epoch)
           ON k.game_id = h.game_id AND k.epoch = h.epoch
        WHERE k.node = %s AND k.expires_at > clock_timestamp()
          FOR NO KEY UPDATE OF k SKIP LOCKED)
RETURNING l.game_id
"""
STILL = """
SELECT k.game_id FROM leases k JOIN unnest(%s::text[], %s::int8[]) AS h(game_id, epoch)
    ON k.game_id = h.game_id AND k.epoch = h.epoch
 WHERE k.node = %s AND k.expires_at > clock_timestamp()
"""
RELEASE = """
UPDATE leases SET expires_at = '-infinity', node = CASE WHEN %s THEN node ELSE '' END
 WHERE game_id = %s AND epoch = %s
"""
EXPIRED = """
SELECT game_id FROM leases WHERE node <> '' AND expires_at < clock_timestamp() ORDER BY expires_at LIMIT %s
"""
OWNER = "SELECT node, epoch, expires_at > clock_timestamp() FROM leases WHERE game_id = %s"


class Leases:
    """The leases of node ``node`` (TTL ``ttl`` seconds) in ``store``'s schema."""

    def __init__(self, store: PostgresStore, node: str, ttl: float) -> None:
        self.store, self.node, self.ttl = store, node, float(ttl)

    async def _run(self, query: str, params) -> list[tuple]:
        async with self.store.pool.connection() as conn:
            cur = await conn.execute(sql.SQL(query), params)  # (the pool's search_path is the store's schema)
            return await cur.fetchall() if cur.description else []

    async def take(self, game_id: str) -> int | None:
        """The game's lease for this node: its new epoch, or None if another lease of it is live."""
        rows = await self._run(TAKE, {"game": game_id, "node": self.node, "ttl": self.ttl})
        return rows[0][0] if rows else None

    async def renew(self, held: dict[str, int], tries: int = 5, fresh: set[str] | None = None) -> set[str]:
        """Renew the leases ``held`` (game -> epoch); the games whose lease this node still holds.
        A lease that an append in flight holds a moment is tried again (``tries`` times); one still
        busy then but live is counted as held (the next renewal renews it). ``fresh`` gets the games
        really renewed (their lease lasts ``ttl`` from the statement's start)."""
        renewed: set[str] = set()
        left = dict(held)
        for attempt in range(tries):
            if not left:
                break
            got = {row[0] for row in await self._run(RENEW, (self.ttl, list(left), list(left.values()), self.node))}
            renewed |= got
            if fresh is not None:
                fresh |= got
            left = {g: e for g, e in left.items() if g not in got}
            if left:
                still = {row[0] for row in await self._run(STILL, (list(left), list(left.values()), self.node))}
                left = {g: e for g, e in left.items() if g in still}  # the others are lost
                if attempt == tries - 1:
                    renewed |= set(left)
                else:
                    await asyncio.sleep(0.01)
        return renewed

    async def release(self, game_id: str, epoch: int, *, handover: bool) -> None:
        await self._run(RELEASE, (handover, game_id, epoch))

    async def expired(self, limit: int = 100) -> list[str]:
        return [row[0] for row in await self._run(EXPIRED, (limit,))]

    async def owner(self, game_id: str) -> tuple[str, int, bool] | None:
        """(node, epoch, live) of the game's lease; None if it never had one."""
        rows = await self._run(OWNER, (game_id,))
        return tuple(rows[0]) if rows else None

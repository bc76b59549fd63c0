"""The PostgreSQL store's schema: ordered migrations, recorded in a ``schema_version`` table.

Every table lives in one PostgreSQL schema (``public`` unless the store address names another
with ``?schema=NAME``), so that several stores (tests, a staging copy) can share one database.
``migrate`` brings a schema to :data:`SCHEMA_VERSION` in one transaction under an advisory lock
(two processes opening the same store at once do not both migrate; a failed migration leaves the
old version whole), and refuses a schema of a newer version than this program knows.

Versions:

1. the log as in SQLite: games, events, commands, creations, snapshots;
2. each game's chain head (``last_seq``, ``last_hash``) on its ``games`` row, backfilled from the
   events. An append updates the head row ``WHERE last_seq = expected``: that row is what two
   concurrent appenders to one game serialise on (the loser's update matches nothing, and it gets
   a ConcurrencyError), and the place a lease's fencing epoch is checked (version 3);
3. ``leases``: which node runs each live game's actor (several nodes on one store,
   ``skirmish.server.cluster``): the node, a fencing ``epoch`` that grows by one at every change of
   owner (a row is never deleted, so an epoch is never reused), and when the lease expires
   (PostgreSQL's clock only). ``node`` '' marks a game nobody needs to take over (it is over).
4. ``listings``: what the lobby lists of each game, with its status (a cache, like snapshots),
   indexed so that a page of one status is read in order. Every game has a row from its creation
   on (a trigger; the games already there get theirs), status '' until the lobby lists it, so that
   the games to list are found by the index, not by a walk of every game.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from .base import StoreError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "current_version", "migrate"]

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, """
CREATE TABLE games (
    game_id    text   NOT NULL PRIMARY KEY,
    created_at float8 NOT NULL,
    meta       bytea  NOT NULL,
    secret     bytea  NOT NULL DEFAULT ''::bytea
);
CREATE TABLE events (
    game_id text   NOT NULL,
    seq     bigint NOT NULL CHECK (seq >= 1),
    data    bytea  NOT NULL,
    hash    bytea  NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE commands (
    game_id    text   NOT NULL,
    command_id text   NOT NULL,
    first_seq  bigint NOT NULL,
    last_seq   bigint NOT NULL,
    last_hash  bytea  NOT NULL,
    PRIMARY KEY (game_id, command_id)
);
CREATE TABLE creations (
    command_id text NOT NULL PRIMARY KEY,
    game_id    text NOT NULL
);
CREATE TABLE snapshots (
    game_id text   NOT NULL PRIMARY KEY,
    seq     bigint NOT NULL,
    data    bytea  NOT NULL
);
"""),
    (2, """
ALTER TABLE games ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN last_hash bytea;
UPDATE games g SET last_seq = e.seq, last_hash = e.hash
  FROM (SELECT DISTINCT ON (game_id) game_id, seq, hash FROM events ORDER BY game_id, seq DESC) e
 WHERE e.game_id = g.game_id;
"""),
    (3, """
CREATE TABLE leases (
    game_id    text        NOT NULL PRIMARY KEY,
    node       text        NOT NULL,
    epoch      bigint      NOT NULL CHECK (epoch >= 1),
    expires_at timestamptz NOT NULL
);
CREATE INDEX leases_expiry ON leases (expires_at) WHERE node <> '';
"""),
    (4, """
CREATE TABLE listings (
    game_id    text   NOT NULL PRIMARY KEY REFERENCES games ON DELETE CASCADE,
    created_at float8 NOT NULL,
    status     text   NOT NULL,
    seq        bigint NOT NULL,
    data       bytea  NOT NULL
);
CREATE INDEX listings_by_status ON listings (status, created_at, game_id);
CREATE INDEX listings_by_age ON listings (created_at, game_id);
INSERT INTO listings (game_id, created_at, status, seq, data) SELECT game_id, created_at, '', 0, ''::bytea FROM games;
CREATE FUNCTION game_listed() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO listings (game_id, created_at, status, seq, data)
    VALUES (NEW.game_id, NEW.created_at, '', 0, ''::bytea);
    RETURN NULL;
END $$;
CREATE TRIGGER games_listed AFTER INSERT ON games FOR EACH ROW EXECUTE FUNCTION game_listed();
"""),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    integer     NOT NULL PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""


async def current_version(conn: psycopg.AsyncConnection, schema: str) -> int | None:
    """The schema's version (0: the schema exists without a store), None if there is no such schema."""
    cur = await conn.execute("SELECT to_regclass(%s), to_regnamespace(%s)",
                             (f"{sql.Identifier(schema).as_string(conn)}.schema_version", schema))
    table, namespace = await cur.fetchone()
    if namespace is None:
        return None
    if table is None:
        return 0
    cur = await conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {}.schema_version")
                             .format(sql.Identifier(schema)))
    return (await cur.fetchone())[0]


async def migrate(conn: psycopg.AsyncConnection, schema: str, *, upto: int = SCHEMA_VERSION) -> int:
    """Create or migrate the store's tables in ``schema`` to version ``upto``; returns the version found.

    ``conn`` is in autocommit mode; the migrations run in one transaction, each recorded in
    ``schema_version``. Raises :class:`StoreError` for a schema newer than this program's.
    """
    ident = sql.Identifier(schema)
    async with conn.transaction():
        # one migrator per schema at a time (released at the end of this transaction)
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext('skirmish-store:' || %s))", (schema,))
        await conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(ident))
        await conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(ident))
        await conn.execute(_VERSION_TABLE)
        cur = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_version")
        found = (await cur.fetchone())[0]
        if found > SCHEMA_VERSION:
            raise StoreError(f"postgresql schema {schema!r} has store version {found}, newer than this "
                             f"program's {SCHEMA_VERSION}: upgrade skirmish")
        for version, statements in MIGRATIONS:
            if found < version <= upto:
                await conn.execute(statements)
                await conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
    return found

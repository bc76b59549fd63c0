"""PostgreSQL for the tests: the database ``test`` at 127.0.0.1:5432 (``$SKIRMISH_TEST_PG`` for
another), each test in a PostgreSQL schema of its own, dropped afterwards.

Unreachable: the tests skip saying how to enable them; under ``CI=true`` they fail instead
(``.ci/run`` runs a PostgreSQL server).
"""

from __future__ import annotations

import os
import uuid

import pytest

URL = os.environ.get("SKIRMISH_TEST_PG") or "postgresql://postgres@127.0.0.1:5432/test"
HOW = ("PostgreSQL tests skipped: they need a PostgreSQL server with a database `test` that the user "
       "`postgres` reaches without a password at 127.0.0.1:5432 (or set SKIRMISH_TEST_PG to a URL). "
       "Under CI=true they run, and fail if it is unreachable.")
_reachable: str | None = None  # "" when reachable, else why not (checked once per run)


def reachable() -> str:
    global _reachable
    if _reachable is None:
        import psycopg

        try:
            with psycopg.connect(URL, connect_timeout=3) as conn:
                conn.execute("SELECT 1")
            _reachable = ""
        except Exception as exc:  # noqa: BLE001 - any failure to connect is "unreachable"
            _reachable = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    return _reachable


def require_postgres() -> str:
    """The test database's URL; skips (fails under CI=true) if PostgreSQL is unreachable."""
    why = reachable()
    if why:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"PostgreSQL at {URL} is unreachable: {why} (CI=true: these tests must run)")
        pytest.skip(f"{HOW} ({why})")
    return URL


def new_schema() -> str:
    return f"t_{uuid.uuid4().hex[:16]}"


def drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def store_url(schema: str) -> str:
    """The test database's address with ``?schema=`` (what ``--db`` takes)."""
    return f"{URL}{'&' if '?' in URL else '?'}schema={schema}"

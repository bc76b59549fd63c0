"""Where a command's store is (``--db``, ``$SKIRMISH_DB``): checked before anything is created.

Supported stores, for every command that takes ``--db``:

- a SQLite file: a plain path (``games.sqlite``, ``/var/lib/skirmish/games.sqlite``) or
  ``sqlite:PATH``; missing folders on the way are created;
- a PostgreSQL database: ``postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?schema=NAME]``
  (or ``postgres://``; any libpq parameter may follow the ``?``). ``schema`` is the PostgreSQL
  schema the store's tables live in (``public`` by default); nothing is ever made on this
  machine's disk for it;
- ``:memory:`` or ``memory:`` (``skirmish serve`` only): nothing is kept.

Anything else that looks like an address (``SCHEME:...`` with a scheme of two or more letters,
``mysql://...`` say) is refused, naming what is supported, instead of becoming a file with
an odd name (a file whose name holds a colon is still reachable as ``./name:with:colon``). A
path that cannot hold a store (a folder, or a path under a file) is refused naming the path and
the problem. All of these are :class:`StoreLocationError`: a :class:`StoreError` (the CLI
prints it in one line, exit 2) and a ValueError (a bad setting).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .base import StoreError

MEMORY = (":memory:", "memory:")
# A URL scheme: two or more characters (so that a Windows drive letter "C:" is a plain path).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")


def supported(memory: bool) -> str:
    kinds = "a SQLite file (a path, or sqlite:PATH), a PostgreSQL database (postgresql://HOST/DB[?schema=NAME])"
    return kinds + (", or :memory: (nothing kept)" if memory else "")


class StoreLocationError(StoreError, ValueError):
    """A ``--db`` that names no supported store, or a path where no store can be."""


@dataclass(frozen=True)
class Postgres:
    """A PostgreSQL store: the libpq address (without ``schema=``) and the schema of its tables."""

    url: str
    schema: str = "public"

    def __str__(self) -> str:  # for messages: never the password
        from .postgres import redact

        return redact(self.url) + ("" if self.schema == "public" else f" (schema {self.schema})")


def parse_postgres(text: str, what: str = "--db") -> Postgres:
    """``postgresql://...[?schema=NAME]`` as a :class:`Postgres` location; StoreLocationError if malformed."""
    parts = urlsplit(text)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in query if k == "schema"]
    schema = schemas[-1] if schemas else "public"
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$", schema):
        raise StoreLocationError(f"{what}: schema={schema!r}: a PostgreSQL schema name is letters, digits "
                                 "and _, not starting with a digit")
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return Postgres(urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment)), schema)


def resolve(text: str, *, memory: bool = False, what: str = "--db") -> Path | Postgres | None:
    """The SQLite file or the PostgreSQL database ``text`` names (None: the in-memory store, where
    ``memory`` allows it).

    Raises :class:`StoreLocationError` for anything that is not a supported store (see the
    module docstring); ``what`` names where the value came from (``--db``, ``$SKIRMISH_DB``).
    """
    text = str(text)
    if not text.strip():
        raise StoreLocationError(f"{what} is empty; it takes {supported(memory)}")
    if text in MEMORY:
        if memory:
            return None
        raise StoreLocationError(f"{what} {text}: an in-memory store keeps nothing after this command; "
                                 f"this command takes {supported(False)}")
    m = _SCHEME.match(text)
    if m is None:
        return Path(text).expanduser()
    scheme, rest = m.group(1).lower(), text[m.end():]
    if scheme == "sqlite" and rest and not rest.startswith("//"):
        return Path(rest).expanduser()
    if scheme in ("postgres", "postgresql") and rest.startswith("//"):
        return parse_postgres(text, what)
    if scheme == "sqlite":
        problem = "sqlite: takes a file path after the colon (sqlite:var/games.sqlite), not a URL"
    elif scheme in ("postgres", "postgresql"):
        problem = "a PostgreSQL address is a URL: postgresql://HOST/DB"
    else:
        problem = f"{scheme}: stores are not supported"
    hint = "" if "://" in text else f" (for a file whose name holds a colon, write ./{text})"
    raise StoreLocationError(f"{what} {text}: {problem}; supported: {supported(memory)}{hint}")


def prepare(path: Path, *, create: bool) -> None:
    """Check that ``path`` can hold a SQLite store and, with ``create``, make its missing folders.

    Raises :class:`StoreLocationError` naming the path and the problem.
    """
    if path.is_dir():
        raise StoreLocationError(f"store {path}: is a folder, not a SQLite file")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise StoreLocationError(f"store {path}: {ancestor} is a file, not a folder, so no store can be under it")
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreLocationError(f"store {path}: cannot create the folder {path.parent}: "
                                     f"{exc.strerror or exc}") from None


async def open_sqlite(path: Path, *, create: bool, writer: str = "thread"):
    """:func:`prepare` the path, then open the SQLite store there, problems named with the path."""
    from .sqlite import SQLiteStore

    prepare(path, create=create)
    try:
        return await SQLiteStore.open(path, writer=writer)
    except StoreError:
        raise
    except (sqlite3.Error, OSError) as exc:
        message = str(exc) or type(exc).__name__
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in message:
            message = "the file is not a SQLite store"
        raise StoreLocationError(f"store {path}: cannot open it: {message}") from None


async def open_postgres(location: Postgres, *, create: bool):
    """Open the PostgreSQL store at ``location`` (``create=False``: refuse a schema without one)."""
    from .postgres import PostgresStore

    return await PostgresStore.open(location.url, schema=location.schema, create=create)


async def open_location(location: Path | Postgres, *, create: bool, writer: str = "thread"):
    """Open the store a :func:`resolve` d location names (SQLite file or PostgreSQL database)."""
    if isinstance(location, Postgres):
        return await open_postgres(location, create=create)
    return await open_sqlite(location, create=create, writer=writer)

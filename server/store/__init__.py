"""The event store: an append-only, hash-chained log of each game's events.

``open_store(url_or_path)`` opens a backend by address:

- ``memory:`` -> :class:`MemoryStore` (nothing persisted);
- ``sqlite:PATH`` or a plain ``PATH`` -> :class:`SQLiteStore` in that file (created if missing);
- ``postgresql://HOST/DB[?schema=NAME]`` (or ``postgres://``) -> :class:`PostgresStore` in that
  database (its tables created or migrated if needed; ``schema`` defaults to ``public``).

Anything else is a ValueError naming it.
"""

from __future__ import annotations

import re

from .base import (
    AppendResult,
    ConcurrencyError,
    CreateResult,
    EventStore,
    GameExists,
    GameInfo,
    LeaseLost,
    Listing,
    StoreClosed,
    StoredEvent,
    StoreError,
    UnknownGame,
)
from .memory import MemoryStore
from .sqlite import SQLiteStore

__all__ = [
    "AppendResult",
    "ConcurrencyError",
    "CreateResult",
    "EventStore",
    "GameExists",
    "GameInfo",
    "LeaseLost",
    "Listing",
    "MemoryStore",
    "SQLiteStore",
    "StoreClosed",
    "StoreError",
    "StoredEvent",
    "UnknownGame",
    "open_store",
]

# A URL scheme: two or more characters (so that a Windows drive letter "C:" is a plain path).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")


async def open_store(url_or_path: str) -> EventStore:
    """Open the store named by ``url_or_path`` (see the module docstring). Raises ValueError if unsupported."""
    if not isinstance(url_or_path, str) or not url_or_path.strip():
        raise ValueError(f"store address must be a non-empty string, got {url_or_path!r}")
    m = _SCHEME.match(url_or_path)
    if m is None:
        return await SQLiteStore.open(url_or_path)
    scheme = m.group(1).lower()
    rest = url_or_path[m.end() :]
    if scheme == "memory":
        if rest:
            raise ValueError(f"store address {url_or_path!r}: 'memory:' takes nothing after the colon")
        return MemoryStore()
    if scheme == "sqlite":
        if not rest:
            raise ValueError(f"store address {url_or_path!r}: 'sqlite:' needs a file path, e.g. 'sqlite:var/games.db'")
        return await SQLiteStore.open(rest)
    if scheme in ("postgres", "postgresql") and rest.startswith("//"):
        from .location import open_postgres, parse_postgres

        return await open_postgres(parse_postgres(url_or_path, "store address"), create=True)
    raise ValueError(
        f"store address {url_or_path!r}: unknown scheme {scheme!r}; use 'memory:', 'sqlite:PATH', a file path "
        "or 'postgresql://HOST/DB'"
    )

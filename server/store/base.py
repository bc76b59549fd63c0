"""The event store's contract: an append-only, hash-chained log of events per game.

Every backend (memory, SQLite, later PostgreSQL) implements :class:`EventStore` and must
pass the one abstract test suite in ``tests/server/store/suite.py``. The contract:

- A game is created once (:meth:`EventStore.create_game`); appending to a game that was
  never created raises :class:`UnknownGame`. A game is created with its first events (and
  their command id) in ONE transaction: after a crash the game is there with all of them, or
  not at all. A creation carrying a ``command_id`` is idempotent store-wide: once a game was
  created with it, a creation with the same command id returns that game (``duplicate=True``)
  and writes nothing, whatever game id and events it carries.
- Events are opaque bytes, stored and returned exactly. Event ``n`` of a game has
  ``seq == n`` (1-based, no gaps) and ``hash == skirmish.engine.log.chain_hash(hash of n-1,
  game_id, n, data)``, the first event chaining from ``skirmish.engine.log.GENESIS_HASH``.
- :meth:`EventStore.append` is optimistic and atomic: the caller names the seq of the last
  event it has seen; if that is not the game's last seq, nothing is written and
  :class:`ConcurrencyError` is raised. Otherwise all the events are written, or none.
- An append carrying a ``command_id`` is idempotent per ``(game_id, command_id)``: once it
  has been stored, the same command returns the stored :class:`AppendResult` with
  ``duplicate=True`` and writes nothing, whatever ``expected_seq`` and events it carries.
  :meth:`EventStore.find_command` looks a stored command id up (the first events of a game
  created with a command id are stored under it too).
- When ``append`` has returned, the events are durable (for stores that persist at all).
- Snapshots are a cache keyed by game, never the truth: the log can always be replayed.
- So are listings: what a lobby shows of a game (opaque bytes) and its status ("open", "live",
  "finished"), kept so that a page of games is one indexed query, not a walk of every game.
  :meth:`EventStore.stale_listings` names the games whose listing may be behind their log.

Nothing here is specific to one database: ids are non-empty text without NUL characters
(which PostgreSQL's ``text`` cannot hold), bytes are ``bytea``/``BLOB``, times are POSIX
seconds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

__all__ = [
    "AppendResult",
    "ConcurrencyError",
    "CreateResult",
    "EventStore",
    "GameExists",
    "GameInfo",
    "LISTING_STATUSES",
    "Listing",
    "StoreClosed",
    "StoreError",
    "StoredEvent",
    "UnknownGame",
    "check_command_id",
    "check_creation",
    "check_events",
    "check_expected_seq",
    "check_game_id",
    "check_read_range",
    "check_listing",
    "check_page",
    "check_snapshot",
    "as_bytes",
]


# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Base of every error an event store raises on purpose (backend errors are wrapped in it)."""


class LeaseLost(StoreError):
    """An append of a node that does not hold the game's lease (several nodes on one PostgreSQL
    store, ``skirmish.server.cluster``): its fencing epoch is not the game's current one, or the
    lease expired, or the node never held it. Nothing was written."""

    def __init__(self, game_id: str, epoch: int | None) -> None:
        held = "no lease" if epoch is None else f"lease epoch {epoch}"
        super().__init__(f"game {game_id!r}: this node's {held} is not the game's live lease; "
                         "another node owns the game now (nothing was written)")
        self.game_id = game_id
        self.epoch = epoch


class ConcurrencyError(StoreError):
    """An append named an ``expected_seq`` that is not the game's last seq; nothing was written."""

    def __init__(self, game_id: str, expected_seq: int, actual_seq: int) -> None:
        super().__init__(
            f"game {game_id!r}: expected last seq {expected_seq}, but the last seq is {actual_seq}"
        )
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq

    def __reduce__(self):  # pickled by the writer process (skirmish.server.store.sqlite)
        return type(self), (self.game_id, self.expected_seq, self.actual_seq)


class UnknownGame(StoreError):
    """The game id was never created in this store."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"unknown game {game_id!r}")
        self.game_id = game_id

    def __reduce__(self):
        return type(self), (self.game_id,)


class GameExists(StoreError):
    """``create_game`` named a game id that already exists; nothing was changed."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} already exists")
        self.game_id = game_id

    def __reduce__(self):
        return type(self), (self.game_id,)


class StoreClosed(StoreError):
    """The store was closed; it accepts no more calls."""

    def __init__(self, what: str = "store") -> None:
        super().__init__(f"{what} is closed")
        self.what = what

    def __reduce__(self):
        return type(self), (self.what,)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One stored event: ``data`` is the exact stored bytes, ``hash`` the chain hash stored with it."""

    game_id: str
    seq: int
    data: bytes
    hash: bytes


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append stored: seqs ``first_seq..last_seq`` and the chain hash of ``last_seq``.

    ``duplicate`` is True when the command id had already been stored: the result is then
    the earlier append's, and nothing was written this time.
    """

    first_seq: int
    last_seq: int
    last_hash: bytes
    duplicate: bool

    def __reduce__(self):  # the writer process's answers: a frozen dataclass's own pickling is slow
        return AppendResult, (self.first_seq, self.last_seq, self.last_hash, self.duplicate)


@dataclass(frozen=True, slots=True)
class CreateResult:
    """What ``create_game`` stored: the game and its first events, seqs ``1..last_seq`` (0: none).

    ``duplicate`` is True when the creation's command id had already created a game: ``game_id``
    is then that earlier game (its first events, ``1..last_seq``), and nothing was written.
    """

    game_id: str
    last_seq: int
    last_hash: bytes
    duplicate: bool

    def __reduce__(self):  # the writer process's answers
        return CreateResult, (self.game_id, self.last_seq, self.last_hash, self.duplicate)


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game's header: when it was created (POSIX seconds), its last seq (0 if empty), its meta bytes."""

    game_id: str
    created_at: float
    last_seq: int
    meta: bytes


LISTING_STATUSES = ("open", "live", "finished")


@dataclass(frozen=True, slots=True)
class Listing:
    """A game's listing: its ``status`` and what a lobby shows of it (``data``, opaque bytes), made
    at event ``seq``; ``created_at`` is the game's."""

    game_id: str
    created_at: float
    status: str
    seq: int
    data: bytes


# --------------------------------------------------------------------------- argument checks
# Shared by every backend so that they reject exactly the same inputs with the same errors.


def as_bytes(value: object, what: str) -> bytes:
    """``value`` as immutable ``bytes`` if it is bytes-like, else TypeError naming ``what``."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, not {type(value).__name__}")


def check_game_id(game_id: object) -> str:
    """A valid game id: non-empty text without NUL characters."""
    if not isinstance(game_id, str):
        raise TypeError(f"game id must be a str, not {type(game_id).__name__}")
    if not game_id or "\x00" in game_id:
        raise ValueError(f"game id {game_id!r} must be non-empty and contain no NUL character")
    return game_id


def check_command_id(command_id: object) -> str | None:
    """A valid command id (non-empty text without NUL) or None."""
    if command_id is None:
        return None
    if not isinstance(command_id, str):
        raise TypeError(f"command id must be a str or None, not {type(command_id).__name__}")
    if not command_id or "\x00" in command_id:
        raise ValueError(f"command id {command_id!r} must be non-empty and contain no NUL character")
    return command_id


def check_creation(game_id: str, events: object, command_id: object) -> tuple[tuple[bytes, ...], str | None]:
    """A creation's first events (possibly none) and its command id (which needs events)."""
    datas = () if (type(events) is tuple or type(events) is list) and not events else check_events(game_id, events)
    command_id = check_command_id(command_id)
    if command_id is not None and not datas:
        raise ValueError(f"game {game_id!r}: a creation with a command id needs events")
    return datas, command_id


def check_expected_seq(game_id: str, expected_seq: object) -> int:
    """A valid expected seq: an int >= 0."""
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int):
        raise TypeError(f"game {game_id!r}: expected_seq must be an int, not {type(expected_seq).__name__}")
    if expected_seq < 0:
        raise ValueError(f"game {game_id!r}: expected_seq must be >= 0, got {expected_seq}")
    return expected_seq


def check_events(game_id: str, events: object) -> tuple[bytes, ...]:
    """The events as a non-empty tuple of bytes; ValueError if empty, TypeError if not bytes."""
    if (type(events) is list or type(events) is tuple) and events and all(type(e) is bytes for e in events):
        return tuple(events)  # the common case, checked cheaply
    if isinstance(events, (bytes, bytearray, memoryview, str)) or not isinstance(events, Sequence):
        raise TypeError(f"game {game_id!r}: events must be a sequence of bytes, not {type(events).__name__}")
    if len(events) == 0:
        raise ValueError(f"game {game_id!r}: cannot append an empty list of events")
    return tuple(as_bytes(e, f"game {game_id!r}: event {i}") for i, e in enumerate(events))


def check_read_range(game_id: str, from_seq: object, to_seq: object) -> tuple[int, int | None]:
    """A valid inclusive read range: ``from_seq >= 1``; ``to_seq`` None (to the end) or an int."""
    for name, v in (("from_seq", from_seq), ("to_seq", to_seq)):
        if v is None and name == "to_seq":
            continue
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"game {game_id!r}: {name} must be an int, not {type(v).__name__}")
    if from_seq < 1:  # type: ignore[operator]
        raise ValueError(f"game {game_id!r}: from_seq must be >= 1, got {from_seq}")
    return from_seq, to_seq  # type: ignore[return-value]


def check_snapshot(game_id: str, seq: object, last_seq: int) -> int:
    """A valid snapshot seq: an int in ``0..last_seq`` (a snapshot of events that exist)."""
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise TypeError(f"game {game_id!r}: snapshot seq must be an int, not {type(seq).__name__}")
    if seq < 0 or seq > last_seq:
        raise ValueError(f"game {game_id!r}: snapshot seq {seq} is outside 0..{last_seq} (the game's last seq)")
    return seq


def check_listing(game_id: str, seq: object, status: object, last_seq: int) -> int:
    """A valid listing: a status of ``LISTING_STATUSES`` and a seq in ``1..last_seq``."""
    if status not in LISTING_STATUSES:
        raise ValueError(f"game {game_id!r}: listing status must be one of {', '.join(LISTING_STATUSES)}, "
                         f"not {status!r}")
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise TypeError(f"game {game_id!r}: listing seq must be an int, not {type(seq).__name__}")
    if seq < 1 or seq > last_seq:
        raise ValueError(f"game {game_id!r}: listing seq {seq} is outside 1..{last_seq} (the game's last seq)")
    return seq


def check_page(status: object, offset: object, limit: object) -> tuple[str, int, int]:
    """A valid page of listings: a status of ``LISTING_STATUSES`` or "" (any), ``offset >= 0``, ``limit >= 0``."""
    if status != "" and status not in LISTING_STATUSES:
        raise ValueError(f"listing status must be one of {', '.join(LISTING_STATUSES)} or '' (any), not {status!r}")
    for name, value in (("offset", offset), ("limit", limit)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    return status, offset, limit  # type: ignore[return-value]


# --------------------------------------------------------------------------- interface


class EventStore(ABC):
    """An append-only, hash-chained event log per game. See the module docstring for the contract.

    Every method is a coroutine and is safe to call concurrently from many tasks of one event
    loop. After :meth:`close`, every method but ``close`` raises :class:`StoreClosed`.
    Usable as ``async with store: ...`` (closes on exit).
    """

    @abstractmethod
    async def create_game(self, game_id: str, meta: bytes = b"", secret: bytes = b"",
                          events: Sequence[bytes] = (), command_id: str | None = None) -> CreateResult:
        """Create a game with opaque ``meta`` bytes and its first ``events`` (seqs ``1..n``; none:
        an empty game, last seq 0), all in ONE transaction, durable once returned.

        ``secret`` (the server's dice seed) is kept beside the game, never in its log or its
        ``GameInfo``, so that a restarted server can carry on the game; ``load_secret`` reads it.

        With a ``command_id`` (which needs ``events``) the creation is idempotent across the
        store: if a game was already created with that command id, nothing is written and the
        result names that game with ``duplicate=True``. The events are also stored under the
        command id in the new game, as an append's would be (``find_command``).

        Raises :class:`GameExists` if ``game_id`` exists (and the command id is new),
        ValueError/TypeError if it is not a valid id (non-empty text without NUL) or for a
        ``command_id`` without events.
        """

    @abstractmethod
    async def find_command(self, game_id: str, command_id: str) -> AppendResult | None:
        """The stored result of the append (or creation) that carried ``command_id`` in this game,
        with ``duplicate=True``; None if no write carried it. Raises :class:`UnknownGame`."""

    @abstractmethod
    async def append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[bytes],
        command_id: str | None = None,
    ) -> AppendResult:
        """Append ``events`` after seq ``expected_seq``, all or none, durable once returned.

        ``expected_seq`` is the seq of the last event the caller has seen (0 for an empty game).
        Raises :class:`UnknownGame`, :class:`ConcurrencyError` (nothing written), ValueError
        for an empty ``events``. If ``command_id`` was already stored for this game, returns
        that append's result with ``duplicate=True`` and writes nothing.
        """

    @abstractmethod
    async def read(self, game_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredEvent]:
        """The stored events with ``from_seq <= seq <= to_seq`` (to the end if ``to_seq`` is None), in order.

        Raises :class:`UnknownGame`; ValueError if ``from_seq < 1``. An empty range gives ``[]``.
        """

    @abstractmethod
    async def last_seq(self, game_id: str) -> int:
        """The seq of the game's last event, 0 if it has none. Raises :class:`UnknownGame`."""

    @abstractmethod
    async def list_games(self) -> list[GameInfo]:
        """Every game, ordered by ``created_at`` then ``game_id``."""

    @abstractmethod
    async def game_info(self, game_id: str) -> GameInfo:
        """One game's header. Raises :class:`UnknownGame`."""

    @abstractmethod
    async def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        """Cache a snapshot of the game's state after event ``seq``.

        The store keeps the snapshot with the highest seq: saving at a seq equal to the kept one
        replaces it, saving at a lower seq changes nothing. Raises :class:`UnknownGame`;
        ValueError if ``seq`` is outside ``0..last_seq``.
        """

    @abstractmethod
    async def save_listing(self, game_id: str, seq: int, status: str, data: bytes) -> None:
        """Keep the game's listing made at event ``seq``: ``status`` ("open", "live", "finished") and
        ``data`` (what a lobby shows of it, opaque). A cache like the snapshot: the store keeps the
        highest seq (the last of equals), durable once returned.

        Raises :class:`UnknownGame`; ValueError if ``seq`` is outside ``1..last_seq`` or for
        another status.
        """

    @abstractmethod
    async def list_listings(self, status: str = "", offset: int = 0, limit: int = 100) -> tuple[list[Listing], int]:
        """A page of the listed games with ``status`` ("" any): newest first (``created_at``, then
        ``game_id``, descending), ``limit`` of them after skipping ``offset``; and how many listed
        games have that status. Raises ValueError/TypeError for a bad status, offset or limit.
        """

    @abstractmethod
    async def stale_listings(self) -> list[tuple[GameInfo, str]]:
        """The games whose listing may be behind their log, each with its listed status ("" for
        none): those with events and no listing, and those listed "open" or "live" at a seq below
        their last. Ordered by ``created_at`` then ``game_id``."""

    @abstractmethod
    async def load_secret(self, game_id: str) -> bytes:
        """The secret stored with the game (b"" if none). Raises :class:`UnknownGame`."""

    @abstractmethod
    async def load_snapshot(self, game_id: str) -> tuple[int, bytes] | None:
        """The kept snapshot as ``(seq, data)``, or None. Raises :class:`UnknownGame`."""

    @abstractmethod
    async def close(self) -> None:
        """Finish pending writes, then release every resource. Idempotent."""

    async def __aenter__(self) -> EventStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

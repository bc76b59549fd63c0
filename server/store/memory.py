"""An in-process event store: the reference implementation of the contract, for tests and demos.

Nothing is persisted. Every method runs to completion without awaiting, so under one event
loop each call is atomic with respect to the others.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from skirmish.engine.log import GENESIS_HASH, chain_hash

from .base import (
    AppendResult,
    ConcurrencyError,
    CreateResult,
    EventStore,
    GameExists,
    GameInfo,
    Listing,
    StoreClosed,
    StoredEvent,
    UnknownGame,
    as_bytes,
    check_command_id,
    check_creation,
    check_events,
    check_expected_seq,
    check_game_id,
    check_listing,
    check_page,
    check_read_range,
    check_snapshot,
)

__all__ = ["MemoryStore"]


@dataclass(slots=True)
class _Game:
    created_at: float
    meta: bytes
    secret: bytes = b""
    events: list[StoredEvent] = field(default_factory=list)
    commands: dict[str, AppendResult] = field(default_factory=dict)
    snapshot: tuple[int, bytes] | None = None
    listing: tuple[int, str, bytes] | None = None  # (seq, status, data)

    @property
    def last_hash(self) -> bytes:
        return self.events[-1].hash if self.events else GENESIS_HASH


class MemoryStore(EventStore):
    """:class:`EventStore` in a dict. Guarantees the whole contract except durability."""

    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._creations: dict[str, str] = {}  # command id of a creation -> the game it created
        self._closed = False

    def _open_game(self, game_id: str) -> _Game:
        if self._closed:
            raise StoreClosed("memory store")
        try:
            return self._games[game_id]
        except (KeyError, TypeError):
            raise UnknownGame(game_id) from None

    async def create_game(self, game_id: str, meta: bytes = b"", secret: bytes = b"",
                          events: Sequence[bytes] = (), command_id: str | None = None) -> CreateResult:
        if self._closed:
            raise StoreClosed("memory store")
        check_game_id(game_id)
        meta = as_bytes(meta, f"game {game_id!r}: meta")
        secret = as_bytes(secret, f"game {game_id!r}: secret")
        datas, command_id = check_creation(game_id, events, command_id)
        if command_id is not None and command_id in self._creations:
            prior = self._games[self._creations[command_id]].commands[command_id]
            return CreateResult(self._creations[command_id], prior.last_seq, prior.last_hash, duplicate=True)
        if game_id in self._games:
            raise GameExists(game_id)
        game = _Game(created_at=time.time(), meta=meta, secret=secret)
        prev = GENESIS_HASH
        for i, data in enumerate(datas, start=1):
            prev = chain_hash(prev, game_id, i, data)
            game.events.append(StoredEvent(game_id, i, data, prev))
        if command_id is not None:
            game.commands[command_id] = AppendResult(1, len(datas), prev, duplicate=False)
            self._creations[command_id] = game_id
        self._games[game_id] = game  # all at once: nothing above awaited
        return CreateResult(game_id, len(datas), prev, duplicate=False)

    async def find_command(self, game_id: str, command_id: str) -> AppendResult | None:
        check_command_id(command_id)
        prior = self._open_game(game_id).commands.get(command_id)
        return None if prior is None else AppendResult(prior.first_seq, prior.last_seq, prior.last_hash, True)

    async def load_secret(self, game_id: str) -> bytes:
        return self._open_game(game_id).secret

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
        game = self._open_game(game_id)
        if command_id is not None and command_id in game.commands:
            prior = game.commands[command_id]
            return AppendResult(prior.first_seq, prior.last_seq, prior.last_hash, duplicate=True)
        last = len(game.events)
        if expected_seq != last:
            raise ConcurrencyError(game_id, expected_seq, last)
        prev = game.last_hash
        new = []
        for i, data in enumerate(datas, start=last + 1):
            prev = chain_hash(prev, game_id, i, data)
            new.append(StoredEvent(game_id, i, data, prev))
        game.events.extend(new)
        result = AppendResult(last + 1, last + len(new), prev, duplicate=False)
        if command_id is not None:
            game.commands[command_id] = result
        return result

    async def read(self, game_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredEvent]:
        from_seq, to_seq = check_read_range(game_id, from_seq, to_seq)
        game = self._open_game(game_id)
        end = len(game.events) if to_seq is None else to_seq
        if end < from_seq:
            return []
        return game.events[from_seq - 1 : end]

    async def last_seq(self, game_id: str) -> int:
        return len(self._open_game(game_id).events)

    async def list_games(self) -> list[GameInfo]:
        if self._closed:
            raise StoreClosed("memory store")
        infos = [GameInfo(gid, g.created_at, len(g.events), g.meta) for gid, g in self._games.items()]
        infos.sort(key=lambda info: (info.created_at, info.game_id))
        return infos

    async def game_info(self, game_id: str) -> GameInfo:
        g = self._open_game(game_id)
        return GameInfo(game_id, g.created_at, len(g.events), g.meta)

    async def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        game = self._open_game(game_id)
        seq = check_snapshot(game_id, seq, len(game.events))
        data = as_bytes(data, f"game {game_id!r}: snapshot")
        if game.snapshot is None or seq >= game.snapshot[0]:
            game.snapshot = (seq, data)

    async def load_snapshot(self, game_id: str) -> tuple[int, bytes] | None:
        return self._open_game(game_id).snapshot

    async def save_listing(self, game_id: str, seq: int, status: str, data: bytes) -> None:
        game = self._open_game(game_id)
        seq = check_listing(game_id, seq, status, len(game.events))
        data = as_bytes(data, f"game {game_id!r}: listing")
        if game.listing is None or seq >= game.listing[0]:
            game.listing = (seq, status, data)

    async def list_listings(self, status: str = "", offset: int = 0, limit: int = 100) -> tuple[list[Listing], int]:
        status, offset, limit = check_page(status, offset, limit)
        if self._closed:
            raise StoreClosed("memory store")
        listed = [Listing(gid, g.created_at, g.listing[1], g.listing[0], g.listing[2])
                  for gid, g in self._games.items() if g.listing is not None and (not status or g.listing[1] == status)]
        listed.sort(key=lambda li: (li.created_at, li.game_id), reverse=True)
        return listed[offset:offset + limit], len(listed)

    async def stale_listings(self) -> list[tuple[GameInfo, str]]:
        return [(info, listing[1] if listing else "") for info in await self.list_games()
                if info.last_seq and ((listing := self._games[info.game_id].listing) is None
                                      or (listing[1] != "finished" and listing[0] < info.last_seq))]

    async def close(self) -> None:
        self._closed = True

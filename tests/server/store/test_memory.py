"""MemoryStore against the shared EventStore suite, plus open_store('memory:')."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from skirmish.server.store import MemoryStore, open_store

from .suite import EventStoreSuite


class TestMemoryStore(EventStoreSuite):
    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        s = MemoryStore()
        yield s
        await s.close()


async def test_open_store_memory_gives_a_fresh_memory_store() -> None:
    a = await open_store("memory:")
    b = await open_store("memory:")
    assert isinstance(a, MemoryStore) and isinstance(b, MemoryStore)
    await a.create_game("g")
    assert await b.list_games() == []
    with pytest.raises(ValueError, match="memory:"):
        await open_store("memory:somewhere")

"""Leases and fencing in the PostgreSQL store (several nodes on one store): an append carries its
node's lease epoch and is refused with LeaseLost, writing nothing, once the lease expired or moved."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from skirmish.server.store import ConcurrencyError, LeaseLost
from skirmish.server.store.postgres import PostgresStore
from skirmish.server.store.postgres_leases import Leases

from .pg import drop_schema, new_schema, require_postgres
from .suite import assert_chain

pytestmark = pytest.mark.postgres


@pytest.fixture
def schema() -> Iterator[tuple[str, str]]:
    url = require_postgres()
    name = new_schema()
    yield url, name
    drop_schema(name)


@pytest.fixture
async def two(schema) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two nodes' stores on one schema, both fenced."""
    a = await PostgresStore.open(schema[0], schema=schema[1])
    b = await PostgresStore.open(schema[0], schema=schema[1])
    a.fences, b.fences = {}, {}
    yield a, b
    await a.close()
    await b.close()


async def test_a_fenced_store_appends_only_under_a_live_lease(two) -> None:
    a, b = two
    await a.create_game("g")
    with pytest.raises(LeaseLost):  # no lease held: refused before it reaches the database
        await a.append("g", 0, [b"e1"])
    la, lb = Leases(a, "node-a", ttl=0.5), Leases(b, "node-b", ttl=5)
    epoch = await la.take("g")
    assert epoch == 1 and await lb.take("g") is None  # a live lease is nobody else's to take
    a.fences["g"] = epoch
    await a.append("g", 0, [b"e1"])
    await asyncio.sleep(0.7)  # the lease expires (PostgreSQL's clock); a's renewal comes too late
    assert await la.renew({"g": epoch}) == set()
    with pytest.raises(LeaseLost) as refused:
        await a.append("g", 1, [b"e2"])
    assert refused.value.epoch == 1
    assert await lb.take("g") == 2  # taken over: the next epoch
    b.fences["g"] = 2
    await b.append("g", 1, [b"e2"], "c1")
    with pytest.raises(LeaseLost):  # the old owner, even with the right head, never appends again
        await a.append("g", 2, [b"stale"])
    assert [e.data for e in await b.read("g")] == [b"e1", b"e2"]
    assert_chain("g", await b.read("g"))


async def test_a_lost_race_under_a_live_lease_is_still_a_concurrency_error(two) -> None:
    a, b = two
    await a.create_game("g")
    leases = Leases(a, "node-a", ttl=30)
    a.fences["g"] = b.fences["g"] = await leases.take("g")  # (two stores with one epoch: a race)
    await a.append("g", 0, [b"e1"])
    await b.read("g")
    with pytest.raises(ConcurrencyError):
        await b.append("g", 0, [b"other"])


async def test_released_leases_move_on_and_epochs_never_repeat(two) -> None:
    a, _ = two
    la, lb = Leases(a, "n1", ttl=30), Leases(a, "n2", ttl=30)
    await a.create_game("g")
    await a.create_game("h")
    assert await la.take("g") == 1 and await la.take("h") == 1
    assert await la.renew({"g": 1, "h": 1}) == {"g", "h"}
    await la.release("g", 1, handover=True)  # SIGTERM: handed over, to be taken at once
    await la.release("h", 1, handover=False)  # over: nobody needs it
    assert await lb.expired() == ["g"]
    assert await lb.take("h") is None  # over: nobody takes it
    assert await lb.take("g") == 2
    assert await la.renew({"g": 1}) == set()  # the old epoch is not renewed
    assert await la.owner("g") == ("n2", 2, True)
    # a restarted node under the same name gets no live lease back: it waits for expiry like anyone
    assert await Leases(a, "n2", ttl=30).take("g") is None


async def test_a_renewal_never_waits_for_an_append_holding_the_lease(two, schema) -> None:
    import psycopg

    a, _ = two
    await a.create_game("g")
    await a.create_game("h")
    leases = Leases(a, "n1", ttl=30)
    held = {"g": await leases.take("g"), "h": await leases.take("h")}
    async with await psycopg.AsyncConnection.connect(schema[0]) as conn:  # an append in flight on g
        await conn.execute(f'SELECT 1 FROM "{schema[1]}".leases WHERE game_id = %s FOR SHARE', ("g",))
        assert await asyncio.wait_for(leases.renew(held, tries=2), 5) == {"g", "h"}  # g: busy, still ours
        await conn.rollback()
    assert await leases.renew(held) == {"g", "h"}

"""The listings part of the one EventStore suite (``suite.py``'s ``EventStoreSuite`` inherits it):
what a lobby shows of each game and its status, kept as a cache like snapshots."""

from __future__ import annotations

import asyncio

import pytest

from skirmish.server.store import EventStore, UnknownGame


class ListingSuite:
    async def test_listings_keep_the_highest_seq_and_page_newest_first_by_status(self, store: EventStore) -> None:
        assert await store.list_listings() == ([], 0)
        for name in ("g0", "g1", "g2", "g3", "g4"):
            await store.create_game(name, events=[b"e1", b"e2", b"e3"])
            await asyncio.sleep(0.005)  # created_at grows
        for name, status in (("g0", "finished"), ("g1", "live"), ("g2", "finished"), ("g3", "open"), ("g4", "finished")):
            await store.save_listing(name, 2, status, f"{name} at 2".encode())
        await store.save_listing("g1", 3, "finished", b"g1 over")  # a later listing replaces the earlier
        await store.save_listing("g1", 1, "open", b"older")  # an older one never does
        await store.save_listing("g3", 2, "live", b"g3 again")  # the same seq: the last save wins
        page, total = await store.list_listings("finished", 0, 10)
        assert [li.game_id for li in page] == ["g4", "g2", "g1", "g0"] and total == 4  # newest first
        g1 = page[2]
        assert (g1.status, g1.seq, g1.data) == ("finished", 3, b"g1 over")
        assert g1.created_at == (await store.game_info("g1")).created_at
        assert [li.game_id for li in (await store.list_listings("finished", 1, 2))[0]] == ["g2", "g1"]
        assert await store.list_listings("finished", 4, 10) == ([], 4)
        assert [(li.game_id, li.data) for li in (await store.list_listings("live"))[0]] == [("g3", b"g3 again")]
        assert await store.list_listings("open") == ([], 0)
        everything, total = await store.list_listings("", 0, 3)
        assert [li.game_id for li in everything] == ["g4", "g3", "g2"] and total == 5
        assert len(await store.read("g1")) == 3  # listings never touch the log

    async def test_listing_ties_break_by_game_id(self, store: EventStore) -> None:
        ids = [f"t{i}" for i in (5, 3, 9, 1, 7, 2, 8, 0, 6, 4)]
        await asyncio.gather(*(store.create_game(g, events=[b"e"]) for g in ids))
        await asyncio.gather(*(store.save_listing(g, 1, "open", b"") for g in ids))
        page, total = await store.list_listings("open", 0, 100)
        assert total == 10 and sorted(li.game_id for li in page) == sorted(ids)
        assert page == sorted(page, key=lambda li: (li.created_at, li.game_id), reverse=True)

    async def test_stale_listings_are_the_unlisted_and_the_unfinished_behind_their_log(self, store: EventStore) -> None:
        await store.create_game("empty")  # no events: nothing to list
        for name in ("unlisted", "fresh", "behind", "over", "open-behind"):
            await store.create_game(name, events=[b"e1", b"e2"])
        await store.save_listing("fresh", 2, "live", b"")
        await store.save_listing("behind", 1, "live", b"")
        await store.save_listing("over", 1, "finished", b"")  # finished: never behind, whatever follows
        await store.save_listing("open-behind", 2, "open", b"")
        await store.append("open-behind", 2, [b"e3"])
        stale = await store.stale_listings()
        assert [(info.game_id, info.last_seq, status) for info, status in stale] == [
            ("unlisted", 2, ""), ("behind", 2, "live"), ("open-behind", 3, "open")]
        await store.save_listing("behind", 2, "finished", b"")
        await store.save_listing("unlisted", 2, "open", b"")
        assert [info.game_id for info, _ in await store.stale_listings()] == ["open-behind"]

    async def test_listing_arguments_are_checked(self, store: EventStore) -> None:
        await store.create_game("g", events=[b"e1", b"e2"])
        with pytest.raises(UnknownGame):
            await store.save_listing("nope", 1, "open", b"")
        with pytest.raises(ValueError, match="3"):
            await store.save_listing("g", 3, "open", b"")  # beyond the log
        with pytest.raises(ValueError):
            await store.save_listing("g", 0, "open", b"")
        with pytest.raises(ValueError, match="status"):
            await store.save_listing("g", 1, "over", b"")
        with pytest.raises(TypeError):
            await store.save_listing("g", "1", "open", b"")
        with pytest.raises(ValueError, match="status"):
            await store.list_listings("over")
        with pytest.raises(ValueError, match="offset"):
            await store.list_listings("", -1, 10)
        with pytest.raises(TypeError, match="limit"):
            await store.list_listings("", 0, "10")
        assert await store.list_listings() == ([], 0)  # nothing was kept

"""The lobby's listing of games is read from the store's listings (issue 19: a server with a long
history lists a page without reading every game's log and without holding a summary of each
game in memory). Each game's listing is saved when its seats, start or end change; games with no
listing (a store older than listings, a save that failed) or listed open or live behind their log
(another node's game, a crash) are listed again from their logs, once."""

from __future__ import annotations

from pathlib import Path

import pytest

from skirmish.bots import make_bot
from skirmish.engine.commands import Resign, Start
from skirmish.protocol import messages as m
from skirmish.server import missions
from skirmish.server.config import ServerConfig
from skirmish.server.game import LiveGame
from skirmish.server.listings import status_of
from skirmish.server.lobby import Lobby
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore, SQLiteStore, StoreError


class Log:
    """A structlog-like logger that keeps what it is told."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, dict]] = []

    def bind(self, **_kw) -> "Log":
        return self

    def _line(self, event: str, **kw) -> None:
        self.lines.append((event, kw))

    info = warning = error = debug = _line

    def events(self, name: str) -> list[dict]:
        return [kw for event, kw in self.lines if event == name]


class Counted:
    """The store, counting the event reads (``read``) made through it."""

    def __init__(self, store, fail_saves: int = 0) -> None:
        self._store, self.reads, self.fail_saves = store, 0, fail_saves

    def __getattr__(self, name):
        return getattr(self._store, name)

    async def read(self, *args, **kw):
        self.reads += 1
        return await self._store.read(*args, **kw)

    async def save_listing(self, *args, **kw):
        if self.fail_saves:
            self.fail_saves -= 1
            raise StoreError("the disk is full (a test)")
        return await self._store.save_listing(*args, **kw)


async def played(store, n: int) -> list[str]:
    """``n`` finished games written into ``store`` directly (as an import or an older server would:
    no listings)."""
    ridge = missions.load("ridge")
    ids = [f"played-{i}" for i in range(n)]
    for i, game_id in enumerate(ids):
        await play_match(store, ridge, {"a": make_bot("random", i), "b": make_bot("random", i + 50)},
                         seed=i, game_id=game_id)
    return ids


async def test_a_page_comes_from_the_listings_not_from_every_games_log(tmp_path: Path) -> None:
    async with await SQLiteStore.open(tmp_path / "games.sqlite") as store:
        ids = await played(store, 5)
        first, log = Counted(store), Log()
        lobby = Lobby(first, ServerConfig(), log)
        page, total = await lobby.list_games(m.ListGames(status="finished"))
        assert [g.game_id for g in page] == ids and total == 5 and all(g.over and g.head_hash for g in page)
        assert first.reads > 0  # listed from their logs, once
        assert log.events("lobby.relisted")[0]["games"] == 5
        reads = first.reads
        assert await lobby.list_games(m.ListGames(status="finished")) == (page, total)
        assert await lobby.list_games(m.ListGames(status="live")) == ([], 0)
        assert first.reads == reads  # the second listing read no log
        await lobby.close()

        # a restarted server lists the same games without reading any log
        again = Counted(store)
        lobby = Lobby(again, ServerConfig(), Log())
        assert await lobby.list_games(m.ListGames(status="finished", limit=2)) == (page[-2:], 5)
        assert again.reads == 0
        await lobby.close()


async def test_listings_follow_a_game_played_through_the_lobby() -> None:
    store, log = MemoryStore(), Log()
    lobby = Lobby(store, ServerConfig(), log)
    actor, seat = await lobby.create(m.CreateGame(mission="ridge", seat="a"), "ann")
    await lobby.close()  # its listing is saved before close returns
    (listing,), total = await store.list_listings("open")
    assert total == 1 and listing.game_id == actor.game_id and listing.status == "open"

    lobby = Lobby(store, ServerConfig(), log)
    actor = await lobby.get(actor.game_id)
    await actor.call(actor._submit, Resign("a"))  # the game ends: its listing says finished
    await lobby.close()
    assert await store.list_listings("open") == ([], 0)
    (listing,), _ = await store.list_listings("finished")
    assert listing.game_id == actor.game_id and listing.seq == actor.state.seq


async def test_a_listing_behind_its_log_is_listed_again() -> None:
    store = MemoryStore()
    (game_id,) = await played(store, 1)
    await store.save_listing(game_id, 3, "live", b"stale")  # listed live, then another node ended it
    elsewhere = await LiveGame.create(store, missions.load("ridge"), game_id="live-elsewhere")
    await elsewhere.run(Start())
    await store.save_listing("live-elsewhere", 1, "live", b"stale too")  # still live, its seq moved on
    lobby = Lobby(store, ServerConfig(), Log())
    page, total = await lobby.list_games(m.ListGames())
    assert total == 2 and [g.game_id for g in page] == [game_id, "live-elsewhere"]
    assert status_of(page[0]) == "finished" and page[0].seq == await store.last_seq(game_id)
    # the live one is shown as its log has it now; its listing is not written again for that
    assert status_of(page[1]) == "live" and page[1].seq == elsewhere.state.seq > 1
    assert [(info.game_id, status) for info, status in await store.stale_listings()] == [("live-elsewhere", "live")]
    assert (await store.list_listings("live"))[0][0].seq == 1
    await lobby.close()


async def test_a_listing_that_could_not_be_saved_is_saved_by_the_next_listing() -> None:
    store, log = Counted(MemoryStore(), fail_saves=1), Log()
    lobby = Lobby(store, ServerConfig(), log)
    actor, _ = await lobby.create(m.CreateGame(mission="ridge", seat="a"), "ann")
    while lobby.listings._saving:  # the failed save, in the background
        await next(iter(lobby.listings._saving))
    assert log.events("game.listing_not_saved")[0]["game"] == actor.game_id
    assert actor.listed_key is None
    page, total = await lobby.list_games(m.ListGames(status="open"))
    assert [g.game_id for g in page] == [actor.game_id] and total == 1
    assert (await store.list_listings("open"))[1] == 1 and await store.stale_listings() == []
    await lobby.close()


@pytest.mark.parametrize("ttl", [0.0, 3600.0])
async def test_a_store_older_than_listings_is_listed_at_start(ttl: float) -> None:
    store, log = MemoryStore(), Log()
    ids = await played(store, 3)
    lobby = Lobby(store, ServerConfig(open_game_ttl=ttl), log)
    lobby.start()
    await lobby._sweep
    assert log.events("lobby.relisted")[0]["games"] == 3
    assert [li.game_id for li in (await store.list_listings("finished"))[0]] == ids[::-1]
    await lobby.close()

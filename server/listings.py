"""The lobby's listing of games (``list_games``), read from the store's listings.

The store keeps each game's listing (``EventStore.save_listing``): its ``GameSummary`` in
MessagePack and its status. A game's actor says when what its listing shows changes (seats taken,
started, over: ``GameActor.listing_check``) and :meth:`Listings.changed` saves it in the
background; so a page is one indexed query whatever the store holds, and nothing is kept in
memory for games not in play here. The listings that may be behind their log
(``EventStore.stale_listings``: never listed, or listed open or live while the log went on) are
listed again before each page (:meth:`Listings.relist`). docs/decisions.md, "The lobby's listing
from the store".
"""

from __future__ import annotations

import asyncio
import time

import msgspec

from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameCreated, GameEnded, GameStarted, SeatTaken
from skirmish.engine.evolve import replay
from skirmish.protocol.messages import GameSummary
from skirmish.server.game import reserved_of
from skirmish.server.store import EventStore, Listing, StoreError, UnknownGame

SUMMARY_HEAD, SUMMARY_TAIL = 16, 3  # events read to list a stored game that is not in memory
RELIST_BATCH = 200  # listings saved in one go while relisting
_LISTING = msgspec.msgpack.Decoder(GameSummary)  # a listing's data: the GameSummary, in MessagePack
_LISTING_OUT = msgspec.msgpack.Encoder()


class Listings:
    """The games as the lobby lists them; ``actors``: the lobby's, by game id (a game in memory is
    shown as its actor has it now)."""

    def __init__(self, store: EventStore, log, actors: dict) -> None:
        self.store = store
        self.log = log
        self.actors = actors
        self._unlistable: set[str] = set()  # games whose log cannot be replayed (left out of listings)
        self._relisting: asyncio.Task | None = None  # the pass of ``relist`` under way
        self._saving: set[asyncio.Task] = set()  # listings being saved
        # live games run elsewhere (another node; not loaded since a restart) as the last relisting
        # read them: their listing is saved when their status changes, their seq moves on
        self._behind: dict[str, GameSummary] = {}

    async def page(self, status: str, offset: int, size: int) -> tuple[list[GameSummary], int]:
        """The games with ``status`` ("" any), newest first: ``size`` after skipping ``offset``, the
        page oldest first; and how many there are."""
        await self.relist()
        listings, total = await self.store.list_listings(status, offset, size)
        page = [shown for listing in listings if (shown := await self._shown(listing)) is not None]
        page.reverse()
        return page, total

    async def _shown(self, listing: Listing) -> GameSummary | None:
        actor = self.actors.get(listing.game_id)
        if actor is not None:
            return summary_of_actor(actor)
        if listing.game_id in self._behind:
            return self._behind[listing.game_id]
        try:
            return _LISTING.decode(listing.data)
        except msgspec.DecodeError:  # a listing this version cannot read: made again from the log
            summary = await self._summary_from_store(await self.store.game_info(listing.game_id))
            if summary is not None:
                await self._save_listing(summary)
            return summary

    async def relist(self) -> None:
        """Bring the store's listings up to date (one pass at a time; a caller that comes during
        one waits for it): games with none (a store older than listings, or a save that failed)
        and games listed open or live whose log has gone on without this server saving their
        listing (another node's game, or a crash before the save). Each is read from the store
        (its first and last few events), unless its actor here knows it."""
        if self._relisting is None:
            self._relisting = asyncio.create_task(self._relist_once(), name="lobby-relist")
            self._relisting.add_done_callback(lambda _: setattr(self, "_relisting", None))
        await asyncio.shield(self._relisting)

    async def _relist_once(self) -> None:
        started, saves, saved, behind = time.perf_counter(), [], 0, {}
        stale = await self.store.stale_listings()
        for done, (info, listed) in enumerate(stale, start=1):
            actor = self.actors.get(info.game_id)
            if actor is not None:
                told = actor.listed_key  # (seats, started, over) as it last told the lobby
                if told is not None and listed == status(told[1], told[2]):
                    continue  # its own saves keep its listing (at each change of seats, start, end)
                summary = summary_of_actor(actor)
            elif info.game_id in self._unlistable:
                continue
            else:
                summary = await self._summary_from_store(info)
                if summary is not None and listed == "live" == status_of(summary):
                    behind[info.game_id] = summary  # (only its seq moved: shown, not saved again)
                    continue
            if summary is not None:
                saves.append(self._save_listing(summary))
            if len(saves) >= RELIST_BATCH:  # saved together: one transaction, not one each
                await asyncio.gather(*saves)
                saved += len(saves)
                saves = []
                self.log.info("lobby.relisting", games=done, of=len(stale))  # (a store older than listings)
        await asyncio.gather(*saves)
        saved += len(saves)
        self._behind = behind
        if saved:
            self.log.info("lobby.relisted", games=saved, ms=round((time.perf_counter() - started) * 1000, 1))

    async def _summary_from_store(self, info) -> GameSummary | None:
        """A stored game's summary, read from the store; None if it is not a playable game (created,
        never written; a log that does not decode or replay: said once in the server's log and
        left out of the listing, the other games are listed)."""
        try:
            return await self._stored_summary(info.game_id, info.last_seq, reserved_of(info.meta))
        except UnknownGame:
            return None
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad game must not break the listing
            self._unlistable.add(info.game_id)
            self.log.error("game.unlistable", game=info.game_id, problem=f"{type(exc).__name__}: {exc}")
            return None

    async def _save_listing(self, summary: GameSummary, actor=None) -> None:
        """Save the game's listing; a failure is logged, and the listing is made again by the next
        ``list_games`` (the store names it stale)."""
        try:
            await self.store.save_listing(summary.game_id, summary.seq, status_of(summary),
                                          _LISTING_OUT.encode(summary))
        except Exception as exc:  # noqa: BLE001 - a listing is a cache: the game goes on
            if actor is not None:
                actor.listed_key = None
            self.log.warning("game.listing_not_saved", game=summary.game_id, problem=str(exc) or type(exc).__name__)

    def changed(self, actor) -> None:
        """The actor's game changed what its listing shows (seats, started, over): saved in the
        background (in the order of the changes: the store's writes queue in order)."""
        summary = summary_of_actor(actor)
        if summary.seq:
            task = asyncio.create_task(self._save_listing(summary, actor))
            self._saving.add(task)
            task.add_done_callback(self._saving.discard)

    async def _stored_summary(self, game_id: str, last_seq: int, reserved: dict[str, str]) -> GameSummary | None:
        """A stored game's summary from its first ``SUMMARY_HEAD`` events (the seats are taken and the
        game started among them) and its last ``SUMMARY_TAIL`` (``GameEnded``): listing a store of
        long games reads a few events of each, not whole logs. A short log is replayed whole."""
        if last_seq == 0:
            return None  # created, not yet (or never) written
        if last_seq > SUMMARY_HEAD + SUMMARY_TAIL:
            head = [decode_event(s.data) for s in await self.store.read(game_id, 1, SUMMARY_HEAD)]
            if isinstance(head[0], GameCreated) and any(isinstance(e, GameStarted) for e in head):
                stored_tail = await self.store.read(game_id, last_seq - SUMMARY_TAIL + 1, last_seq)
                over = any(isinstance(decode_event(s.data), GameEnded) for s in stored_tail)
                players = {e.seat: e.name for e in head if isinstance(e, SeatTaken)}
                return GameSummary(game_id=game_id, mission=head[0].mission, seats=sorted(players), started=True,
                                   over=over, seq=last_seq, head_hash=stored_tail[-1].hash.hex() if over else "",
                                   players=dict(sorted(players.items())))
        stored = await self.store.read(game_id)  # a short log, or one not started in its head: replayed whole
        return summary_of(replay(decode_event(s.data) for s in stored), stored[-1].hash, reserved)

    async def close(self) -> None:
        """Stop relisting; wait for the listings being saved (the last changes of the games)."""
        if self._relisting is not None:
            self._relisting.cancel()
            await asyncio.gather(self._relisting, return_exceptions=True)
        while self._saving:
            await asyncio.gather(*list(self._saving), return_exceptions=True)


def summary_of_actor(actor) -> GameSummary:
    """The listing of the game an actor runs, as it is now."""
    return summary_of(actor.state, actor.game.head_hash, actor.game.reserved)


def status_of(summary: GameSummary) -> str:
    """The game's status: ``list_games``' filter."""
    return status(summary.started, summary.over)


def status(started: bool, over: bool) -> str:
    """"finished" (over), "live" (started) or "open" (waiting for players)."""
    return "finished" if over else "live" if started else "open"


def summary_of(state, head_hash: bytes = b"", reserved: dict[str, str] | None = None) -> GameSummary:
    """The listing of a game; ``head_hash`` (the chain hash of its last event) is shown once it is over;
    ``reserved``: the game's seat reservations (those of seats still free are listed)."""
    over = state.outcome is not None
    free = {s: n for s, n in (reserved or {}).items() if s not in state.seats and not state.started and not over}
    return GameSummary(game_id=state.game_id, mission=state.mission, seats=sorted(state.seats),
                       started=state.started, over=over, seq=state.seq, head_hash=head_hash.hex() if over else "",
                       players=dict(sorted(state.seats.items())), reserved=dict(sorted(free.items())))

"""The lobby: missions, games, seats and their tokens, and the game actors that run games.

Seat tokens. When a game is created the lobby draws a random 32-byte token key and stores it,
with the server seed, as the game's secret (``skirmish.server.game``). A seat's token is derived from it
(HMAC-SHA256 of the game id and the seat), handed out when the seat is taken (and again only to
a retry of that request, by its ``request_id``), and stored nowhere; a restarted server derives it again, so a seat still free then can still be taken.
``resume`` compares the token it is given with the derived ones in constant time. Neither
tokens, their key nor seeds are ever logged.

Games are loaded on demand (``get``): a game the server does not hold in memory (after a
restart, or a finished game nobody followed) is rebuilt from the store alone.

Creating a game stores the game, its ``GameCreated`` and the seat ``create_game`` takes in ONE
transaction. Taking a seat is idempotent per ``request_id`` (a secret the client chooses, sent
with ``create_game`` and ``join``): the write that takes the seat carries the command id
``request:ID`` (``request_key``), and a creation carries it store-wide, so a retry after a lost
``seated`` finds the seat its first try took and gets the same seat and token again.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time

from typing import Callable

from skirmish.engine.codec import decode_event
from skirmish.engine.commands import Choose, OfferDraw, Resign
from skirmish.engine.dice.fair import check_client_seed
from skirmish.engine.events import SeatTaken
from skirmish.protocol import messages as m
from skirmish.protocol.errors import ProtocolError
from skirmish.protocol.messages import GameSummary, MissionInfo
from skirmish.server import missions as bundled_missions
from skirmish.server.actor import GameActor, Retired
from skirmish.server.replayframes import replay_frames
from skirmish.server.logreads import forfeit_of, request_key, seat_of_request, timeouts_in
from skirmish.server.clock import GameClock
from skirmish.server.config import ServerConfig
from skirmish.server.game import AlreadyCreated, LiveGame
from skirmish.server.listings import Listings
from skirmish.server.store import EventStore, StoreError, UnknownGame

MAX_GAME_ID = 200
REQUEST_ID = re.compile(r"[A-Za-z0-9_.:-]{16,64}")  # a seat-taking request's id (docs/protocol.md)


def check_request_id(request_id: object) -> str:
    """A valid ``request_id`` ("" for none): 16-64 characters of ``A-Z a-z 0-9 _ . : -``."""
    if request_id == "":
        return ""
    if not isinstance(request_id, str) or REQUEST_ID.fullmatch(request_id) is None:
        shown = repr(request_id) if len(repr(request_id)) <= 80 else repr(request_id)[:77] + "..."
        raise ProtocolError("protocol.invalid_field",
                            f"request_id must be 16-64 characters of A-Z a-z 0-9 _ . : - "
                            f"(a fresh random one per request, e.g. a UUID's 32 hex digits), not {shown}")
    return request_id


class Lobby:
    """``admit_creation(conn)``: called before a game is created for ``conn``; raises
    ``ProtocolError`` to refuse it (the server's per-address rate of new games)."""

    def __init__(self, store: EventStore, config: ServerConfig, log,
                 admit_creation: Callable[[object], None] | None = None):
        self.admit_creation = admit_creation
        self.on_rules: Callable[[float], None] | None = None  # each actor's (``GameActor.on_rules``)
        self.store = store
        self.config = config
        self.log = log
        self.missions = bundled_missions.bundled()
        self.actors: dict[str, GameActor] = {}
        self._loading: dict[str, asyncio.Task] = {}
        self.listings = Listings(store, log, self.actors)  # list_games' pages (server/listings.py)
        self.closing = False
        self._sweep: asyncio.Task | None = None

    # -- missions and listings -----------------------------------------------------------------

    def mission_infos(self) -> list[MissionInfo]:
        return [MissionInfo(id=m.id, name=m.name, description=m.description, width=m.board.width,
                            height=m.board.height, units=len(m.units), rounds=m.rounds, modules=list(m.modules))
                for m in self.missions.values()]

    async def list_games(self, request: m.ListGames) -> tuple[list[GameSummary], int]:
        """A page of the games with ``request.status`` ("open", "live", "finished"; "" any) and how
        many there are: skip the ``offset`` most recent, take up to ``limit`` (at most ``list_limit``;
        0: that many); the page oldest first.

        A page is one indexed query of the store's listings, whatever the store holds
        (``skirmish.server.listings``). A game in memory is shown as its actor has it now."""
        size = min(request.limit, self.config.list_limit) if request.limit else self.config.list_limit
        return await self.listings.page(request.status, request.offset, size)

    # -- games -------------------------------------------------------------------------------

    def _clock(self) -> GameClock:
        c = self.config
        return GameClock(move_ms=c.move_ms, reserve_ms=c.reserve_ms, max_timeouts=c.max_timeouts)

    def _new_actor(self, game: LiveGame, **kw) -> GameActor:
        return GameActor(game, clock=self._clock(), log=self.log, on_retire=self._retired, **kw)

    def _spawn(self, game: LiveGame, created: bool = False, **kw) -> GameActor:
        """A new actor for ``game``: a game just ``created`` has its listing saved now; a loaded one
        keeps the store's (``Listings.relist`` makes it again if it is missing or behind)."""
        actor = self._new_actor(game, **kw)
        self.actors[game.game_id] = actor
        actor.on_listing = self.listings.changed
        actor.on_rules = self.on_rules
        if created:
            actor.listing_check()
        else:
            actor.listed_key = actor.listing_key()
        return actor

    def _retired(self, actor: GameActor) -> None:
        if self.actors.get(actor.game_id) is actor:
            del self.actors[actor.game_id]  # (its listing was saved when it ended)

    async def create(self, request: m.CreateGame, name: str = "") -> tuple[GameActor, str]:
        """A new game of the bundled mission ``request.mission`` and the seat taken in it ("" for
        none) by the player ``name``, all stored in one transaction; ``request.seat`` is "a", "b",
        "any" or "" (none).

        With a ``request_id`` that already created a game (its ``seated``/``created`` was lost),
        that game and the seat it took, after checking that the retry asks for the same."""
        mission_id, seat, client_seed = request.mission, request.seat, request.client_seed
        request_id = request.request_id
        self._check_open()
        mission = self.missions.get(mission_id) if isinstance(mission_id, str) else None
        if mission is None:  # only bundled missions: never a path from the network
            raise ProtocolError("lobby.no_such_mission",
                                f"no mission {mission_id!r}; missions: {', '.join(self.missions)}")
        request_id = check_request_id(request_id)
        key = request_key(request_id)
        taken = "a" if seat == "any" else seat
        reserved = {"a" if taken == "b" else "b": request.reserve_for} if request.reserve_for else None
        try:
            game = await LiveGame.create(self.store, mission, token_key=secrets.token_bytes(32),
                                         seat=(taken, name, client_seed) if taken else None, command_id=key,
                                         reserved=reserved)
        except ValueError as exc:
            raise ProtocolError("protocol.invalid_field", str(exc)) from None
        except AlreadyCreated as exc:
            actor = await self.get(exc.game_id)
            events = await LiveGame.stored_request(self.store, exc.game_id, key) or []
            again = seat_of_request(events, request_id, seat, client_seed, exc.game_id) if seat else ""
            if actor.state.mission != mission.id or (not seat and any(isinstance(e, SeatTaken) for e in events)):
                raise ProtocolError("protocol.invalid_field",
                                    f"request_id {request_id!r} created game {exc.game_id} of another kind "
                                    "(mission or seat); send a fresh request_id with each new request") from None
            self.log.info("game.create_retried", game=exc.game_id, seat=again)
            return actor, again
        actor = self._spawn(game, created=True)
        self.log.info("game.created", game=game.game_id, mission=mission.id, seat=taken,
                      **({"reserved": reserved} if reserved else {}))
        if self.config.open_game_ttl:
            actor.expire_at(time.time() + self.config.open_game_ttl)
        return actor, taken

    # -- open games nobody joined expire ---------------------------------------------------------

    def start(self) -> None:
        """After a (re)start: the store's listings brought up to date (``Listings.relist``; a store older than
        listings gets them now), then, with ``open_game_ttl``, its open games loaded so that each
        expires on time."""
        if self._sweep is None:
            self._sweep = asyncio.create_task(self._after_start(), name="lobby-start")

    async def _after_start(self) -> None:
        try:
            await self.listings.relist()
            if self.config.open_game_ttl:
                await self._load_open_games()
        except Exception as exc:  # the server serves on; the next list_games relists, open games expire when loaded
            self.log.error("lobby.start_failed", problem=str(exc) or type(exc).__name__)

    async def _load_open_games(self) -> None:
        offset, total, open_games = 0, 1, []
        while offset < total:
            page, total = await self.store.list_listings("open", offset, self.config.list_limit)
            if not page:
                break
            open_games += [listing.game_id for listing in page]
            offset += len(page)
        for game_id in open_games:
            if self.closing:
                return
            if game_id in self.actors:
                continue
            try:
                await self.get(game_id)  # loading schedules its expiry (``_load``)
            except Exception as exc:  # one bad game never stops the others
                self.log.warning("game.unloadable", game=game_id, problem=str(exc) or type(exc).__name__)

    async def get(self, game_id: str) -> GameActor:
        """The game's actor, loading the game from the store if it is not in memory."""
        self._check_open()
        actor = self.actors.get(game_id)
        if actor is not None and not actor.closing:
            return actor
        if not isinstance(game_id, str) or not game_id or len(game_id) > MAX_GAME_ID or "\x00" in game_id:
            raise ProtocolError("lobby.no_such_game", f"no game {game_id!r}")
        task = self._loading.get(game_id)
        if task is None:
            task = asyncio.create_task(self._load(game_id))
            self._loading[game_id] = task
            task.add_done_callback(lambda _: self._loading.pop(game_id, None))
        return await asyncio.shield(task)

    async def _load(self, game_id: str) -> GameActor:
        old = self.actors.get(game_id)
        if old is not None:
            await old.close()  # a retired actor finishes its queue first
        try:
            game = await LiveGame.load(self.store, game_id)
            events = [decode_event(s.data) for s in await self.store.read(game_id)]
        except UnknownGame:
            raise ProtocolError("lobby.no_such_game", f"no game {game_id!r}") from None
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a log that does not decode or replay: this game only
            self.log.error("game.unloadable", game=game_id, problem=f"{type(exc).__name__}: {exc}")
            raise ProtocolError("lobby.no_such_game", f"game {game_id!r} cannot be loaded") from None
        actor = self._spawn(game, forfeit=forfeit_of(events))
        for seat, n in timeouts_in(events).items():
            actor.clock.seats[seat].timeouts = n
        self.log.info("game.loaded", game=game_id, seq=game.state.seq)
        await actor.call(actor.boot)
        if self.config.open_game_ttl and not actor.state.started and actor.state.outcome is None:
            actor.expire_at((await self.store.game_info(game_id)).created_at + self.config.open_game_ttl)
        return actor

    async def run(self, game_id: str, job: Callable, *args):
        """Run one of the actor's jobs (``GameActor.seat``, ``.watch``, ``.command``, ``.cancel``) on
        the game's actor."""
        for _ in range(3):
            actor = await self.get(game_id)
            try:
                return await actor.call(job.__get__(actor), *args)
            except Retired:
                continue
        raise ProtocolError("server.internal", f"game {game_id} is being unloaded; try again")

    # -- requests ----------------------------------------------------------------------------------

    async def handle(self, conn, request, received: float = 0.0) -> None:
        """Act on one typed request (a client message of ``skirmish.protocol.messages`` but ``hello`` and
        ``ping``, which the connection's session answers) from ``conn``; its replies go to ``conn``.
        A refusal is raised (``ProtocolError``, ``GameError``) for the caller to answer under the
        request's id. ``received``: when its frame arrived (``time.perf_counter``), for the log."""
        match request:
            case m.ListMissions():
                conn.send(m.Missions(missions=self.mission_infos(), id=request.id))
            case m.ListGames():
                games, total = await self.list_games(request)
                conn.send(m.Games(games=games, total=total, id=request.id))
            case m.CreateGame():
                await self.create_game(conn, request)
            case m.Join():
                await self.run(request.game_id, GameActor.seat, conn, request.seat, conn.name, request.client_seed,
                               request.id, check_request_id(request.request_id))
            case m.Spectate():
                actor = await self.get(request.game_id)
                held = conn.roles.get(request.game_id)
                viewer = held if held in ("a", "b") else "spectator"
                await self.run(actor.game_id, GameActor.watch, conn, viewer, request.after_seq,
                               m.Watching(game_id=request.game_id, viewer=viewer, id=request.id))
            case m.Resume():
                seat = await self._seat_of_token(conn, request.game_id, request.token)
                await self.run(request.game_id, GameActor.watch, conn, seat, request.last_seq,
                               m.Seated(game_id=request.game_id, seat=seat, token=request.token, id=request.id))
            case m.Command():
                seat = seat_held(conn, request.game_id)
                command = Choose(request.decision_id, request.option, seat)
                await self.run(request.game_id, GameActor.command, conn, seat, command, request.command_id,
                               request.id, received)
            case m.ResignGame():
                seat = seat_held(conn, request.game_id)
                await self.run(request.game_id, GameActor.command, conn, seat, Resign(seat), request.command_id,
                               request.id, received)
            case m.OfferDraw():
                seat = seat_held(conn, request.game_id)
                await self.run(request.game_id, GameActor.command, conn, seat, OfferDraw(seat), request.command_id,
                               request.id, received)
            case m.CancelGame():
                seat = await self._seat_of_token(conn, request.game_id, request.token)
                await self.run(request.game_id, GameActor.cancel, conn, seat, request.id)
            case m.ReplayFrames():
                await replay_frames(conn, request, self.config.replay_max)
            case _:  # pragma: no cover - the codec knows no other client message
                raise ProtocolError("protocol.unknown_type", f"no handler for {type(request).__name__}")

    async def create_game(self, conn, request: m.CreateGame) -> None:
        """``create_game``: the game, and with ``request.seat`` the seat, replied ``seated`` (then the
        game's events, as to a seat that resumes) or ``created``."""
        if request.seat not in ("", "a", "b", "any"):
            raise ProtocolError("protocol.invalid_field", f"seat is 'a', 'b', 'any' or '', not {request.seat!r}")
        try:  # before the game exists: a bad seed must not leave a game behind
            check_client_seed("a", request.client_seed)
        except (TypeError, ValueError) as exc:
            raise ProtocolError("protocol.invalid_field", f"client_seed: {exc}") from None
        if self.admit_creation is not None:
            self.admit_creation(conn)
        # the game, its GameCreated and the seat: one transaction (a retried request_id: the same)
        actor, seat = await self.create(request, conn.name)
        if seat:
            await self.run(actor.game_id, GameActor.watch, conn, seat, 0,
                           m.Seated(game_id=actor.game_id, seat=seat, token=self.token_for(actor, seat),
                                    id=request.id))
        else:
            conn.send(m.Created(game_id=actor.game_id, mission=actor.state.mission, id=request.id))

    async def _seat_of_token(self, conn, game_id: str, token: str) -> str:
        actor = await self.get(game_id)
        seat = self.seat_of_token(actor, token)
        if seat is None:
            self.log.info("auth.failed", conn=conn.id, game=game_id)
            raise ProtocolError("auth.bad_token", f"that is not the token of a seat of game {game_id}")
        return seat

    def token_for(self, actor: GameActor, seat: str) -> str:
        return actor.game.token_for(seat)

    def seat_of_token(self, actor: GameActor, token: str) -> str | None:
        return actor.game.seat_of_token(token)

    def detach(self, conn) -> None:
        for game_id in list(conn.roles):
            actor = self.actors.get(game_id)
            if actor is not None:
                actor.detach(conn, idle_check=True)
            conn.roles.pop(game_id, None)

    def _check_open(self) -> None:
        if self.closing:
            raise ProtocolError("server.shutting_down", "the server is shutting down; resume later")

    async def close(self) -> None:
        """Stop taking jobs; every actor finishes what is queued (in-flight commands commit)."""
        self.closing = True
        if self._sweep is not None:
            self._sweep.cancel()
            await asyncio.gather(self._sweep, return_exceptions=True)
        for task in list(self._loading.values()):
            try:
                await task
            except Exception:
                pass
        await asyncio.gather(*(a.close() for a in list(self.actors.values())), return_exceptions=True)
        await self.listings.close()  # (the listings of the last changes)


def seat_held(conn, game_id: str) -> str:
    """The seat ``conn`` holds in ``game_id``; ``auth.not_seated`` if it holds none."""
    seat = conn.roles.get(game_id)
    if seat not in ("a", "b"):
        raise ProtocolError("auth.not_seated", f"this connection holds no seat in game {game_id!r}")
    return seat

"""The lobby: missions, games, seats and their tokens, and the game actors that run games.

Seat tokens. When a game is created the lobby draws a random 32-byte token key and stores it,
with the server seed, as the game's secret (``server.game``). A seat's token is derived from it
(HMAC-SHA256 of the game id and the seat), handed out once, when the seat is taken, and stored
nowhere; a restarted server derives it again, so a seat still free then can still be taken.
``resume`` compares the token it is given with the derived ones in constant time. Neither
tokens, their key nor seeds are ever logged.

Games are loaded on demand (``get``): a game the server does not hold in memory (after a
restart, or a finished game nobody followed) is rebuilt from the store alone.
"""

from __future__ import annotations

import asyncio
import secrets

import msgspec

from engine.codec import decode_event
from engine.errors import InvalidEvent
from engine.events import GameCreated, GameEnded, GameStarted, SeatTaken
from engine.evolve import replay
from protocol.errors import ProtocolError
from protocol.messages import GameSummary, MissionInfo
from server import missions as bundled_missions
from server.actor import GameActor, Retired, forfeit_of, timeouts_in
from server.clock import GameClock
from server.config import ServerConfig
from server.game import LiveGame
from server.store import EventStore, UnknownGame

MAX_GAME_ID = 200
SUMMARY_HEAD, SUMMARY_TAIL = 16, 3  # events read to list a stored game that is not in memory


class Lobby:
    def __init__(self, store: EventStore, config: ServerConfig, log):
        self.store = store
        self.config = config
        self.log = log
        self.missions = bundled_missions.bundled()
        self.actors: dict[str, GameActor] = {}
        self._loading: dict[str, asyncio.Task] = {}
        self._summaries: dict[str, GameSummary] = {}  # games not in memory, as last seen
        self.closing = False

    # -- missions and listings -----------------------------------------------------------------

    def mission_infos(self) -> list[MissionInfo]:
        return [MissionInfo(id=m.id, name=m.name, description=m.description, width=m.board.width,
                            height=m.board.height, units=len(m.units), rounds=m.rounds, modules=list(m.modules))
                for m in self.missions.values()]

    async def list_games(self, status: str = "", offset: int = 0, limit: int = 0) -> tuple[list[GameSummary], int]:
        """A page of the games with ``status`` ("open", "live", "finished"; "" any) and how many
        there are: skip the ``offset`` most recent, take up to ``limit`` (at most ``list_limit``; 0:
        that many); the page oldest first. Live games come from memory, others from the store
        (each read once, then cached)."""
        size = min(limit, self.config.list_limit) if limit else self.config.list_limit
        matching: list[GameSummary] = []
        for info in reversed(await self.store.list_games()):
            actor = self.actors.get(info.game_id)
            if actor is not None:
                summary = summary_of(actor.state)
            else:
                summary = self._summaries.get(info.game_id)
                if summary is None or summary.seq != info.last_seq:
                    summary = await self._summary(info)
            if summary is not None and (not status or status_of(summary) == status):
                matching.append(summary)
        page = matching[offset:offset + size]
        page.reverse()
        return page, len(matching)

    async def _summary(self, info) -> GameSummary | None:
        """A game's summary: from its actor, the cache, or (once) the store; None if it is not a
        playable game (created, never written; a log that does not decode)."""
        actor = self.actors.get(info.game_id)
        if actor is not None:
            return summary_of(actor.state)
        summary = self._summaries.get(info.game_id)
        if summary is not None and summary.seq == info.last_seq:
            return summary
        try:
            summary = await self._stored_summary(info.game_id, info.last_seq)
        except (InvalidEvent, msgspec.DecodeError, msgspec.ValidationError, UnknownGame, ValueError):
            summary = None
        if summary is not None:
            self._summaries[info.game_id] = summary
        return summary

    async def _stored_summary(self, game_id: str, last_seq: int) -> GameSummary | None:
        """A stored game's summary from its first ``SUMMARY_HEAD`` events (the seats are taken and the
        game started among them) and its last ``SUMMARY_TAIL`` (``GameEnded``): listing a store of
        long games reads a few events of each, not whole logs. A short log is replayed whole."""
        if last_seq == 0:
            return None
        if last_seq <= SUMMARY_HEAD + SUMMARY_TAIL:
            return summary_of(replay(decode_event(s.data) for s in await self.store.read(game_id)))
        head = [decode_event(s.data) for s in await self.store.read(game_id, 1, SUMMARY_HEAD)]
        if not isinstance(head[0], GameCreated) or not any(isinstance(e, GameStarted) for e in head):
            return summary_of(replay(decode_event(s.data) for s in await self.store.read(game_id)))
        tail = [decode_event(s.data) for s in await self.store.read(game_id, last_seq - SUMMARY_TAIL + 1, last_seq)]
        return GameSummary(game_id=game_id, mission=head[0].mission,
                           seats=sorted({e.seat for e in head if isinstance(e, SeatTaken)}), started=True,
                           over=any(isinstance(e, GameEnded) for e in tail), seq=last_seq)

    # -- games -------------------------------------------------------------------------------

    def _clock(self) -> GameClock:
        c = self.config
        return GameClock(move_ms=c.move_ms, reserve_ms=c.reserve_ms, max_timeouts=c.max_timeouts)

    def _spawn(self, game: LiveGame, **kw) -> GameActor:
        actor = GameActor(game, clock=self._clock(), log=self.log, on_retire=self._retired, **kw)
        self.actors[game.game_id] = actor
        self._summaries.pop(game.game_id, None)
        return actor

    def _retired(self, actor: GameActor) -> None:
        if self.actors.get(actor.game_id) is actor:
            del self.actors[actor.game_id]
            self._summaries[actor.game_id] = summary_of(actor.state)

    async def create(self, mission_id: str) -> GameActor:
        self._check_open()
        mission = self.missions.get(mission_id) if isinstance(mission_id, str) else None
        if mission is None:  # only bundled missions: never a path from the network
            raise ProtocolError("lobby.no_such_mission",
                                f"no mission {mission_id!r}; missions: {', '.join(self.missions)}")
        game = await LiveGame.create(self.store, mission, token_key=secrets.token_bytes(32))
        actor = self._spawn(game)
        self.log.info("game.created", game=game.game_id, mission=mission.id)
        return actor

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
        except (InvalidEvent, ValueError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            self.log.error("game.unloadable", game=game_id, problem=str(exc))
            raise ProtocolError("lobby.no_such_game", f"game {game_id!r} cannot be loaded") from None
        actor = self._spawn(game, forfeit=forfeit_of(events))
        for seat, n in timeouts_in(events).items():
            actor.clock.seats[seat].timeouts = n
        self.log.info("game.loaded", game=game_id, seq=game.state.seq)
        await actor.call(actor.boot)
        return actor

    async def run(self, game_id: str, job: str, *args):
        """Run one of the actor's jobs (``seat``, ``watch``, ``command``) on the game's actor."""
        for _ in range(3):
            actor = await self.get(game_id)
            try:
                return await actor.call(getattr(actor, job), *args)
            except Retired:
                continue
        raise ProtocolError("server.internal", f"game {game_id} is being unloaded; try again")

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
        for task in list(self._loading.values()):
            try:
                await task
            except Exception:
                pass
        await asyncio.gather(*(a.close() for a in list(self.actors.values())), return_exceptions=True)


def status_of(summary: GameSummary) -> str:
    """"finished" (over), "live" (started) or "open" (waiting for players): ``list_games``' filter."""
    return "finished" if summary.over else "live" if summary.started else "open"


def summary_of(state) -> GameSummary:
    return GameSummary(game_id=state.game_id, mission=state.mission, seats=sorted(state.seats),
                       started=state.started, over=state.outcome is not None, seq=state.seq)

"""A long-running bot (``skirmish bot --server URL --forever``): it joins the open games that match
its filters, plays up to ``max_games`` at once on one connection, survives the server going away
and its own restarts, and logs each game's result as a JSON line.

**Joining.** Every ``poll`` seconds, while it plays fewer than ``max_games`` games, it lists the
server's open games (``list_games("open")``) and joins those that match: the mission is one of
``missions`` (any if empty), the seat it would take is ``side`` ("a", "b" or "any"), every player
already seated is one of ``opponents`` (any if empty; a game nobody sits in has no opponent to
match then, and is skipped), and the seat is not reserved for another player. A game reserved
for this bot's name (``create_game``'s ``reserve_for``) goes first; then the oldest. Losing a race
for a seat (``lobby.game_full``, ``lobby.seat_taken``) just skips that game.

**State.** With a ``state`` file, the bot keeps there (JSON, written atomically, mode 0600: the
tokens are secrets) each seat it holds (game, seat, token) and each join in flight (its
``request_id`` and client seed, written *before* the join is sent). A restarted bot resumes every
seat it held (``resume`` with the token, from the game's first event) and sends each join in
flight again with the same ``request_id`` and client seed: the server answers it with the seat
the first try took, if it took one, so no seat is ever orphaned. A game is dropped from the
file once its result is logged (so a result may be logged twice if the bot dies between the
two, never lost).

**Reconnecting.** When the connection drops (the server restarts, the network fails) every game
task stops; the bot waits and connects again, with exponential back-off and jitter: before
attempt n (from 0) it sleeps ``d/2 + uniform(0, d/2)`` with ``d = min(backoff_max, backoff_base *
2**n)`` ("equal jitter": never less than half the back-off, so a crowd of bots does not return in
step), then resumes its seats from the state as after a restart. A successful connection
resets n.

**Logs** (``structlog``, one JSON object per line): ``bot.connected``, ``bot.connection_lost``
(with the ``retry_in`` seconds), ``game.joined``, ``game.resumed``, ``game.dropped`` (a seat that
cannot be resumed: the game is gone or the token refused), ``game.error`` (a game task that
failed), and ``game.result``: game, mission, seat, opponent, winner, reason, ``result`` ("win",
"loss", "draw"), forfeit, head_hash.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

import structlog

from skirmish.bots.base import Bot
from skirmish.bots.runner import play_seat
from skirmish.client.connection import Client, ClientError, ConnectionLost, Seat, connect, new_client_seed
from skirmish.protocol.messages import GameSummary

LOST_RACE = ("lobby.game_full", "lobby.seat_taken", "lobby.seat_reserved", "lobby.no_such_game", "game.started")
GONE = ("lobby.no_such_game", "auth.bad_token")  # a held seat that cannot be resumed


def json_logger(stream: TextIO | None = None):
    """A structlog logger writing JSON lines (level, ISO UTC timestamp) to ``stream`` (stderr)."""
    return structlog.wrap_logger(
        structlog.PrintLogger(stream or sys.stderr),
        processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.JSONRenderer()])


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Seconds to wait before reconnect attempt ``attempt`` (from 0): equal jitter over
    ``min(cap, base * 2**attempt)``."""
    d = min(cap, base * 2 ** min(attempt, 30))
    return d / 2 + rng.uniform(0, d / 2)


@dataclass
class Filters:
    missions: frozenset[str] = frozenset()  # empty: any
    side: str = "any"  # the seat to take: "a", "b" or "any"
    opponents: frozenset[str] = frozenset()  # names; empty: anyone

    def seat_for(self, game: GameSummary, name: str) -> str | None:
        """The seat to ask for in the open ``game`` ("a", "b", "any"), or None if it does not match."""
        if game.started or game.over or (self.missions and game.mission not in self.missions):
            return None
        players = game.players or {s: "" for s in game.seats}
        if self.opponents and (not players or not set(players.values()) <= self.opponents):
            return None
        free = [s for s in ("a", "b") if s not in players and game.reserved.get(s, name) == name]
        if self.side != "any":
            return self.side if self.side in free else None
        mine = [s for s in free if game.reserved.get(s) == name]  # reserved for this bot
        return (mine or free or [None])[0]


@dataclass
class BotState:
    """What a restarted bot needs: the seats it holds and the joins it has sent (see the module docstring)."""

    path: Path | None = None
    seats: dict[str, dict] = field(default_factory=dict)  # game id -> {"seat", "token"}
    joining: dict[str, dict] = field(default_factory=dict)  # game id -> {"request_id", "client_seed", "seat"}
    results: int = 0

    @classmethod
    def load(cls, path: Path | None) -> "BotState":
        if path is None or not path.exists():
            return cls(path)
        doc = json.loads(path.read_text())
        return cls(path, dict(doc.get("seats", {})), dict(doc.get("joining", {})), int(doc.get("results", 0)))

    def save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"seats": self.seats, "joining": self.joining, "results": self.results}, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


class ForeverBot:
    """``make_bot(game_id)`` makes a fresh bot for each game (its seed may follow the game)."""

    def __init__(self, url: str, make_bot: Callable[[str], Bot], *, name: str, filters: Filters | None = None,
                 max_games: int = 1, state: Path | None = None, codec: str = "msgpack", log=None,
                 poll: float = 1.0, backoff_base: float = 0.5, backoff_max: float = 30.0,
                 stop_after: int = 0, rng: random.Random | None = None):
        self.url, self.make_bot, self.name = url, make_bot, name
        self.filters = filters or Filters()
        self.max_games = max(1, max_games)
        self.state = BotState.load(state)
        self.codec, self.poll = codec, poll
        self.log = log or json_logger()
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        self.stop_after = stop_after  # stop after this many results (0: never)
        self.rng = rng or random.Random()
        self.finished = 0  # results logged by this process
        self._tasks: dict[str, asyncio.Task] = {}

    @property
    def done(self) -> bool:
        return bool(self.stop_after) and self.finished >= self.stop_after

    async def run(self) -> None:
        """Play until ``stop_after`` results (forever if 0), reconnecting with back-off."""
        attempt = 0
        while not self.done:
            try:
                async with connect(self.url, codec=self.codec, name=self.name) as c:
                    attempt = 0
                    self.log.info("bot.connected", server=self.url, name=self.name, seats=len(self.state.seats))
                    await self._session(c)
            except ClientError as exc:  # ConnectFailed, ConnectionLost, a server shutting down
                if self.done:
                    break
                delay = backoff_delay(attempt, self.backoff_base, self.backoff_max, self.rng)
                self.log.warning("bot.connection_lost", problem=str(exc), code=exc.code, attempt=attempt,
                                 retry_in=round(delay, 3))
                attempt += 1
                await asyncio.sleep(delay)
            finally:
                await self._cancel_all()

    async def _session(self, c: Client) -> None:
        """One connection's life: resume what the state holds, then join and play until done."""
        for gid, held in list(self.state.seats.items()):
            await self._resume(c, gid, held)
        for gid, req in list(self.state.joining.items()):
            await self._join(c, gid, req)
        while not self.done:
            self._reap()
            if len(self._tasks) < self.max_games:
                await self._look_for_games(c)
            pending = list(self._tasks.values())
            if pending:
                await asyncio.wait(pending, timeout=self.poll, return_when=asyncio.FIRST_COMPLETED)
            else:
                await asyncio.sleep(self.poll)
            if not c.connected:
                raise ConnectionLost()
        self._reap()

    def _reap(self) -> None:
        """Finished game tasks out; a lost connection (or a server going down: ``server.*``) ends the
        session (``ConnectionLost``), and the next one resumes the game; any other failure drops it."""
        for gid, task in list(self._tasks.items()):
            if not task.done():
                continue
            del self._tasks[gid]
            exc = task.exception()
            if isinstance(exc, ConnectionLost):
                raise exc
            if isinstance(exc, ClientError) and exc.code.startswith("server."):
                raise ConnectionLost(f"the server said {exc.code}: {exc.message}")
            if exc is not None:
                self.log.error("game.error", game=gid, problem=f"{type(exc).__name__}: {exc}")
                self.state.seats.pop(gid, None)
                self.state.save()

    async def _cancel_all(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _look_for_games(self, c: Client) -> None:
        games = await c.list_games("open")
        ranked = sorted(games, key=lambda g: self.name not in g.reserved.values())  # reserved for me first
        for game in ranked:
            if len(self._tasks) >= self.max_games:
                return
            if game.game_id in self._tasks or game.game_id in self.state.seats:
                continue
            seat = self.filters.seat_for(game, self.name)
            if seat is None:
                continue
            req = {"request_id": os.urandom(16).hex(), "client_seed": new_client_seed(), "seat": seat}
            self.state.joining[game.game_id] = req  # before the join: a restart sends it again
            self.state.save()
            await self._join(c, game.game_id, req)

    async def _join(self, c: Client, gid: str, req: dict) -> None:
        try:
            held = await c.join(gid, seat=req["seat"], client_seed=req["client_seed"], request_id=req["request_id"])
        except ConnectionLost:
            raise
        except ClientError as exc:
            self.state.joining.pop(gid, None)
            self.state.save()
            if exc.code not in LOST_RACE:
                self.log.warning("game.join_refused", game=gid, code=exc.code, problem=exc.message)
            return
        self.state.seats[gid] = {"seat": held.seat, "token": held.token}
        self.state.joining.pop(gid, None)
        self.state.save()
        self.log.info("game.joined", game=gid, seat=held.seat)
        self._start(c, held)

    async def _resume(self, c: Client, gid: str, held: dict) -> None:
        try:
            seat = await c.resume(gid, held["token"], 0)
        except ConnectionLost:
            raise
        except ClientError as exc:
            if exc.code not in GONE:
                raise
            self.log.warning("game.dropped", game=gid, code=exc.code, problem=exc.message)
            self.state.seats.pop(gid, None)
            self.state.save()
            return
        self.log.info("game.resumed", game=gid, seat=seat.seat)
        self._start(c, Seat(gid, seat.seat or held["seat"], held["token"]))

    def _start(self, c: Client, held: Seat) -> None:
        self._tasks[held.game_id] = asyncio.create_task(self._play(c, held), name=f"forever-{held.game_id}")

    async def _play(self, c: Client, held: Seat) -> None:
        outcome = await play_seat(c, held, self.make_bot(held.game_id), think_in_thread=True)
        g = c.game(held.game_id)
        view = c.view(held.game_id)
        other = "b" if held.seat == "a" else "a"
        result = "draw" if outcome.winner is None else ("win" if outcome.winner == held.seat else "loss")
        self.log.info("game.result", game=held.game_id, mission=view.mission if view else "", seat=held.seat,
                      opponent=(view.seats.get(other, "") if view else ""), winner=outcome.winner or "",
                      reason=outcome.reason, result=result, forfeit=g.forfeit, head_hash=g.head_hash)
        self.finished += 1
        self.state.results += 1
        self.state.seats.pop(held.game_id, None)
        self.state.save()


def seeded(strategy_maker: Callable[[int | None], Bot], seed: int | None) -> Callable[[str], Bot]:
    """A per-game bot factory: with ``seed``, each game's bot seed follows (seed, game id)."""
    def make(game_id: str) -> Bot:
        if seed is None:
            return strategy_maker(None)
        digest = hashlib.sha256(f"{seed}:{game_id}".encode()).digest()
        return strategy_maker(int.from_bytes(digest[:8], "big") >> 1)
    return make

"""Bots the server hosts (``skirmish serve --house-bots random,greedy,mcts``).

A person in the browser creates a game and asks for a bot (``GET /api/games/ID/house-bot``):
the server starts ``skirmish bot --game ID`` as a **subprocess**, an ordinary WebSocket client
of this very server. So a hosted bot thinks outside the server's event loop (and process: an
MCTS bot's CPU never holds the server's GIL), and it sees only its own seat's view, exactly as
any other client. At most ``limit`` run at once; they are terminated when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys

from skirmish.bots import STRATEGIES, make_bot
from skirmish.bots.parent import guarded
from skirmish.engine.codec import decode_event
from skirmish.engine.events import SeatTaken
from skirmish.protocol import messages as m


async def house_seat(store, game_id: str) -> tuple[str, str] | None:
    """The seat of the game's hosted bot and the bot's name, from the log's ``SeatTaken`` "house NAME"."""
    for stored in await store.read(game_id, 1, 16):
        e = decode_event(stored.data)
        if isinstance(e, SeatTaken) and e.name.startswith("house "):
            return e.seat, e.name[6:]
    return None


def parse_names(text: str) -> list[str]:
    """``"random,greedy,mcts:50"`` -> the names, each a built-in strategy, ``mcts:MS`` with its time
    per decision (ValueError naming a bad one)."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in STRATEGIES and not n.startswith("mcts:"):
            raise ValueError(f"house bot {n!r} is not a built-in strategy ({', '.join(STRATEGIES)}, mcts:MS)")
        if n.startswith("mcts:"):
            make_bot(n)  # (ValueError for a bad budget)
    return list(dict.fromkeys(names))


class HouseBots:
    def __init__(self, names: list[str], url_of, log, limit: int = 16):
        self.names = names
        self.url_of = url_of  # () -> the server's ws:// URL
        self.log = log
        self.limit = limit
        self.running: set[asyncio.subprocess.Process] = set()
        self._tasks: set[asyncio.Task] = set()
        self.games: dict[str, asyncio.Task] = {}  # game -> the task running its bot here
        self._procs: dict[str, asyncio.subprocess.Process] = {}  # game -> its bot's process
        self.stopping: set[str] = set()  # the games whose bot ``stop`` ends (also one still starting)
        self.closed = False
        # one node of several (skirmish.server.cluster.house): an invitation goes to the game's owner
        self.router = None  # async (game_id, name) -> None, or None: start it here

    def start(self, game_id: str, name: str, token: str = "") -> None:
        """Start bot ``name`` on the free seat of ``game_id``, or, with a seat's ``token``, on that
        seat again (``resume_all``). At most one bot per game runs here."""
        if self.closed:
            raise RuntimeError("the server is shutting down; try again later")
        if game_id in self.games:
            raise RuntimeError(f"a hosted bot is playing game {game_id} already")
        if len(self._tasks) >= self.limit:
            raise RuntimeError(f"{self.limit} hosted bots are playing already; try again later")
        task = asyncio.get_running_loop().create_task(self._run(game_id, name, token))
        self._tasks.add(task)
        self.games[game_id] = task

        def done(t: asyncio.Task) -> None:
            self._tasks.discard(t)
            if self.games.get(game_id) is t:
                del self.games[game_id]

        task.add_done_callback(done)

    async def invite(self, game_id: str, name: str) -> None:
        """The web client's invitation: here (one server), or on the game's owner (``router``)."""
        if self.router is not None:
            await self.router(game_id, name)
        else:
            self.start(game_id, name)

    async def stop(self, game_id: str, timeout: float = 5.0) -> None:
        """Stop the bot of ``game_id`` running here (if any) and wait until its process is gone."""
        task = self.games.get(game_id)
        if task is None:
            return
        self.stopping.add(game_id)
        try:
            proc = self._procs.get(game_id)
            if proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
            done, _ = await asyncio.wait([task], timeout=timeout)
            if not done:
                proc = self._procs.get(game_id)
                if proc is not None:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                await asyncio.wait([task], timeout=timeout)
        finally:
            self.stopping.discard(game_id)
        self.log.info("house_bot.stopped", game=game_id)

    async def resume_all(self, lobby) -> int:
        """After a restart: the hosted bots of the games still being played take their seats again
        (a bot's seat is the one its ``SeatTaken`` names "house NAME"; the token, which the server
        derives, reaches the subprocess in its environment, never its command line). How many."""
        if not self.names:
            return 0
        started, live, offset = 0, [], 0
        while True:  # (pages, oldest first in each)
            page, total = await lobby.list_games(m.ListGames(status="live", offset=offset))
            live += page
            offset += len(page)
            if not page or offset >= total:
                break
        for game in live:
            held = await house_seat(lobby.store, game.game_id)
            if held is not None and held[1] in self.names:
                actor = await lobby.get(game.game_id)
                self.start(game.game_id, held[1], token=lobby.token_for(actor, held[0]))
                self.log.info("house_bot.resume", game=game.game_id, seat=held[0], bot=held[1])
                started += 1
        return started

    async def _run(self, game_id: str, name: str, token: str = "") -> None:
        again = ("--resume",) if token else ()
        argv = [sys.executable, "-m", "skirmish.server.cli", "bot", "--strategy", name, "--server", self.url_of(),
                "--game", game_id, *again, "--codec", "json", "--name", f"house {name}",
                "--parent-pid", str(os.getpid())]  # (it never outlives this server: skirmish.bots.parent)
        proc = await asyncio.create_subprocess_exec(
            *guarded(argv, os.getpid()), env={**os.environ, "SKIRMISH_SEAT_TOKEN": token} if token else None,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        self.running.add(proc)
        self._procs[game_id] = proc
        if game_id in self.stopping or self.closed:  # (stopped while it was starting)
            proc.terminate()
        self.log.info("house_bot.start", game=game_id, bot=name, pid=proc.pid, resume=bool(token))
        try:
            _, err = await proc.communicate()
        finally:
            self.running.discard(proc)
            if self._procs.get(game_id) is proc:
                del self._procs[game_id]
        tail = err.decode(errors="replace").strip().splitlines()[-3:]
        self.log.info("house_bot.exit", game=game_id, bot=name, status=proc.returncode, stderr=" | ".join(tail))

    async def close(self) -> None:
        self.closed = True
        for proc in list(self.running):
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
        if self._tasks:
            done, pending = await asyncio.wait(list(self._tasks), timeout=5)
            for task in pending:
                task.cancel()
            for proc in list(self.running):
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()

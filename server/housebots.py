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
from skirmish.engine.codec import decode_event
from skirmish.engine.events import SeatTaken
from skirmish.protocol import messages as m


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

    def start(self, game_id: str, name: str, token: str = "") -> None:
        """Start bot ``name`` on the free seat of ``game_id``, or, with a seat's ``token``, on that
        seat again (``resume_all``)."""
        if len(self._tasks) >= self.limit:
            raise RuntimeError(f"{self.limit} hosted bots are playing already; try again later")
        task = asyncio.get_running_loop().create_task(self._run(game_id, name, token))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
            for stored in await lobby.store.read(game.game_id, 1, 16):
                e = decode_event(stored.data)
                if isinstance(e, SeatTaken) and e.name.startswith("house ") and e.name[6:] in self.names:
                    actor = await lobby.get(game.game_id)
                    self.start(game.game_id, e.name[6:], token=lobby.token_for(actor, e.seat))
                    self.log.info("house_bot.resume", game=game.game_id, seat=e.seat, bot=e.name[6:])
                    started += 1
        return started

    async def _run(self, game_id: str, name: str, token: str = "") -> None:
        again = ("--resume",) if token else ()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "skirmish.server.cli", "bot", "--strategy", name, "--server", self.url_of(),
            "--game", game_id, *again, "--codec", "json", "--name", f"house {name}",
            env={**os.environ, "SKIRMISH_SEAT_TOKEN": token} if token else None,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        self.running.add(proc)
        self.log.info("house_bot.start", game=game_id, bot=name, pid=proc.pid)
        try:
            _, err = await proc.communicate()
        finally:
            self.running.discard(proc)
        tail = err.decode(errors="replace").strip().splitlines()[-3:]
        self.log.info("house_bot.exit", game=game_id, bot=name, status=proc.returncode, stderr=" | ".join(tail))

    async def close(self) -> None:
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

"""One tournament game, as run in a worker process: :func:`play_game`.

**In process** (the default): the two guarded bots play with ``skirmish.server.match.play_match`` into
a fresh ``MemoryStore``; a worker of the local pool, started with the tournament's file
(:func:`init_worker`), stores the game there itself (its row, its events with their exact bytes
and chain hashes, its header and secret) and hands back the result and how many events it
stored; the parent commits the result (``db.py`` says why that order keeps the file whole).
A worker without the file (on Ray) hands the events back instead, as three flat values (every
event's bytes one after another, where each ends, the 32-byte chain hashes one after another)
rather than two lists of ~1,000 small ``bytes``, and the parent stores them. Either way one
statement that SQLite splits stores them, with no Python work per event (see docs/decisions.md,
"Tournament throughput").

**Through a server** (``--server URL``): two ``skirmish.bots.runner.run_bot`` clients, one creating
the game on side a and one joining it on side b; the server keeps the log, the worker hands
back the server's game id and the outcome. The server rolls its own dice seed, so a mirrored
pair shares its client seed (derived from the match seed), its missions and bot seeds, not
the dice.

A :class:`~skirmish.server.tournament.guard.Forfeit` ends the game at once with a ``Resign`` for the
forfeiting side (in process; through a server, the seat is resumed with its token and
resigned), so every game ends and verifies.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import accumulate
from pathlib import Path

from .guard import Forfeit, GuardedBot
from .schedule import GameSpec

_MISSIONS: dict = {}
_LOOP: tuple[int, asyncio.AbstractEventLoop] | None = None
_DB: sqlite3.Connection | None = None  # the tournament's file, in a worker of the local pool


@dataclass
class Played:
    """What a worker hands back for one game (picklable)."""

    index: int
    game_id: str  # in process: the spec's; through a server: the server's
    winner_side: str | None
    reason: str
    points: dict[str, int]
    decisions: int
    duration: float  # wall seconds, creation to the end
    forfeit: dict | None = None  # Forfeit.as_dict()
    think: dict[str, float] = field(default_factory=dict)  # seconds each side spent in choose
    # the stored game (in process only): event seq i (1-based) is events[ends[i-2]:ends[i-1]] (from
    # 0 for the first) with the chain hash hashes[32*(i-1):32*i]; the MemoryStore's exact bytes
    events: bytes = b""
    ends: list[int] = field(default_factory=list)
    hashes: bytes = b""
    created_at: float = 0.0
    meta: bytes = b""
    secret: bytes = b""
    stored: int = 0  # events this worker stored in the tournament's file itself (then none travel)


def init_worker(db_path: str | None = None) -> None:
    """Set up a worker process: Ctrl-C is left to the parent (which stops handing out games), and
    a running event loop inherited over fork (the CLI runs inside ``asyncio.run``) is forgotten,
    as Python 3.12+ does by itself after a fork; and the worker exits if its parent dies. With
    ``db_path``, the worker stores the games it plays in that file (the tournament's)."""
    global _DB
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.events._set_running_loop(None)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="parent-watch", daemon=True).start()
    if db_path is not None:
        from .db import open_for_worker

        _DB = open_for_worker(Path(db_path))


def _exit_with_parent(parent: int) -> None:
    """A worker whose parent was killed (SIGKILL: no clean shutdown) would wait for work forever."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def play_game(spec: GameSpec, server: str | None = None) -> Played:
    """Play ``spec`` (in this process, or through ``server``) and return what happened."""
    global _LOOP
    if _LOOP is None or _LOOP[0] != os.getpid():  # one event loop per process (not inherited over fork)
        _LOOP = (os.getpid(), asyncio.new_event_loop())
    loop = _LOOP[1]
    return loop.run_until_complete(_play_server(spec, server) if server else _play_local(spec))


def _mission(name: str):
    from skirmish.server import missions

    if name not in _MISSIONS:
        _MISSIONS[name] = missions.load(name)
    return _MISSIONS[name]


def _guards(spec: GameSpec) -> dict[str, GuardedBot]:
    from skirmish.bots import make_bot

    return {side: GuardedBot(partial(make_bot, seat.bot, seat.seed), spec.timeout_ms, seat.entrant)
            for side, seat in (("a", spec.a), ("b", spec.b))}


def resign_command(side: str, why: str):
    """A ``Resign`` for ``side`` carrying the reason."""
    from skirmish.engine.commands import Resign

    return Resign(side, reason=why)


async def _play_local(spec: GameSpec) -> Played:
    from skirmish.server.match import play_match
    from skirmish.server.store import MemoryStore

    mission = _mission(spec.mission)
    store = MemoryStore()
    guards = _guards(spec)
    start = time.perf_counter()
    # a forfeit (crash, illegal answer, time-out) ends the game with a Resign of that side: see skirmish.server.match
    result = await play_match(store, mission, guards, seed=spec.dice_seed, game_id=spec.game_id)
    outcome, forfeit = result.outcome, result.forfeit
    duration = time.perf_counter() - start
    stored = await store.read(spec.game_id)
    info = await store.game_info(spec.game_id)
    played = Played(
        index=spec.index, game_id=spec.game_id, winner_side=outcome.winner, reason=outcome.reason,
        points=dict(outcome.points), decisions=sum(g.decisions for g in guards.values()), duration=duration,
        forfeit=forfeit.as_dict() if forfeit else None,
        think={side: g.think_time for side, g in guards.items()},
        events=b"".join(s.data for s in stored), ends=list(accumulate(len(s.data) for s in stored)),
        hashes=b"".join(s.hash for s in stored), created_at=info.created_at,
        meta=info.meta, secret=await store.load_secret(spec.game_id),
    )
    if _DB is None:
        return played
    from .db import store_game

    store_game(_DB, spec.game_id, played)
    return replace(played, events=b"", ends=[], hashes=b"", meta=b"", secret=b"", stored=len(stored))


async def _play_server(spec: GameSpec, url: str) -> Played:
    from skirmish.bots.runner import run_bot
    from skirmish.client.connection import connect

    from .schedule import derive

    guards = _guards(spec)
    seats: dict[str, object] = {}
    created: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    forfeits: dict[str, Forfeit] = {}
    client_seed = f"{derive('client', spec.seed):016x}"
    start = time.perf_counter()

    def seated(side, seat) -> None:
        seats[side] = seat
        if side == "a" and not created.done():
            created.set_result(seat.game_id)

    async def play(side: str):
        entrant = spec.seat(side).entrant
        try:
            if side == "a":
                return await run_bot(url, guards[side], mission=spec.mission, seat="a", client_seed=client_seed,
                                     name=entrant, on_seated=partial(seated, side))
            game_id = await created
            return await run_bot(url, guards[side], game_id=game_id, seat="b", client_seed=client_seed,
                                 name=entrant, on_seated=partial(seated, side))
        except Forfeit as f:
            forfeits[side] = f
            seat = seats[side]
            async with connect(url, name=f"tournament:{entrant}") as c:
                await c.resume(seat.game_id, seat.token)
                await c.resign(seat.game_id)
            return None
        except BaseException:
            if not created.done():
                created.cancel()
            raise

    results = await asyncio.gather(play("a"), play("b"), return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            raise r
    outcome = next(r for r in results if r is not None) if any(r is not None for r in results) else None
    if outcome is None:
        raise RuntimeError(f"both sides of game {spec.index} forfeited through the server; no outcome was seen")
    forfeit = next(iter(forfeits.values()), None)
    return Played(
        index=spec.index, game_id=created.result(), winner_side=outcome.winner, reason=outcome.reason,
        points=dict(outcome.points), decisions=sum(g.decisions for g in guards.values()),
        duration=time.perf_counter() - start, forfeit=forfeit.as_dict() if forfeit else None,
        think={side: g.think_time for side, g in guards.items()},
    )

"""``skirmish verify --all`` and ``skirmish replay --all``: every game of a store, in parallel worker
processes, with progress and a games/s figure (issue 19).

The parent reads each game's log from the store (one connection, in order of creation) and hands
the stored bytes to a pool of worker processes; each worker checks one game with the same function
the one-game commands use (``verify_log``; ``replay_lines``, the reducers of ``skirmish replay``),
so ``--all`` can never judge a game differently from ``skirmish verify GAME``. At most ``4 x
workers`` games are in flight, so memory stays bounded however large the store is. ``--workers 1``
checks in the parent process itself (no pool: the baseline the parallel figure is compared with).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TextIO


@dataclass(frozen=True)
class Checked:
    """What one worker found in one game."""

    game_id: str
    ok: bool
    events: int
    line: str  # the one-line finding: a failure, or a note worth printing
    skipped: bool = False  # replay --as all of a game not yet over


@dataclass
class Totals:
    games: int = 0
    ok: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: int = 0
    events: int = 0
    seconds: float = 0.0


def verify_one(game_id: str, rows: list[tuple[int, bytes, bytes]]) -> Checked:
    """``skirmish verify GAME``'s whole audit of one game's stored rows (seq, data, hash)."""
    from skirmish.engine.verify import LoggedEvent, verify_log

    report = verify_log(game_id, [LoggedEvent(*row) for row in rows])
    line = "" if report.ok else f"verify {game_id}: {report.summary()}"
    return Checked(game_id, report.ok, report.events or len(rows), line)


def replay_one(game_id: str, datas: list[bytes], viewer: str) -> Checked:
    """``skirmish replay GAME --as VIEWER`` without printing: every event decoded, redacted for the
    viewer and folded by the reducers, every line of narration made."""
    lines, bad, over = replay_lines(datas, viewer)
    if viewer == "all" and not over and bad is None:
        return Checked(game_id, True, 0, "", skipped=True)
    if bad is not None:
        return Checked(game_id, False, len(lines), f"replay {game_id}: FAILED at event {bad[0]}: {bad[1]}")
    return Checked(game_id, True, len(datas), "")


def replay_lines(datas: list[bytes], viewer: str) -> tuple[list[tuple[int, str]], tuple[int, str] | None, bool]:
    """The narration of a log (stored bytes) as ``viewer`` sees it: (seq, line) pairs, the first
    event that cannot be read or replayed (seq, problem) or None, and whether the game is over.
    With ``viewer == "all"`` an unfinished game is not replayed (the full log opens at the end)."""
    from skirmish.client.narrate import describe
    from skirmish.engine.codec import DecodeError, decode_event
    from skirmish.engine.evolve import evolve, initial_state
    from skirmish.engine.view import view

    events, bad = [], None
    for seq, data in enumerate(datas, start=1):
        try:
            events.append(decode_event(data))
        except DecodeError as exc:
            bad = (seq, f"not a valid event: {exc}")
            break
    over = any(type(e).__name__ == "GameEnded" for e in events)
    if viewer == "all" and not over and bad is None:
        return [], None, False
    lines: list[tuple[int, str]] = []
    full = state = None  # the full state (each view sees it as it was before its event), the viewer's
    for seq, event in enumerate(events, start=1):
        try:
            if seq == 1:
                full = initial_state(event)
                seen = view(full, event, viewer)  # GameCreated: its view sees the state it creates
                state = initial_state(seen)
            else:
                seen = view(full, event, viewer)
                evolve(full, event)
            if seen is None:
                continue
            line = describe(seen, state)
            if seq > 1:
                evolve(state, seen)
        except Exception as exc:  # noqa: BLE001 - a malformed log: name the event, no traceback
            bad = (seq, f"{type(event).__name__} cannot be replayed: {type(exc).__name__}: {exc}")
            break
        if line:
            lines.append((seq, line))
    if bad is None and not datas:
        bad = (1, "the log is empty")
    return lines, bad, over


async def check_store(store, mode: str, *, workers: int, viewer: str = "spectator", out: TextIO | None = None,
                      err: TextIO | None = None) -> Totals:
    """Check every game of ``store`` (``mode`` "verify" or "replay") with ``workers`` processes,
    printing each failure on ``out`` as it is found and progress lines on ``err``."""
    if workers < 1:
        raise ValueError("workers must be at least 1")
    out, err = out or sys.stdout, err or sys.stderr
    games = [g.game_id for g in await store.list_games()]
    totals, progress = Totals(), _Progress(len(games), mode, err)
    start = time.perf_counter()
    pool = None if workers == 1 else ProcessPoolExecutor(workers, mp_context=_context())
    try:
        pending: list[Future | Checked] = []
        for game_id in games:
            job = await _job(store, game_id, mode, viewer)
            pending.append(pool.submit(*job) if pool else job[0](*job[1:]))
            while len(pending) > (4 * workers if pool else 0):
                await _take(pending.pop(0), totals, progress, out)
        for item in pending:
            await _take(item, totals, progress, out)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    totals.seconds = time.perf_counter() - start
    return totals


def _context():
    """Workers forked from a clean server process with the engine already imported: cheaper to start
    than spawned ones, and safe (this process may hold the store's threads; fork would copy them)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["skirmish.engine.verify", "skirmish.client.narrate", "skirmish.server.storecheck"])
    return ctx


async def _job(store, game_id: str, mode: str, viewer: str) -> tuple:
    stored = await store.read(game_id)
    if mode == "verify":
        return verify_one, game_id, [(s.seq, s.data, s.hash) for s in stored]
    return replay_one, game_id, [s.data for s in stored], viewer


async def _take(item, totals: Totals, progress: "_Progress", out: TextIO) -> None:
    checked: Checked = await asyncio.wrap_future(item) if isinstance(item, Future) else item
    totals.games += 1
    totals.events += checked.events
    if checked.skipped:
        totals.skipped += 1
    elif checked.ok:
        totals.ok += 1
    else:
        totals.failed.append(checked.game_id)
        print(checked.line, file=out, flush=True)
    progress.update(totals.games)


class _Progress:
    """A line on stderr about every 10% of the games (and at the end), with the rate and an ETA."""

    def __init__(self, total: int, mode: str, stream: TextIO):
        self.total, self.mode, self.stream = total, mode, stream
        self.step = max(1, -(-total // 10))
        self.start = time.perf_counter()

    def update(self, done: int) -> None:
        if done % self.step and done != self.total:
            return
        elapsed = time.perf_counter() - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = f", ETA {round((self.total - done) / rate)}s" if rate and done < self.total else ""
        print(f"{self.mode}: {done}/{self.total} games, {rate:.1f} games/s{eta}", file=self.stream, flush=True)


def summary(totals: Totals, mode: str, workers: int) -> str:
    """The closing line: counts, time and the games/s and events/s figures."""
    rate = totals.games / totals.seconds if totals.seconds > 0 else 0.0
    erate = totals.events / totals.seconds if totals.seconds > 0 else 0.0
    skipped = f", {totals.skipped} not over (the full log opens at the end)" if totals.skipped else ""
    word = "verified" if mode == "verify" else "replayed"
    return (f"{mode} --all: {totals.games} games, {totals.ok} OK, {len(totals.failed)} failed{skipped}; "
            f"{totals.events} events {word} in {totals.seconds:.2f} s: {rate:.1f} games/s, {erate:,.0f} events/s "
            f"({workers} worker{'s' if workers != 1 else ''})")


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)

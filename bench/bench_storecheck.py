"""Benchmark: ``skirmish verify --all`` and ``skirmish replay --all`` over a whole store, with 1
worker and with 2, side by side in one run (issue 19: "skirmish verify over a whole store (every
game, rules re-run) in parallel workers, with a games/s figure, and the same for replay").

    python bench/bench_storecheck.py [--games N] [--missions A,B,...] [--repeat R]

Setup (not timed): a tournament, ``random`` against ``greedy`` on the missions (default: one of
each rules module's: ridge, knives, breach, cabal), writes N games into a SQLite store, exactly as
``skirmish tournament`` stores them. Then ``skirmish.server.storecheck.check_store``, the code of
``--all``, checks every game: the full audit (``verify``: chain, seed, every roll, every command
re-run through the rules) and the spectator's replay (``replay``: decode, redact, fold, narrate),
with 1 worker (in this process) and with 2 (a pool, its start-up included), best of R each.
Printed: games/s and events/s for each, and the ratio 2 workers / 1 (2.0 is the ideal on two free
cores; the parent reads the store and takes a share of one). The load average is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.server.storecheck import check_store  # noqa: E402
from skirmish.server.store import SQLiteStore  # noqa: E402
from skirmish.server.tournament import load_config, run_tournament  # noqa: E402


def make_store(folder: Path, games: int, missions: str) -> Path:
    config = load_config(None, {"bots": "random,greedy", "mission": missions, "games": games, "seed": 1,
                                "workers": 2, "out": str(folder / "out")})
    run_tournament(config, stdout=io.StringIO(), stderr=io.StringIO(), progress=False)
    return folder / "out" / "games.sqlite"


async def check(db: Path, mode: str, workers: int) -> tuple[float, int, int]:
    async with await SQLiteStore.open(db) as store:
        start = time.perf_counter()
        totals = await check_store(store, mode, workers=workers, out=io.StringIO(), err=io.StringIO())
        seconds = time.perf_counter() - start
    if totals.failed or totals.ok != totals.games:
        raise SystemExit(f"{mode}: {len(totals.failed)} games failed: {totals.failed[:5]}")
    return seconds, totals.games, totals.events


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--missions", default="ridge,knives,breach,cabal")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-storecheck-") as tmp:
        db = make_store(Path(tmp), args.games, args.missions)
        print(f"bench_storecheck: a store of {args.games} games ({args.missions}), random vs greedy; "
              f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
        for mode in ("verify", "replay"):
            rates = {}
            for workers in (1, 2):
                best = min(asyncio.run(check(db, mode, workers)) for _ in range(args.repeat))
                seconds, games, events = best
                rates[workers] = games / seconds
                print(f"  {mode:6s} --all, {workers} worker{'s' if workers > 1 else ' '}: {games} games, "
                      f"{events} events in {seconds:6.2f} s: {games / seconds:7.1f} games/s, "
                      f"{events / seconds:9,.0f} events/s")
            print(f"  {mode:6s} ratio 2 workers / 1: {rates[2] / rates[1]:.2f}x")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

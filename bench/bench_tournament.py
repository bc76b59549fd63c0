"""Benchmark: tournament throughput (games/s), with 1 worker process and with 2, and the scaling.

    python bench/bench_tournament.py [--games N] [--mission NAME] [--repeat R]

A two-entrant round robin, ``random`` vs ``random``, N games (default 200) on one bundled
mission (default ``ridge``), exactly as ``skirmish tournament`` runs it: worker processes play
each game in process into a MemoryStore (guarded bots, per-decision time limit on), the parent
commits each game's events with its result into ``games.sqlite`` (SQLite, WAL,
``synchronous=FULL``, one transaction per game), then computes the ratings and writes the
report. Timed with ``time.perf_counter`` from the start of the run to the written report (pool
start-up included), best of R; each run in a fresh temporary directory.

Side by side, from one run: (a) the same games played one after another in this process with
no pool and no recording (the worker's own speed: the ceiling for one worker); (b) games/s
with 1 worker; (c) with 2 workers; and the ratio (c)/(b) (the ideal is 2.0 on a machine with
two free cores; the parent process recording every game takes a share of a core too). The
load average is printed: on a shared machine the ratio says more about the neighbours.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.server.tournament import load_config, run_tournament  # noqa: E402


def once(games: int, mission: str, workers: int) -> tuple[float, int, int]:
    """Seconds for one tournament of ``games`` games; also the events stored and the games recorded."""
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        config = load_config(None, {"bots": "random,random", "mission": mission, "games": games, "seed": 1,
                                    "workers": workers, "out": str(Path(tmp) / "out")})
        start = time.perf_counter()
        result = run_tournament(config, stdout=io.StringIO(), stderr=io.StringIO(), progress=False)
        elapsed = time.perf_counter() - start
        events = sum(r["events"] for r in result.records)
        return elapsed, events, len(result.records)


def in_process(games: int, mission: str) -> float:
    """Seconds to play the tournament's games here, one by one: no pool, no SQLite, no report."""
    from skirmish.server.tournament.schedule import plan_round, round_robin_pairings
    from skirmish.server.tournament.worker import play_game

    config = load_config(None, {"bots": "random,random", "mission": mission, "games": games, "seed": 1,
                                "workers": 1, "out": "unused"})
    config.seed = 1
    specs = plan_round(config, 0, round_robin_pairings(config.entrants))
    start = time.perf_counter()
    for spec in specs:
        play_game(spec)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--mission", default="ridge")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f}; random vs random, {args.games} games on {args.mission}, best of {args.repeat}")
    once(10, args.mission, 2)  # warm up: imports, mission parsing, page cache
    seconds = min(in_process(args.games, args.mission) for _ in range(args.repeat))
    print(f"  (a) in this process, no pool, no recording: {args.games / seconds:6.1f} games/s")
    rates = {}
    for workers in (1, 2):
        best = min(once(args.games, args.mission, workers) for _ in range(args.repeat))
        seconds, events, recorded = best
        assert recorded == args.games
        rates[workers] = recorded / seconds
        print(f"  ({'b' if workers == 1 else 'c'}) {workers} worker{'s' if workers > 1 else ' '}: {recorded} games in {seconds:6.2f} s = "
              f"{rates[workers]:6.1f} games/s ({events / seconds:,.0f} events/s stored and recorded)")
    print(f"  scaling 1 -> 2 workers (c)/(b): x{rates[2] / rates[1]:.2f} (ideal x2.00); "
          f"load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

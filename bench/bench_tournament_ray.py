"""Benchmark: tournament throughput on worker processes and on Ray, 1 worker against 2, side by side.

    python bench/bench_tournament_ray.py [--games N] [--mission NAME] [--repeat R]

The tournament of ``bench_tournament.py`` (``random`` vs ``random``, N games, default 200, on one
bundled mission, default ``ridge``), played exactly as ``skirmish tournament`` plays it, four ways
in one run: ``--workers 1`` and ``--workers 2`` on the process pool, and the same with ``--ray``.
Every game is played by ``worker.play_game`` and committed by the parent with its result in
``games.sqlite`` (one transaction per game); on Ray each game is a task whose result (events,
hashes, header, secret) travels back through Ray to the parent.

Ray runs on one local instance started here once (``num_cpus=2``), as ``skirmish tournament
--ray`` starts one for a tournament (no dashboard, quiet, workers not niced): its start-up is timed on its own and
left out of the games/s, which is timed from the start of ``run_tournament`` to the written
report (the process pool's start-up is inside, as it is a fork of this process and cheap). Best
of R for each, the four interleaved so that a neighbour's load falls on all of them alike; a
warm-up run of each first (Ray's workers import skirmish on their first task).

Printed side by side: games/s for each, the scaling 1 -> 2 workers of each (ideal x2.00 on two
free cores), Ray / process pool at each worker count, Ray's cost per game over the pool, and
Ray's start-up. The load average is printed: on a shared machine the ratios say more about the
neighbours than the absolute figures.
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

MODES = ("processes", "ray")


def once(games: int, mission: str, workers: int, mode: str) -> tuple[float, int]:
    """Seconds for one tournament of ``games`` games (run to written report); the games recorded."""
    with tempfile.TemporaryDirectory(prefix="bench-tournament-ray-") as tmp:
        config = load_config(None, {"bots": "random,random", "mission": mission, "games": games, "seed": 1,
                                    "workers": workers, "out": str(Path(tmp) / "out"),
                                    "ray": True if mode == "ray" else None})
        start = time.perf_counter()
        result = run_tournament(config, stdout=io.StringIO(), stderr=io.StringIO(), progress=False)
        return time.perf_counter() - start, len(result.records)


def start_ray():
    """A local Ray with 2 CPUs, as ``--ray`` starts one (``raypool.init_ray``); seconds it took."""
    from skirmish.server.tournament.raypool import init_ray

    start = time.perf_counter()
    ray = init_ray(workers=2)
    return ray, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--mission", default="ridge")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    try:
        import ray  # noqa: F401
    except ImportError:
        sys.exit("bench_tournament_ray: needs Ray (pip install -e '.[ray]'; `make bench` installs it)")

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f}; random vs random, {args.games} games on {args.mission}, best of {args.repeat}")
    ray, startup = start_ray()
    try:
        for mode in MODES:  # warm-up: imports, mission parsing, Ray's workers, the page cache
            once(10, args.mission, 2, mode)
        best: dict[tuple[str, int], float] = {}
        for _ in range(args.repeat):
            for workers in (1, 2):
                for mode in MODES:
                    seconds, recorded = once(args.games, args.mission, workers, mode)
                    assert recorded == args.games, (mode, workers, recorded)
                    best[mode, workers] = min(best.get((mode, workers), seconds), seconds)
    finally:
        stop = time.perf_counter()
        ray.shutdown()
        shutdown = time.perf_counter() - stop
    report(args.games, best, startup, shutdown)


def report(games: int, best: dict[tuple[str, int], float], startup: float, shutdown: float) -> None:
    rate = {key: games / seconds for key, seconds in best.items()}
    print(f"  {'games/s':22s} {'1 worker':>10s} {'2 workers':>10s} {'scaling 1 -> 2':>15s}")
    for mode, label in (("processes", "(a) process pool"), ("ray", "(b) Ray tasks")):
        print(f"  {label:22s} {rate[mode, 1]:10.1f} {rate[mode, 2]:10.1f} "
              f"{'x%.2f' % (rate[mode, 2] / rate[mode, 1]):>15s}")
    print(f"  {'Ray / process pool':22s} {'x%.2f' % (rate['ray', 1] / rate['processes', 1]):>10s} "
          f"{'x%.2f' % (rate['ray', 2] / rate['processes', 2]):>10s}   (b)/(a)")
    per_game = {w: 1000 * (best["ray", w] - best["processes", w]) / games for w in (1, 2)}
    print(f"  Ray's cost per game over the pool: {per_game[1]:+.2f} ms with 1 worker, {per_game[2]:+.2f} ms with 2 "
          f"(wall time per game: {1000 / rate['processes', 1]:.1f} ms on one process)")
    print(f"  Ray start-up (local, once per tournament with --ray alone): {startup:.2f} s; shutdown {shutdown:.2f} s; "
          f"load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

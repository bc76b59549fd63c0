"""Benchmark and check: many random playouts, every event checked for leaks (issue 15: "at least
10,000 random playouts ... zero leaks is the only pass").

    python bench/bench_leaks.py [--games N] [--missions a,b] [--rounds R] [--workers W] [--profile]

Each playout is a random game of one of the missions, followed by ``tests.engine.views_check.Follow``:
after every event, every secret the game's modules declare (``Module.secrets``) for each live
viewer (seat a, seat b, a spectator) is looked up in what that viewer folded from the events as
``skirmish.engine.view`` showed them (``tests/engine/leaks.py``). The missions, by default, are
every bundled mission whose modules declare secrets (a new module with hidden facts joins by
declaring them); ``<mission>+probe`` adds the test probe module (one unit of side b hidden under
a handle) to any mission. ``--rounds`` shortens the games (the CI test plays 1,000 of one round).

Prints progress lines, then the leaks found (the exit status is 1 if there is any: zero is the
only pass), the playouts/s and events/s over W worker processes (default: the CPU count), and the
secrets looked up. ``--profile`` runs 20 playouts in this process under pyinstrument.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.engine.leaks import PROBE_SUFFIX, Tally, check_playouts, hiding_missions, jobs_for, mission_of  # noqa: E402

CHUNK = 50  # playouts a worker plays between progress lines

_ROUNDS = None


def _init(rounds, probes) -> None:
    global _ROUNDS
    _ROUNDS = rounds
    for mission_id in probes:
        mission_of(mission_id)  # installs the probe in this worker's catalog


def _chunk(jobs) -> Tally:
    return check_playouts(jobs, _ROUNDS)


def run(mission_ids: list[str], games: int, rounds, workers: int) -> tuple[Tally, float]:
    jobs = jobs_for(mission_ids, games)
    chunks = [jobs[i:i + CHUNK] for i in range(0, len(jobs), CHUNK)]
    probes = [m for m in mission_ids if m.endswith(PROBE_SUFFIX)]
    total, start, step = Tally(), time.perf_counter(), max(1, games // 10)
    shown = 0
    with multiprocessing.get_context("fork").Pool(workers, _init, (rounds, probes)) as pool:
        for tally in pool.imap_unordered(_chunk, chunks):
            total.add(tally)
            if total.playouts - shown >= step or total.playouts == games:
                shown = total.playouts
                wall = time.perf_counter() - start
                print(f"  {total.playouts:>7,}/{games:,} playouts, {len(total.leaks)} leaks, "
                      f"{total.playouts / wall:,.1f} playouts/s", flush=True)
    return total, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--missions", default="", help="comma-separated ids (default: every mission hiding something)")
    parser.add_argument("--rounds", type=int, default=None, help="shorten each game to this many rounds")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    mission_ids = [m for m in args.missions.split(",") if m] or hiding_missions()
    for m in mission_ids:
        mission_of(m, args.rounds)  # a typo fails here, before any worker starts
    print(f"bench_leaks: {args.games:,} random playouts of {', '.join(mission_ids)}"
          f"{f' ({args.rounds} round(s))' if args.rounds else ''}, {args.workers} worker(s); "
          f"python {platform.python_version()} on {platform.machine()}")
    if args.profile:
        from pyinstrument import Profiler

        with Profiler() as profiler:
            check_playouts(jobs_for(mission_ids, 20), args.rounds)
        print(profiler.output_text(unicode=False, color=False))
    tally, wall = run(mission_ids, args.games, args.rounds, args.workers)
    print(f"leaks found: {len(tally.leaks)} (must be 0)")
    for mission_id, seed, leak in tally.leaks[:20]:
        print(f"  {mission_id} seed {seed}: {leak}")
    print(f"playouts: {tally.playouts:,} in {wall:.1f} s = {tally.playouts / wall:,.1f} playouts/s "
          f"({tally.playouts / tally.seconds:,.1f}/s per worker); "
          f"{tally.events / wall:,.0f} events/s checked")
    print(f"per mission: {', '.join(f'{k} {n:,}' for k, n in sorted(tally.by_mission.items()))}")
    print(f"secrets looked up: {tally.checked:,} ({tally.checked / max(1, tally.events):.1f} per event)")
    return 1 if tally.leaks else 0


if __name__ == "__main__":
    sys.exit(main())

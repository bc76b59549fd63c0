"""Benchmark: tournament throughput (games/s), with 1 worker process and with 2, and the scaling.

    python bench/bench_tournament.py [--games N] [--mission NAME] [--repeat R]

A two-entrant round robin, ``random`` vs ``random``, N games (default 200) on one bundled
mission (default ``ridge``), exactly as ``skirmish tournament`` runs it: worker processes play
each game in process into a MemoryStore (guarded bots, per-decision time limit on) and store it
in ``games.sqlite`` (SQLite, WAL, one transaction per game), the parent commits each result
(``synchronous=FULL``) once the game's events are there, then computes the ratings and writes
the report. Timed with ``time.perf_counter`` from the start of the run to the written report (pool
start-up included); each run in a fresh temporary directory. The 1-worker and 2-worker runs
alternate (1, 2, 1, 2, ...: R of each), each printed with the load average; the best of each
gives the ratio.

Side by side, from one run: (a) the same games played one after another in this process with
no pool and no recording (the worker's own speed: the ceiling for one worker); (b) games/s
with 1 worker; (c) with 2 workers; and the ratio (c)/(b) (the ideal is 2.0 on a machine with
two free cores; the parent process recording every result takes a share of a core too). The
load average is printed: on a shared machine the ratio says more about the neighbours.

CPU per game, from ``getrusage`` (less sensitive to the neighbours than the wall clock): the
parent's (all its threads: recording, unpickling, scheduling, the report) and the workers'
(``RUSAGE_CHILDREN``: the worker processes, reaped when the pool shuts down at the end of each
run). With W worker and P parent CPU seconds per game (P < W), 1 worker gives at most 1/W
games/s (the parent works on the other core) and 2 workers on 2 free cores at most 2/(W + P):
the best ratio 2 cores allow is 2W/(W + P), printed as the ceiling from CPU. x1.8 needs
P <= W/9.

And what the machine itself gives this work: (d) the games of (a) played in one child process,
then in two at once (each the whole set; forked, no pool, no store), alternating like the runs
above, best of each: the ratio of the two rates is how much faster two cores play these games
than one, here and now. Two vCPUs of a shared host are not two free cores: this ratio has been
anywhere from x1.6 to x2.0 on the same machine. The tournament's scaling is printed against it
too, (c)/(b) divided by (d): the share of what the host gave that the tournament kept.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.server.tournament import load_config, run_tournament  # noqa: E402


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def once(games: int, mission: str, workers: int) -> tuple[float, int, int, float, float]:
    """One tournament of ``games`` games: its seconds, the events stored, the games recorded, and
    the CPU seconds of this (parent) process and of its worker processes."""
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        config = load_config(None, {"bots": "random,random", "mission": mission, "games": games, "seed": 1,
                                    "workers": workers, "out": str(Path(tmp) / "out")})
        parent, children = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = run_tournament(config, stdout=io.StringIO(), stderr=io.StringIO(), progress=False)
        elapsed = time.perf_counter() - start
        parent = cpu_seconds(resource.RUSAGE_SELF) - parent
        children = cpu_seconds(resource.RUSAGE_CHILDREN) - children  # the pool's workers, reaped by now
        events = sum(r["events"] for r in result.records)
        return elapsed, events, len(result.records), parent, children


def in_process(games: int, mission: str) -> tuple[float, float]:
    """Seconds (and CPU seconds) to play the tournament's games here, one by one: no pool, no
    SQLite, no report."""
    from skirmish.server.tournament.schedule import plan_round, round_robin_pairings
    from skirmish.server.tournament.worker import play_game

    config = load_config(None, {"bots": "random,random", "mission": mission, "games": games, "seed": 1,
                                "workers": 1, "out": "unused"})
    config.seed = 1
    specs = plan_round(config, 0, round_robin_pairings(config.entrants))
    start, cpu = time.perf_counter(), cpu_seconds(resource.RUSAGE_SELF)
    for spec in specs:
        play_game(spec)
    return time.perf_counter() - start, cpu_seconds(resource.RUSAGE_SELF) - cpu


def _play_and_exit(games: int, mission: str) -> None:
    in_process(games, mission)
    os._exit(0)


def side_by_side(games: int, mission: str, processes: int) -> float:
    """Games/s of ``processes`` forked children each playing the games of (a), all at once."""
    start = time.perf_counter()
    pids = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:  # (the child plays and exits without running anything of the parent's)
            try:
                _play_and_exit(games, mission)
            finally:
                os._exit(1)
        pids.append(pid)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"a child playing the games exited with {os.waitstatus_to_exitcode(status)}")
    return processes * games / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--mission", default="ridge")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f}; random vs random, {args.games} games on {args.mission}, best of {args.repeat}")
    once(10, args.mission, 2)  # warm up: imports, mission parsing, page cache
    seconds, cpu_a = min(in_process(args.games, args.mission) for _ in range(args.repeat))
    print(f"  (a) in this process, no pool, no recording: {args.games / seconds:6.1f} games/s "
          f"({1000 * cpu_a / args.games:.2f} ms CPU per game)")
    best: dict[int, tuple] = {}
    cpu = {1: [0.0, 0.0], 2: [0.0, 0.0]}  # parent, workers: CPU seconds over every run
    for r in range(args.repeat):
        for workers in (1, 2):  # alternating, so that both see the same neighbours
            run = once(args.games, args.mission, workers)
            seconds, events, recorded, parent, children = run
            assert recorded == args.games
            cpu[workers][0] += parent
            cpu[workers][1] += children
            print(f"      run {r + 1}, {workers} worker{'s' if workers > 1 else ' '}: {recorded / seconds:6.1f} games/s; "
                  f"CPU per game: parent {1000 * parent / recorded:5.2f} ms, workers {1000 * children / recorded:5.2f} ms; "
                  f"load average {os.getloadavg()[0]:.2f}")
            if workers not in best or seconds < best[workers][0]:
                best[workers] = run
    rates = {}
    for workers in (1, 2):
        seconds, events, recorded, _, _ = best[workers]
        rates[workers] = recorded / seconds
        print(f"  ({'b' if workers == 1 else 'c'}) {workers} worker{'s' if workers > 1 else ' '}: {recorded} games in {seconds:6.2f} s = "
              f"{rates[workers]:6.1f} games/s ({events / seconds:,.0f} events/s stored and recorded), best of {args.repeat}")
    games = args.games * args.repeat
    parent, worker = (sum(cpu[w][0] for w in cpu) / (2 * games), sum(cpu[w][1] for w in cpu) / (2 * games))
    print(f"  CPU per game over all runs: parent {1000 * parent:.2f} ms, workers {1000 * worker:.2f} ms "
          f"(parent/workers {parent / worker:.3f}); the ceiling on 2 free cores 2W/(W+P): x{2 * worker / (worker + parent):.2f}")
    host = {1: 0.0, 2: 0.0}
    for r in range(args.repeat):
        for processes in (1, 2):
            rate = side_by_side(args.games, args.mission, processes)
            host[processes] = max(host[processes], rate)
            print(f"      (d) run {r + 1}, {processes} process{'es' if processes > 1 else ''} playing at once: "
                  f"{rate:6.1f} games/s; load average {os.getloadavg()[0]:.2f}")
    scaling, machine = rates[2] / rates[1], host[2] / host[1]
    print(f"  (d) the machine: the games of (a) in 2 processes at once x{machine:.2f} the rate of 1 "
          f"({host[1]:.1f} -> {host[2]:.1f} games/s, best of {args.repeat})")
    print(f"  scaling 1 -> 2 workers (c)/(b): x{scaling:.2f} (ideal x2.00); against the machine's (d): "
          f"{scaling / machine:.2f} of it; load average now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

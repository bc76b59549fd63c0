"""Benchmark: the playing strength of the built-in bots, in mirrored pairs.

    python bench/bench_strength.py [--games 100] [--budget-ms 200] [--mission ridge]
                                   [--workers 2] [--matchups greedy-random,mcts-random,mcts-greedy]
                                   [--seed 0] [--profile]

Each matchup ``X-Y`` is played as mirrored pairs: for every match seed, one game with X as
side a and one with X as side b, on the same server dice (provably fair dice seeded from the
match seed), so the luck of the dice and the advantage of a side cancel as far as they can.
Every game runs in process through ``skirmish.server.match.play_match`` (a ``MemoryStore``): each bot
sees only its own side's view (``SideView``), exactly as in any match. ``mcts`` gets
``--budget-ms`` per decision; the bots' seeds come from the match seed, so a run can be
repeated (the search's time budget makes it depend on the machine's speed, though).

For each matchup it prints the first bot's win rate (a draw counts as half) with its 95%
Wilson interval, its score as side a and as side b, the draws, the number of games, and the
mean (and 99th percentile) time each bot took per decision, then PASS or FAIL against the
targets:

    greedy beats random >= 75%      mcts beats random >= 90%      mcts beats greedy >= 60%

each over at least 100 games, with mean decision times within 200 ms. PASS means the win
rate's point estimate meets the target; the interval shows how sure that is.

Games run in ``--workers`` processes (default 2). The exit status is 0 either way, as for the
other benchmarks. The defaults take about half an hour on a
two-core laptop. ``--profile`` profiles one game of the first matchup with pyinstrument instead.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.bots import make_bot  # noqa: E402
from skirmish.bots.base import Bot  # noqa: E402
from skirmish.server import missions  # noqa: E402
from skirmish.server.match import play_match  # noqa: E402
from skirmish.server.store import MemoryStore  # noqa: E402

TARGETS = {("greedy", "random"): 0.75, ("mcts", "random"): 0.90, ("mcts", "greedy"): 0.60}
MIN_GAMES = 100
MAX_DECISION_MS = 200.0


class TimedBot(Bot):
    """Wraps a bot and records how long each of its decisions took."""

    def __init__(self, inner: Bot):
        self.inner = inner
        self.name = inner.name
        self.times: list[float] = []

    def new_game(self, side: str) -> None:
        self.side = side
        self.inner.new_game(side)

    def choose(self, view, decision):
        t0 = time.perf_counter()
        option = self.inner.choose(view, decision)
        self.times.append(time.perf_counter() - t0)
        return option


def build(name: str, seed: int, budget_ms: float) -> Bot:
    return make_bot(f"mcts:{budget_ms:g}" if name == "mcts" else name, seed)


@dataclass
class Game:
    score: float  # the first bot's: 1 a win, 0.5 a draw, 0 a loss
    first_side: str
    times: dict[str, list[float]] = field(default_factory=dict)  # per bot name: its decisions' times
    reason: str = ""


def play_one(job: tuple[str, str, str, int, bool, float]) -> Game:
    first, second, mission_id, seed, swapped, budget_ms = job
    mission = missions.load(mission_id)
    first_side = "b" if swapped else "a"
    second_side = "a" if swapped else "b"
    bots = {first_side: TimedBot(build(first, 2 * seed, budget_ms)),
            second_side: TimedBot(build(second, 2 * seed + 1, budget_ms))}
    result = asyncio.run(play_match(MemoryStore(), mission, bots, seed=seed, game_id=f"g-strength-{seed}-{int(swapped)}"))
    winner = result.outcome.winner
    score = 0.5 if winner is None else (1.0 if winner == first_side else 0.0)
    return Game(score, first_side, {"first": bots[first_side].times, "second": bots[second_side].times},
                result.outcome.reason)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a rate ``score / n`` (draws counted as half a win)."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def run_matchup(first: str, second: str, args, pool) -> bool:
    pairs = max(1, (args.games + 1) // 2)
    jobs = [(first, second, args.mission, args.seed + i, swapped, args.budget_ms)
            for i in range(pairs) for swapped in (False, True)]
    t0 = time.perf_counter()
    games: list[Game] = pool.map(play_one, jobs, chunksize=1) if pool else [play_one(j) for j in jobs]
    wall = time.perf_counter() - t0
    n = len(games)
    score = sum(g.score for g in games)
    lo, hi = wilson(score, n)
    draws = sum(1 for g in games if g.score == 0.5)
    as_a = [g.score for g in games if g.first_side == "a"]
    as_b = [g.score for g in games if g.first_side == "b"]
    t_first = [t for g in games for t in g.times["first"]]
    t_second = [t for g in games for t in g.times["second"]]
    mean_first = 1000 * sum(t_first) / max(1, len(t_first))
    mean_second = 1000 * sum(t_second) / max(1, len(t_second))
    rate = score / n
    print(f"{first} vs {second} on {args.mission}: {first} wins {rate:.1%} "
          f"(95% CI {lo:.1%}-{hi:.1%}) of {n} games ({n // 2} mirrored pairs); "
          f"score {score:g}/{n}: as side a {sum(as_a):g}/{len(as_a)}, as side b {sum(as_b):g}/{len(as_b)}; "
          f"{draws} draws")
    print(f"  decision time: {first} mean {mean_first:.1f} ms (p99 {1000 * percentile(t_first, 0.99):.0f} ms, "
          f"{len(t_first)} decisions), {second} mean {mean_second:.1f} ms "
          f"(p99 {1000 * percentile(t_second, 0.99):.0f} ms, {len(t_second)} decisions); wall {wall:.0f}s")
    target = TARGETS.get((first, second))
    if target is None:
        print("  (no target for this matchup)")
        return True
    ok_rate = rate >= target
    ok_games = n >= MIN_GAMES
    ok_time = mean_first <= MAX_DECISION_MS and mean_second <= MAX_DECISION_MS
    ok = ok_rate and ok_games and ok_time
    why = []
    if not ok_rate:
        why.append(f"win rate {rate:.1%} < {target:.0%}")
    if not ok_games:
        why.append(f"{n} games < {MIN_GAMES}")
    if not ok_time:
        why.append(f"mean decision time over {MAX_DECISION_MS:.0f} ms")
    sure = "the whole interval is above the target" if lo >= target else f"interval reaches down to {lo:.1%}"
    print(f"  target: {first} beats {second} >= {target:.0%} over >= {MIN_GAMES} games at <= "
          f"{MAX_DECISION_MS:.0f} ms/decision -> {'PASS' if ok else 'FAIL'}"
          + (f" ({sure})" if ok else f" ({'; '.join(why)})"))
    return ok


def profile(first: str, second: str, args) -> None:
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.0005)
    profiler.start()
    game = play_one((first, second, args.mission, args.seed, False, args.budget_ms))
    profiler.stop()
    print(f"one game, {first} (side a) vs {second}: score {game.score}, {game.reason}")
    print(profiler.output_text(unicode=True, color=False, show_all=False))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=MIN_GAMES, help=f"games per matchup, in mirrored pairs (default {MIN_GAMES})")
    ap.add_argument("--budget-ms", type=float, default=MAX_DECISION_MS, help="mcts time budget per decision (default 200)")
    ap.add_argument("--mission", default="ridge", help="bundled mission id or a mission file (default ridge)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--matchups", default="greedy-random,mcts-random,mcts-greedy",
                    help="comma-separated X-Y pairs (default greedy-random,mcts-random,mcts-greedy)")
    ap.add_argument("--seed", type=int, default=0, help="first match seed (default 0)")
    ap.add_argument("--profile", action="store_true", help="profile one game of the first matchup and stop")
    args = ap.parse_args(argv)
    missions.load(args.mission)  # fail early on a bad mission
    matchups = []
    for item in args.matchups.split(","):
        first, sep, second = item.strip().partition("-")
        if not sep or not first or not second:
            ap.error(f"a matchup is X-Y, e.g. mcts-greedy, not {item!r}")
        build(first, 0, args.budget_ms), build(second, 0, args.budget_ms)  # unknown bots fail here
        matchups.append((first, second))
    if args.profile:
        profile(*matchups[0], args)
        return 0
    print(f"bench_strength: Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"{args.workers} workers; mission {args.mission}; mcts budget {args.budget_ms:g} ms/decision; "
          f"match seeds {args.seed}..{args.seed + (args.games + 1) // 2 - 1}")
    results = []
    with multiprocessing.Pool(args.workers) if args.workers > 1 else _NoPool() as pool:
        for first, second in matchups:
            results.append(run_matchup(first, second, args, pool))
    print(f"targets: {sum(results)} of {len(results)} matchups PASS")
    return 0  # like the other benchmarks: figures to read, not a gate


class _NoPool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())

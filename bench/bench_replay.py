"""Benchmark: replay throughput on one core (decode + hash-chain check + evolve).

    python bench/bench_replay.py [--events N] [--repeat R] [--profile] [--verify]

Setup (not timed): N events' worth of finished games (ridge, two random players, provably
fair dice with the seed revealed at the end) are played in memory, encoded as stored
(MessagePack) and given their chain hashes, exactly as the event store would hold them.

Then, from one run, side by side, over the same stored events (best of R repetitions, each
timed with ``time.perf_counter``, the garbage collector left on as in a server):

(a) decode only: ``skirmish.engine.codec.decode_event`` on every event's bytes;
(b) (a) + the hash-chain check: ``skirmish.engine.log.chain_hash`` over the exact stored bytes, compared
    with the stored hash;
(c) (b) + ``skirmish.engine.evolve``: the whole replay, each game from ``GameCreated`` to its last event
    (the issue's figure: "replay throughput (decode + hash check + evolve, events/s; aim
    >= 300,000 on one core)").

After (c) each replayed state's hash is compared with the live game's, so the figure is for a
correct replay. ``--verify`` adds (d), the full audit ``skirmish.engine.verify.verify_log`` (seed, every
roll recomputed, every command re-run), for scale; ``--profile`` profiles (c) with pyinstrument.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.engine.codec import decode_event, encode_event, state_hash  # noqa: E402
from skirmish.engine.commands import Choose, Start  # noqa: E402
from skirmish.engine.decide import decide  # noqa: E402
from skirmish.engine.dice import ProvablyFairDice  # noqa: E402
from skirmish.engine.events import SeedRevealed  # noqa: E402
from skirmish.engine.evolve import evolve, initial_state  # noqa: E402
from skirmish.engine.log import GENESIS_HASH, chain_hash, chain_hashes  # noqa: E402
from skirmish.engine.mission import game_created  # noqa: E402
from skirmish.engine.verify import LoggedEvent, verify_log  # noqa: E402
from skirmish.server import missions  # noqa: E402

AIM = 300_000  # events/s for (c), on one core


class Game:
    __slots__ = ("game_id", "datas", "hashes", "final_hash")

    def __init__(self, game_id: str, datas: list[bytes], hashes: list[bytes], final_hash: str):
        self.game_id, self.datas, self.hashes, self.final_hash = game_id, datas, hashes, final_hash


def play(index: int, mission) -> Game:
    """One finished game with provably fair dice, as the store would hold it."""
    game_id = f"g-bench-{index:06d}"
    dice = ProvablyFairDice(hashlib.sha256(f"bench-replay:{index}".encode()).digest())
    created = game_created(game_id, mission, "fair", dice.commitment)
    state = initial_state(created)
    log = [created]
    rng = random.Random(index)
    command = Start()
    while True:
        events = decide(state, command, dice)
        if state.outcome is None and events and type(events[-1]).__name__ == "GameEnded":
            events.append(SeedRevealed(server_seed=dice.server_seed_hex))  # as skirmish.server.game does
        for e in events:
            evolve(state, e)
        log.extend(events)
        if state.outcome is not None:
            break
        p = state.pending
        command = Choose(p.id, rng.choice(p.options), p.side)
    datas = [encode_event(e) for e in log]
    return Game(game_id, datas, chain_hashes(game_id, datas), state_hash(state))


def make_games(n_events: int) -> list[Game]:
    mission = missions.load("ridge")
    games: list[Game] = []
    total = 0
    while total < n_events:
        g = play(len(games), mission)
        games.append(g)
        total += len(g.datas)
    return games


# ---------------------------------------------------------------------------- the timed loops


def decode_only(games: list[Game]) -> None:
    decode = decode_event
    for g in games:
        for data in g.datas:
            decode(data)


def decode_and_chain(games: list[Game]) -> None:
    decode, link = decode_event, chain_hash
    for g in games:
        prev, gid = GENESIS_HASH, g.game_id
        for seq, (data, stored) in enumerate(zip(g.datas, g.hashes), start=1):
            prev = link(prev, gid, seq, data)
            if prev != stored:
                raise AssertionError(f"{gid}: chain broken at {seq}")
            decode(data)


def replay_all(games: list[Game]) -> list:
    """decode + chain check + evolve: every game replayed into its state."""
    decode, link, apply = decode_event, chain_hash, evolve
    states = []
    for g in games:
        gid, datas, hashes = g.game_id, g.datas, g.hashes
        prev = link(GENESIS_HASH, gid, 1, datas[0])
        if prev != hashes[0]:
            raise AssertionError(f"{gid}: chain broken at 1")
        state = initial_state(decode(datas[0]))
        for seq in range(2, len(datas) + 1):
            data = datas[seq - 1]
            prev = link(prev, gid, seq, data)
            if prev != hashes[seq - 1]:
                raise AssertionError(f"{gid}: chain broken at {seq}")
            apply(state, decode(data))
        states.append(state)
    return states


def verify_all(games: list[Game]) -> None:
    for g in games:
        report = verify_log(g.game_id, [LoggedEvent(i, d, h) for i, (d, h) in enumerate(zip(g.datas, g.hashes), 1)])
        if not report.ok:
            raise AssertionError(f"{g.game_id}: {report.summary()}")


def best_of(repeat: int, fn, games: list[Game]) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn(games)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=200_000, help="events to replay (whole games; default 200000)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions; the best is reported (default 3)")
    ap.add_argument("--profile", action="store_true", help="profile (c) with pyinstrument and print where the time goes")
    ap.add_argument("--verify", action="store_true", help="also time (d): the full audit, verify_log")
    args = ap.parse_args(argv)

    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
        except OSError:
            pass
    print(f"bench_replay: Python {platform.python_version()} on {platform.machine()}, one core; "
          f"best of {args.repeat}")
    t0 = time.perf_counter()
    games = make_games(args.events)
    n = sum(len(g.datas) for g in games)
    size = sum(len(d) for g in games for d in g.datas)
    print(f"setup: {len(games)} finished games (ridge, random players, provably fair dice), {n} events, "
          f"{size / n:.0f} bytes/event on average, played and encoded in {time.perf_counter() - t0:.1f}s (not timed)")

    # correctness first: the replay gives every live game's final state
    for g, state in zip(games, replay_all(games)):
        if state_hash(state) != g.final_hash:
            raise AssertionError(f"{g.game_id}: the replayed state differs from the live one")

    rows = [("(a) decode only", decode_only),
            ("(b) decode + hash-chain check", decode_and_chain),
            ("(c) decode + hash-chain check + evolve", replay_all)]
    if args.verify:
        rows.append(("(d) full audit: verify_log (seed, dice, rules re-run)", verify_all))
    rates = {}
    for label, fn in rows:
        secs = best_of(args.repeat, fn, games)
        rates[label] = n / secs
        print(f"  {label:<56s} {n / secs:>12,.0f} events/s  ({secs * 1e3:8.1f} ms, {secs / n * 1e6:.2f} µs/event)")
    c = rates["(c) decode + hash-chain check + evolve"]
    a = rates["(a) decode only"]
    b = rates["(b) decode + hash-chain check"]
    per = {"decode": 1e6 / a, "chain hash": 1e6 / b - 1e6 / a, "evolve (+ loop)": 1e6 / c - 1e6 / b}
    print("  share of (c): " + ", ".join(f"{k} {v:.2f} µs ({v / (1e6 / c):.0%})" for k, v in per.items()))
    met = c >= AIM
    print(f"aim: (c) >= {AIM:,} events/s on one core -> {'MET' if met else 'NOT MET'} "
          f"({c:,.0f} events/s, {c / AIM:.2f}x the aim)")

    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
        replay_all(games)
        profiler.stop()
        print(profiler.output_text(unicode=True, color=False, show_all=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

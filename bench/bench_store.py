"""Benchmark: the SQLite event store's durable append throughput against raw sqlite3.

    python bench/bench_store.py [--events N] [--games G] [--batch K] [--repeat R] [--command-ids both|yes|no]
                                [--profile]

Prints, from one run, side by side:

(a) raw sqlite3 inserts into the store's own schema with the store's own connection settings
    (WAL, synchronous=FULL), on one thread, writing the same rows (events with their chain hashes,
    plus command-id rows) in transactions of K events, K being the mean transaction size that (b)
    reached (or --batch);
(b) ``SQLiteStore.append`` driven by G concurrent game tasks, each appending batches of 3-5 events
    of 80-120 bytes, relying on group commit;

and the ratio (b)/(a), for two workloads: plain appends, and appends that each carry a command id
(both (a) and (b) then write a row to the command-id table; (b) also looks each id up first, as
idempotency requires). Each is run R times, alternating, on fresh files; the median is reported
with the range, because disk and CPU timings on shared machines vary by tens of percent from one
run to the next. Every event counted is durable: its transaction was committed with
synchronous=FULL (for (b): before its append() returned).

The workload (who appends how many events, with which command id) is planned before the clock
starts; payloads come from a fixed pool, so memory stays bounded (a few MB for the plan). Files go
to a temporary directory, removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.engine.log import GENESIS_HASH, chain_hash  # noqa: E402
from skirmish.server.store import sqlite_schema as sqlite_store  # noqa: E402
from skirmish.server.store.sqlite import SQLiteStore  # noqa: E402

TARGET = 50_000  # durable events/s wanted from (b)

# One append: (game index, first payload index in the pool, number of events, command id or None).
Append = tuple[int, int, int, "str | None"]


def payload_pool(size_min: int, size_max: int, max_per_append: int, n: int = 4096) -> list[bytes]:
    """Random payloads; the first ``max_per_append`` are repeated at the end so that slices never wrap."""
    rnd = random.Random(1)
    pool = [rnd.randbytes(rnd.randint(size_min, size_max)) for _ in range(n)]
    return pool + pool[:max_per_append]


def plan(args: argparse.Namespace, pool_size: int) -> list[list[Append]]:
    """Each game's appends, in order: sizes lo..hi adding up to events/games per game."""
    per_game = args.events // args.games
    games = []
    for g in range(args.games):
        rnd = random.Random(1000 + g)
        left, p, appends = per_game, g * 7 % pool_size, []
        while left > 0:
            k = min(left, rnd.randint(args.min_per_append, args.max_per_append))
            cmd = f"cmd-{len(appends) + 1}" if args.command_ids else None
            appends.append((g, p, k, cmd))
            left -= k
            p = (p + k) % pool_size
        games.append(appends)
    return games


def game_id(g: int) -> str:
    return f"game-{g:04d}"


# ---------------------------------------------------------------------------- (b) the store


async def bench_store(path: Path, work: list[list[Append]], pool: list[bytes]) -> dict[str, float]:
    store = await SQLiteStore.open(path)
    try:
        await asyncio.gather(*(store.create_game(game_id(g)) for g in range(len(work))))
        s0 = (store.stats.transactions, store.stats.events, store.stats.requests)

        async def play(appends: list[Append]) -> int:
            seq = 0
            gid = game_id(appends[0][0])
            for _, p, k, cmd in appends:
                r = await store.append(gid, seq, pool[p : p + k], command_id=cmd)
                seq = r.last_seq
            return seq

        t0 = time.perf_counter()
        finals = await asyncio.gather(*(play(appends) for appends in work))
        elapsed = time.perf_counter() - t0
        events = store.stats.events - s0[1]
        expected = sum(k for appends in work for _, _, k, _ in appends)
        assert events == expected == sum(finals), (events, expected, sum(finals))
        # Spot-check what landed: last seqs and one game's chain.
        for g in range(min(5, len(work))):
            assert await store.last_seq(game_id(g)) == finals[g]
        prev = GENESIS_HASH
        for ev in await store.read(game_id(0)):
            prev = chain_hash(prev, game_id(0), ev.seq, ev.data)
            assert ev.hash == prev
        return {
            "events": events,
            "seconds": elapsed,
            "txns": store.stats.transactions - s0[0],
            "requests": store.stats.requests - s0[2],
        }
    finally:
        await store.close()


# ---------------------------------------------------------------------------- (a) raw sqlite3


def raw_batches(work, pool: list[bytes], per_txn: int, prefix: str = ""):
    """The rows plain INSERTs write for ``work`` (games ``prefix`` + ``game_id(g)``, interleaved round
    by round, each event chained), as (event rows, command rows) of at least ``per_txn`` events a
    batch (the last may have fewer)."""
    heads = [(0, GENESIS_HASH)] * len(work)
    ev_rows: list[tuple[str, int, bytes, bytes]] = []
    cmd_rows: list[tuple[str, str, int, int, bytes]] = []
    for r in range(max(len(appends) for appends in work)):
        for appends in work:
            if r >= len(appends):
                continue
            g, p, k, cmd = appends[r]
            gid = prefix + game_id(g)
            seq, h = heads[g]
            first = seq + 1
            for data in pool[p : p + k]:
                seq += 1
                h = chain_hash(h, gid, seq, data)
                ev_rows.append((gid, seq, data, h))
            heads[g] = (seq, h)
            if cmd is not None:
                cmd_rows.append((gid, cmd, first, seq, h))
            if len(ev_rows) >= per_txn:
                yield ev_rows, cmd_rows
                ev_rows, cmd_rows = [], []
    if ev_rows:
        yield ev_rows, cmd_rows


def bench_raw(path: Path, work: list[list[Append]], pool: list[bytes], events_per_txn: int) -> dict[str, float]:
    """The same rows, games interleaved round by round as in (b), one COMMIT per >= events_per_txn events."""
    out: dict[str, float] = {}

    def run() -> None:
        conn = sqlite_store.connect(path)
        sqlite_store.create_schema(conn, str(path))
        conn.executemany(sqlite_store.INSERT_GAME, [(game_id(g), time.time(), b"", b"") for g in range(len(work))])
        txns = events = 0

        def flush(ev_rows, cmd_rows) -> None:
            nonlocal txns, events
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(sqlite_store.INSERT_EVENT, ev_rows)
            if cmd_rows:
                conn.executemany(sqlite_store.INSERT_COMMAND, cmd_rows)
            conn.execute("COMMIT")
            txns += 1
            events += len(ev_rows)

        t0 = time.perf_counter()
        for ev_rows, cmd_rows in raw_batches(work, pool, events_per_txn):
            flush(ev_rows, cmd_rows)
        out.update(events=events, seconds=time.perf_counter() - t0, txns=txns)
        conn.close()

    t = threading.Thread(target=run, name="raw-sqlite")
    t.start()
    t.join()
    return out


# ---------------------------------------------------------------------------- main


def run_scenario(args: argparse.Namespace, command_ids: bool, tmp: Path) -> list[str]:
    """(a) and (b), alternating, ``args.repeat`` times each; returns the lines to print."""
    args = argparse.Namespace(**{**vars(args), "command_ids": command_ids})
    pool = payload_pool(args.size_min, args.size_max, args.max_per_append)
    work = plan(args, len(pool) - args.max_per_append)
    a_runs: list[dict[str, float]] = []
    b_runs: list[dict[str, float]] = []
    profile_text = ""
    per_txn = args.batch
    tag = "cmd" if command_ids else "plain"
    for i in range(args.repeat):
        profiler = None
        if args.profile and i == 0:
            from pyinstrument import Profiler

            profiler = Profiler()
            profiler.start()
        b_runs.append(asyncio.run(bench_store(tmp / f"store-{tag}-{i}.sqlite", work, pool)))
        if profiler is not None:
            profiler.stop()
            profile_text = profiler.output_text(unicode=False, color=False)
        if not per_txn:
            per_txn = max(1, round(b_runs[0]["events"] / max(1, b_runs[0]["txns"])))
        a_runs.append(bench_raw(tmp / f"raw-{tag}-{i}.sqlite", work, pool, per_txn))
        for f in tmp.iterdir():  # keep the disk use of a long run bounded
            f.unlink()

    a_rates = [r["events"] / r["seconds"] for r in a_runs]
    b_rates = [r["events"] / r["seconds"] for r in b_runs]
    a_med, b_med = statistics.median(a_rates), statistics.median(b_rates)
    b_txns = sum(r["txns"] for r in b_runs) / len(b_runs)
    b_reqs = sum(r["requests"] for r in b_runs) / len(b_runs)
    b_events = b_runs[0]["events"]

    def span(xs: list[float]) -> str:
        return f"{min(xs):,.0f}..{max(xs):,.0f}"

    what = "each append with a command id (idempotent)" if command_ids else "plain appends (no command id)"
    lines = [
        f"-- {what}",
        f"(a) raw sqlite3, 1 thread, {per_txn} events/txn:        {a_med:>9,.0f} events/s  ({span(a_rates)}; "
        f"{a_runs[0]['txns']:,} txns per run)",
        f"(b) SQLiteStore.append, group commit, {args.games} tasks: {b_med:>9,.0f} events/s  ({span(b_rates)}; "
        f"{b_txns:,.0f} txns per run, mean {b_events / b_txns:.0f} events in {b_reqs / b_txns:.0f} appends per txn)",
        f"ratio (b)/(a): {b_med / a_med:.2f}  (per run: {', '.join(f'{b / a:.2f}' for a, b in zip(a_rates, b_rates))})",
        f"target (b) >= {TARGET:,} durable events/s: {'met' if b_med >= TARGET else 'NOT met'}",
    ]
    if profile_text:
        lines.append(profile_text)
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=200_000, help="events appended in each run (default 200000)")
    ap.add_argument("--games", type=int, default=200, help="concurrent games in (b) (default 200)")
    ap.add_argument(
        "--batch", type=int, default=0, help="events per raw transaction in (a) (default: the mean reached by (b))"
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs of (a) and (b) each; medians are reported (default 3)")
    ap.add_argument("--min-per-append", type=int, default=3)
    ap.add_argument("--max-per-append", type=int, default=5)
    ap.add_argument("--size-min", type=int, default=80, help="smallest event payload in bytes")
    ap.add_argument("--size-max", type=int, default=120, help="largest event payload in bytes")
    ap.add_argument(
        "--command-ids",
        choices=("both", "yes", "no"),
        default="both",
        help="run the workload without command ids, with one per append, or both (default both)",
    )
    ap.add_argument("--profile", action="store_true", help="profile the first (b) run of each workload with pyinstrument")
    ap.add_argument("--dir", type=Path, default=None, help="directory for the files (default: a temp dir)")
    args = ap.parse_args()
    if args.games < 1 or args.events < args.games or args.repeat < 1:
        ap.error("need --repeat >= 1 and --events >= --games >= 1")
    if not 1 <= args.min_per_append <= args.max_per_append:
        ap.error("need 1 <= --min-per-append <= --max-per-append")

    per_game = args.events // args.games
    print(
        f"store benchmark: {per_game * args.games:,} events per run, {args.games} games, {args.min_per_append}-"
        f"{args.max_per_append} events/append of {args.size_min}-{args.size_max} bytes; WAL + synchronous=FULL; "
        f"median of {args.repeat} runs (range)",
        flush=True,
    )
    scenarios = {"both": (False, True), "no": (False,), "yes": (True,)}[args.command_ids]
    with tempfile.TemporaryDirectory(prefix="bench_store-", dir=args.dir) as tmp:
        for command_ids in scenarios:
            print("\n".join(run_scenario(args, command_ids, Path(tmp))), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

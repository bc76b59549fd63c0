"""Benchmark: the PostgreSQL store, and the server on it, side by side with their baselines.

    python bench/bench_pg.py [--url postgresql://postgres@127.0.0.1:5432/test] [--events N] [--games G]
                             [--repeat R] [--server-games S] [--seconds T] [--warmup W] [--parts store,server]

Prints, from one run:

1. **store**: the workload of bench/bench_store.py (G games appending batches of 3-5 events of
   80-120 bytes, each append with a command id), R times each, alternating:
   (a) raw INSERTs of the same rows (events with their chain hashes, command-id rows) over the
       store's own connection pool (``PostgresStore.pool``: same server, same connection
       settings, ``synchronous_commit=on``), ``executemany`` (which psycopg pipelines) in
       transactions of K events, K being the mean transaction size that (b) reached;
   (b) ``PostgresStore.append`` driven by G concurrent game tasks, relying on group commit
       (every append checked, idempotent, its command id looked up first), up to 4 batches in
       flight (the default), and (b1) with one batch at a time;
   and the ratio (b)/(a). The same for SQLite (bench/bench_store.py's (a) and (b)), so the two
   stores' figures come from one run on the same machine.
2. **server**: ``skirmish serve`` on SQLite and on PostgreSQL, the same closed-loop load of
   bench/bench_server.py's peak phase (S games of ``ridge``, 2 connections each, every decision
   answered at once), one after the other: commands/s, command -> ack p50/p99, CPU of the server
   (its writer process included) and of everything else (PostgreSQL's backends among it).

Each PostgreSQL run uses a schema of its own in the database ``--url`` names, dropped at the end.
Every event counted is durable (committed with ``synchronous_commit=on`` / ``synchronous=FULL``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_server
import bench_store
import psycopg
from harness import loadavg, nofile_for, percentile, start_server
from skirmish.engine.log import GENESIS_HASH, chain_hash
from skirmish.server.store.postgres import PostgresStore

RAW_EVENT = "INSERT INTO events (game_id, seq, data, hash) VALUES (%s, %s, %s, %s)"
RAW_COMMAND = "INSERT INTO commands (game_id, command_id, first_seq, last_seq, last_hash) VALUES (%s, %s, %s, %s, %s)"
RAW_GAME = "INSERT INTO games (game_id, created_at, meta) VALUES (%s, %s, '')"


async def pg_store_run(url: str, schema: str, work, pool: list[bytes], per_txn: int | None,
                       max_inflight: int = 4) -> tuple[dict, dict]:
    """(b) then (a) on the same store's pool; returns both results."""
    game_id = bench_store.game_id
    store = await PostgresStore.open(url, schema=schema, max_inflight=max_inflight)
    try:
        await asyncio.gather(*(store.create_game(game_id(g)) for g in range(len(work))))
        s0 = (store.stats.transactions, store.stats.events, store.stats.requests)

        async def play(appends) -> int:
            seq, gid = 0, game_id(appends[0][0])
            for _, p, k, cmd in appends:
                seq = (await store.append(gid, seq, pool[p : p + k], command_id=cmd)).last_seq
            return seq

        t0 = time.perf_counter()
        finals = await asyncio.gather(*(play(a) for a in work))
        b = {"seconds": time.perf_counter() - t0, "events": store.stats.events - s0[1],
             "txns": store.stats.transactions - s0[0], "requests": store.stats.requests - s0[2]}
        assert b["events"] == sum(finals)
        prev = GENESIS_HASH
        for ev in await store.read(game_id(0)):
            prev = chain_hash(prev, game_id(0), ev.seq, ev.data)
            assert ev.hash == prev
        a = await raw_inserts(store, work, pool, per_txn or max(1, round(b["events"] / max(1, b["txns"]))))
        return a, b
    finally:
        await store.close()


async def raw_inserts(store: PostgresStore, work, pool: list[bytes], per_txn: int) -> dict:
    """(a): the same rows, games interleaved round by round, as plain INSERTs in transactions of per_txn events."""
    async with store.pool.connection() as conn:
        rows_games = [(f"raw-{bench_store.game_id(g)}", time.time()) for g in range(len(work))]
        async with conn.cursor() as cur:
            await cur.executemany(RAW_GAME, rows_games)
        txns = events = 0

        async def flush(ev_rows, cmd_rows) -> None:
            nonlocal txns, events
            async with conn.transaction(), conn.cursor() as cur:
                await cur.executemany(RAW_EVENT, ev_rows)
                if cmd_rows:
                    await cur.executemany(RAW_COMMAND, cmd_rows)
            txns += 1
            events += len(ev_rows)

        t0 = time.perf_counter()
        for ev_rows, cmd_rows in bench_store.raw_batches(work, pool, per_txn, prefix="raw-"):
            await flush(ev_rows, cmd_rows)
        return {"seconds": time.perf_counter() - t0, "events": events, "txns": txns}


def drop(url: str, schema: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def rate(r: dict) -> float:
    return r["events"] / r["seconds"]


def span(xs: list[float]) -> str:
    return f"{min(xs):,.0f}..{max(xs):,.0f}"


def part_store(args) -> None:
    ns = argparse.Namespace(events=args.events, games=args.games, min_per_append=3, max_per_append=5,
                            size_min=80, size_max=120, command_ids=True)
    pool = bench_store.payload_pool(80, 120, 5)
    work = bench_store.plan(ns, len(pool) - 5)
    pg_a, pg_b, pg_b1, sq_a, sq_b = [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-pg-") as tmp:
        for i in range(args.repeat):
            for inflight, out in ((1, pg_b1), (4, pg_b)):
                schema = f"bench_{uuid.uuid4().hex[:12]}"
                try:
                    a, b = asyncio.run(pg_store_run(args.url, schema, work, pool, None, inflight))
                finally:
                    drop(args.url, schema)
                out.append(b)
                if inflight == 4:
                    pg_a.append(a)
            sq_b.append(asyncio.run(bench_store.bench_store(Path(tmp) / f"s{i}.sqlite", work, pool)))
            per = max(1, round(sq_b[-1]["events"] / max(1, sq_b[-1]["txns"])))
            sq_a.append(bench_store.bench_raw(Path(tmp) / f"r{i}.sqlite", work, pool, per))
            for f in Path(tmp).iterdir():
                f.unlink()
    print(f"\n[store] {args.events:,} events, {args.games} games appending 3-5 events of 80-120 bytes, each append "
          f"with a command id; {args.repeat} runs each, median (range)")
    for name, a_runs, b_runs, raw in (("PostgreSQL", pg_a, pg_b, "raw INSERTs, executemany, same pool"),
                                      ("SQLite", sq_a, sq_b, "raw sqlite3, same settings")):
        ar, br = [rate(r) for r in a_runs], [rate(r) for r in b_runs]
        txns = statistics.mean(r["txns"] for r in b_runs)
        reqs = statistics.mean(r["requests"] for r in b_runs)
        print(f"  {name:10s} (a) {raw:38s} {statistics.median(ar):>9,.0f} events/s ({span(ar)}; "
              f"{a_runs[0]['txns']:,} txns of ~{a_runs[0]['events'] / a_runs[0]['txns']:.0f} events)")
        print(f"  {name:10s} (b) store.append, group commit, {args.games:3d} tasks {statistics.median(br):>9,.0f} "
              f"events/s ({span(br)}; {txns:,.0f} txns, mean {b_runs[0]['events'] / txns:.0f} events in "
              f"{reqs / txns:.0f} appends per txn)")
        if name == "PostgreSQL":
            b1 = [rate(r) for r in pg_b1]
            t1 = statistics.mean(r["txns"] for r in pg_b1)
            print(f"  {name:10s} (b1) the same, one batch in flight     {statistics.median(b1):>9,.0f} events/s "
                  f"({span(b1)}; {t1:,.0f} txns, mean {pg_b1[0]['events'] / t1:.0f} events per txn)")
        print(f"  {name:10s} ratio (b)/(a) {statistics.median(br) / statistics.median(ar):.2f}")


def part_server(args) -> None:
    ns = argparse.Namespace(client_procs=1, codec="msgpack", no_batch=False, compression="none",
                            warmup=args.warmup, seconds=args.seconds, seed=1, setup_concurrency=25,
                            mission="ridge", setup_timeout=600.0)
    nofile = 2 * args.server_games + 512
    nofile_for(nofile)
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-pg-server-") as tmp:
        stores = (("SQLite", str(Path(tmp) / "bench.sqlite")), ("PostgreSQL", f"{args.url}?schema={schema}"))
        try:
            for name, db in stores:
                cmd = [bench_server.PY, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", db,
                       *bench_server.SERVER_LIMITS, "--log-level", "info", "--compression", "none"]
                print(f"\n[server on {name}] {args.server_games} games ({2 * args.server_games} connections), "
                      f"closed loop; load average {loadavg()}", flush=True)
                server, url = start_server(f"serve {name}", cmd, Path(tmp) / f"server-{name}.log", nofile)
                try:
                    r = bench_server.run_phase(name, "games", url, server, ns, Path(tmp), games=args.server_games)
                finally:
                    server.stop(120)
                r["rate"] = r["acks"] / args.seconds
                bench_server.print_games(r, ns, rss=False)
                results[name] = r
        finally:
            drop(args.url, schema)
    print("\n[server] side by side (same load, one after the other):")
    for name, r in results.items():
        v = r.get("lat_ack_ms", [])
        print(f"  {name:10s} {r['rate']:8.1f} commands/s   ack p50 {percentile(v, 50):6.2f} ms  "
              f"p99 {percentile(v, 99):6.2f} ms   server CPU {r['server_cpu'] * 100:.0f}%  "
              f"load generator {r['client_cpu'] * 100:.0f}%  everything else {r['other_cpu'] * 100:.0f}%")
    if len(results) == 2:
        print(f"  ratio PostgreSQL/SQLite: {results['PostgreSQL']['rate'] / results['SQLite']['rate']:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test", help="the PostgreSQL database")
    ap.add_argument("--events", type=int, default=100_000, help="events appended per store run (default 100000)")
    ap.add_argument("--games", type=int, default=200, help="concurrent games in the store part (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per store, medians reported (default 3)")
    ap.add_argument("--server-games", type=int, default=100, help="games in the server part (default 100)")
    ap.add_argument("--seconds", type=float, default=15.0, help="measured seconds per server (default 15)")
    ap.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per server (default 3)")
    ap.add_argument("--parts", default="store,server", help="store, server or both (default)")
    args = ap.parse_args()
    import os
    import platform

    with psycopg.connect(args.url) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
        sync = conn.execute("SHOW synchronous_commit").fetchone()[0]
        fsync = conn.execute("SHOW fsync").fetchone()[0]
    print(f"PostgreSQL store benchmark: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python "
          f"{platform.python_version()}, psycopg {psycopg.__version__} ({psycopg.pq.__impl__}), PostgreSQL {version} "
          f"(fsync={fsync}, synchronous_commit={sync} by default; the store sets it on), load average "
          f"{loadavg()}", flush=True)
    parts = args.parts.split(",")
    if "store" in parts:
        part_store(args)
    if "server" in parts:
        part_server(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

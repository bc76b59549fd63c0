"""Benchmark: several nodes on one PostgreSQL store linked by NATS (docs/store.md, "Several nodes").

    python bench/bench_cluster.py [--url postgresql://postgres@127.0.0.1:5432/test] [--nats nats://127.0.0.1:4222]
                                  [--games G] [--seconds T] [--warmup W] [--kills K] [--takeover-games N]
                                  [--lease-ttl S] [--parts load,takeover]

Prints, from one run:

1. **load**: the same closed-loop load (bench/bench_server.py's peak phase through
   bench/loadgen.py: G games of ``ridge``, every decision answered at once, a game that ends
   replaced) against (a) one node (``skirmish serve --nats``: leases, fenced appends, events
   published), then (b) two nodes, each connection going to one of the two at random (so about
   half of the games have their seats on different nodes, and the commands of the seat that is
   not on the owner's node are forwarded over NATS), or with ``--placement game`` both
   connections of a game to the same node (as a proxy routing by game would: no forwarding, and
   a node hears no other node's events): commands/s, command -> ack p50/p99, and CPU of the nodes
   (all together), of the load generator and of everything else (PostgreSQL, NATS); and the
   messages of events each node heard from the others (``skirmish_events_heard_total``).
2. **takeover**: two nodes, N games created and started on the first (it holds their leases);
   SIGKILL it and time until every one of those games has a live lease on the other node (polling
   the lease table every 10 ms), then restart it and create N more; K kills: p50 and max of the
   time to the first game taken over and to the last.

Each setup uses a PostgreSQL schema of its own (dropped at the end), and so its own NATS subjects.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_server  # noqa: E402
import psycopg  # noqa: E402
from bench_server import PY  # noqa: E402
from harness import (Child, loadavg, machine_busy_s, metric_total, nofile_for, percentile, scrape,  # noqa: E402
                     start_server)


def node_cmd(db: str, nats: str, name: str, ttl: float) -> list[str]:
    return [PY, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", db, "--nats", nats, "--node", name,
            "--lease-ttl", str(ttl), *bench_server.SERVER_LIMITS, "--log-level", "info", "--compression", "none"]


def drop(url: str, schema: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def events_heard(url: str) -> float | None:
    """The node's ``skirmish_events_heard_total`` (None: a node that does not count them)."""
    return metric_total(scrape(url, timeout=5), "skirmish_events_heard_total")


def load_phase(args, tmp: Path, nodes: int) -> dict:
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    db = f"{args.url}?schema={schema}"
    nofile = 2 * args.games + 512
    servers: list[Child] = []
    try:
        urls = []
        for i in range(nodes):
            child, url = start_server(f"node{i + 1}", node_cmd(db, args.nats, f"b{i + 1}", args.lease_ttl),
                                                   tmp / f"node-{nodes}-{i + 1}.log", nofile)
            servers.append(child)
            urls.append(url)
        cmd = [PY, str(bench_server.BENCH / "loadgen.py"), "games", "--url", ",".join(urls), "--codec", "msgpack",
               "--compression", "none", "--warmup", str(args.warmup), "--seconds", str(args.seconds), "--seed", "1",
               "--setup-concurrency", "25", "--games", str(args.games), "--first-game", "0", "--mission", "ridge",
               "--per-game-rate", "0.0", "--probe-timeout", "0", "--placement", args.placement]
        client = Child(f"loadgen {nodes}", cmd, tmp / f"loadgen-{nodes}.log", stdin=True, nofile=2 * args.games + 256)
        try:
            client.expect("ready", 600)
            client.send("go")
            time.sleep(args.warmup)
            cpu0 = ([s.cpu_s() for s in servers], client.cpu_s(), machine_busy_s())
            time.sleep(args.seconds)
            cpu1 = ([s.cpu_s() for s in servers], client.cpu_s(), machine_busy_s())
            heard_by = [events_heard(url) for url in urls]
            result = json.loads(client.expect("result", 300))
            client.wait(60)
        finally:
            client.stop(10)
    finally:
        for s in servers:
            s.stop(60)
        drop(args.url, schema)
    r = bench_server.merge([result])
    r["rate"] = r["acks"] / args.seconds
    r["heard"] = heard_by
    r["server_cpu"] = sum(b - a for a, b in zip(cpu0[0], cpu1[0])) / args.seconds
    r["client_cpu"] = (cpu1[1] - cpu0[1]) / args.seconds
    r["other_cpu"] = max(0.0, (cpu1[2] - cpu0[2]) / args.seconds - r["server_cpu"] - r["client_cpu"])
    return r


def part_load(args, tmp: Path) -> None:
    results = {}
    for nodes in (1, 2):
        print(f"\n[load] {nodes} node(s), {args.games} games ({2 * args.games} connections), closed loop; "
              f"load average {loadavg()}", flush=True)
        results[nodes] = load_phase(args, tmp, nodes)
    print("\n[load] side by side (same load, one after the other):")
    for nodes, r in results.items():
        v = r.get("lat_ack_ms", [])
        print(f"  {nodes} node{'s' if nodes > 1 else ' '}  {r['rate']:8.1f} commands/s   ack p50 {percentile(v, 50):6.2f} ms  "
              f"p99 {percentile(v, 99):7.2f} ms   nodes' CPU {r['server_cpu'] * 100:.0f}%  load generator "
              f"{r['client_cpu'] * 100:.0f}%  everything else {r['other_cpu'] * 100:.0f}%  errors {dict(r.get('errors', {}))}")
        heard = ", ".join("not counted" if h is None else f"{h:,.0f}" for h in r["heard"])
        print(f"           nodes' CPU per command {r['server_cpu'] * 1000 / max(r['rate'], 1e-9):.3f} ms; "
              f"messages of events heard from other nodes, per node, since it started: {heard}")
    print(f"  ratio two nodes / one: {results[2]['rate'] / results[1]['rate']:.2f}")


async def start_games(url: str, n: int) -> list[str]:
    """``n`` games created and joined on the node at ``url`` (started: both seats taken)."""
    from websockets.asyncio.client import connect

    import msgspec

    ids = []
    async with connect(url, subprotocols=["skirmish.v1.msgpack"], proxy=None) as a, \
            connect(url, subprotocols=["skirmish.v1.msgpack"], proxy=None) as b:
        for ws, who in ((a, "a"), (b, "b")):
            await ws.send(msgspec.msgpack.encode({"type": "hello", "protocol": 1, "client": f"takeover-{who}", "id": 1}))
            await ws.recv()
        for i in range(n):
            await a.send(msgspec.msgpack.encode({"type": "create_game", "mission": "ridge", "seat": "a", "id": 10 + i}))
            while (r := msgspec.msgpack.decode(await a.recv())).get("type") != "seated":
                pass
            ids.append(r["game_id"])
            await b.send(msgspec.msgpack.encode({"type": "join", "game_id": r["game_id"], "seat": "b", "id": 10 + i}))
            while msgspec.msgpack.decode(await b.recv()).get("type") != "seated":
                pass
    return ids


def leases(url: str, schema: str, games: list[str]) -> dict[str, str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(f'SELECT game_id, node FROM "{schema}".leases WHERE game_id = ANY(%s) '
                            "AND expires_at > clock_timestamp()", (games,)).fetchall()
    return dict(rows)


def part_takeover(args, tmp: Path) -> None:
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    db = f"{args.url}?schema={schema}"
    first, last = [], []
    print(f"\n[takeover] two nodes, lease TTL {args.lease_ttl:g} s, {args.takeover_games} games on the killed node, "
          f"{args.kills} kills; load average {loadavg()}", flush=True)
    survivor, _ = start_server("t2", node_cmd(db, args.nats, "t2", args.lease_ttl), tmp / "t2.log", 1024)
    try:
        for k in range(args.kills):
            victim, url = start_server(f"t1-{k}", node_cmd(db, args.nats, "t1", args.lease_ttl),
                                                    tmp / f"t1-{k}.log", 1024)
            games = asyncio.run(start_games(url, args.takeover_games))
            assert set(leases(args.url, schema, games).values()) == {"t1"}
            time.sleep(args.lease_ttl / 3)  # (a renewal in between, as in a running node)
            victim.proc.kill()
            killed = time.monotonic()
            victim.wait(10)
            seen_first = None
            while True:
                owners = leases(args.url, schema, games)
                taken = [g for g in games if owners.get(g) == "t2"]
                if taken and seen_first is None:
                    seen_first = time.monotonic() - killed
                if len(taken) == len(games):
                    break
                if time.monotonic() - killed > 60:
                    raise SystemExit("takeover did not happen within 60 s")
                time.sleep(0.01)
            first.append(seen_first)
            last.append(time.monotonic() - killed)
            print(f"  kill {k + 1}: first game taken over after {first[-1]:.2f} s, all {len(games)} after {last[-1]:.2f} s",
                  flush=True)
    finally:
        survivor.stop(60)
        drop(args.url, schema)
    print(f"\n[takeover] after SIGKILL (lease TTL {args.lease_ttl:g} s, renewed every {args.lease_ttl / 3:g} s, "
          f"expired leases looked for every ~{args.lease_ttl / 3:g} s):")
    print(f"  first game: p50 {statistics.median(first):.2f} s  max {max(first):.2f} s")
    print(f"  all games:  p50 {statistics.median(last):.2f} s  max {max(last):.2f} s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test", help="the PostgreSQL database")
    ap.add_argument("--nats", default="nats://127.0.0.1:4222")
    ap.add_argument("--games", type=int, default=50, help="load: games at once (default 50)")
    ap.add_argument("--seconds", type=float, default=15.0, help="load: measured window (default 15)")
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--kills", type=int, default=5, help="takeover: SIGKILLs (default 5)")
    ap.add_argument("--takeover-games", type=int, default=20, help="takeover: games on the killed node (default 20)")
    ap.add_argument("--lease-ttl", type=float, default=3.0, help="the nodes' --lease-ttl (default 3, the server's)")
    ap.add_argument("--parts", default="load,takeover")
    ap.add_argument("--placement", choices=["random", "game"], default="random",
                    help="load, two nodes: each connection to a node at random (default), or both of a game to one")
    ap.add_argument("--logs", default="", metavar="DIR", help="keep the nodes' logs in DIR (default: a temporary folder)")
    args = ap.parse_args()
    import os
    import platform

    print(f"bench_cluster: {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores; "
          f"load average {loadavg()}")
    nofile_for(2 * args.games + 1024)
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        if args.logs:
            Path(args.logs).mkdir(parents=True, exist_ok=True)
            tmp = args.logs
        parts = args.parts.split(",")
        if "load" in parts:
            part_load(args, Path(tmp))
        if "takeover" in parts:
            part_takeover(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())

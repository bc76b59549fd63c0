"""Benchmark: the real server on loopback against a bare websockets + msgpack echo server.

    python bench/bench_server.py [--games G] [--connections C] [--seconds T] [--warmup W]
                                 [--capacity-games N] [--codec msgpack|json] [--phases LIST]
                                 [--profile FILE] ...

Issue 4 and DESIGN.md section 8, measured in one run. Every server runs in its own process and
the client load in another (``bench/loadgen.py``; ``--client-procs`` spreads it over several),
so that client and server never share an event loop. The parent process only starts them, tells
them when to go, reads /proc and prints.

1. **echo**: ``bench/echo_server.py`` (websockets + msgpack: decode the request, send back a reply
   of similar size), C connections (default 2G, the connections of phase 2), each in a closed
   loop (one command-sized request in flight per connection): requests/s, p50, p99.
2. **peak**: ``skirmish serve --port 0 --db FILE`` (SQLite, WAL, ``synchronous=FULL``: every
   ``ack`` is durable), G concurrent games of ``ridge`` (2 connections each, one creating, one
   joining), the deciding seat answering each decision at once with a seeded random option, a
   game that ends replaced by a new one: commands/s (acks received per second, all games) and
   p50/p99 of command -> ack, command -> next decision, command -> first event. The ratio
   commands/s / echo requests/s is the figure of issue 4 (aim: at least 0.4). The server's CPU
   per command is split into the rules (``decide``, ``evolve`` and the views, as the server
   counts them in ``skirmish_rules_seconds_total``, scraped from ``/metrics`` around the window)
   and everything else, each also in echoes (issue 19's aim: 3 for the whole). The summary also
   says what the aim leaves the server on this machine: at the aimed rate, the CPU the load
   generator needs (at its measured cost per command) and the server's must fit in the cores.
3. **half**: the same games, each command paced (Poisson) so that all together offer half the
   peak rate of phase 2: p50/p99 latency (aim: p99 command -> ack under 50 ms; the event and the
   decision come before the ack, so their p99s are lower still).
4. **capacity**: N games at once (default 1,000: 2,000 connections), all seated and started,
   all playing slowly (one command every ``--capacity-interval`` seconds per game, Poisson);
   then a probe: every game answers its pending decision at once and must get its ``ack``
   within ``--probe-timeout`` seconds. Reported: games held, games that answered the probe,
   the server's RSS (VmRSS from /proc) before, during, and its peak (VmHWM), for the server
   process and its store writer process each and summed, with their PSS. The memory aim of
   issue 19 (1,000 games held in under 150 MiB) is checked against the peak: the VmHWM of the
   server and of its writer, summed (an upper bound: the two peaks need not coincide, and RSS
   counts the interpreter's shared pages once in each process). The server's CPU and memory
   figures include its child processes (the store's writer process).

The server runs with the rate limit and the clocks raised (``--rate``, ``--burst``,
``--move-ms``, ``--reserve-ms``, ``--max-timeouts 0``): a load test must be neither throttled nor
timed out. Everything else is as shipped: log level ``info`` (one JSON line per command, to a
file here), no permessage-deflate (``skirmish serve``'s default, docs/decisions.md), the
server's keepalive pings. Both servers are measured alike: the clients offer no compression to
either (a bare websockets server would accept deflate if offered, and the echo then pays for
compression that skirmish does not); ``--compression deflate`` compresses on both (the skirmish
server then runs with ``--compression deflate``). Each measured phase
has a warm-up (``--warmup``) excluded from the figures. CPU use of each process over the window
comes from /proc (100% = one core), and so does the CPU everything else on the machine used
meanwhile; the load average is printed before each phase too, because on a shared machine the
neighbours move these figures by tens of percent (the ratio less so: both sides of it share the
machine alike). Each game phase also says how many frames and bytes the clients received per
command: the server fans every command out as its events and the next decision to both seats.

``skirmish serve`` runs on its default event loop (uvloop where installed) unless ``--server-loop``
says otherwise; the echo server on the standard library's (``--echo-loop uvloop`` to put it on
uvloop too, like with like).

``--profile FILE`` runs the server under pyinstrument (wall-clock sampling of the event loop
thread; it slows the server, so use the figures of a run without it) and writes FILE (a
pyinstrument session), FILE.txt (the call tree) and FILE.pstats, and prints the functions with
the most self time. ``--gc-stats`` times every garbage collection of the server (``gc.callbacks``
in a wrapper that then runs ``skirmish.server.cli``) and prints, per phase, the collections inside the
window. Exit status: 0 once the run is done, whatever it measured (``make bench`` runs every
benchmark and stops at the first failing one); with ``--strict``, 1 if an aim was missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from harness import (
    ROOT,
    Child,
    loadavg,
    machine_busy_s,
    metric_total,
    nofile_for,
    percentile,
    scrape,
    start_server,
)

BENCH = ROOT / "bench"
PY = sys.executable

RATIO_AIM = 0.4
GAMES_AIM = 1000
MEM_AIM_MIB = 150.0  # issue 19: 1,000 concurrent games held in under 150 MiB (the server and its writer process)
P99_AIM_MS = 50.0
CPU_AIM = 3.0  # issue 19: server CPU per command at most 3x the echo server's per request
PHASES = ("echo", "peak", "half", "capacity")
# Raised for the load test: the rate limit (per connection), the clocks (a day per decision, no forfeits),
# and the per-address limits (every load-generator connection comes from 127.0.0.1: thousands of
# connections, a thousand games created in seconds) and the idle and hello timeouts (off).
SERVER_LIMITS = ["--rate", "1e9", "--burst", "1000000000", "--move-ms", "86400000", "--reserve-ms", "86400000",
                 "--max-timeouts", "0", "--connections-per-address", "0", "--games-per-minute", "0",
                 "--idle-timeout", "0", "--hello-timeout", "0"]


# ``--gc-stats``: run ``skirmish.server.cli`` under this wrapper, which times every garbage collection
# (``harness.CollectionTimes``) and writes them, as [wall time at the end, generation, seconds], to the
# file $BENCH_GC_STATS when the server exits. The server's code is untouched.
GC_WRAPPER = """
import atexit, json, os, runpy, sys
sys.path.append(os.environ["BENCH_DIR"])
from harness import CollectionTimes
_times = CollectionTimes()
atexit.register(lambda: open(os.environ["BENCH_GC_STATS"], "w").write(json.dumps([(w, g, s) for w, _, g, s in _times.log])))
sys.argv = ["skirmish", *sys.argv[1:]]
runpy.run_module("skirmish.server.cli", run_name="__main__", alter_sys=True)
"""


# ---------------------------------------------------------------------------------- a phase


def merge(results: list[dict]) -> dict:
    out: dict = {}
    for r in results:
        for k, v in r.items():
            if isinstance(v, list):
                out.setdefault(k, []).extend(v)
            elif isinstance(v, dict):
                c = out.setdefault(k, Counter())
                c.update(v)
            elif isinstance(v, (int, float)) and not isinstance(v, bool) and k not in ("window_s", "timeout_s"):
                out[k] = out.get(k, 0) + v
            elif v is not None:
                out.setdefault(k, v)
    probes = [r["probe"] for r in results if r.get("probe")]
    if probes:
        out["probe"] = {"games": sum(p["games"] for p in probes), "ok": sum(p["ok"] for p in probes),
                        "failed": sum(p["failed"] for p in probes), "timeout_s": probes[0]["timeout_s"],
                        "slowest_s": max((p["slowest_s"] for p in probes if p["slowest_s"] is not None), default=None)}
    for k in [k for k in out if k.startswith("lat_")]:
        out[k].sort()
    return out


def rules_tally(url: str) -> tuple[float, float]:
    """The server's own count of its time in the rules and of the commands it acked (one scrape)."""
    text = scrape(url)
    return (metric_total(text, "skirmish_rules_seconds_total") or 0.0,
            metric_total(text, "skirmish_commands_total", 'outcome="ok"') or 0.0)


def run_phase(name: str, mode: str, url: str, server: Child, args, tmp: Path, *, games: int = 0,
              connections: int = 0, per_game_rate: float = 0.0, probe_timeout: float = 0.0) -> dict:
    """Start the load generator process(es), wait until all are ready, go, time the window, merge."""
    rss_before_kb = server.status_kb("VmRSS")
    memory_before = server.memory_kb()
    n = max(1, args.client_procs)
    units = games if mode == "games" else connections
    share = [units // n + (1 if i < units % n else 0) for i in range(n)]
    clients, first = [], 0
    for i, k in enumerate(share):
        if k == 0:
            continue
        cmd = [PY, str(BENCH / "loadgen.py"), mode, "--url", url, "--codec", args.codec,
               *(["--no-batch"] if args.no_batch else []),
               "--compression", args.compression, "--warmup", str(args.warmup), "--seconds", str(args.seconds),
               "--seed", str(args.seed), "--setup-concurrency", str(args.setup_concurrency)]
        if mode == "games":
            cmd += ["--games", str(k), "--first-game", str(first), "--mission", args.mission,
                    "--per-game-rate", repr(per_game_rate), "--probe-timeout", str(probe_timeout)]
            first += 100_000
        else:
            cmd += ["--connections", str(k)]
        clients.append(Child(f"loadgen {name} {i}", cmd, tmp / f"loadgen-{name}-{i}.log", stdin=True,
                             nofile=2 * k + 256))
    try:
        t_setup = time.monotonic()
        ready = [json.loads(c.expect("ready", args.setup_timeout)) for c in clients]
        setup_s = time.monotonic() - t_setup
        info = {"load_before": loadavg(), "ready": ready, "setup_s": setup_s,
                "client_nofile": clients[0].limits(), "rss_before_kb": rss_before_kb,
                "rss_ready_kb": server.status_kb("VmRSS"), "memory_before": memory_before}
        for c in clients:
            c.send("go")
        time.sleep(args.warmup)
        rules0 = rules_tally(url) if mode == "games" else None
        cpu0 = (server.cpu_s(), [c.cpu_s() for c in clients], machine_busy_s(), server.main_thread_cpu_s())
        info["window_wall"] = [time.time(), 0.0]
        time.sleep(args.seconds)
        cpu1 = (server.cpu_s(), [c.cpu_s() for c in clients], machine_busy_s(), server.main_thread_cpu_s())
        if rules0 is not None:  # (scraped outside the CPU window: a scrape costs the server a little)
            rules1 = rules_tally(url)
            info["rules_us"] = (rules1[0] - rules0[0]) / max(1.0, rules1[1] - rules0[1]) * 1e6
        info["window_wall"][1] = time.time()
        info["rss_window_kb"] = server.status_kb("VmRSS")
        info["memory_window"] = server.memory_kb()
        info["load_after"] = loadavg()
        results = [json.loads(c.expect("result", probe_timeout + 300)) for c in clients]
        for c in clients:
            c.wait(60)
    finally:
        for c in clients:
            c.stop(10)
    r = merge(results)
    r.update(info)
    r["server_cpu"] = (cpu1[0] - cpu0[0]) / args.seconds
    r["server_loop_cpu"] = (cpu1[3] - cpu0[3]) / args.seconds
    r["client_cpu"] = sum(b - a for a, b in zip(cpu0[1], cpu1[1])) / args.seconds
    r["other_cpu"] = max(0.0, (cpu1[2] - cpu0[2]) / args.seconds - r["server_cpu"] - r["client_cpu"])
    r["rss_after_kb"] = server.status_kb("VmRSS")
    return r


# ---------------------------------------------------------------------------------- printing


def pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def lat(r: dict, key: str) -> str:
    v = r.get(key, [])
    worst = v[-1] if v else float("nan")
    return (f"p50 {percentile(v, 50):6.2f} ms  p99 {percentile(v, 99):6.2f} ms  max {worst:7.2f} ms  "
            f"(n={len(v)})")


def cpu(r: dict, server: str) -> str:
    return (f"CPU over the window: {server} {pct(r['server_cpu'])} (main thread {pct(r['server_loop_cpu'])}, "
            f"other threads and child processes {pct(r['server_cpu'] - r['server_loop_cpu'])}), "
            f"load generator {pct(r['client_cpu'])}, "
            f"everything else on the machine {pct(r['other_cpu'])} (100% = one core; {os.cpu_count()} cores)")


def mark(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_games(r: dict, args, rss: bool = True) -> None:
    acks = max(1, r["acks"])
    print(f"    commands/s {r['rate']:9.1f}   ({r['acks']} acks in {args.seconds:g} s; the clients received "
          f"{r['frames'] / acks:.1f} frames, {r['bytes'] / acks:.0f} bytes per command; "
          f"{r['playing_in_window']} of {r['games']} live games acked commands in the window, "
          f"{r['idle_whole_window']} live all through it acked none)")
    print(f"    command -> ack       {lat(r, 'lat_ack_ms')}")
    print(f"    command -> decision  {lat(r, 'lat_decision_ms')}")
    print(f"    command -> event     {lat(r, 'lat_event_ms')}")
    extra = []
    if r.get("games_finished"):
        extra.append(f"{r['games_finished']} games ended and were replaced")
    for key, what in (("errors", "errors"), ("game_failures", "games failed"), ("setup_failures", "set-ups failed")):
        if r.get(key):
            extra.append(f"{what}: " + "; ".join(f"{k} x{v}" for k, v in r[key].items()))
    if "rules_us" in r:
        server_us = r["server_cpu"] / max(1e-9, r["rate"]) * 1e6
        print(f"    server CPU per command {server_us:.0f} us, of which the rules {r['rules_us']:.0f} us (decide, evolve and "
              f"the views, timed by the server: skirmish_rules_seconds_total); everything else {server_us - r['rules_us']:.0f} us")
    print(f"    {cpu(r, 'server')}; games set up {r['games_set_up']}; " + ("; ".join(extra) or "no errors"))
    pauses = sorted(r.get("client_gc_ms", []))
    if pauses:  # (a pause in the load generator delays the acks it reads, as one in the server would)
        print(f"    the load generator's own garbage collections in the window: {len(pauses)}, "
              f"{sum(pauses):.0f} ms in all, the longest {pauses[-1]:.1f} ms")
    rss_text = (f"server RSS {r['rss_before_kb'] / 1024:.1f} MiB before the phase, {r['rss_window_kb'] / 1024:.1f} MiB "
                f"at the end of the window; " if rss else "")
    print(f"    {rss_text}load average {r['load_before']} before, {r['load_after']} after")


# ---------------------------------------------------------------------------------- the phases


def phase_echo(args, tmp: Path, nofile: int) -> dict:
    print(f"\n[echo] websockets + msgpack echo server (bench/echo_server.py), {args.connections} connections, "
          f"closed loop", flush=True)
    cmd = [PY, str(BENCH / "echo_server.py"), "--port", "0", "--codec", args.codec, "--loop", args.echo_loop]
    echo, url = start_server("echo server", cmd, tmp / "echo-server.log", nofile)
    try:
        r = run_phase("echo", "echo", url, echo, args, tmp, connections=args.connections)
    finally:
        echo.stop(30)
    r["rate"] = r["replies"] / args.seconds
    print(f"    requests/s {r['rate']:9.1f}   ({r['replies']} replies in {args.seconds:g} s, "
          f"{r['bytes'] / max(1, r['replies']):.0f} bytes each)")
    print(f"    request -> reply     {lat(r, 'lat_reply_ms')}")
    print(f"    {cpu(r, 'echo server')}; errors: {dict(r['errors']) or 'none'}")
    print(f"    load average {r['load_before']} before, {r['load_after']} after")
    return r


def server_command(args, tmp: Path) -> tuple[list[str], dict | None, str]:
    """How to start ``skirmish serve`` (plain, under pyinstrument, or with the GC wrapper)."""
    serve = ["-m", "skirmish.server.cli", "serve", "--port", "0", "--db", str(tmp / "bench.sqlite"), *SERVER_LIMITS,
             "--log-level", args.server_log_level]
    serve += ["--compression", args.server_compression or args.compression]
    if args.server_loop:
        serve += ["--loop", args.server_loop]
    if args.profile:
        session = str(Path(args.profile).resolve())
        return [PY, "-m", "pyinstrument", "-r", "pyisession", "-o", session, *serve], None, "  [under pyinstrument]"
    if args.gc_stats:
        env = {"BENCH_GC_STATS": str(tmp / "gc.json"), "BENCH_DIR": str(BENCH)}
        return [PY, "-c", GC_WRAPPER, *serve[2:]], env, "  [gc.callbacks time every collection]"
    return [PY, *serve], None, ""


def phase_peak(args, tmp: Path, url: str, server: Child, echo: dict | None) -> dict:
    print(f"\n[peak] skirmish: {args.games} games ({2 * args.games} connections), closed loop "
          f"(each decision answered at once)", flush=True)
    r = run_phase("peak", "games", url, server, args, tmp, games=args.games)
    r["rate"] = r["acks"] / args.seconds
    print_games(r, args)
    if echo:
        ratio = r["rate"] / echo["rate"]
        print(f"    ratio commands/s / echo requests/s = {ratio:.3f}  (aim >= {RATIO_AIM}) {mark(ratio >= RATIO_AIM)}")
    return r


def phase_half(args, tmp: Path, url: str, server: Child, target: float) -> dict:
    print(f"\n[half] skirmish: {args.games} games, paced (Poisson) to {target:.1f} commands/s in all "
          f"({target / args.games:.2f}/s per game)", flush=True)
    r = run_phase("half", "games", url, server, args, tmp, games=args.games, per_game_rate=target / args.games)
    r["rate"] = r["acks"] / args.seconds
    r["target"] = target
    print_games(r, args)
    p99 = percentile(r["lat_ack_ms"], 99)
    print(f"    p99 command -> ack {p99:.2f} ms at {r['rate']:.1f} commands/s (aim < {P99_AIM_MS:g} ms) "
          f"{mark(p99 < P99_AIM_MS)}")
    return r


def phase_capacity(args, tmp: Path, url: str, server: Child) -> dict:
    n = args.capacity_games
    print(f"\n[capacity] skirmish: {n} games ({2 * n} connections) held at once, each playing one command per "
          f"{args.capacity_interval:g} s on average (~{n / args.capacity_interval:.0f} commands/s in all), then a "
          f"probe: every game completes a command within {args.probe_timeout:g} s", flush=True)
    r = run_phase("capacity", "games", url, server, args, tmp, games=n, per_game_rate=1 / args.capacity_interval,
                  probe_timeout=args.probe_timeout)
    r["rate"] = r["acks"] / args.seconds
    r.setdefault("probe", {"games": 0, "ok": 0, "failed": 0, "slowest_s": None})
    r["hwm_kb"] = server.status_kb("VmHWM")
    probe, ready = r["probe"], sum(x["games"] for x in r["ready"])
    print(f"    set-up: {ready} games seated and started in {r['setup_s']:.1f} s "
          f"({ready / max(r['setup_s'], 1e-9):.0f} games/s); load generator fd limit {r['client_nofile']}")
    print(f"    held: {r['live_at_end']} games live at the end of the window; {r['playing_in_window']} of them acked "
          f"commands inside it; {r['connections_open_max']} connections open at most")
    print(f"    probe: {probe['ok']} of {probe['games']} games completed a command round trip within "
          f"{args.probe_timeout:g} s (slowest {probe['slowest_s']} s)")
    print_memory(r)
    print_games(r, args, rss=False)
    return r


def print_memory(r: dict) -> None:
    """What holding the games costs: the server process and its store writer process, each, summed
    by RSS (the aim's figure: shared pages counted once per process) and by PSS (shared pages split)."""
    b, w = r["memory_before"], r["memory_window"]
    held = r["hwm_kb"] / 1024
    r["held_mib"] = held
    print(f"    memory (the server process + its store writer process): before the phase RSS {b['rss'] / 1024:.1f} MiB "
          f"({b['main_rss'] / 1024:.1f} + {b['children_rss'] / 1024:.1f}), PSS {b['pss'] / 1024:.1f} MiB; holding "
          f"{r['live_at_end']} games RSS {w['rss'] / 1024:.1f} MiB ({w['main_rss'] / 1024:.1f} + "
          f"{w['children_rss'] / 1024:.1f}), PSS {w['pss'] / 1024:.1f} MiB; peak RSS since the server started "
          f"(VmHWM of each process, summed: an upper bound) {held:.1f} MiB")
    verdict = mark(held < MEM_AIM_MIB) if r["live_at_end"] >= GAMES_AIM else f"no verdict under {GAMES_AIM} games"
    print(f"    held in {held:.1f} MiB at the peak (server + writer, RSS; set-up and probe included) against the aim "
          f"< {MEM_AIM_MIB:g} MiB for {GAMES_AIM} games: {verdict}; RSS with every game set up "
          f"{r['rss_ready_kb'] / 1024:.1f} MiB; {(w['rss'] - b['rss']) / max(1, r['live_at_end']):.0f} KiB more RSS "
          f"per game held than before the phase (less if earlier phases left freed memory to reuse)")


def print_summary(args, res: dict) -> list[bool]:
    """The figures side by side; one bool per aim measured (met or not)."""
    oks = []
    print("\n== summary ==")
    print(f"  load average at the end {loadavg()} on {os.cpu_count()} CPUs "
          f"(shared machine: figures move with the neighbours)")
    e, p, h, c = (res.get(k) for k in PHASES)
    if e:
        print(f"  echo server   {e['rate']:9.1f} requests/s  p50 {percentile(e['lat_reply_ms'], 50):6.2f} ms  "
              f"p99 {percentile(e['lat_reply_ms'], 99):6.2f} ms  ({args.connections} connections; CPU: server "
              f"{pct(e['server_cpu'])}, load generator {pct(e['client_cpu'])}, others {pct(e['other_cpu'])}; "
              f"{e['server_cpu'] / max(1e-9, e['rate']) * 1e6:.0f} us of server CPU per request)")
    if p:
        print(f"  skirmish peak {p['rate']:9.1f} commands/s  p50 {percentile(p['lat_ack_ms'], 50):6.2f} ms  "
              f"p99 {percentile(p['lat_ack_ms'], 99):6.2f} ms command -> ack ({args.games} games, {2 * args.games} "
              f"connections; CPU: server {pct(p['server_cpu'])}, load generator {pct(p['client_cpu'])}, others "
              f"{pct(p['other_cpu'])}; {p['server_cpu'] / max(1e-9, p['rate']) * 1e6:.0f} us of server CPU and "
              f"{p['frames'] / max(1, p['acks']):.1f} frames out per command)")
        if e:
            echo_us = e["server_cpu"] / max(1e-9, e["rate"]) * 1e6
            server_us = p["server_cpu"] / max(1e-9, p["rate"]) * 1e6
            print(f"  per command   server {server_us:.0f} us = {server_us / echo_us:.1f} echoes: the rules "
                  f"{p['rules_us']:.0f} us ({p['rules_us'] / echo_us:.1f} echoes), everything else "
                  f"{server_us - p['rules_us']:.0f} us ({(server_us - p['rules_us']) / echo_us:.1f} echoes: I/O, the "
                  f"durable write, the server's own work; aim for the whole: {CPU_AIM:g} echoes)")
    if e and p:
        ratio = p["rate"] / e["rate"]
        oks.append(ratio >= RATIO_AIM)
        print(f"  throughput ratio skirmish / echo = {ratio:.3f}   aim >= {RATIO_AIM}: {mark(ratio >= RATIO_AIM)}")
        # What the aim asks of the server on this machine: at the aimed rate the load generator
        # (at its measured CPU per command) and the server together must fit in the cores.
        cores = os.cpu_count() or 1
        aimed = RATIO_AIM * e["rate"]
        client_us = p["client_cpu"] / max(1e-9, p["rate"]) * 1e6
        budget_us = cores / aimed * 1e6 - client_us
        print(f"  at the aim ({aimed:.0f} commands/s) the load generator alone, at its {client_us:.0f} us of CPU per "
              f"command, needs {aimed * client_us / 1e6:.2f} of the {cores} cores: the server would have "
              + (f"{budget_us:.0f} us of CPU per command" if budget_us > 0 else "no CPU left")
              + f" (it uses {p['server_cpu'] / max(1e-9, p['rate']) * 1e6:.0f}; the echo server "
              f"{e['server_cpu'] / max(1e-9, e['rate']) * 1e6:.0f} per request)")
    if h:
        p99 = percentile(h["lat_ack_ms"], 99)
        oks.append(p99 < P99_AIM_MS)
        print(f"  half peak     {h['rate']:9.1f} commands/s (target {h['target']:.1f})  command -> ack p50 "
              f"{percentile(h['lat_ack_ms'], 50):.2f} ms p99 {p99:.2f} ms; -> decision p99 "
              f"{percentile(h['lat_decision_ms'], 99):.2f} ms; -> event p99 {percentile(h['lat_event_ms'], 99):.2f} ms"
              f"   aim p99 < {P99_AIM_MS:g} ms: {mark(p99 < P99_AIM_MS)}")
    if c:
        probe = c["probe"]
        held = min(c["live_at_end"], probe["ok"])
        ok = held >= GAMES_AIM and probe["ok"] == probe["games"]
        oks.append(ok)
        print(f"  capacity      {held} concurrent games held and responsive ({c['live_at_end']} live, "
              f"{probe['ok']}/{probe['games']} answered the probe within {args.probe_timeout:g} s), server RSS "
              f"{c['rss_window_kb'] / 1024:.0f} MiB   aim {GAMES_AIM}: {mark(ok)}")
        if c["live_at_end"] >= GAMES_AIM:  # the memory aim is for 1,000 games (fewer prove nothing)
            mem_ok = c["held_mib"] < MEM_AIM_MIB
            oks.append(mem_ok)
            print(f"  memory        {c['live_at_end']} games held in {c['held_mib']:.1f} MiB at the peak (server + writer "
                  f"process, RSS; {c['memory_before']['rss'] / 1024:.1f} MiB before the phase)   aim < "
                  f"{MEM_AIM_MIB:g} MiB: {mark(mem_ok)}")
    if p or h or c:
        print(f"  server settings: {' '.join(SERVER_LIMITS)} (limits raised for the load test), durable SQLite "
              f"store, log level {args.server_log_level}")
    return oks


def print_gc(path: Path, res: dict) -> None:
    """Per phase: the server's garbage collections inside the measured window, by generation."""
    if not path.exists():
        print(f"  (no GC statistics at {path})")
        return
    log = json.loads(path.read_text())
    print("\n== server garbage collections inside each window (gc.callbacks) ==")
    for name, r in res.items():
        if name == "echo":
            continue
        w0, w1 = r["window_wall"]
        inside = [(g, d) for t, g, d in log if w0 <= t < w1]
        parts = []
        for gen in (0, 1, 2):
            ds = sorted(d for g, d in inside if g == gen)
            if ds:
                parts.append(f"gen{gen}: {len(ds)} collections, {sum(ds) * 1000:.0f} ms in all, "
                             f"p99 {percentile(ds, 99) * 1000:.1f} ms, max {ds[-1] * 1000:.1f} ms")
        share = sum(d for _, d in inside) / max(1e-9, w1 - w0)
        print(f"  {name:9} {share * 100:.1f}% of the window in GC; " + ("; ".join(parts) or "no collections"))


def render_profile(session: Path, lines: int = 60) -> None:
    """The pyinstrument session as a call tree (FILE.txt, whose top is printed) and as pstats (FILE.pstats)."""
    if not session.exists():
        print(f"  (no profile written at {session})")
        return
    txt, stats = session.with_name(session.name + ".txt"), session.with_name(session.name + ".pstats")
    load = [PY, "-m", "pyinstrument", "--load", str(session)]
    subprocess.run([*load, "-r", "text", "--no-color", "-o", str(txt)], check=False)
    subprocess.run([*load, "-r", "pstats", "-o", str(stats)], check=False)
    print(f"\n== server profile (pyinstrument: wall-clock samples of the event loop thread; the SQLite threads are "
          f"not in it) ==\n   files: {session} (--load it for other views), {txt}, {stats}")
    if txt.exists():
        print("\n".join(txt.read_text().splitlines()[:lines]))


# ---------------------------------------------------------------------------------- main


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100,
                    help="concurrent games in the peak and half-peak phases (default 100)")
    ap.add_argument("--connections", type=int, default=0,
                    help="echo connections (default: 2 x --games, the connections of the peak phase)")
    ap.add_argument("--capacity-games", type=int, default=GAMES_AIM,
                    help=f"games held at once in the capacity phase (default {GAMES_AIM})")
    ap.add_argument("--capacity-interval", type=float, default=5.0,
                    help="capacity phase: mean seconds between two commands of one game (default 5)")
    ap.add_argument("--probe-timeout", type=float, default=5.0,
                    help="capacity phase: every game must complete a command round trip within this (default 5 s)")
    ap.add_argument("--seconds", type=float, default=15.0, help="measured seconds per phase (default 15)")
    ap.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds before each window (default 3)")
    ap.add_argument("--codec", choices=["msgpack", "json"], default="msgpack",
                    help="wire codec, both servers (default msgpack)")
    ap.add_argument("--compression", choices=["deflate", "none"], default="none",
                    help="permessage-deflate on both servers' connections, or none (default: none, as "
                         "skirmish serve negotiates by default)")
    ap.add_argument("--no-batch", action="store_true",
                    help="skirmish clients use protocol v1's separate pushes (default: hello batch, one "
                         "updates frame per command)")
    ap.add_argument("--server-compression", choices=["deflate", "none"], default=None,
                    help="skirmish serve --compression (default: as --compression, so that both servers "
                         "compress alike)")
    ap.add_argument("--server-loop", choices=["uvloop", "asyncio"], default=None,
                    help="skirmish serve --loop (default: serve's own default, uvloop where installed)")
    ap.add_argument("--echo-loop", choices=["uvloop", "asyncio"], default="asyncio",
                    help="the echo server's event loop (default asyncio: a bare websockets server as shipped)")
    ap.add_argument("--mission", default="ridge", help="a bundled mission (default ridge)")
    ap.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated subset of {','.join(PHASES)}")
    ap.add_argument("--half-rate", type=float, default=0.0,
                    help="commands/s for the half phase (default: half the peak phase's rate)")
    ap.add_argument("--client-procs", type=int, default=1, help="load generator processes per phase (default 1)")
    ap.add_argument("--setup-concurrency", type=int, default=25,
                    help="games (echo: connections) each load generator sets up at once (default 25)")
    ap.add_argument("--setup-timeout", type=float, default=600.0,
                    help="seconds allowed to open every game of a phase (default 600)")
    ap.add_argument("--server-log-level", default="info", choices=["debug", "info", "warning", "error"])
    ap.add_argument("--seed", type=int, default=1, help="seeds the load generators' choices")
    ap.add_argument("--profile", metavar="FILE",
                    help="run the server under pyinstrument; write FILE, FILE.txt, FILE.pstats")
    ap.add_argument("--gc-stats", action="store_true",
                    help="time the server's garbage collections (gc.callbacks in a wrapper; server code untouched)")
    ap.add_argument("--keep", action="store_true", help="keep the working directory (database, logs)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 if an aim is missed (by default: exit 0 and say PASS/FAIL, as make bench expects)")
    args = ap.parse_args()
    args.phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    if unknown := set(args.phases) - set(PHASES):
        ap.error(f"unknown phases: {', '.join(sorted(unknown))}")
    if args.profile and args.gc_stats:
        ap.error("--profile and --gc-stats do not go together")
    args.connections = args.connections or 2 * args.games
    return args


def main() -> int:
    args = parse_args()
    nofile = 2 * max(args.capacity_games, args.games, args.connections // 2) + 512
    soft, hard = nofile_for(nofile)

    import msgspec
    import websockets

    tmp = Path(tempfile.mkdtemp(prefix="bench-server-"))
    print("skirmish server benchmark: loopback, every server and the client load in separate processes", flush=True)
    print(f"  machine: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python "
          f"{platform.python_version()}, websockets {websockets.__version__}, msgspec {msgspec.__version__}; "
          f"load average {loadavg()}")
    print(f"  codec {args.codec}, compression {args.compression} (skirmish serve --compression "
          f"{args.server_compression or args.compression}), "
          f"{'protocol v1 pushes (--no-batch)' if args.no_batch else 'hello batch (one updates frame per command)'}, "
          f"warm-up {args.warmup:g} s + "
          f"{args.seconds:g} s measured per phase, {args.client_procs} load generator process(es), "
          f"event loop: echo {args.echo_loop}, skirmish serve {args.server_loop or 'its default (uvloop if installed)'}")
    print(f"  fd limit (RLIMIT_NOFILE soft/hard): this process {soft}/{hard} (wanted {nofile}); children get the "
          f"same, raised before exec if needed")

    res: dict[str, dict] = {}
    if "echo" in args.phases:
        res["echo"] = phase_echo(args, tmp, nofile)

    server_phases = [p for p in args.phases if p != "echo"]
    if server_phases:
        cmd, env, note = server_command(args, tmp)
        print(f"\n[server] skirmish serve --port 0 --db {tmp / 'bench.sqlite'} (SQLite, WAL, synchronous=FULL) "
              f"{' '.join(SERVER_LIMITS)} --log-level {args.server_log_level} (log to a file){note}")
        print("    rate limit and clocks raised so that the load is neither throttled (default 50 msg/s, burst 100 "
              "per connection) nor timed out (default 30 s + 120 s reserve, 3 time-outs forfeit)", flush=True)
        server, url = start_server("skirmish serve", cmd, tmp / "server.log", nofile, env)
        print(f"    {url}, pid {server.proc.pid}, fd limit {server.limits()}, RSS "
              f"{server.status_kb('VmRSS') / 1024:.1f} MiB at start", flush=True)
        try:
            if "peak" in server_phases:
                res["peak"] = phase_peak(args, tmp, url, server, res.get("echo"))
            if "half" in server_phases:
                target = args.half_rate or (res["peak"]["rate"] / 2 if "peak" in res else 0.0)
                if target > 0:
                    res["half"] = phase_half(args, tmp, url, server, target)
                else:
                    print("\n[half] skipped: it needs the peak phase or --half-rate")
            if "capacity" in server_phases:
                res["capacity"] = phase_capacity(args, tmp, url, server)
        finally:
            code = server.stop(120)
            if code != 0:
                print(f"    (the server exited with {code}; its log: {tmp / 'server.log'})")
                args.keep = True

    oks = print_summary(args, res)
    if args.gc_stats and server_phases:
        print_gc(tmp / "gc.json", res)
    if args.profile and server_phases:
        render_profile(Path(args.profile).resolve())
    if args.keep:
        print(f"  kept: {tmp} (database, server and load generator logs)")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if args.strict and not all(oks) else 0


if __name__ == "__main__":
    sys.exit(main())

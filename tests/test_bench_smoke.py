"""The benchmarks in bench/ still run: each one, on a tiny workload, exits 0 and prints its
figures (a benchmark that crashes is only found by whoever runs it next, otherwise). These are
not timings: nothing here checks a speed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize("script, args, expect", [
    ("bench_store.py", ["--events", "3000", "--games", "20", "--repeat", "1"], "ratio (b)/(a)"),
    ("bench_replay.py", ["--events", "3000", "--repeat", "1", "--verify"], "events/s"),
    ("bench_tournament.py", ["--games", "4", "--repeat", "1"], "against the machine's (d)"),
    ("bench_strength.py", ["--games", "2", "--budget-ms", "20", "--matchups", "greedy-random,mcts-random"], "targets:"),
    ("bench_server.py", ["--games", "2", "--seconds", "1", "--warmup", "0.5", "--capacity-games", "4",
                         "--capacity-interval", "0.5"],
     # (and the server's CPU per command split by its own count of the rules, scraped from /metrics)
     ("throughput ratio skirmish / echo", "of which the rules", "echoes: the rules")),
    ("bench_compare.py", ["--before", "HEAD", "--rounds", "1", "--parts", "replay,decide", "--events", "2000",
                          "--games", "1"], "after/before"),
    ("bench_web.py", ["--mission", "ridge", "--steps", "5", "--playback", "30"], "bench_web"),
    ("bench_storecheck.py", ["--games", "4", "--missions", "ridge", "--repeat", "1"], "replay ratio 2 workers / 1"),
    ("bench_lobby.py", ["--sizes", "20,60", "--repeat", "4"], "ratio N=60 / N=20"),
    ("bench_leaks.py", ["--games", "20", "--rounds", "1", "--workers", "1", "--missions", "knives,ridge+probe"],
     "leaks found: 0 (must be 0)"),
])
def test_a_benchmark_runs_on_a_tiny_workload(script, args, expect, tmp_path):
    done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for text in (expect,) if isinstance(expect, str) else expect:
        assert text in done.stdout, (text, done.stdout[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]

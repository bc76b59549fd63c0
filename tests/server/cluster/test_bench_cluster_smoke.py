"""``bench/bench_cluster.py`` runs on a tiny workload (it needs PostgreSQL and NATS, as the cluster
tests do): both parts, with the games placed by game, and it prints what each node heard."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.cluster.conftest import require_nats
from tests.server.store.pg import require_postgres

pytestmark = pytest.mark.postgres

BENCH = Path(__file__).resolve().parents[3] / "bench" / "bench_cluster.py"


def test_bench_cluster_runs_on_a_tiny_workload(tmp_path):
    url, nats = require_postgres(), require_nats()
    done = subprocess.run([sys.executable, str(BENCH), "--url", url, "--nats", nats, "--games", "4",
                           "--seconds", "2", "--warmup", "1", "--kills", "1", "--takeover-games", "2",
                           "--placement", "game"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "ratio two nodes / one" in done.stdout and "all games:" in done.stdout, done.stdout[-2000:]
    assert "messages of events heard from other nodes, per node, since it started: 0, 0" in done.stdout, \
        done.stdout[-2000:]  # placed by game: no node follows another's games
    assert "Traceback" not in done.stderr, done.stderr[-3000:]

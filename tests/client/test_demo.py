"""``make demo`` end to end: ``python -m skirmish.server.demo`` starts ``skirmish serve`` as a subprocess,
two bots play over WebSockets, the server stops on SIGTERM, the game is replayed and verified."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_plays_replays_and_verifies(tmp_path):
    db = tmp_path / "var" / "demo.sqlite"
    env = {**os.environ, "SKIRMISH_DEMO_DB": str(db)}
    done = subprocess.run([sys.executable, "-m", "skirmish.server.demo"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    out = done.stdout
    assert done.returncode == 0, f"{out}\n{done.stderr}"
    assert re.search(r"server listening on ws://127\.0\.0\.1:\d+", out)
    assert "server stopped with SIGTERM (exit 0)" in out
    game_id = re.search(r"game (g-[0-9a-f]+): mission ridge \(Firefight at the Ridge\)", out).group(1)
    assert re.search(r"result: (side [ab] wins|a draw) — ", out)
    assert re.search(r"\d+ decisions, \d+ events, played in [\d.]+s", out)
    assert "verify: OK: " in out and "server seed matches its commitment" in out
    assert f"log: {db.resolve()} (game {game_id})" in out
    assert f"skirmish replay {game_id} --db {db}" in out and f"skirmish verify {game_id} --db {db}" in out
    with closing(sqlite3.connect(db)) as conn:
        (n,) = conn.execute("SELECT count(*) FROM events WHERE game_id = ?", (game_id,)).fetchone()
    assert f"{n} events" in out
    assert re.search(r"the page and the game's replay \(\d+ steps\) served over HTTP", out)
    assert out.rstrip().splitlines()[-1].strip() == f"http://127.0.0.1:8765/#/replay/{game_id}"  # ends with the URL


def test_the_demo_fails_loudly_when_the_server_cannot_start(tmp_path):
    env = {**os.environ, "SKIRMISH_DEMO_DB": str(tmp_path / "demo.sqlite"), "SKIRMISH_RATE": "abc"}
    done = subprocess.run([sys.executable, "-m", "skirmish.server.demo"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert "demo FAILED: the server did not start: it exited with status 2" in done.stderr
    assert "--- the server's stderr ---\nskirmish serve: SKIRMISH_RATE='abc' is not a valid float" in done.stderr

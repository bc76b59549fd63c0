"""A tournament on Ray resumes after a kill: SIGKILL the CLI (its local Ray with it) halfway, rerun
the same command; the games finished before the kill are kept as they were, the rest are played,
and the whole is what an uninterrupted run on worker processes stores for the same seed. Nothing
of the killed Ray is left running."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ENTRANTS, GAMES = 3, 24
TOTAL = 3 * GAMES  # 3 entrants: 3 pairings


def command(out, *extra):
    return [sys.executable, "-m", "skirmish.server.cli", "tournament", "--bots", ",".join(["random"] * ENTRANTS),
            "--games", str(GAMES), "--seed", "33", "--out", str(out), *extra]


def in_session(sid: int) -> list[int]:
    """The processes of session ``sid`` (the CLI's, its local Ray's and Ray's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()  # state ppid pgrp session ...
            if fields[0] != "Z" and int(fields[3]) == sid:
                found.append(int(entry.name))
    return found


def test_kill_a_ray_tournament_halfway_and_resume(tmp_path, tt):
    tt.need_ray()
    out = tmp_path / "out"
    db = out / "games.sqlite"
    proc = subprocess.Popen(command(out, "--ray", "--workers", "2"), cwd=tt.root, env=tt.env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120  # (a local Ray starts in a few seconds)
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists() and len(tt.recorded(db)) >= 12:
                break
            time.sleep(0.01)
        assert proc.poll() is None, f"finished before it could be killed: {proc.stderr.read().decode()}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its Ray (GCS, raylet, agents), mid-game
        proc.wait()
        proc.stderr.close()
    # Ray's workers (each in a process group of its own) follow their raylet; anything left is a leak
    deadline = time.monotonic() + 30
    while in_session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = in_session(proc.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the killed tournament's Ray still running: {left}"

    before = tt.recorded(db)
    assert 12 <= len(before) < TOTAL
    events_before = {gid: tt.event_rows(db, gid) for gid, _, _ in before.values()}
    assert set(tt.stored(db)["events"]) == {gid for gid, _, _ in before.values()}  # no half game

    done = subprocess.run(command(out, "--ray", "--workers", "1"), cwd=tt.root, env=tt.env(), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"resuming: {len(before)} already recorded, {TOTAL - len(before)} to play" in done.stderr
    played_now, resumed = map(int, re.search(r"(\d+) played now, (\d+) resumed", done.stdout).groups())
    assert (played_now, resumed) == (TOTAL - len(before), len(before))
    after = tt.recorded(db)
    assert sorted(after) == list(range(TOTAL))
    for idx, row in before.items():
        assert after[idx] == row  # same id, same record, same time recorded: not played again
        assert tt.event_rows(db, row[0]) == events_before[row[0]]

    # the same seed, uninterrupted, on worker processes: the same games, results and standings
    reference = tmp_path / "reference"
    plain = subprocess.run(command(reference, "--workers", "2", "--quiet"), cwd=tt.root, env=tt.env(),
                           capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0, plain.stderr
    assert tt.stored(db) == tt.stored(reference / "games.sqlite")
    assert tt.results(out)["standings"] == tt.results(reference)["standings"]

"""An interrupted tournament resumes: kill the CLI (SIGKILL) halfway, rerun the same command;
the games finished before the kill are kept as they were and not played again."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

from skirmish.server.store import SQLiteStore

GAMES_PER_PAIRING = 20
TOTAL = 6 * GAMES_PER_PAIRING  # 4 entrants: 6 pairings


def command(out):
    return [sys.executable, "-m", "skirmish.server.cli", "tournament", "--bots", "random,random,random,random",
            "--games", str(GAMES_PER_PAIRING), "--seed", "21", "--workers", "2", "--out", str(out)]


def game_ids(db):
    with closing(sqlite3.connect(db)) as conn:
        return {gid for (gid,) in conn.execute("SELECT game_id FROM games")}


def test_kill_halfway_and_resume(tmp_path, tt):
    out = tmp_path / "out"
    db = out / "games.sqlite"
    proc = subprocess.Popen(command(out), cwd=tt.root, env=tt.env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists() and len(tt.recorded(db)) >= 12:
                break
            time.sleep(0.01)
        assert proc.poll() is None, f"finished before it could be killed: {proc.stderr.read().decode()}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its worker processes, mid-game
        proc.wait()
        proc.stderr.close()

    before = tt.recorded(db)
    assert 12 <= len(before) < TOTAL
    # every recorded game is stored; a worker may have stored a game whose result the kill cut off
    recorded_ids = {gid for gid, _, _ in before.values()}
    unrecorded = game_ids(db) - recorded_ids
    assert recorded_ids <= game_ids(db) and len(unrecorded) <= 2 * 4  # at most the games handed out
    events_before = {gid: tt.event_rows(db, gid) for gid, _, _ in before.values()}

    # a game stored without its result (say, by another program) is discarded and played again
    prefix = next(iter(before.values()))[0].rsplit("-", 1)[0]
    missing = min(i for i in set(range(TOTAL)) - set(before) if f"{prefix}-{i:05d}" not in unrecorded)
    partial = f"{prefix}-{missing:05d}"

    async def plant():
        async with await SQLiteStore.open(db) as store:
            await store.create_game(partial, b"{}")
            await store.append(partial, 0, [b"half a game"])

    asyncio.run(plant())

    done = subprocess.run(command(out), cwd=tt.root, env=tt.env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"resuming: {len(before)} already recorded, {TOTAL - len(before)} to play" in done.stderr
    discarded = sorted(unrecorded | {partial})  # (the message names five)
    assert (f"discarded {len(discarded)} game(s) stored without a result, to play them again: "
            f"{', '.join(discarded[:5])}") in done.stderr
    played_now, resumed = map(int, re.search(r"(\d+) played now, (\d+) resumed", done.stdout).groups())
    assert (played_now, resumed) == (TOTAL - len(before), len(before))

    after = tt.recorded(db)
    assert sorted(after) == list(range(TOTAL))
    for idx, row in before.items():
        assert after[idx] == row  # same id, same record, same time recorded: not replayed
        assert tt.event_rows(db, row[0]) == events_before[row[0]]
    doc = tt.results(out)
    assert len(doc["games"]) == TOTAL and len({g["id"] for g in doc["games"]}) == TOTAL
    assert sum(s["games"] for s in doc["standings"]) == 2 * TOTAL
    assert game_ids(db) == {g["id"] for g in doc["games"]}

    from skirmish.server import cli

    assert cli.main(["verify", partial, "--db", str(db)]) == 0
    assert cli.main(["verify", doc["games"][-1]["id"], "--db", str(db)]) == 0

"""``skirmish backup`` (skirmish.server.backup): copies taken while a real ``skirmish serve`` writes
are consistent (every game in a copy is a verified prefix of its final log, byte for byte), and
the command's refusals."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine.verify import LoggedEvent, verify_log

from .helpers import ROOT, ServerProcess


def backup(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skirmish.server.cli", "backup", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


def logs(path) -> dict[str, list[tuple[int, bytes, bytes]]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out: dict[str, list] = {g: [] for (g,) in conn.execute("SELECT game_id FROM games")}
        for game, seq, data, h in conn.execute("SELECT game_id, seq, data, hash FROM events ORDER BY game_id, seq"):
            out[game].append((seq, bytes(data), bytes(h)))
        return out
    finally:
        conn.close()


async def play_games(url: str, n: int) -> None:
    async def one(i: int) -> None:
        loop = asyncio.get_running_loop()
        seated = loop.create_future()
        a = asyncio.create_task(run_bot(url, make_bot("random", 2 * i), mission="ridge", seat="a",
                                        on_seated=seated.set_result))
        seat = await seated
        await asyncio.gather(a, run_bot(url, make_bot("random", 2 * i + 1), game_id=seat.game_id))

    await asyncio.gather(*(one(i) for i in range(n)))


async def test_backups_taken_while_the_server_writes_are_consistent(tmp_path, processes):
    db = tmp_path / "games.sqlite"
    server = ServerProcess(db, tmp_path / "server.log")
    processes.append(server)
    await server.started()
    playing = asyncio.create_task(play_games(server.url, 4))
    copies = []
    for i in range(6):  # backups while the games are played (the last ones maybe after)
        await asyncio.sleep(0.3)
        target = tmp_path / f"copy-{i}.sqlite"
        r = await asyncio.to_thread(backup, "--db", str(db), "--to", str(target), "--verify")
        assert r.returncode == 0, r.stderr
        assert "integrity ok" in r.stdout and "games verified" in r.stdout, r.stdout
        copies.append(target)
    await playing
    assert await server.terminate() == 0
    final = logs(db)
    assert len(final) == 4
    grew = set()
    for copy in copies:
        assert not copy.with_name(copy.name + "-wal").exists()  # one self-contained file
        for game, events in logs(copy).items():
            assert events == final[game][:len(events)]  # a prefix of the final log, byte for byte
            assert verify_log(game, [LoggedEvent(*e) for e in events]).ok
            grew.add(len(events))
    assert len(grew) > 2  # the copies were taken at different points of the games
    assert not list(tmp_path.glob(".*.partial"))


async def test_backup_refusals(tmp_path, processes):
    missing = backup("--db", str(tmp_path / "none.sqlite"), "--to", str(tmp_path / "x.sqlite"))
    assert missing.returncode == 2 and "no store at" in missing.stderr
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    r = backup("--db", str(other), "--to", str(tmp_path / "x.sqlite"))
    assert r.returncode == 2 and "not a skirmish store" in r.stderr
    db = tmp_path / "games.sqlite"
    await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "skirmish.server.cli", "match", "--seed", "5",
                                             "--db", str(db)], cwd=ROOT, capture_output=True, check=True, timeout=120)
    target = tmp_path / "copy.sqlite"
    assert backup("--db", str(db), "--to", str(target)).returncode == 0
    again = backup("--db", str(db), "--to", str(target))
    assert again.returncode == 2 and "--force" in again.stderr
    assert backup("--db", str(db), "--to", str(target), "--force").returncode == 0
    assert backup("--db", str(db), "--to", str(db), "--force").returncode == 2  # not onto itself
    assert backup("--db", str(db), "--to", str(tmp_path / "no" / "x.sqlite")).returncode == 2
    assert logs(target) == logs(db)

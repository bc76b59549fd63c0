"""``--server URL``: every game played through a real server by two networked bots (one creates
the game, one joins it); the server keeps the logs, the tournament records the server's ids."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

try:
    from skirmish.server.app import running_server  # noqa: F401  (the networked server: `skirmish serve` runs it)
except ImportError:  # pragma: no cover
    running_server = None

pytestmark = pytest.mark.skipif(running_server is None,
                                reason="skirmish.server.app.running_server is not there yet (the networked server)")


@pytest.fixture
def server(tmp_path, tt):
    """``skirmish serve`` on a free port with its own SQLite store, in a subprocess; yields (url, db)."""
    db = tmp_path / "server.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", str(db),
                             "--rate", "100000", "--burst", "100000", "--log-level", "warning"],
                            cwd=tt.root, env=tt.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"ws://\S+", line)
        assert match, f"the server did not start: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}"
        yield match.group(0), db
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_a_tiny_tournament_through_a_server(server, tmp_path, cli, tt):
    url, server_db = server
    out = tmp_path / "out"
    start = time.monotonic()
    code, text, err = cli("tournament", "--server", url, "--bots", "random,random,crash=tournament_testbots:Crasher",
                          "--games", 2, "--seed", 1, "--workers", 2, "--out", out, "--quiet")
    assert code == 0, err
    assert time.monotonic() - start < 60
    doc = tt.results(out)
    games = doc["games"]
    assert len(games) == 6 and all(re.fullmatch(r"\S+", g["id"]) for g in games)
    assert len({g["id"] for g in games}) == 6
    assert all(g["server"] == url for g in games)
    crash = [g for g in games if g["forfeit"]]
    assert {g["forfeit"]["entrant"] for g in crash} == {"crash"} and len(crash) == 4
    assert all("the crasher bot gives up" in g["error"] for g in crash)
    assert f"skirmish verify {games[0]['id']} --db SERVER_DB" in (out / "report.md").read_text()
    # the logs are the server's: every game, forfeits included, is stored there and verifies
    for g in games:
        code, text, err = cli("verify", g["id"], "--db", server_db)
        assert code == 0, text + err

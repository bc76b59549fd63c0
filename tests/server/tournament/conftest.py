"""Shared helpers of the tournament tests: the test bots' directory on the import path, the CLI."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # tournament_testbots, also for worker processes (fork inherits it)


@pytest.fixture(autouse=True)
def _no_default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    default = tmp_path / "default" / "must-not-be-used.sqlite"
    monkeypatch.setenv("SKIRMISH_DB", str(default))
    yield
    assert not default.exists(), "a command used the default store"


@pytest.fixture
def cli(capsys):
    """Run ``skirmish ARGS`` in process: returns (exit code, stdout, stderr)."""
    from skirmish.server import cli as skirmish

    def run(*argv):
        capsys.readouterr()
        code = skirmish.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


def recorded(db: Path) -> dict[int, tuple[str, str, float]]:
    """idx -> (game id, record JSON, recorded_at) from a tournament's results table."""
    with closing(sqlite3.connect(db)) as conn:
        try:
            rows = conn.execute("SELECT idx, game_id, record, recorded_at FROM tournament_results").fetchall()
        except sqlite3.OperationalError:  # not created yet
            return {}
    return {idx: (gid, rec, at) for idx, gid, rec, at in rows}


def event_rows(db: Path, game_id: str) -> list[tuple[int, bytes, bytes]]:
    with closing(sqlite3.connect(db)) as conn:
        return [(s, bytes(d), bytes(h)) for s, d, h in conn.execute(
            "SELECT seq, data, hash FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]


def stored(db) -> dict:
    """Everything the parent wrote that follows from the seed: every game's header (less its time
    of creation), secret and events (bytes and chain hashes), and every result record without its
    wall-clock times."""
    with closing(sqlite3.connect(db)) as conn:
        games = {gid: ({k: v for k, v in json.loads(meta).items() if k != "created"},  # (wall-clock time)
                       bytes(secret) if secret is not None else None)
                 for gid, meta, secret in conn.execute("SELECT game_id, meta, secret FROM games")}
        events = {}
        for gid, seq, data, h in conn.execute("SELECT game_id, seq, data, hash FROM events ORDER BY game_id, seq"):
            events.setdefault(gid, []).append((seq, bytes(data), bytes(h)))
        records = {}
        for idx, gid, rec in conn.execute("SELECT idx, game_id, record FROM tournament_results"):
            rec = json.loads(rec)
            records[idx] = (gid, {k: v for k, v in rec.items() if k not in ("duration", "think")})
    return {"games": games, "events": events, "records": records}


@pytest.fixture
def tt():
    """The helpers above, as a fixture (importing from a conftest module is ambiguous)."""
    from types import SimpleNamespace

    return SimpleNamespace(results=results, recorded=recorded, event_rows=event_rows, env=subprocess_env,
                           root=ROOT, here=HERE, stored=stored, need_ray=need_ray)


def need_ray():
    """The ``ray`` module for the ``--ray`` tests: skip without it on a laptop, fail under CI=true
    (``make test`` installs it: the ``ray`` extra)."""
    try:
        import ray
    except ImportError:
        why = "Ray is not installed (the 'ray' extra)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{why} (CI=true: the --ray tests must run; `make test` installs .[test,bench,ray])")
        pytest.skip(f"{why}: pip install -e '.[ray]' to run the --ray tests (under CI=true this fails)")
    return ray


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for a test module (started once: a few seconds), as ``--ray`` starts one
    (``raypool.init_ray``: no dashboard, a small object store, quiet) with 2 CPUs. Its workers
    import this folder's test bots (this process's ``sys.path`` is their ``PYTHONPATH``), as forked
    worker processes do. A tournament run in this process uses it and leaves it running."""
    ray = need_ray()
    from skirmish.server.tournament.raypool import init_ray

    sigterm = signal.getsignal(signal.SIGTERM)  # ray.init replaces it, and leaves it after shutdown
    init_ray(workers=2)
    try:
        yield ray
    finally:
        ray.shutdown()
        signal.signal(signal.SIGTERM, sigterm)

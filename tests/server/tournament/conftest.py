"""Shared helpers of the tournament tests: the test bots' directory on the import path, the CLI."""

from __future__ import annotations

import json
import os
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


@pytest.fixture
def tt():
    """The helpers above, as a fixture (importing from a conftest module is ambiguous)."""
    from types import SimpleNamespace

    return SimpleNamespace(results=results, recorded=recorded, event_rows=event_rows, env=subprocess_env,
                           root=ROOT, here=HERE)

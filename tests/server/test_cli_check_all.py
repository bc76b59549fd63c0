"""``skirmish verify --all`` and ``skirmish replay --all``: every game of a store, in worker
processes (``skirmish.server.storecheck``), judged exactly as the one-game commands judge it."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.server.test_cli import _no_default_db, match, run, start_unfinished_game, stored_rows  # noqa: F401

SUMMARY = re.compile(r"^(verify|replay) --all: (\d+) games, (\d+) OK, (\d+) failed.*; (\d+) events .* in [\d.]+ s: "
                     r"[\d.]+ games/s, [\d,]+ events/s \((\d+) workers?\)$", re.M)


@pytest.fixture
def store(capsys, tmp_path: Path) -> Path:
    """Three finished games of different seeds and one game not yet over."""
    db = tmp_path / "games.sqlite"
    for i, seed in enumerate((5, 6, 7)):
        match(capsys, db, game_id=f"g-{i}", seed=seed)
    start_unfinished_game(db)
    return db


def events_in(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def flip_a_byte(db: Path, game_id: str, index: int = 10) -> int:
    seq, data, _ = stored_rows(db, game_id)[index]
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = ?",
                     (data[:-1] + bytes([data[-1] ^ 1]), game_id, seq))
    return seq


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("mode", ["verify", "replay"])
def test_every_game_is_checked_with_a_summary(capsys, store: Path, mode: str, workers: str) -> None:
    code, out, err = run(capsys, mode, "--all", "--workers", workers, "--db", store)
    assert code == 0, out + err
    found = SUMMARY.search(out)
    assert found, out
    assert found.group(1) == mode and found.group(2) == "4" and found.group(3) == "4" and found.group(4) == "0"
    assert int(found.group(5)) == events_in(store) and found.group(6) == workers
    assert f"{mode}: 4/4 games" in err  # progress, on stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_changed_event_fails_that_game_only_and_exits_1(capsys, store: Path, workers: str) -> None:
    seq = flip_a_byte(store, "g-1")
    code, out, err = run(capsys, "verify", "--all", "--workers", workers, "--db", store)
    assert code == 1
    assert f"verify g-1: FAILED at event {seq}:" in out
    assert "g-0" not in out and "g-2" not in out
    assert SUMMARY.search(out).group(3, 4) == ("3", "1")
    # the one-game command finds the same failure
    one = run(capsys, "verify", "g-1", "--db", store)[1]
    assert f"FAILED at event {seq}:" in one


def test_replay_all_fails_a_game_that_cannot_be_decoded(capsys, store: Path) -> None:
    with closing(sqlite3.connect(store)) as conn, conn:
        conn.execute("UPDATE events SET data = ? WHERE game_id = 'g-2' AND seq = 3", (b"\xc1",))
    code, out, err = run(capsys, "replay", "--all", "--workers", "2", "--db", store)
    assert code == 1
    assert "replay g-2: FAILED at event 3: not a valid event" in out


def test_replay_all_as_all_leaves_out_the_games_not_over(capsys, store: Path) -> None:
    code, out, err = run(capsys, "replay", "--all", "--as", "all", "--workers", "1", "--db", store)
    assert code == 0, out + err
    assert "4 games, 3 OK, 0 failed, 1 not over" in out


@pytest.mark.parametrize("argv, says", [
    (["verify", "--all", "g-0"], "name no GAME"),
    (["replay", "--all", "--file", "x.skr"], "name no GAME"),
    (["verify", "--all", "--workers", "0"], "at least 1"),
    (["verify", "--all", "--expect-head", "0" * 64], "--expect-head checks one game"),
])
def test_bad_arguments_exit_2_with_a_message(capsys, store: Path, argv: list[str], says: str) -> None:
    code, out, err = run(capsys, *argv, "--db", store)
    assert code == 2 and says in err, err


def test_an_empty_store_is_no_failure(capsys, tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite"
    match(capsys, db, game_id="g-x")
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM events")
        conn.execute("DELETE FROM games")
    code, out, err = run(capsys, "verify", "--all", "--db", db)
    assert code == 0 and "verify --all: 0 games" in out, out + err

"""The ``skirmish`` command line, through ``skirmish.server.cli.main(argv)``, on SQLite files in tmp_path.

Exit codes: 0 done, 1 verification failed, 2 a problem reported in one line on stderr (unknown
game, missing store, refused file, bad mission). Every test passes ``--db`` explicitly, and
``$SKIRMISH_DB`` points into tmp_path so that a missing ``--db`` could never touch a real store.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event, state_hash
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.commands import Start
from skirmish.server import cli, missions
from skirmish.server.game import LiveGame, seed_from_int
from skirmish.server.store import SQLiteStore

RIDGE_TOML = Path(missions.__file__).with_name("ridge.toml")


@pytest.fixture(autouse=True)
def _no_default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    default = tmp_path / "default" / "must-not-be-used.sqlite"
    monkeypatch.setenv("SKIRMISH_DB", str(default))
    yield default
    assert not default.exists(), "a command used the default store"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def stored_rows(db: Path, game_id: str) -> list[tuple[int, bytes, bytes]]:
    with closing(sqlite3.connect(db)) as conn:
        return [(seq, bytes(d), bytes(h)) for seq, d, h in conn.execute(
            "SELECT seq, data, hash FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]


def count(db: Path, table: str) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def normalised(db: Path, game_id: str) -> list[ev.Event]:
    """The game's events with the game id taken out.

    The id is in ``GameCreated``, and in every ``Checkpoint`` through the state hash (the state
    holds its game id): each checkpoint is checked against the replayed state, then blanked.
    """
    events = [decode_event(data) for _, data, _ in stored_rows(db, game_id)]
    first = events[0]
    assert isinstance(first, ev.GameCreated) and first.game_id == game_id
    state = initial_state(first)
    out: list[ev.Event] = [msgspec.structs.replace(first, game_id="<id>")]
    for e in events[1:]:
        if isinstance(e, ev.Checkpoint):
            assert e.state_hash == state_hash(state)
            out.append(ev.Checkpoint(state_hash="<hash of the state>"))
        else:
            out.append(e)
        evolve(state, e)
    return out


def match(capsys, db: Path, game_id: str = "g-cli", seed: int = 5) -> str:
    code, out, err = run(capsys, "match", "--seed", seed, "--game-id", game_id, "--db", db)
    assert code == 0, err
    return out


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite"


@pytest.fixture
def played(capsys, db: Path) -> tuple[Path, str]:
    """A store holding one finished game, ``g-cli``."""
    match(capsys, db)
    return db, "g-cli"


def start_unfinished_game(db: Path, game_id: str = "g-live") -> None:
    async def go() -> None:
        async with await SQLiteStore.open(db) as store:
            game = await LiveGame.create(store, missions.load("ridge"), game_id=game_id, server_seed=seed_from_int(1))
            await game.submit(Start())
            assert game.state.outcome is None and game.state.pending is not None

    asyncio.run(go())


# ---------------------------------------------------------------------------- match


def test_match_with_the_same_seed_twice_gives_the_same_game(capsys, db: Path) -> None:
    runs = []
    for _ in range(2):
        code, out, err = run(capsys, "match", "--seed", 5, "--db", db)
        assert code == 0, err
        assert f"store: {db}" in err
        m = re.search(r"^game (g-[0-9a-f]+): ", out, re.M)
        assert m, out
        runs.append((m.group(1), out))
    (id1, out1), (id2, out2) = runs
    assert id1 != id2, "two matches got the same game id"
    assert out1.replace(id1, "<id>") == out2.replace(id2, "<id>")
    rows1, rows2 = stored_rows(db, id1), stored_rows(db, id2)
    assert len(rows1) == len(rows2) > 100
    assert normalised(db, id1) == normalised(db, id2)
    # apart from GameCreated and the checkpoints (whose state hashes cover the game id), every
    # event is the same, byte for byte
    same = [(d1, d2) for (_, d1, _), (_, d2, _) in zip(rows1[1:], rows2[1:])
            if not isinstance(decode_event(d1), ev.Checkpoint)]
    assert len(same) > 100 and all(d1 == d2 for d1, d2 in same)
    assert rows1[0][1] != rows2[0][1]


def test_match_with_another_seed_gives_another_game(capsys, db: Path) -> None:
    match(capsys, db, "g-5", seed=5)
    match(capsys, db, "g-6", seed=6)
    assert normalised(db, "g-5") != normalised(db, "g-6")


def test_match_prints_the_result_and_what_to_do_next(capsys, db: Path) -> None:
    out = match(capsys, db, "g-x")
    assert out.startswith("game g-x: Firefight at the Ridge")
    assert re.search(r"\d+ decisions, \d+ events stored", out)
    assert "skirmish verify g-x" in out
    n = int(re.search(r"(\d+) events stored", out).group(1))
    assert n == len(stored_rows(db, "g-x"))


def test_match_refuses_a_game_id_already_in_the_store(capsys, played) -> None:
    """A clash of game ids is a one-line refusal (exit 2), not a traceback, and the game
    already stored is untouched."""
    db, game = played
    before = stored_rows(db, game)
    code, out, err = run(capsys, "match", "--seed", 9, "--game-id", game, "--db", db)
    assert code == 2
    assert game in err and "already" in err
    assert stored_rows(db, game) == before


# ---------------------------------------------------------------------------- verify, replay


def test_verify_a_finished_game(capsys, played) -> None:
    db, game = played
    code, out, err = run(capsys, "verify", game, "--db", db)
    assert code == 0, out + err
    assert out.startswith(f"verify {game}: OK: {len(stored_rows(db, game))} events")
    assert "server seed matches its commitment" in out and "dice rolls recomputed" in out
    assert "outcome:" in out
    assert f"store: {db}" in err


def test_verify_fails_with_exit_1_on_a_changed_event(capsys, played) -> None:
    db, game = played
    seq, data, _ = stored_rows(db, game)[10]
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = ?", (data[:-1] + bytes([data[-1] ^ 1]), game, seq))
    code, out, err = run(capsys, "verify", game, "--db", db)
    assert code == 1
    assert f"FAILED at event {seq}:" in out


def test_verify_an_unfinished_game_notes_the_dice_are_not_yet_verifiable(capsys, db: Path) -> None:
    start_unfinished_game(db)
    code, out, err = run(capsys, "verify", "g-live", "--db", db)
    assert code == 0, out + err
    assert "OK" in out and "not over" in out


@pytest.mark.parametrize("viewer", ["a", "b", "spectator", "all"])
def test_replay_prints_the_game(capsys, played, viewer: str) -> None:
    db, game = played
    code, out, err = run(capsys, "replay", game, "--as", viewer, "--db", db)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) > 50
    assert all(re.match(r"^ *\d+  ", line) for line in lines), [x for x in lines if not re.match(r"^ *\d+  ", x)][:3]
    assert re.match(rf"^ +1  game {game}: mission ridge", lines[0])
    assert "the game starts" in out and "GAME OVER" in out
    seqs = [int(line.split()[0]) for line in lines]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert seqs[-1] <= len(stored_rows(db, game))


def test_replay_as_all_is_refused_for_an_unfinished_game(capsys, db: Path) -> None:
    start_unfinished_game(db)
    code, out, err = run(capsys, "replay", "g-live", "--as", "all", "--db", db)
    assert code == 2
    assert out == ""
    assert "over" in err and err.startswith(f"store: {db}\nskirmish replay: ")
    code, out, err = run(capsys, "replay", "g-live", "--as", "a", "--db", db)
    assert code == 0, err
    assert "the game starts" in out and "GAME OVER" not in out


def test_replay_refuses_an_unknown_viewer(capsys, played) -> None:
    db, game = played
    with pytest.raises(SystemExit) as exc:
        cli.main(["replay", game, "--as", "c", "--db", str(db)])
    assert exc.value.code == 2


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize("argv", [["replay", "g-nope"], ["verify", "g-nope"], ["export", "g-nope", "out.skirmish"]])
def test_unknown_game_is_named(capsys, played, tmp_path: Path, monkeypatch, argv: list[str]) -> None:
    db, game = played
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, "--db", db)
    assert code == 2
    assert "'g-nope'" in err
    assert game in err  # the hint lists the games the store does have
    assert not (tmp_path / "out.skirmish").exists()


@pytest.mark.parametrize("argv", [["replay", "g-x"], ["verify", "g-x"], ["export", "g-x", "out.skirmish"]])
def test_read_commands_on_a_missing_store_do_not_create_it(capsys, tmp_path: Path, monkeypatch, argv) -> None:
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "sub" / "missing.sqlite"
    code, out, err = run(capsys, *argv, "--db", missing)
    assert code == 2
    assert f"no store at {missing}" in err
    assert not missing.exists() and not missing.parent.exists()
    assert list(tmp_path.iterdir()) == []


def test_missions_lists_ridge(capsys) -> None:
    code, out, err = run(capsys, "missions")
    assert code == 0
    assert re.search(r"^ridge +Firefight at the Ridge — 12x9, 8 units, 6 rounds", out, re.M), out


SUBCOMMANDS = {"match": True, "replay": True, "verify": True, "export": True, "import": True, "missions": False}


@pytest.mark.parametrize("sub", [*SUBCOMMANDS, None])
def test_help(capsys, sub: str | None) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main([sub, "--help"] if sub else ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: skirmish")
    if sub is None:
        assert all(s in out for s in SUBCOMMANDS)
    elif SUBCOMMANDS[sub]:
        assert "--db PATH" in out
    else:
        assert "--db" not in out


def bad_ridge(tmp_path: Path, old: str, new: str) -> Path:
    text = RIDGE_TOML.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bad-ridge.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old, new, field, problem", [
    ("at = [1, 0]", "at = [4, 2]", "units[0].at", "blocking"),  # a1 onto the '#' at column 5, row 3
    ("at = [1, 0]", "at = [7, 7]", "units[0].at", "deployment zone"),
    ("at = [1, 0]", "at = [12, 0]", "units[0].at", "off the"),
    ("rounds = 6", "rounds = 0", "mission.rounds", "1..50"),
    ('weapons = ["phaser", "knife"]', 'weapons = ["phaser", "spoon"]', "profiles.officer.weapons", "spoon"),
])
def test_bad_mission_file_names_the_file_and_field(capsys, tmp_path: Path, db: Path, old, new, field, problem) -> None:
    path = bad_ridge(tmp_path, old, new)
    code, out, err = run(capsys, "match", "--mission", path, "--seed", 1, "--db", db)
    assert code == 2
    assert out == ""
    assert str(path) in err and field in err and problem in err, err
    assert not db.exists()


def test_bad_mission_file_with_an_unknown_key_names_the_table_entry(capsys, tmp_path: Path, db: Path) -> None:
    """A misspelt or unknown key inside ``[weapons.phaser]`` must name that weapon, not just
    ``weapons[...]``: the ridge has four weapons and four profiles to look through."""
    path = bad_ridge(tmp_path, "damage = 3", "damage = 3\nrange = 9")
    code, out, err = run(capsys, "match", "--mission", path, "--db", db)
    assert code == 2
    assert str(path) in err and "range" in err
    assert "weapons.phaser" in err, err
    assert not db.exists()


def test_unknown_mission_is_named(capsys, db: Path) -> None:
    code, out, err = run(capsys, "match", "--mission", "nowhere", "--db", db)
    assert code == 2
    assert "nowhere" in err and "ridge" in err
    assert not db.exists()


def test_match_with_an_unknown_bot_is_refused(capsys, db: Path) -> None:
    code, out, err = run(capsys, "match", "--bots", "random,genius", "--db", db)
    assert code == 2
    assert "genius" in err
    assert not db.exists()

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


# ---------------------------------------------------------------------------- export, import


def export(capsys, db: Path, game: str, file: Path) -> bytes:
    code, out, err = run(capsys, "export", game, file, "--db", db)
    assert code == 0, err
    assert out.startswith(f"exported {game} to {file}")
    return file.read_bytes()


def test_export_import_verify_round_trip(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    export(capsys, db, game, file)
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 0, err
    n = len(stored_rows(db, game))
    assert out.strip() == f"imported game {game} ({n} events, mission ridge)"
    assert stored_rows(other, game) == stored_rows(db, game)  # same seqs, bytes and chain hashes
    code, out, err = run(capsys, "verify", game, "--db", other)
    assert code == 0, out + err
    assert "OK" in out


def test_verify_file_checks_an_exported_file(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    export(capsys, db, game, file)
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 0, out + err
    assert out.startswith(f"verify {game}: OK: {len(stored_rows(db, game))} events")


def test_verify_file_refuses_a_file_that_is_not_a_replay(capsys, tmp_path: Path) -> None:
    file = tmp_path / "junk.skirmish"
    file.write_bytes(b"\x93not a replay")
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 2
    assert "not a skirmish replay file" in err


def test_verify_without_a_game_or_file_is_a_usage_error(capsys, played) -> None:
    db, _ = played
    code, out, err = run(capsys, "verify", "--db", db)
    assert code == 2
    assert "GAME" in err


def flip_inside_event(file_bytes: bytes, event: bytes, offset: int | None = None) -> bytes:
    """The file with one byte flipped inside the stored bytes of ``event`` (MessagePack framing
    left intact, so the file still parses)."""
    at = file_bytes.find(event)
    assert at > 0 and file_bytes.find(event, at + 1) == -1
    i = at + (len(event) // 2 if offset is None else offset)
    return file_bytes[:i] + bytes([file_bytes[i] ^ 0x01]) + file_bytes[i + 1:]


@pytest.mark.parametrize("which", [0, 1, "middle", -1])
def test_import_refuses_a_corrupted_file_and_imports_nothing(capsys, played, tmp_path: Path, which) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    data = export(capsys, db, game, file)
    rows = stored_rows(db, game)
    if which == "middle":  # the event nearest the middle whose bytes occur once in the file
        k = next(i for i in range(len(rows) // 2, len(rows)) if data.count(rows[i][1]) == 1)
    else:
        k = which
    file.write_bytes(flip_inside_event(data, rows[k][1]))
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 1  # the file reads; its game does not verify
    assert f"FAILED at event {rows[k][0]}: hash chain broken" in err and "nothing imported" in err, err
    assert out == ""
    assert not other.exists() or (count(other, "games"), count(other, "events")) == (0, 0)


def test_import_refuses_a_file_with_a_changed_head_hash(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    header, events, hashes = msgspec.msgpack.decode(export(capsys, db, game, file))
    header["head_hash"] = "00" * 32
    file.write_bytes(msgspec.msgpack.encode([header, events, hashes]))
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 1 and f"FAILED at event {len(events)}: the header's head hash {'00' * 32}" in err, err
    assert not other.exists() or count(other, "events") == 0


def test_import_refuses_a_file_with_an_event_left_out(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    header, events, hashes = msgspec.msgpack.decode(export(capsys, db, game, file))
    del events[5]
    header["events"] -= 1
    file.write_bytes(msgspec.msgpack.encode([header, events, hashes]))
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 1 and "FAILED at event 6: hash chain broken" in err, err
    assert not other.exists() or count(other, "events") == 0


def test_import_twice_says_the_game_already_exists(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    export(capsys, db, game, file)
    other = tmp_path / "other.sqlite"
    assert run(capsys, "import", file, "--db", other)[0] == 0
    before = stored_rows(other, game)
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 2
    assert "already" in err
    assert stored_rows(other, game) == before and count(other, "games") == 1
    # and into the store it came from
    code, out, err = run(capsys, "import", file, "--db", db)
    assert code == 2 and "already" in err


def test_import_of_a_missing_file_is_refused(capsys, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", tmp_path / "nope.skirmish", "--db", other)
    assert code == 2
    assert "nope.skirmish" in err
    assert not other.exists()


@pytest.mark.parametrize("part", [b"Lt. Cmdr. Hale", b"0.2.0"])
def test_verify_file_fails_on_a_file_whose_events_were_altered(capsys, played, tmp_path: Path, part: bytes) -> None:
    """``verify --file`` on a replay file with one byte of an event changed must not say OK.

    The file's header carries the chain's head hash, and ``import`` refuses the file because
    the events no longer hash to it. ``verify --file`` must notice as well, whichever byte was
    touched, including parts of ``GameCreated`` that neither the rules nor the state hash read
    (its ``engine_version``). A unit's name is in the state, so the checkpoints catch that one.
    """
    db, game = played
    file = tmp_path / "game.skirmish"
    data = export(capsys, db, game, file)
    first = stored_rows(db, game)[0][1]
    assert first.count(part) == 1
    file.write_bytes(flip_inside_event(data, first, first.find(part) + len(part) - 1))
    altered = decode_event(msgspec.msgpack.decode(file.read_bytes())[1][0])
    assert (altered.engine_version, altered.units[0].name) != (decode_event(first).engine_version, "Lt. Cmdr. Hale")
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 1, out + err  # issue 12, item 12: a failed check, not unreadable input
    assert out.startswith(f"verify {game}: FAILED at event 1: hash chain broken"), out


# ---------------------------------------------------------------------------- issue 12: files, import, exit codes


def forged_file(data: bytes, k: int, new_event: bytes, *, version: int = 2) -> bytes:
    """What a dishonest exporter writes: event ``k`` (1-based) replaced, every hash and the
    header's head recomputed, so that the file is consistent in itself."""
    from skirmish.engine.log import chain_hashes

    header, events, _ = msgspec.msgpack.decode(data)
    events[k - 1] = new_event
    hashes = chain_hashes(header["game_id"], events)
    header["head_hash"] = hashes[-1].hex()
    header["version"] = version
    return msgspec.msgpack.encode([header, events, hashes] if version >= 2 else [header, events])


def forged_injury(db: Path, game: str) -> tuple[int, bytes]:
    """An event of the game made worse: a nonlethal injury turned lethal (the rules notice)."""
    from skirmish.engine.codec import encode_event

    for seq, data, _ in stored_rows(db, game):
        e = decode_event(data)
        if isinstance(e, ev.InjurySuffered) and e.result == "nonlethal":
            return seq, encode_event(msgspec.structs.replace(e, result="lethal"))
    raise AssertionError("no nonlethal injury in the game")


def test_import_verifies_fully_and_refuses_a_game_that_breaks_the_rules(capsys, played, tmp_path: Path) -> None:
    """Issue 12, item 11: the chain of this file is intact, but an injury was forged."""
    db, game = played
    file = tmp_path / "game.skirmish"
    k, forged = forged_injury(db, game)
    file.write_bytes(forged_file(export(capsys, db, game, file), k, forged))
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 1, out + err
    assert f"FAILED at event {k}: InjurySuffered differs from what the rules give" in err, err
    assert "nothing imported" in err and out == ""
    assert not other.exists() or (count(other, "games"), count(other, "events")) == (0, 0)


def test_import_refuses_an_event_that_is_not_utf8(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    rows = stored_rows(db, game)
    k, data = next((seq, d) for seq, d, _ in rows if isinstance(decode_event(d), ev.TurnStarted))
    bad = data[:-2] + b"\xff\xfe"  # the unit id's two characters
    file.write_bytes(forged_file(export(capsys, db, game, file), k, bad))
    other = tmp_path / "other.sqlite"
    code, out, err = run(capsys, "import", file, "--db", other)
    assert code == 1 and f"FAILED at event {k}: not a valid event" in err and "UTF-8" in err, err
    assert "Traceback" not in err
    assert not other.exists() or count(other, "events") == 0
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 1 and f"FAILED at event {k}: not a valid event" in out, out + err


def test_verify_file_names_the_first_bad_event_of_a_consistent_forgery(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    k, forged = forged_injury(db, game)
    file.write_bytes(forged_file(export(capsys, db, game, file), k, forged))
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 1, out + err
    assert out.startswith(f"verify {game}: FAILED at event {k}: InjurySuffered differs"), out


def test_verify_file_names_an_event_whose_bytes_changed_and_a_header_that_lies(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    data = export(capsys, db, game, file)
    rows = stored_rows(db, game)
    k = next(i for i in range(len(rows) // 2, len(rows)) if data.count(rows[i][1]) == 1)
    file.write_bytes(flip_inside_event(data, rows[k][1]))
    code, out, err = run(capsys, "verify", "--file", file)
    assert (code, err) == (1, ""), out + err
    assert f"FAILED at event {k + 1}: hash chain broken" in out
    header, events, hashes = msgspec.msgpack.decode(data)
    for change, problem in (({"events": len(events) + 1}, f"FAILED at event {len(events) + 1}: event {len(events) + 1} is missing"),
                            ({"head_hash": "ab" * 32}, f"FAILED at event {len(events)}: the header's head hash")):
        file.write_bytes(msgspec.msgpack.encode([{**header, **change}, events, hashes]))
        code, out, err = run(capsys, "verify", "--file", file)
        assert code == 1 and problem in out, out + err


def test_verify_file_reads_version_1_files(capsys, played, tmp_path: Path) -> None:
    """Files exported before per-event hashes ([header, events], version 1) still verify, and an
    altered one fails (exit 1); only the rules or the head hash can then notice the change."""
    db, game = played
    file = tmp_path / "game.skirmish"
    header, events, _ = msgspec.msgpack.decode(export(capsys, db, game, file))
    v1 = msgspec.msgpack.encode([{**header, "version": 1}, events])
    file.write_bytes(v1)
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 0 and f"verify {game}: OK" in out, out + err
    # GameCreated in other bytes (its keys in another order): the same event, so only the chain can tell
    # (every field is now read by something: engine_version picks the rules, issue 13)
    reordered = msgspec.msgpack.encode(dict(reversed(list(msgspec.msgpack.decode(events[0]).items()))))
    file.write_bytes(msgspec.msgpack.encode([{**header, "version": 1}, [reordered, *events[1:]]]))
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 1 and f"FAILED at event {len(events)}: the header's head hash" in out, out + err
    assert "version 1" in out


@pytest.mark.parametrize("content", [None, b"", b"\x93not a replay", b"\x92\x81\xa6format\xa3\xff\xfe\xfd\x90"])
def test_verify_and_replay_file_exit_2_only_for_what_cannot_be_read(capsys, tmp_path: Path, content) -> None:
    file = tmp_path / "input.skirmish"
    if content is not None:
        file.write_bytes(content)
    for command in ("verify", "replay", "import"):
        argv = [command, file] if command == "import" else [command, "--file", file]
        code, out, err = run(capsys, *argv, *(["--db", tmp_path / "x.sqlite"] if command == "import" else []))
        assert code == 2, (command, out, err)
        assert str(file) in err and "Traceback" not in err, err
        assert ("cannot read" if content is None else "not a skirmish replay file") in err, err


def test_verify_expect_head(capsys, played, tmp_path: Path) -> None:
    """Issue 12, item 14: the head hash a server announced ties a file (or a store) to it."""
    db, game = played
    file = tmp_path / "game.skirmish"
    export(capsys, db, game, file)
    head = stored_rows(db, game)[-1][2].hex()
    code, out, err = run(capsys, "verify", "--file", file)
    assert code == 0 and f"head hash: {head}" in out
    for argv in (["--file", file], [game, "--db", db]):
        code, out, err = run(capsys, "verify", *argv, "--expect-head", head.upper())
        assert code == 0 and "the head hash is the one expected" in out, out + err
        other = "0" * 64
        code, out, err = run(capsys, "verify", *argv, "--expect-head", other)
        assert code == 1, out + err
        assert f"head hash is {head}, but {other} was expected" in out
    code, out, err = run(capsys, "verify", "--file", file, "--expect-head", "nothex")
    assert code == 2 and "64 hex digits" in err


def test_replay_file_prints_what_replay_of_the_store_prints(capsys, played, tmp_path: Path) -> None:
    db, game = played
    file = tmp_path / "game.skirmish"
    export(capsys, db, game, file)
    for viewer in ("a", "all"):
        code, from_store, err = run(capsys, "replay", game, "--as", viewer, "--db", db)
        assert code == 0, err
        code, from_file, err = run(capsys, "replay", "--file", file, "--as", viewer)
        assert code == 0 and err == "", err
        assert from_file == from_store and from_file.count("\n") > 100
    code, out, err = run(capsys, "replay", game, "--file", file, "--db", db)
    assert code == 2 and "not both" in err
    code, out, err = run(capsys, "replay", "--db", db)
    assert code == 2 and "GAME" in err


def test_a_game_with_an_empty_log_is_named_not_a_traceback(capsys, db: Path, tmp_path: Path) -> None:
    async def create() -> None:
        async with await SQLiteStore.open(db) as store:
            await store.create_game("g-empty", b"{}")

    asyncio.run(create())
    code, out, err = run(capsys, "verify", "g-empty", "--db", db)
    assert code == 1 and "FAILED at event 1: the log is empty" in out
    code, out, err = run(capsys, "replay", "g-empty", "--db", db)
    assert code == 1 and "FAILED at event 1: the log is empty" in err
    code, out, err = run(capsys, "export", "g-empty", tmp_path / "x.skirmish", "--db", db)
    assert code == 2 and "'g-empty' has no events" in err and not (tmp_path / "x.skirmish").exists()


@pytest.mark.parametrize("sub", ["verify", "import", "replay"])
def test_help_documents_the_exit_codes(capsys, sub: str) -> None:
    with pytest.raises(SystemExit):
        cli.main([sub, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "exit status" in out and "0 " in out and "1 " in out and "2 " in out, out
    if sub == "verify":
        assert "--expect-head HASH" in out and "FAILED at event N" in out


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

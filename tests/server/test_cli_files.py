"""The ``skirmish`` command line on replay files: ``export`` and ``import`` (which verifies in full
first), ``verify --file`` (the first bad event named; ``--expect-head``), ``replay --file``, and
the exit codes (0 verified, 1 a failed check, 2 only for input that cannot be read). The
fixtures and helpers are ``test_cli.py``'s.
"""


import asyncio
from pathlib import Path

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event
from skirmish.engine.mission import ENGINE_VERSION
from skirmish.server import cli
from skirmish.server.store import SQLiteStore


from tests.server.test_cli import (  # noqa: F401 (fixtures, used by name)
    _no_default_db, count, db, match, played, run, start_unfinished_game, stored_rows)


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


@pytest.mark.parametrize("part", [b"Lt. Cmdr. Hale", ENGINE_VERSION.encode()])
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

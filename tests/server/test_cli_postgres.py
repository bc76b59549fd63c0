"""``skirmish serve|match|verify|replay|export|import|copy --db postgresql://...``: every command
that takes a store, on PostgreSQL (the database of tests/server/store/pg.py, one schema a test),
and ``skirmish copy`` between PostgreSQL and SQLite both ways."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from skirmish.server import cli
from skirmish.server.store.postgres import PostgresStore

from tests.server.net.helpers import ServerProcess, play, seated_pair, verify_store
from tests.server.store.pg import drop_schema, new_schema, require_postgres, store_url

pytestmark = pytest.mark.postgres


@pytest.fixture(autouse=True)
def _no_default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SKIRMISH_DB", str(tmp_path / "default" / "must-not-be-used.sqlite"))
    yield
    assert not (tmp_path / "default").exists(), "a command used the default store"


@pytest.fixture
def pg() -> Iterator[callable]:
    """A function giving the address of a new, empty schema (all dropped afterwards)."""
    require_postgres()
    made: list[str] = []

    def fresh() -> str:
        made.append(new_schema())
        return store_url(made[-1])

    yield fresh
    for schema in made:
        drop_schema(schema)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_match_verify_replay_export_import_on_postgres(pg, tmp_path: Path, capsys) -> None:
    db = pg()
    code, out, err = run(capsys, "match", "--seed", "7", "--bots", "greedy,random", "--db", db)
    assert code == 0, err
    assert "store: postgresql://postgres@127.0.0.1:5432/test (schema t_" in err
    game = re.search(r"^game (\S+):", out, re.MULTILINE).group(1)
    code, out, _ = run(capsys, "verify", game, "--db", db)
    assert code == 0 and "OK:" in out, out
    head = re.search(r"head hash: ([0-9a-f]{64})", out).group(1)
    code, out, _ = run(capsys, "replay", game, "--as", "a", "--db", db)
    assert code == 0 and len(out.splitlines()) > 10
    code, out, _ = run(capsys, "export", game, tmp_path / "g.skr", "--db", db)
    assert code == 0 and (tmp_path / "g.skr").stat().st_size > 0
    other = pg()
    code, out, err = run(capsys, "import", tmp_path / "g.skr", "--db", other)
    assert code == 0, err
    code, out, _ = run(capsys, "verify", game, "--db", other, "--expect-head", head)
    assert code == 0 and "the head hash is the one expected" in out
    code, _, err = run(capsys, "import", tmp_path / "g.skr", "--db", other)
    assert code == 2 and "already in the store" in err
    # reading commands do not make a store where there is none
    code, _, err = run(capsys, "verify", game, "--db", pg())
    assert code == 2 and "no skirmish store" in err, err


def test_copy_between_postgres_and_sqlite_both_ways(pg, tmp_path: Path, capsys) -> None:
    source = pg()
    games = []
    for seed in (1, 2):
        code, out, err = run(capsys, "match", "--seed", seed, "--db", source)
        assert code == 0, err
        games.append(re.search(r"^game (\S+):", out, re.MULTILINE).group(1))
    sqlite = tmp_path / "copy.sqlite"
    code, out, err = run(capsys, "copy", "--from", source, "--to", sqlite)
    assert code == 0, err
    assert re.search(rf"^\[1/2\] {games[0]}: copied \d+ events, verified on arrival", out, re.MULTILINE), out
    assert "copied 2, already there 0" in out
    back = pg()
    code, out, err = run(capsys, "copy", "--from", sqlite, "--to", back, "--game", games[1])
    assert code == 0 and f"[1/1] {games[1]}: copied" in out, err
    code, out, _ = run(capsys, "copy", "--from", sqlite, "--to", back)  # again: idempotent
    assert code == 0 and "already in the target, identical" in out and "copied 1, already there 1" in out, out
    for game in games:
        code, out, _ = run(capsys, "verify", game, "--db", back)
        assert code == 0, out

    async def tamper() -> None:  # the target gets a game of the same id with other events
        location = back.split("?schema=")
        async with await PostgresStore.open(location[0], schema=location[1]) as store:
            await store.create_game("clash", events=[b"not this"])
        async with await PostgresStore.open(location[0], schema=source.split("?schema=")[1]) as store:
            await store.create_game("clash", events=[b"but that"])

    asyncio.run(tamper())
    code, out, err = run(capsys, "copy", "--from", source, "--to", back, "--game", "clash")
    assert code == 1 and "does not verify in the source" in out  # not a game: refused before writing
    code, out, err = run(capsys, "copy", "--from", sqlite, "--to", source, "--game", games[0], "--game", "nope")
    assert code == 2 and "nope: not in the source store" in out and "already there 1" in out, out
    code, _, err = run(capsys, "copy", "--from", source, "--to", source)
    assert code == 2 and "the same store" in err


def test_copy_refuses_a_game_with_other_content(pg, tmp_path: Path, capsys) -> None:
    a, b = pg(), pg()
    assert run(capsys, "match", "--seed", "3", "--db", a, "--game-id", "same-id")[0] == 0
    assert run(capsys, "match", "--seed", "4", "--db", b, "--game-id", "same-id")[0] == 0
    code, out, _ = run(capsys, "copy", "--from", a, "--to", b)
    assert code == 2 and "REFUSED: the target already has a game 'same-id' with other content" in out, out
    assert "nothing written" in out


async def test_serve_on_postgres_plays_a_game_that_verifies(pg, tmp_path: Path) -> None:
    db = pg()
    server = await ServerProcess(db, tmp_path / "server.log").started()
    try:
        a, b, sa, _ = await seated_pair(server.url)
        over = await asyncio.gather(play(a, sa.game_id, "a"), play(b, sa.game_id, "b"))
        assert over[0].game_id == sa.game_id
        await a.close()
        await b.close()
        assert await server.terminate() == 0
    finally:
        server.cleanup()
    schema = db.split("?schema=")
    async with await PostgresStore.open(schema[0], schema=schema[1], create=False) as store:
        report = await verify_store(store, sa.game_id)
    assert report.ok and report.finished, report.summary()


def test_verify_and_replay_all_on_postgres(pg, capsys) -> None:
    """``--all`` over a PostgreSQL store: the parent reads every log, two workers check them."""
    db = pg()
    for seed in ("7", "8"):
        assert run(capsys, "match", "--seed", seed, "--bots", "greedy,random", "--db", db)[0] == 0
    for mode in ("verify", "replay"):
        code, out, err = run(capsys, mode, "--all", "--workers", "2", "--db", db)
        assert code == 0, out + err
        assert f"{mode} --all: 2 games, 2 OK, 0 failed" in out and "(2 workers)" in out

"""``skirmish backup --db FILE --to COPY``: a consistent copy of a SQLite store, safe while a server
writes to it.

It uses SQLite's online backup API (``sqlite3.Connection.backup``) in one step: the copy is the
store as of one committed transaction (WAL mode: the server's writer carries on meanwhile; a
half-written transaction is never in it). Copying the file with ``cp`` is not safe: the
committed events may still be in ``FILE-wal``, and a copy taken mid-checkpoint is torn.

The copy is written beside ``COPY`` under a temporary name, checked (``PRAGMA integrity_check``;
with ``--verify`` every game's log is verified as ``skirmish verify`` does), made a single file
(``journal_mode=DELETE``: no ``-wal`` to carry along), synced to disk, and only then renamed to
``COPY``: a failed or interrupted backup never leaves a partial ``COPY``. ``COPY`` must not exist
unless ``--force`` (then it is replaced at once, atomically).

Restore: stop the server, move the copy to the store's path (remove any ``FILE-wal`` and
``FILE-shm`` left beside the old file), start the server.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path

EPILOG = """\
exit status: 0 the copy is written and checked; 1 the copy was made but does not check
(integrity or a game's log; nothing is left at COPY); 2 no such store, COPY exists
(without --force), or another problem with the arguments or files
"""


class BackupError(Exception):
    """A problem to say in one line (exit 2)."""


class BackupCheckFailed(Exception):
    """The copy was made but does not check (exit 1)."""


@dataclass
class BackupResult:
    games: int
    events: int
    bytes: int
    seconds: float
    verified: int  # games whose log was verified (--verify), else 0


def add_backup(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("backup", help="copy a SQLite store consistently, safe while a server writes to it",
                       description="Copy the SQLite store --db to --to with SQLite's online backup API: a "
                                   "consistent copy as of one committed transaction, taken while the server "
                                   "keeps serving. The copy is checked, then renamed into place.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", default=None, metavar="PATH",
                   help="the SQLite store to copy (default: $SKIRMISH_DB or ~/.local/share/skirmish/games.sqlite)")
    p.add_argument("--to", required=True, metavar="FILE", help="the copy to write (its folder must exist)")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--verify", action="store_true",
                   help="also verify every game's log in the copy (hash chain, rules, rolls), as 'skirmish verify'")
    return p


def backup(source: Path, target: Path, *, force: bool = False, verify: bool = False) -> BackupResult:
    """Copy the store ``source`` to ``target`` (see the module docstring)."""
    started = time.perf_counter()
    if not source.is_file():
        raise BackupError(f"no store at {source}")
    if target.exists() and not force:
        raise BackupError(f"{target} exists; choose another file or pass --force to replace it")
    if not target.parent.is_dir():
        raise BackupError(f"no folder {target.parent} for the copy")
    if target.resolve() == source.resolve():
        raise BackupError("the copy cannot be the store itself")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        games, events = _copy(source, tmp)
        verified = _verify_games(tmp) if verify else 0
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + "-journal")):
            leftover.unlink(missing_ok=True)
    return BackupResult(games, events, target.stat().st_size, time.perf_counter() - started, verified)


def _copy(source: Path, tmp: Path) -> tuple[int, int]:
    try:
        src = sqlite3.connect(source, timeout=30.0)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {source}: {exc}") from None
    try:
        src.execute("PRAGMA query_only=ON")
        tables = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"games", "events"} <= tables:
            raise BackupError(f"{source} is not a skirmish store (no games and events tables)")
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)  # pages=-1: one step, one read transaction: a consistent snapshot
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            problems = [r[0] for r in dst.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise BackupCheckFailed(f"the copy fails SQLite's integrity check: {'; '.join(problems[:5])}")
            games = dst.execute("SELECT count(*) FROM games").fetchone()[0]
            events = dst.execute("SELECT count(*) FROM events").fetchone()[0]
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise BackupError(f"backing up {source} failed: {exc}") from None
    finally:
        src.close()
    return games, events


def _verify_games(path: Path) -> int:
    """Verify every game's log in the copy; BackupCheckFailed naming the first that fails."""
    from skirmish.engine.verify import LoggedEvent, verify_log

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        ids = [r[0] for r in conn.execute("SELECT game_id FROM games ORDER BY created_at, game_id")]
        for game_id in ids:
            rows = conn.execute("SELECT seq, data, hash FROM events WHERE game_id=? ORDER BY seq", (game_id,))
            report = verify_log(game_id, [LoggedEvent(seq, bytes(data), bytes(h)) for seq, data, h in rows])
            if not report.ok:
                raise BackupCheckFailed(f"game {game_id} in the copy: {report.summary()}")
    finally:
        conn.close()
    return len(ids)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


async def cmd_backup(args) -> int:
    from skirmish.server.cli import db_path
    from skirmish.server.store.location import prepare

    from skirmish.server.store.location import Postgres

    source = db_path(args.db)  # (StoreError for what is not a SQLite file: the cli says it, exit 2)
    if isinstance(source, Postgres):
        print(f"skirmish backup: {source} is a PostgreSQL store; this command copies a SQLite store "
              "(back PostgreSQL up with pg_dump: deploy/README.md)", file=sys.stderr)
        return 2
    prepare(source, create=False)
    try:
        r = backup(source, Path(args.to), force=args.force, verify=args.verify)
    except BackupError as exc:  # (said here: run as ``python -m skirmish.server.cli``, cli's CliError is another class)
        print(f"skirmish backup: {exc}", file=sys.stderr)
        return 2
    except BackupCheckFailed as exc:
        print(f"skirmish backup: FAILED: {exc}", file=sys.stderr)
        return 1
    checked = f"integrity ok, {r.verified} games verified" if args.verify else "integrity ok"
    print(f"backup: {source} -> {args.to}: {r.games} games, {r.events} events, {r.bytes} bytes "
          f"({checked}) in {r.seconds:.2f} s")
    return 0

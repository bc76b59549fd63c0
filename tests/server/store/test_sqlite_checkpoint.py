"""The SQLite store's checkpoints run on a thread of their own (skirmish.server.store.sqlite_checkpoint):
the WAL stays bounded although the writer never checkpoints it the slow way, a failing thread
leaves the writer writing, and closing the store stops the thread."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from skirmish.server.store import SQLiteStore
from skirmish.server.store.sqlite_checkpoint import BACKSTOP_PAGES, CATCH_UP_PAGES, CATCH_UP_ROUNDS, Checkpointer
from skirmish.server.store.sqlite_schema import PAGE_SIZE, connect, create_schema
from skirmish.server.store.sqlite_writer import Append, CreateGame, Writer

EVENT = b"x" * 10_000  # five pages and more: each commit adds a few dozen KB to the WAL
BATCHES = 400


def _writer(path: Path, checkpointer: Checkpointer | None) -> Writer:
    conn = connect(path)
    create_schema(conn, str(path))
    w = Writer(conn, str(path), 100, checkpointer)
    if checkpointer is None:  # the same backstop, without the thread: only the backstop checkpoints
        conn.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
    return w


def _write(w: Writer, batches: int, until=lambda: True) -> int:
    """``batches`` commits at least, and more until ``until()`` (a thread may be slow to start on a
    busy machine); how many."""
    w.write_batch([CreateGame("g", b"", b"")])
    seq, deadline = 0, time.monotonic() + 60
    while seq < batches or not until():
        assert time.monotonic() < deadline, "the checkpoint thread never ran"
        results, _ = w.write_batch([Append("g", seq, (EVENT,), None)])
        assert not isinstance(results[0], Exception), results[0]
        seq += 1
        time.sleep(0.001)  # a writer with gaps, like a server's
    return seq


def _wal_bytes(path: Path) -> int:
    return Path(f"{path}-wal").stat().st_size


def test_the_thread_keeps_the_wal_short_and_the_writer_restarts_it(tmp_path: Path) -> None:
    restart_pages = 200
    w = _writer(tmp_path / "a.sqlite", None)  # the file made first, as open_writer does
    ckpt = Checkpointer(str(tmp_path / "a.sqlite"), interval=0.02, restart_pages=restart_pages)
    w = Writer(w.conn, w.path, 100, ckpt)
    try:
        assert w.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == BACKSTOP_PAGES
        written = _write(w, BATCHES, until=lambda: ckpt.checkpoints >= 5)
        bounded = _wal_bytes(tmp_path / "a.sqlite")
        assert ckpt.failure is None
        n = w.conn.execute("SELECT count(*), sum(length(data)) FROM events").fetchone()
        assert n == (written, written * len(EVENT))
    finally:
        w.close()
    # The same writes with the backstop alone: the WAL holds all of them.
    w = _writer(tmp_path / "b.sqlite", None)
    try:
        _write(w, written)
        unbounded = _wal_bytes(tmp_path / "b.sqlite")
    finally:
        w.close()
    assert unbounded > written * len(EVENT)
    # restarted near restart_pages: the file holds a few times that at most, not every write
    assert bounded < 4 * restart_pages * PAGE_SIZE < unbounded / 2, (bounded, unbounded)


def test_a_failing_checkpoint_thread_leaves_the_writer_writing(tmp_path: Path, capfd) -> None:
    ckpt = Checkpointer(str(tmp_path / "no-such-folder" / "x.sqlite"), interval=0.01)
    w = _writer(tmp_path / "c.sqlite", ckpt)
    try:
        _write(w, 5)
        ckpt._thread.join(5)
        assert ckpt.failure is not None and not ckpt._thread.is_alive()
        err = capfd.readouterr().err
        assert "the checkpoint thread stopped" in err and f"every {BACKSTOP_PAGES} pages instead" in err
        results, _ = w.write_batch([Append("g", 5, (b"after",), None)])
        assert results[0].last_seq == 6
    finally:
        w.close()


async def test_closing_the_store_stops_its_checkpoint_thread(tmp_path: Path) -> None:
    s = await SQLiteStore.open(tmp_path / "d.sqlite")  # the writer on a thread: its checkpointer is here
    await s.create_game("g")
    await s.append("g", 0, [b"e1"])
    assert s._writer is not None and s._writer.checkpointer is not None
    thread = s._writer.checkpointer._thread
    assert thread.is_alive() and thread.name == "sqlite-store-checkpoint"
    await s.close()
    assert not thread.is_alive()


class ScriptedWal:
    """A connection whose PASSIVE checkpoints report ``(busy, pages in the WAL, pages copied)`` in turn."""

    def __init__(self, *reports: tuple[int, int]) -> None:
        self.reports = list(reports)
        self.calls = 0

    def execute(self, sql: str):
        assert sql == "PRAGMA wal_checkpoint(PASSIVE)"
        self.report = self.reports[min(self.calls, len(self.reports) - 1)]
        self.calls += 1
        return self

    def fetchone(self) -> tuple[int, int, int]:
        return (0, *self.report)


@pytest.mark.parametrize("reports, copies, restart", [
    ([(500, 500)], 1, False),  # a short WAL: one copy, no restart asked
    # long: copy again what came during each copy, until a copy finds few new pages; then ask
    ([(1000, 1000), (1400, 1400), (1400 + CATCH_UP_PAGES - 1, 1400 + CATCH_UP_PAGES - 1)], 3, True),
    ([(1000, 1000), (1000 + CATCH_UP_PAGES - 1, 1000 + CATCH_UP_PAGES - 1)], 2, True),
    # the pages keep coming: a bounded number of copies, then the writer does the rest
    ([(1000 * (k + 1), 1000 * (k + 1)) for k in range(CATCH_UP_ROUNDS + 5)], 1 + CATCH_UP_ROUNDS, True),
])
def test_a_long_wal_is_copied_again_until_little_is_left_for_the_writer(tmp_path: Path, reports, copies,
                                                                          restart) -> None:
    """The writer's own copy ends with an fsync of the file while the acks wait, as long as the pages
    are many: the thread leaves it only what came during a copy that found little."""
    ckpt = Checkpointer(str(tmp_path / "e.sqlite"), interval=3600, restart_pages=1000)
    try:
        wal = ScriptedWal(*reports)
        ckpt.copy(wal)
        assert wal.calls == copies
        assert ckpt.restart_due() is restart
        assert ckpt.restart_due() is False  # asked once
    finally:
        ckpt.stop()

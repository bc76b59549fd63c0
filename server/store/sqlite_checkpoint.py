"""The SQLite store's checkpoints, off the write path.

In WAL mode every commit appends pages to ``FILE-wal``; a checkpoint copies them into the file
and fsyncs it. SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold,
so one batch in every few thousand waited for it: 20-60 ms at a time on a busy server, every two
or three seconds, and the p99 of command -> ack at half the peak rate was that wait
(docs/decisions.md, "The p99 at half rate: two stalls found").

Here a thread with a connection of its own runs a PASSIVE checkpoint every ``interval`` seconds
when the writer has written since the last one: it copies the pages and fsyncs the file while
the writer goes on committing (a PASSIVE checkpoint never waits for a writer, nor makes one
wait). SQLite starts the WAL again from its beginning only when a write transaction begins with
every page of it copied, which a busy writer never allows (it commits again while the copy runs).
So, once the WAL holds ``restart_pages`` pages, the thread asks the writer to finish the job: the
writer runs a checkpoint of its own before its next transaction, which copies only what was
committed since the thread's last copy, and SQLite then restarts the WAL. The writer's copy ends
with an fsync of the file while the acks wait, and that fsync takes as long as the pages it
flushes are many: after one copy by the thread, what was committed during it (15-19 ms with
1,000 games playing, about once a second, which set the p99 of their acks). So the thread first
copies again, up to ``CATCH_UP_ROUNDS`` times, until a copy finds fewer than ``CATCH_UP_PAGES``
new pages: each copy is shorter than the last, as it only has what came during the one before.

The writer's own automatic checkpoint stays on as a backstop, at ``backstop_pages`` (well above
anything this thread lets the WAL reach): were the thread to fail, the WAL would still be
bounded. A checkpoint moves committed pages; it never decides what is durable (every COMMIT
syncs the WAL first, ``synchronous=FULL``), so no acknowledged write depends on this thread.
"""

from __future__ import annotations

import sqlite3
import sys
import threading

from .sqlite_schema import connect

__all__ = ["BACKSTOP_PAGES", "Checkpointer"]

INTERVAL_S = 0.5
RESTART_PAGES = 10_000  # ~20 MB of WAL (2 KiB pages) before the writer is asked to finish a checkpoint
BACKSTOP_PAGES = 80_000  # the writer's automatic checkpoint, should this thread fail
CATCH_UP_PAGES = 64  # what the thread leaves for the writer to copy before the WAL restarts
CATCH_UP_ROUNDS = 4


class Checkpointer:
    """A thread that checkpoints the store's file while its writer writes.

    The writer calls :meth:`wrote` after each commit, and before each transaction asks
    :meth:`restart_due` whether to run a checkpoint of its own first; :meth:`stop` ends the
    thread (and closes its connection)."""

    def __init__(self, path: str, *, interval: float = INTERVAL_S, restart_pages: int = RESTART_PAGES) -> None:
        self.path = path
        self.interval = interval
        self.restart_pages = restart_pages
        self.checkpoints = 0  # PASSIVE checkpoints run by the thread
        self.failure: BaseException | None = None
        self._written = threading.Event()
        self._restart = threading.Event()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-store-checkpoint", daemon=True)
        self._thread.start()

    def wrote(self) -> None:
        self._written.set()

    def restart_due(self) -> bool:
        """True once (until the next request): the WAL is long and nearly all copied."""
        if self._restart.is_set():
            self._restart.clear()
            return True
        return False

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = connect(self.path)
            conn.execute("PRAGMA wal_autocheckpoint=0")
            while not self._stopping.wait(self.interval):
                if not self._written.is_set():
                    continue
                self._written.clear()
                self.copy(conn)
        except Exception as exc:  # the writer's backstop checkpoint takes over; say so once
            self.failure = exc
            print(f"sqlite store {self.path!r}: the checkpoint thread stopped ({exc!r}); "
                  f"the writer checkpoints every {BACKSTOP_PAGES} pages instead", file=sys.stderr, flush=True)
        finally:
            if conn is not None:
                conn.close()

    def copy(self, conn: sqlite3.Connection) -> None:
        """A PASSIVE checkpoint; when the WAL has grown to ``restart_pages``, more of them while the
        last one found many new pages, then the writer is asked to copy the rest and restart it."""
        log_pages, copied = self._checkpoint(conn)
        if log_pages < self.restart_pages:
            return
        for _ in range(CATCH_UP_ROUNDS):
            if self._stopping.is_set():
                break
            before = copied
            log_pages, copied = self._checkpoint(conn)
            if log_pages - before < CATCH_UP_PAGES:  # what came during the last copy: little now
                break
        self._restart.set()

    def _checkpoint(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """A PASSIVE checkpoint: the pages in the WAL when it began, and how many of them are now in
        the file (all of them, but for those a reader still needs)."""
        _busy, log_pages, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        self.checkpoints += 1
        return log_pages, copied

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()

"""SQLiteStore with its write connection in a child process (``skirmish serve``'s default): the
shared EventStore suite, then what only the process promises: it commits before it answers, a
dead child fails every later write, and it exits quietly (status 0, nothing on stderr) when its
parent vanishes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from skirmish.server.store import ConcurrencyError, SQLiteStore, StoreError, UnknownGame
from skirmish.server.store import sqlite as sqlite_mod
from skirmish.server.store import sqlite_process, sqlite_writer

from .suite import EventStoreSuite

REPO_ROOT = Path(__file__).resolve().parents[3]


class TestSQLiteStoreWriterProcess(EventStoreSuite):
    """The same contract with the write connection in a child process (``skirmish serve``'s way)."""

    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[SQLiteStore]:
        s = await SQLiteStore.open(tmp_path / "events.sqlite", writer="process")
        yield s
        await s.close()


async def test_the_writer_process_commits_before_it_answers_and_stops_when_the_store_closes(db: Path) -> None:
    s = await SQLiteStore.open(db, writer="process")
    proc = s._process.proc
    assert proc.returncode is None and proc.pid != os.getpid()
    await s.create_game("g")
    await asyncio.gather(*(s.append("g", 0, [b"x"], command_id="c") for _ in range(3)))
    with sqlite3.connect(db) as raw:  # another connection sees the acknowledged rows at once
        assert raw.execute("SELECT count(*) FROM events WHERE game_id = 'g'").fetchone()[0] == 1
    assert await s.pragmas() == {"journal_mode": "wal", "synchronous": 2, "user_version": sqlite_mod.SCHEMA_VERSION}
    with pytest.raises(ConcurrencyError) as err:  # the child's typed errors come back as they were
        await s.append("g", 0, [b"y"])
    assert (err.value.game_id, err.value.expected_seq, err.value.actual_seq) == ("g", 0, 1)
    with pytest.raises(UnknownGame):
        await s.append("nope", 0, [b"y"])
    await s.close()
    assert proc.returncode == 0


async def test_a_writer_process_that_dies_fails_every_later_write(db: Path) -> None:
    async with await SQLiteStore.open(db, writer="process") as s:
        await s.create_game("g")
        s._process.proc.kill()
        await s._process.proc.wait()
        with pytest.raises(StoreError, match="writer process is gone"):
            await s.append("g", 0, [b"x"])
        with pytest.raises(StoreError, match="writer stopped"):
            await s.append("g", 0, [b"x"])
        assert [e.seq for e in await s.read("g")] == []  # reads go on


async def test_a_writer_process_that_cannot_open_the_file_fails_open(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-database.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open sqlite store"):
        await SQLiteStore.open(bad, writer="process")
    with pytest.raises(ValueError, match="writer is one of"):
        await SQLiteStore.open(tmp_path / "x.sqlite", writer="fibre")


def test_the_writer_module_is_not_a_command_for_people() -> None:
    import subprocess

    out = subprocess.run(sqlite_process.writer_command(), cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "started by SQLiteStore" in out.stderr


# ---------------------------------------------------------------------------- the writer process's end
# A vanished parent is the normal way the writer process stops (``skirmish serve`` killed): it must
# exit 0 without a word, since its stderr is the server's, which carries only JSON lines.


def _start_writer(db: Path):
    import pickle
    import socket
    import subprocess

    ours, theirs = socket.socketpair()
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(sqlite_process.writer_command(str(theirs.fileno()), str(db), "100"),
                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO_ROOT, env=env)
    theirs.close()

    def send(method: str, *args) -> None:
        data = pickle.dumps((method, args), pickle.HIGHEST_PROTOCOL)
        ours.sendall(sqlite_process.FRAME.pack(len(data)) + data)

    def receive():
        def exactly(n: int) -> bytes:
            buf = b""
            while len(buf) < n:
                chunk = ours.recv(n - len(buf))
                assert chunk, "the writer closed its socket"
                buf += chunk
            return buf

        (n,) = sqlite_process.FRAME.unpack(exactly(sqlite_process.FRAME.size))
        return pickle.loads(exactly(n))

    send("ready")
    assert receive() == (True, None)
    return proc, ours, send, receive


def _wait_for_unread_replies(sock, n_bytes: int) -> None:
    import socket

    deadline = time.monotonic() + 30
    while True:
        try:
            if len(sock.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT)) >= n_bytes:
                return
        except BlockingIOError:
            pass
        assert time.monotonic() < deadline, "the writer did not answer"
        time.sleep(0.01)


@pytest.mark.parametrize("how", ["eof", "reset", "broken_pipe", "cut_message"])
def test_the_writer_process_exits_quietly_when_its_parent_vanishes(db: Path, how: str) -> None:
    """eof: the socket closed; reset: closed with replies unread (ConnectionResetError in the
    child); broken_pipe: closed while the child writes a batch (BrokenPipeError when it answers);
    cut_message: the parent died halfway through sending a request."""
    proc, sock, send, receive = _start_writer(db)
    try:
        if how == "reset":
            for _ in range(3):
                send("pragmas")
            _wait_for_unread_replies(sock, 30)
        elif how == "broken_pipe":
            requests = [sqlite_writer.CreateGame(f"g{i}", b"", b"", (b"x" * 2000,) * 50) for i in range(300)]
            send("write_batch", requests)
        elif how == "cut_message":
            sock.sendall(sqlite_process.FRAME.pack(1000) + b"\x80\x05 half a pickle")
        sock.close()
        out, err = proc.communicate(timeout=60)
    finally:
        sock.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err.decode(), out.decode()) == (0, "", "")
    if how == "broken_pipe":  # the batch it was writing was committed before it found out
        with sqlite3.connect(db) as raw:
            assert raw.execute("SELECT count(*) FROM games").fetchone()[0] == 300


WRITER_PARENT = textwrap.dedent(
    """
    import asyncio, sys
    from skirmish.server.store import SQLiteStore

    async def main(path):
        store = await SQLiteStore.open(path, writer="process")
        print(store._process.proc.pid, flush=True)
        await asyncio.gather(*(store.create_game(f"g{i}") for i in range(20)))
        seqs = [0] * 20
        async def one(i):
            while True:
                await store.append(f"g{i}", seqs[i], [b"y" * 300] * 5)
                seqs[i] += 5
                if i == 0 and seqs[0] == 50:
                    print("busy", flush=True)
        await asyncio.gather(*(one(i) for i in range(20)))

    asyncio.run(main(sys.argv[1]))
    """
)


def test_the_writer_process_of_a_killed_parent_leaves_nothing_on_stderr(tmp_path: Path) -> None:
    import subprocess

    script, err_path = tmp_path / "parent.py", tmp_path / "stderr.txt"
    script.write_text(WRITER_PARENT)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for attempt in range(5):  # the kill lands at a random point of the writer's work each time
        with open(err_path, "wb") as err:
            parent = subprocess.Popen([sys.executable, str(script), str(tmp_path / f"db{attempt}.sqlite")],
                                      cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=err)
        try:
            writer_pid = int(parent.stdout.readline())
            assert parent.stdout.readline() == b"busy\n"
            time.sleep(0.05 * attempt)
            parent.send_signal(signal.SIGKILL)
            parent.wait(10)
        finally:
            if parent.poll() is None:
                parent.kill()
                parent.wait()
            parent.stdout.close()
        deadline = time.monotonic() + 30
        while _alive(writer_pid):
            assert time.monotonic() < deadline, "the writer process outlived its parent"
            time.sleep(0.02)
        assert err_path.read_text() == "", f"attempt {attempt}: the writer wrote on stderr"


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody has reaped yet has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False

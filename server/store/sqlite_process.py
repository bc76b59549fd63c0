"""The SQLite store's writer process (``SQLiteStore.open(path, writer="process")``), both ends
of its socket: :func:`serve`, the child's loop around a :class:`~skirmish.server.store.sqlite_writer.Writer`,
and :class:`WriterProcess`, the parent's side. Each message is its length (:data:`FRAME`), then a
pickle: ``(method, args)`` from the parent, ``(ok, value)`` back, in order.
"""

from __future__ import annotations

import asyncio
import pickle
import signal
import socket
import struct
import sys
from pathlib import Path
from typing import Any

from .base import StoreError
from .sqlite_writer import Writer, open_writer

__all__ = ["FRAME", "WriterProcess", "serve"]

FRAME = struct.Struct(">I")  # each message on the writer's socket: its length, then a pickle


def serve(sock: socket.socket, path: str, cache_size: int) -> None:
    """The child's main (``writer="process"``): answer each ``(method, args)`` of the parent with
    ``(True, Writer.method(*args))`` or ``(False, exception)``, in order, until the socket closes.

    A parent that vanishes (the store closed, or the server killed) is the normal way this ends,
    however the socket says so: end of file, a request cut short, ``ConnectionResetError``
    (closed with answers unread), ``BrokenPipeError`` (closed before an answer): it returns
    quietly, after committing the transaction it was writing, for its stderr is the server's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent says when to stop, by closing the socket
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    writer: Writer | None = None
    f = sock.makefile("rwb")
    try:
        try:
            writer, failure = open_writer(Path(path), cache_size), None
        except BaseException as exc:
            failure = exc
        while True:
            head = f.read(FRAME.size)
            if len(head) < FRAME.size:
                return  # the store closed, or the server died
            (n,) = FRAME.unpack(head)
            body = f.read(n)
            if len(body) < n:
                return  # the server died while it sent this request
            method, args = pickle.loads(body)
            try:
                if writer is None:
                    raise failure  # type: ignore[misc]
                reply = (True, None if method == "ready" else getattr(writer, method)(*args))
            except Exception as exc:
                reply = (False, exc)
            try:
                data = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # an error that does not pickle: its text does
                data = pickle.dumps((False, StoreError(f"sqlite store {path!r}: {reply[1]!r} ({exc})")))
            f.write(FRAME.pack(len(data)) + data)
            f.flush()
    except (ConnectionError, EOFError):  # the parent is gone: nobody is left to answer
        return
    finally:
        if writer is not None:
            writer.conn.close()
        for closing in (f.close, sock.close):  # f.close flushes: the parent may be gone
            try:
                closing()
            except OSError:
                pass


class WriterProcess:
    """The parent's side of the writer process: ``await call("write_batch", requests)``.

    The child is ``python -m skirmish.server.store.writer`` (not ``multiprocessing``, which would import
    the parent's main script again in the child), given its end of a socket pair."""

    def __init__(self, proc: asyncio.subprocess.Process, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, path: str) -> None:
        self.proc = proc
        self.path = path
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()  # one call at a time: replies come in the order of the calls

    @classmethod
    async def start(cls, path: Path, cache_size: int) -> WriterProcess:
        """Start the process; it opens the file (StoreError if it cannot) before this returns."""
        ours, theirs = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "skirmish.server.store.writer", str(theirs.fileno()), str(path), str(cache_size),
                pass_fds=[theirs.fileno()], stdin=asyncio.subprocess.DEVNULL)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        self = cls(proc, reader, writer, str(path))
        try:
            await self.call("ready")
        except BaseException:
            await self.stop()
            raise
        return self

    async def call(self, method: str, *args: Any) -> Any:
        data = pickle.dumps((method, args), pickle.HIGHEST_PROTOCOL)
        async with self._lock:
            try:
                self._writer.write(FRAME.pack(len(data)) + data)
                await self._writer.drain()
                (n,) = FRAME.unpack(await self._reader.readexactly(FRAME.size))
                ok, value = pickle.loads(await self._reader.readexactly(n))
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                raise StoreError(
                    f"sqlite store {self.path!r}: the writer process is gone (exit status {self.proc.returncode})"
                ) from exc
        if not ok:
            raise value
        return value

    async def stop(self, timeout: float = 30.0) -> None:
        """Close the socket (the child finishes the transaction it is writing, if any, and exits)
        and wait for the process to end; past ``timeout`` seconds, kill it."""
        self._writer.close()
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()

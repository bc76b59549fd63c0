"""The SQLite store's writer process, the child's side: ``SQLiteStore.open(path, writer="process")``
starts a Python that runs ``main([FD, PATH, CACHE_SIZE])`` with its end of a socket pair as FD,
from a bootstrap that keeps it lean (``skirmish.server.store.sqlite_process._BOOT``). Not a command
for people: see ``skirmish.server.store.sqlite_process``, the parent's side."""

from __future__ import annotations

import pickle
import signal
import socket
import struct
import sys
from pathlib import Path

from .base import StoreError
from .sqlite_writer import Writer, open_writer

__all__ = ["FRAME", "main", "serve"]

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
            writer.close()
        for closing in (f.close, sock.close):  # f.close flushes: the parent may be gone
            try:
                closing()
            except OSError:
                pass


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("the SQLite writer process takes FD PATH CACHE_SIZE (started by SQLiteStore, not by hand)",
              file=sys.stderr)
        return 2
    fd, path, cache_size = argv
    serve(socket.socket(fileno=int(fd)), path, int(cache_size))
    return 0



"""The SQLite store's writer process (``SQLiteStore.open(path, writer="process")``), the parent's
side: :class:`WriterProcess`. The child's side, its loop around a
:class:`~skirmish.server.store.sqlite_writer.Writer`, is :func:`skirmish.server.store.writer.serve`
(a module of its own, so that the child imports neither asyncio nor this module). Each message is
its length (:data:`FRAME`), then a pickle: ``(method, args)`` from the parent, ``(ok, value)``
back, in order.
"""

from __future__ import annotations

import asyncio
import importlib.util
import pickle
import socket
import sys
from pathlib import Path
from typing import Any

from .base import StoreError
from .writer import FRAME, serve

__all__ = ["FRAME", "WriterProcess", "serve", "writer_command"]

# The writer process loads only what it runs (``skirmish.server.store.writer``, the writer, the
# store's base and schema, the engine's chain hash): its bootstrap registers the two packages above
# them without running their ``__init__``, which import the whole engine and every store (some
# 14 MiB of RSS in a process that never uses them; docs/decisions.md, "Memory: 1,000 games").
# argv: the folders of the two packages, then the writer's own arguments (``writer.main``).
_LEAN_PACKAGES = ("skirmish.engine", "skirmish.server.store")
_BOOT = f"""import sys, types
for name, folder in zip({_LEAN_PACKAGES!r}, sys.argv[1:3]):
    sys.modules[name] = types.ModuleType(name)
    sys.modules[name].__path__ = [folder]
from skirmish.server.store.writer import main
sys.exit(main(sys.argv[3:]))
"""


def writer_command(*args: str) -> list[str]:
    """The command line of a writer process given ``args`` (FD PATH CACHE_SIZE)."""
    folders = [importlib.util.find_spec(name).submodule_search_locations[0] for name in _LEAN_PACKAGES]
    return [sys.executable, "-c", _BOOT, *folders, *args]


class WriterProcess:
    """The parent's side of the writer process: ``await call("write_batch", requests)``.

    The child is ``skirmish.server.store.writer``'s ``main`` (not ``multiprocessing``, which would import
    the parent's main script again in the child), given its end of a socket pair; it starts from a
    bootstrap that keeps it lean (``_BOOT``)."""

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
                *writer_command(str(theirs.fileno()), str(path), str(cache_size)),
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

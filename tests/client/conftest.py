"""Fixtures for the client tests: a real server on loopback, in this test's event loop
(``server``) or in a thread of its own (``server_thread``, for synchronous tests that run the
CLI in-process)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from skirmish.server.app import ServerConfig, running_server


@pytest.fixture
async def server():
    async with running_server(ServerConfig(port=0, db=":memory:")) as srv:
        yield srv


class ServerThread:
    """A real server running in its own thread and event loop; ``url`` is where it listens."""

    def __init__(self, **config):
        self.config = config
        self.url = ""
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.app = None
        self._thread = threading.Thread(target=self._run, name="test-server", daemon=True)

    def _run(self) -> None:
        async def main():
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            async with running_server(ServerConfig(port=0, **self.config)) as srv:
                self.app = srv
                self.url = srv.url
                self._ready.set()
                await self._stop.wait()

        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            self._error = exc
            self._ready.set()

    def start(self) -> "ServerThread":
        self._thread.start()
        if not self._ready.wait(15) or self._error:
            raise RuntimeError(f"the test server did not start: {self._error!r}")
        return self

    def run(self, coro, timeout: float = 60):
        """Run a coroutine on the server's loop (bots that play against it, say)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def settle(self, prefix: str = "", timeout: float = 5.0) -> None:
        """Wait until no connection whose client name starts with ``prefix`` is open, so that the
        server's log lines about them are written while the test that caused them captures."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(c.name.startswith(prefix) for c in list(self.app.connections)):
            time.sleep(0.01)

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)


@pytest.fixture
def server_thread(tmp_path: Path):
    srv = ServerThread(db=str(tmp_path / "games.sqlite")).start()
    yield srv
    srv.stop()

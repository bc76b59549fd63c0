"""Fixtures of the browser tests: a real ``skirmish serve`` (a subprocess, hosting a random bot)
and headless Chromium driven by Playwright's Python package.

Chromium is Debian's (``/usr/bin/chromium``, or ``$SKIRMISH_CHROMIUM``): Playwright is given its
``executable_path`` and never downloads a browser. Without Chromium or Playwright these tests
skip, saying how to enable them; under ``CI=true`` they fail instead (``.ci/run`` installs both).

Screenshots go to ``var/web-artefacts/`` (``$SKIRMISH_WEB_ARTEFACTS``); the run's summary says where.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = Path(os.environ.get("SKIRMISH_WEB_ARTEFACTS") or ROOT / "var" / "web-artefacts")
HOW = ("browser tests skipped: they need Debian's Chromium and Playwright's Python package "
       "(`apt-get install -y chromium` and `pip install -e '.[test]'`; or set SKIRMISH_CHROMIUM to a "
       "Chromium binary). Under CI=true they run, and fail if either is missing.")


def chromium_path() -> str | None:
    for candidate in (os.environ.get("SKIRMISH_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def _unavailable(why: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{why} (CI=true: browser tests must run; .ci/run installs chromium)")
    pytest.skip(f"{why}: {HOW}")


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module: Playwright's sync API runs an event loop in this thread while it
    is open, so it is closed before another module's (asyncio) tests run."""
    path = chromium_path()
    if path is None:
        _unavailable("no Chromium found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright's Python package is not installed")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


class Server:
    """``skirmish serve`` in a subprocess, hosting ``bots``; ``crash_and_restart`` kills it (SIGKILL,
    no shutdown) and starts it again on the same port and database."""

    def __init__(self, tmp: Path, bots: str = "random"):
        self.db = tmp / "web.sqlite"
        self.bots = bots
        self.err: list[str] = []
        self._start("0")
        self.http = "http" + self.ws.removeprefix("ws")  # the web client: the same host and port

    def _start(self, port: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skirmish.server.cli", "serve", "--port", port, "--db", str(self.db),
             "--house-bots", self.bots, "--move-ms", "120000", "--games-per-minute", "0",
             "--connections-per-address", "0", "--log-level", "warning"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True).start()
        line = self.proc.stdout.readline()
        assert line.startswith("listening on ws://"), (line, "".join(self.err))
        self.ws = line.split()[-1]

    def crash_and_restart(self, down: float = 0.0) -> None:
        """Kill the server, wait ``down`` seconds (clients' reconnections fail meanwhile), start it again."""
        port = self.ws.rsplit(":", 1)[1].strip("/")
        self.proc.kill()  # a crash: no graceful shutdown, only what the store holds survives
        self.proc.wait(15)
        time.sleep(down)
        self._start(port)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def artefacts(browser) -> Path:
    """Where screenshots go (kept after the run)."""
    return ARTEFACTS


@pytest.fixture(scope="module")
def web_server(tmp_path_factory, browser):
    server = Server(tmp_path_factory.mktemp("web"))
    yield server
    server.stop()


@pytest.fixture
def crashing_server(tmp_path, browser):
    """A server of the test's own, to crash (``Server.crash_and_restart``)."""
    server = Server(tmp_path)
    yield server
    server.stop()


def pytest_terminal_summary(terminalreporter):
    if ARTEFACTS.is_dir() and any(ARTEFACTS.iterdir()):
        terminalreporter.write_line(f"browser test artefacts (screenshots): {ARTEFACTS}")

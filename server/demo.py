"""``make demo``: a server, two bots playing a full mission over real WebSockets, then a replay
and an audit of the game from the store alone.

1. starts ``skirmish serve --port 0 --db var/demo.sqlite`` as a subprocess and reads the
   ``listening on ws://HOST:PORT`` line it prints once bound (fails loudly, with the server's
   stderr, if that line does not come within 15 s);
2. two random bots (``skirmish.bots.runner.run_bot``) play ``ridge``: one creates the game, the other
   joins it; each is an ordinary client that sees only its own side's view;
3. stops the server with SIGTERM (it must exit 0);
4. reads the game back from the SQLite file, replays it (``skirmish.engine.evolve.replay``) and verifies
   it (``skirmish.engine.verify.verify_log``).

Exits non-zero if any step failed. ``$SKIRMISH_DEMO_DB`` overrides the database path (tests run
the demo in a temporary directory that way); ``$SKIRMISH_DEMO_MISSION`` the mission.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
import urllib.request
from pathlib import Path

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event, state_hash
from skirmish.engine.evolve import replay
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server import missions
from skirmish.server.store import SQLiteStore

DB = Path(os.environ.get("SKIRMISH_DEMO_DB") or "var/demo.sqlite")
MISSION = os.environ.get("SKIRMISH_DEMO_MISSION") or "ridge"
START_TIMEOUT = 15.0  # seconds for the server to say where it listens
GAME_TIMEOUT = 300.0
STOP_TIMEOUT = 15.0


class DemoFailed(Exception):
    pass


class Server:
    """``skirmish serve`` in a subprocess; its stderr is collected as it comes (so that its logs
    never fill the pipe and stall it)."""

    def __init__(self, proc: asyncio.subprocess.Process):
        self.proc = proc
        self.url = ""
        self.stderr = bytearray()
        self._readers = [asyncio.create_task(self._collect(proc.stderr, self.stderr))]

    @staticmethod
    async def _collect(stream: asyncio.StreamReader, into: bytearray | None) -> None:
        while chunk := await stream.read(65536):
            if into is not None:
                into += chunk

    def err(self) -> str:
        text = self.stderr.decode(errors="replace").strip()
        return f"\n--- the server's stderr ---\n{text}" if text else ""

    @classmethod
    async def start(cls, db: Path) -> "Server":
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", str(db),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        server = cls(proc)
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), START_TIMEOUT)
        except TimeoutError:
            line = b""
        text = line.decode(errors="replace").strip()
        if not text.startswith("listening on ws://"):
            ended = line == b"" and proc.stdout.at_eof()
            await server.kill()
            if text:
                what = f"it printed {text!r} where 'listening on ws://HOST:PORT' was expected"
            elif ended:
                what = f"it exited with status {proc.returncode} without saying where it listens"
            else:
                what = f"it did not say where it listens within {START_TIMEOUT:g}s"
            raise DemoFailed(f"the server did not start: {what}{server.err()}")
        server.url = text.removeprefix("listening on ").strip()
        server._readers.append(asyncio.create_task(cls._collect(proc.stdout, None)))
        return server

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()
        await asyncio.gather(*self._readers, return_exceptions=True)

    async def stop(self) -> None:
        """SIGTERM; fails unless the server exits 0 within STOP_TIMEOUT."""
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT)
        except TimeoutError:
            await self.kill()
            raise DemoFailed(f"the server did not stop within {STOP_TIMEOUT:g}s of SIGTERM{self.err()}") from None
        await asyncio.gather(*self._readers, return_exceptions=True)
        if self.proc.returncode != 0:
            raise DemoFailed(f"the server exited with status {self.proc.returncode} on SIGTERM{self.err()}")


async def play(url: str) -> tuple[str, object]:
    loop = asyncio.get_running_loop()
    seated: asyncio.Future = loop.create_future()
    creator = asyncio.create_task(run_bot(url, make_bot("random"), mission=MISSION, seat="a",
                                          client_seed="demo-a", on_seated=seated.set_result))
    done, _ = await asyncio.wait({creator, seated}, return_when=asyncio.FIRST_COMPLETED)
    if seated not in done:
        await creator  # raises what went wrong
        raise DemoFailed("the first bot never got a seat")
    game_id = seated.result().game_id
    joiner = asyncio.create_task(run_bot(url, make_bot("random"), game_id=game_id, codec="json",
                                         client_seed="demo-b"))
    outcomes = await asyncio.wait_for(asyncio.gather(creator, joiner), GAME_TIMEOUT)
    if outcomes[0] != outcomes[1]:
        raise DemoFailed(f"the two bots saw different outcomes: {outcomes[0]} / {outcomes[1]}")
    return game_id, outcomes[0]


async def main() -> int:
    DB.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    print(f"skirmish demo: starting the server (skirmish serve --port 0 --db {DB})")
    server = await Server.start(DB)
    url = server.url
    try:
        print(f"  server listening on {url}")
        print(f"  mission {MISSION}: random bot (seat a, MessagePack) vs random bot (seat b, JSON), "
              f"each an ordinary WebSocket client seeing only its own view")
        t_play = time.perf_counter()
        game_id, outcome = await play(url)
        played = time.perf_counter() - t_play
        steps = await asyncio.to_thread(web_check, url, game_id)
        print(f"  web client: the page and the game's replay ({steps} steps) served over HTTP on the same port")
    except BaseException as exc:
        await server.kill()
        if isinstance(exc, Exception) and not isinstance(exc, DemoFailed):
            raise DemoFailed(f"the game failed: {type(exc).__name__}: {exc}{server.err()}") from exc
        raise
    await server.stop()
    print("  server stopped with SIGTERM (exit 0)")

    async with await SQLiteStore.open(DB) as store:
        stored = await store.read(game_id)
    events = [decode_event(s.data) for s in stored]
    state = replay(events)
    decisions = sum(isinstance(e, ev.OptionChosen) for e in events)
    mission = events[0].mission
    o = outcome
    print(f"  game {game_id}: mission {mission} ({missions.load(mission).name})")
    print(f"  result: {'side ' + o.winner + ' wins' if o.winner else 'a draw'} — {o.reason}; points {o.points}")
    print(f"  {decisions} decisions, {len(events)} events, played in {played:.2f}s "
          f"(every event committed to SQLite before anyone heard of it)")
    if state.outcome != outcome:
        raise DemoFailed(f"the replayed outcome {state.outcome} is not the one the bots saw ({outcome})")
    print(f"  replayed from the store: {len(events)} events, final state hash {state_hash(state)[:16]}…")
    report = verify_log(game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
    print(f"  verify: {report.summary()}")
    print(f"  log: {DB.resolve()} (game {game_id})")
    print(f"  replay it: .venv/bin/skirmish replay {game_id} --db {DB} --as all | less")
    print(f"  audit it:  .venv/bin/skirmish verify {game_id} --db {DB}")
    print(f"  total {time.perf_counter() - t0:.2f}s")
    if not report.ok:
        raise DemoFailed("the game's log does not verify")
    print(f"  replay it in a browser: start .venv/bin/skirmish serve --db {DB} --port {WEB_PORT} "
          f"--house-bots random,greedy,mcts, then open")
    print(f"  http://127.0.0.1:{WEB_PORT}/#/replay/{game_id}")
    return 0


WEB_PORT = 8765


def web_check(ws_url: str, game_id: str) -> int:
    """The server's web client answers: its page, and the replay viewer's steps of the game."""
    base = "http" + ws_url.removeprefix("ws")
    with urllib.request.urlopen(f"{base}/", timeout=30) as r:
        if r.status != 200 or b"app.js" not in r.read():
            raise DemoFailed("the server's web page is missing")
    with urllib.request.urlopen(f"{base}/api/games/{game_id}/frames?as=all", timeout=60) as r:
        return len(json.loads(r.read())["steps"])


def run() -> int:
    try:
        return asyncio.run(main())
    except DemoFailed as exc:
        print(f"demo FAILED: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(run())

"""``skirmish serve`` as deployed (its store's writer in a child process) killed with SIGKILL again
and again, at random moments and right as games are created and joined, under concurrent bot
games, and restarted each time on the same SQLite file and port. Then:

- every event any client received is in the store, byte for byte (in that client's view);
- every seat a client was given is the seat's, given to that client alone;
- every game in the file verifies (what ``skirmish verify`` checks);
- no process is left behind: each server's writer process ended, with exit status 0;
- the servers' stderr holds nothing but JSON lines.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import random
import socket
import subprocess
import sys
import uuid
from collections import defaultdict

import pytest

from skirmish.client.connection import Client, ClientError, ConnectionLost, DecisionUpdate
from skirmish.engine.codec import decode_event, encode_event
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.engine.view import viewed
from skirmish.protocol import messages as m
from skirmish.server.game import decode_secret, seat_token
from skirmish.server.store import SQLiteStore

from .helpers import ROOT, ServerProcess

KILLS = 8
PAIRS = (("ridge", 11), ("knives", 12), ("outpost", 13))  # mission, seed: one pair of bots each
PR_SET_CHILD_SUBREAPER = 36


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    return found


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


class Recording(Client):
    """The client library, keeping everything it heard: every event frame (duplicates too), every
    ``seated``; and telling the test when it sends a ``create_game`` or ``join``."""

    def __init__(self, url: str, name: str, heard: list, seats: list, sending: asyncio.Event):
        super().__init__(url, name=name, auto_reconnect=True)
        self.heard, self.seats, self.sending = heard, seats, sending

    def _dispatch(self, msg) -> None:
        if isinstance(msg, m.Seated):
            self.seats.append((msg.game_id, msg.seat, msg.token, self.name))
        if isinstance(msg, m.EventMsg):
            items = [(msg.seq, msg.event)]
        else:
            items = [(item.seq, item.event) for item in msg.events] if isinstance(msg, m.Updates) else []
        for seq, event in items:  # every event frame, before the session drops its duplicates
            self.heard.append((msg.game_id, seq, self.game(msg.game_id).viewer, encode_event(event)))
        super()._dispatch(msg)

    async def _call_once(self, msg, timeout: float):
        if isinstance(msg, (m.CreateGame, m.Join)):
            self.sending.set()
        return await super()._call_once(msg, timeout)

    async def _auto_reconnect(self) -> None:  # as the library does, trying again sooner
        try:
            await self.reconnect(attempts=60, delay=0.05)
        finally:
            self._reconnecting = None


async def play_games(c: Recording, rng: random.Random, mission: str, role: str, games: asyncio.Queue,
                     tally: dict) -> None:
    """Create (or join) games and play each for a while with random options, then resign; again."""
    k = 0
    while True:
        k += 1
        if role == "creator":
            seat = await c.create_game(mission, seat="a", client_seed=f"{c.name}-{k}")
            games.put_nowait(seat.game_id)
            tally["created"] += 1
        else:
            seat = await c.join(await games.get(), client_seed=f"{c.name}-{k}")
            tally["joined"] += 1
        gid, own = seat.game_id, 0
        limit = rng.randint(4, 20)
        answered: set[int] = set()
        async for update in c.updates(gid):
            decision = c.my_decision(gid)
            if not isinstance(update, DecisionUpdate) or decision is None or decision.id in answered:
                continue
            answered.add(decision.id)
            own += 1
            try:
                if own > limit:
                    await resign(c, gid)
                else:
                    await c.choose(decision, rng.choice(decision.options), game_id=gid)
                    tally["commands"] += 1
            except ClientError as exc:
                if exc.code != "game.over":  # the other side resigned first
                    raise


async def resign(c: Client, gid: str) -> None:
    command_id = uuid.uuid4().hex
    while True:
        try:
            await c.resign(gid, command_id=command_id)
            return
        except ConnectionLost:
            await c.wait_connected()


@pytest.fixture
def subreaper():
    """This process adopts the orphans of its children (a killed server's writer process), so
    that the test can wait for them and read their exit status."""
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, os.strerror(ctypes.get_errno())
    try:
        yield
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


async def reap(pid: int, timeout: float = 20.0) -> int:
    """Wait for an adopted (or own) child to end; its exit status as ``subprocess`` gives it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        assert loop.time() < deadline, f"process {pid} ({cmdline(pid)}) outlived its server"
        await asyncio.sleep(0.02)


async def test_sigkill_again_and_again_under_load_loses_nothing_and_leaves_nothing(tmp_path, subreaper):
    db, log = tmp_path / "games.sqlite", tmp_path / "server.log"
    port = free_port()
    rng = random.Random(12)
    heard: list = []  # (game, seq, viewer, event bytes as received)
    seats: list = []  # (game, seat, token, client)
    sending = asyncio.Event()
    tally: dict = defaultdict(int)
    servers: list[ServerProcess] = []
    writers: list[int] = []
    clients: list[Recording] = []
    tasks: list[asyncio.Task] = []

    async def start() -> ServerProcess:
        server = ServerProcess(db, log, "--port", str(port), "--games-per-minute", "0")
        servers.append(server)
        await server.started()
        mine = [pid for pid in children(server.proc.pid) if "skirmish.server.store.writer" in cmdline(pid)]
        assert len(mine) == 1, [cmdline(p) for p in children(server.proc.pid)]
        writers.extend(mine)
        return server

    try:
        server = await start()
        url = f"ws://127.0.0.1:{port}"
        for mission, seed in PAIRS:
            games: asyncio.Queue = asyncio.Queue()
            for role in ("creator", "joiner"):
                c = Recording(url, f"{mission}-{role}", heard, seats, sending)
                await c.open()
                clients.append(c)
                tasks.append(asyncio.create_task(
                    play_games(c, random.Random(seed * 2 + len(tasks)), mission, role, games, tally)))

        for kill in range(KILLS):
            if kill % 2:  # right as a game is created or joined (the request in flight, or just handled)
                sending.clear()
                await asyncio.wait_for(sending.wait(), 30)
                await asyncio.sleep(rng.uniform(0, 0.02))
            else:  # anywhere in the games
                await asyncio.sleep(rng.uniform(0.2, 1.2))
            for t in tasks:  # a player that failed fails the test now, with its own error
                if t.done():
                    t.result()
            server.kill()
            assert server.proc.returncode == -9
            assert await reap(writers[-1]) == 0  # the writer saw its parent vanish and left quietly
            server = await start()
        await asyncio.sleep(1.0)  # the players carry on with the last server
        for t in tasks:
            if t.done():
                t.result()
        server.kill()
        assert await reap(writers[-1]) == 0
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in clients:
            await c.close()
        for s in servers:
            s.cleanup()
    assert tally["created"] >= 3 and tally["joined"] >= 3 and tally["commands"] >= 30, dict(tally)

    # nothing is left behind: every server and every writer ended
    assert all(s.proc.returncode == -9 for s in servers)
    left = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if str(db) in cmdline(pid)]
    assert left == [], [cmdline(p) for p in left]

    # nothing but JSON lines on stderr (the writers share it)
    lines = log.read_text().splitlines()
    assert len(lines) > 100
    for line in lines:
        assert isinstance(json.loads(line), dict), line

    async with await SQLiteStore.open(db) as store:
        infos = await store.list_games()
        logs = {g.game_id: await store.read(g.game_id) for g in infos}
        secrets = {g.game_id: decode_secret(await store.load_secret(g.game_id)) for g in infos}
    # every event any client heard of is stored, byte for byte as that client's view of it
    assert len(heard) > 300
    shown: dict = {}  # (game, viewer) -> each event as that viewer sees it
    for gid, seq, viewer, data in heard:
        assert gid in logs and seq <= len(logs[gid]), f"{gid} seq {seq} was sent but is not stored"
        event = decode_event(logs[gid][seq - 1].data)
        key = (gid, viewer or "spectator")
        if key not in shown:
            shown[key] = list(viewed((decode_event(s.data) for s in logs[gid]), key[1]))
        seen = shown[key][seq - 1]
        expected = logs[gid][seq - 1].data if seen == event else encode_event(seen)
        assert data == expected, f"{gid} seq {seq} ({viewer}): sent {data!r}, stored {expected!r}"
    # every seat handed out is the seat's, to one client: none was lost, none given twice
    holders = defaultdict(set)
    for gid, seat, token, name in seats:
        assert token == seat_token(secrets[gid].token_key, gid, seat)
        holders[(gid, seat)].add(name)
        taken = [e for e in map(decode_event, (s.data for s in logs[gid])) if type(e).__name__ == "SeatTaken"]
        assert [e.seat for e in taken].count(seat) == 1
    assert all(len(names) == 1 for names in holders.values()), holders
    # every game in the file verifies, as `skirmish verify` checks it
    assert len(infos) >= tally["created"] // 2
    for gid, stored in logs.items():
        report = verify_log(gid, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
        assert report.ok, f"{gid}: {report.summary()}"
    longest = max(logs, key=lambda g: len(logs[g]))
    out = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "verify", longest, "--db", str(db)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "OK" in out.stdout, out.stdout + out.stderr

"""``skirmish bot --forever`` (bots/forever.py) against a real server over real WebSockets: it joins
games others opened and plays them to the end, logging each result; it rides out the server's
death and restart on the same store, and its own death (resuming its seats from --state); a game
opened for one named bot refuses every other with ``lobby.seat_reserved``."""

from __future__ import annotations

import asyncio
import io
import json
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from skirmish.bots import make_bot
from skirmish.bots.base import Bot
from skirmish.bots.forever import Filters, ForeverBot, backoff_delay, json_logger
from skirmish.bots.runner import run_bot
from skirmish.client.connection import ClientError, connect
from skirmish.engine.codec import decode_event
from skirmish.engine.events import ClientSeedAdded, GameEnded, SeatTaken
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.store import SQLiteStore

from .helpers import ROOT, ServerProcess


class GatedBot(Bot):
    """A random bot that answers ``free`` decisions, then waits (in its thinking thread) for ``gate``."""

    name = "gated"

    def __init__(self, seed, gate: threading.Event, free: int):
        super().__init__(seed)
        self.gate, self.free, self.answered = gate, free, 0
        self.waiting = threading.Event()  # set once it waits at the gate

    def choose(self, view, decision):
        if self.answered >= self.free:
            self.waiting.set()
            assert self.gate.wait(120), "the test never opened the gate"
        self.answered += 1
        return self.rng.choice(decision.options)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BotProcess:
    """``skirmish bot --forever`` in a subprocess, its JSON log in ``log``."""

    def __init__(self, url: str, state: Path, log: Path, *args: str):
        cmd = [sys.executable, "-m", "skirmish.server.cli", "bot", "--forever", "--server", url, "--strategy", "random",
               "--name", "forever-1", "--state", str(state), "--log", str(log), "--poll", "0.2",
               "--backoff-max", "1", *args]
        self.log = log
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def lines(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(x) for x in self.log.read_text().splitlines() if x.strip()]

    async def until(self, what, timeout: float = 60.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.lines()
            if what(lines):
                return lines
            assert self.proc.poll() is None, (self.proc.returncode, self.proc.stderr.read())
            await asyncio.sleep(0.1)
        raise AssertionError(f"timed out; the bot's log: {self.lines()}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def count(lines: list[dict], event: str) -> int:
    return sum(1 for x in lines if x["event"] == event)


async def test_the_forever_bot_survives_the_servers_death_and_its_own(tmp_path, processes):
    db, port = tmp_path / "games.sqlite", free_port()
    server = ServerProcess(db, tmp_path / "server.log", "--port", str(port), "--move-ms", "600000")
    processes.append(server)
    await server.started()
    url = server.url
    gate = threading.Event()
    gated = [GatedBot(i, gate, free=6) for i in range(2)]
    opened: dict = {}  # creator -> its seat
    creators = [asyncio.create_task(run_bot(url, bot, mission="ridge", seat="a", name=f"opener-{i}",
                                            on_seated=lambda held, i=i: opened.__setitem__(i, held),
                                            think_in_thread=True))
                for i, bot in enumerate(gated)]
    seats = opened.values()
    state, log = tmp_path / "bot.state", tmp_path / "bot.log"
    bot = BotProcess(url, state, log, "--max-games", "2", "--games", "2")
    try:
        lines = await bot.until(lambda ls: count(ls, "game.joined") == 2)
        assert {x["game"] for x in lines if x["event"] == "game.joined"} == {s.game_id for s in seats}
        held = json.loads(state.read_text())
        assert set(held["seats"]) == {s.game_id for s in seats} and not held["joining"]
        assert oct(state.stat().st_mode & 0o777) == "0o600"  # the tokens are secrets
        for g in gated:  # both games are under way, each waiting for its opener
            assert await asyncio.to_thread(g.waiting.wait, 60)

        # the server dies mid-game and comes back on the same store and port: the bot reconnects
        server.kill()
        await bot.until(lambda ls: count(ls, "bot.connection_lost") >= 2)  # it keeps trying, backing off
        server = ServerProcess(db, tmp_path / "server.log", "--port", str(port), "--move-ms", "600000")
        processes.append(server)
        await server.started()
        lines = await bot.until(lambda ls: count(ls, "game.resumed") == 2)
        lost = [x for x in lines if x["event"] == "bot.connection_lost"]
        assert all(0 < x["retry_in"] <= 1.0 for x in lost) and lost[0]["attempt"] == 0

        # the bot dies mid-game; restarted with its state, it takes up its seats again
        bot.kill()
        bot = BotProcess(url, state, log, "--max-games", "2", "--games", "2")
        await bot.until(lambda ls: count(ls, "game.resumed") == 4)
        gate.set()
        outcomes = await asyncio.wait_for(asyncio.gather(*creators), 120)
        lines = await bot.until(lambda ls: count(ls, "game.result") == 2)
        assert await asyncio.to_thread(bot.proc.wait, 30) == 0  # --games 2: it stops after two results
    finally:
        gate.set()
        bot.kill()
    results = {x["game"]: x for x in lines if x["event"] == "game.result"}
    assert set(results) == {s.game_id for s in seats}
    for i, outcome in enumerate(outcomes):
        r = results[opened[i].game_id]
        assert r["seat"] == "b" and r["opponent"] == f"opener-{i}"
        assert (r["winner"] or None) == outcome.winner and r["reason"] == outcome.reason
        assert r["result"] == ("draw" if outcome.winner is None else "win" if outcome.winner == "b" else "loss")
        assert r["level"] == "info" and r["mission"] == "ridge" and len(r["head_hash"]) == 64
    assert json.loads(state.read_text())["seats"] == {}  # every game done: nothing left to resume
    assert await server.terminate() == 0

    store = await SQLiteStore.open(db)
    try:
        for s in seats:
            stored = await store.read(s.game_id)
            events = [decode_event(x.data) for x in stored]
            assert any(isinstance(e, GameEnded) for e in events)
            assert {e.seat: e.name for e in events if isinstance(e, SeatTaken)}["b"] == "forever-1"
            assert {e.seat for e in events if isinstance(e, ClientSeedAdded)} == {"a", "b"}  # both sent a seed
            assert results[s.game_id]["head_hash"] == stored[-1].hash.hex()
            report = verify_log(s.game_id, [LoggedEvent(x.seq, x.data, x.hash) for x in stored])
            assert report.ok and report.finished and report.seed_verified, report.summary()
    finally:
        await store.close()


async def test_a_game_opened_for_one_bot_refuses_every_other(make_server):
    from skirmish.server.store import MemoryStore

    store = MemoryStore()
    async with make_server(store=store) as srv:
        async with connect(srv.url, name="organiser") as org:
            held = await org.create_game("ridge", seat="a", reserve_for="bot-x")
            [listed] = await org.list_games("open")
            assert listed.reserved == {"b": "bot-x"} and listed.players == {"a": "organiser"}
    async with make_server(store=store) as srv:  # a restarted server keeps the reservation (the game's meta)
        async with connect(srv.url, name="bot-y") as y:
            [listed] = await y.list_games("open")
            assert listed.reserved == {"b": "bot-x"}
            for seat in ("any", "b"):
                with pytest.raises(ClientError) as refused:
                    await y.join(held.game_id, seat=seat)
                assert refused.value.code == "lobby.seat_reserved" and "'bot-x'" in refused.value.message
            with pytest.raises(ClientError) as taken:
                await y.join(held.game_id, seat="a")
            assert taken.value.code == "lobby.seat_taken"
        assert Filters().seat_for(listed, "bot-y") is None  # a forever bot named bot-y passes it by
        assert Filters().seat_for(listed, "bot-x") == "b"
        assert Filters(side="a").seat_for(listed, "bot-x") is None
        assert Filters(opponents=frozenset({"someone"})).seat_for(listed, "bot-x") is None
        assert Filters(missions=frozenset({"outpost"})).seat_for(listed, "bot-x") is None

        # the forever bot bot-y leaves the reserved game alone; bot-x joins it and plays it out
        out_y = io.StringIO()
        y_bot = ForeverBot(srv.url, lambda gid: make_bot("random"), name="bot-y", log=json_logger(out_y), poll=0.05)
        y_task = asyncio.create_task(y_bot.run())
        await asyncio.sleep(0.5)
        assert "game.joined" not in out_y.getvalue() and not y_task.done()
        y_task.cancel()
        opener = asyncio.create_task(run_bot(srv.url, make_bot("random", 1), game_id=held.game_id,
                                             token=held.token, name="organiser"))
        out_x = io.StringIO()
        x_bot = ForeverBot(srv.url, lambda gid: make_bot("random", 2), name="bot-x", log=json_logger(out_x),
                           poll=0.05, stop_after=1)
        await asyncio.wait_for(x_bot.run(), 60)
        outcome = await asyncio.wait_for(opener, 60)
        [result] = [json.loads(x) for x in out_x.getvalue().splitlines() if '"game.result"' in x]
        assert result["game"] == held.game_id and result["seat"] == "b" and result["opponent"] == "organiser"
        assert (result["winner"] or None) == outcome.winner
        events = [decode_event(x.data) for x in await store.read(held.game_id)]
        assert {e.seat: e.name for e in events if isinstance(e, SeatTaken)} == {"a": "organiser", "b": "bot-x"}


def test_the_back_off_doubles_up_to_its_cap_with_jitter():
    rng = random.Random(7)
    for attempt in range(12):
        d = min(8.0, 0.5 * 2 ** attempt)
        waits = [backoff_delay(attempt, 0.5, 8.0, rng) for _ in range(50)]
        assert all(d / 2 <= w <= d for w in waits)
        assert len(set(waits)) > 40  # jittered: bots that lost the server together do not return in step
    assert backoff_delay(10_000, 0.5, 8.0, rng) <= 8.0


async def test_a_restarted_bot_logs_a_game_that_ended_meanwhile_and_drops_a_seat_that_is_gone(make_server, tmp_path):
    async with make_server() as srv:
        seated: list = []
        opener = asyncio.create_task(run_bot(srv.url, make_bot("random", 1), mission="ridge", seat="a",
                                             on_seated=seated.append))
        while not seated:
            await asyncio.sleep(0.01)
        await run_bot(srv.url, make_bot("random", 2), game_id=seated[0].game_id, on_seated=seated.append)
        outcome = await opener
        held = seated[1]  # the seat a bot held when it died, in a game that has ended since
        state = tmp_path / "bot.state"
        state.write_text(json.dumps({"seats": {held.game_id: {"seat": held.seat, "token": held.token},
                                               "g-000000000000": {"seat": "b", "token": "x" * 43}}}))
        out = io.StringIO()
        bot = ForeverBot(srv.url, lambda gid: make_bot("random"), name="fb", log=json_logger(out), poll=0.05,
                         stop_after=1, state=state)
        await asyncio.wait_for(bot.run(), 30)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    [result] = [x for x in lines if x["event"] == "game.result"]
    assert result["game"] == held.game_id and (result["winner"] or None) == outcome.winner
    [dropped] = [x for x in lines if x["event"] == "game.dropped"]
    assert dropped["game"] == "g-000000000000" and dropped["code"] == "lobby.no_such_game"
    assert json.loads(state.read_text()) == {"seats": {}, "joining": {}, "results": 1}


class Unhurried(Bot):
    """A random bot that thinks 10 ms per decision (in its thread), so that a game lasts a while."""

    name = "unhurried"

    def choose(self, view, decision):
        time.sleep(0.01)
        return self.rng.choice(decision.options)


async def test_the_forever_bot_rides_out_a_graceful_server_restart(make_server):
    from skirmish.server.store import MemoryStore

    store, out = MemoryStore(), io.StringIO()
    async with make_server(store=store) as srv:
        url = srv.url
        opener = asyncio.create_task(run_bot(url, Unhurried(1), mission="ridge", seat="a", think_in_thread=True))
        bot = ForeverBot(url, lambda gid: Unhurried(2), name="fb", log=json_logger(out), poll=0.05, stop_after=1,
                         backoff_max=0.5)
        task = asyncio.create_task(bot.run())
        while '"game.joined"' not in out.getvalue():
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # a few moves in
    assert not task.done()  # the server shut down (server.shutting_down) mid-game
    async with make_server(store=store, port=int(url.rsplit(":", 1)[1])):
        await asyncio.wait_for(task, 60)
        outcome = await asyncio.wait_for(opener, 60)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [x["event"] for x in lines if x["event"].startswith("game.")] == ["game.joined", "game.resumed", "game.result"]
    assert count(lines, "bot.connection_lost") >= 1 and count(lines, "bot.connected") == 2
    assert ([x for x in lines if x["event"] == "game.result"][0]["winner"] or None) == outcome.winner


async def test_the_forever_bot_keeps_to_its_filters_and_to_max_games(make_server):
    async with make_server() as srv:
        url, out = srv.url, io.StringIO()
        wanted = [asyncio.create_task(run_bot(url, Unhurried(i), mission="ridge", seat="a", name=f"opener-{i}",
                                              think_in_thread=True)) for i in range(3)]
        opened: list = []
        unwanted = [asyncio.create_task(run_bot(url, make_bot("random"), mission=mission, seat=seat, name=name,
                                                on_seated=opened.append))
                    for mission, seat, name in (("outpost", "a", "opener-9"), ("ridge", "a", "stranger"),
                                                ("ridge", "b", "opener-8"))]
        while len(opened) < 3:
            await asyncio.sleep(0.02)
        bot = ForeverBot(url, lambda gid: make_bot("random"), name="fb", log=json_logger(out), poll=0.05,
                         max_games=2, stop_after=3, filters=Filters(frozenset({"ridge"}), "b", frozenset(
                             {"opener-0", "opener-1", "opener-2", "opener-8"})))
        await asyncio.wait_for(bot.run(), 120)
        outcomes = await asyncio.wait_for(asyncio.gather(*wanted), 60)
        for t in unwanted:
            t.cancel()
        await asyncio.gather(*unwanted, return_exceptions=True)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    playing, most = 0, 0
    for x in lines:
        playing += {"game.joined": 1, "game.result": -1}.get(x["event"], 0)
        most = max(most, playing)
    assert most == 2  # two at once, never three
    results = [x for x in lines if x["event"] == "game.result"]
    assert sorted(x["opponent"] for x in results) == ["opener-0", "opener-1", "opener-2"]
    assert {x["game"] for x in lines if x["event"] == "game.joined"} == {x["game"] for x in results}
    assert sorted((x["winner"] or None) is None for x in results) == sorted(o.winner is None for o in outcomes)

"""``skirmish serve`` as a process: SIGKILL loses no acknowledged event; SIGTERM shuts down
gracefully; the log of JSON lines; the settings from the environment."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys

import pytest

from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameEnded
from skirmish.protocol import messages as m
from skirmish.server.config import ServerConfig
from skirmish.server.store import SQLiteStore

from .helpers import ROOT, RawClient, ServerProcess, play, seated_pair


async def test_sigkill_mid_game_loses_no_acked_event_and_the_game_carries_on(tmp_path, processes):
    db, log = tmp_path / "games.sqlite", tmp_path / "server.log"
    first = ServerProcess(db, log)
    processes.append(first)
    await first.started()
    a, b, sa, sb = await seated_pair(first.url)
    game = sa.game_id
    acks: list[int] = []
    rng = random.Random(3)
    stop = lambda d: d.decision.id >= 25  # noqa: E731
    await asyncio.gather(play(a, game, "a", rng=rng, stop=stop, acks=acks),
                         play(b, game, "b", rng=rng, stop=stop, acks=acks))
    # one more command in flight as the server dies: acked or not, the store must hold what was
    pending = next(x for x in reversed(a.msgs) if isinstance(x, m.DecisionMsg)).decision
    mover = a if pending.side == "a" else b
    await mover.send(m.Command(game_id=game, decision_id=pending.id, option=pending.options[0], command_id="last"))
    first.kill()
    for c in (a, b):
        await c.until_closed()
    acks += [x.seq for x in mover.msgs if isinstance(x, m.Ack)]
    assert acks

    store = await SQLiteStore.open(db)
    try:
        stored = await store.read(game)
    finally:
        await store.close()
    assert len(stored) >= max(acks)  # every acknowledged event is there
    seen = {c: max(x.seq for x in c.msgs if isinstance(x, m.EventMsg)) for c in (a, b)}

    second = ServerProcess(db, log)
    processes.append(second)
    await second.started()
    a2 = await RawClient.open(second.url, name="alice-2")
    b2 = await RawClient.open(second.url, name="bob-2")
    for c, seat, token in ((a2, "a", sa.token), (b2, "b", sb.token)):
        old = a if seat == "a" else b
        reply = await c.call(m.Resume(game_id=game, token=token, last_seq=seen[old]))
        assert isinstance(reply, m.Seated) and reply.seat == seat
    over = await asyncio.gather(play(a2, game, "a", rng=rng), play(b2, game, "b", rng=rng))
    assert over[0] == over[1]
    for c in (a2, b2):  # each seat's two connections saw its whole view, in order, once
        old = a if c is a2 else b
        seqs = [x.seq for x in old.msgs + c.msgs if isinstance(x, m.EventMsg)]
        assert seqs == sorted(set(seqs))
    assert await second.terminate() == 0

    verify = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "verify", game, "--db", str(db)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "OK" in verify.stdout and "server seed matches" in verify.stdout


async def test_sigterm_mid_game_shuts_down_gracefully(tmp_path, processes):
    db, log = tmp_path / "games.sqlite", tmp_path / "server.log"
    server = ServerProcess(db, log, "--move-ms", "60000")
    processes.append(server)
    await server.started()
    a, b, sa, sb = await seated_pair(server.url)
    spectator = await RawClient.open(server.url, name="carol")
    await spectator.call(m.Spectate(game_id=sa.game_id))
    acks: list[int] = []
    stop = lambda d: d.decision.id >= 15  # noqa: E731
    await asyncio.gather(play(a, sa.game_id, "a", stop=stop, acks=acks), play(b, sa.game_id, "b", stop=stop, acks=acks))

    assert await server.terminate() == 0
    for c in (a, b, spectator):
        rest = await c.until_closed()
        errors = [x for x in rest if isinstance(x, m.Error)]
        assert [e.code for e in errors] == ["server.shutting_down"], rest
        assert c.ws.close_code == 1001
    out = server.stdout()
    assert out.splitlines() == [server.first_line.strip()]  # exactly one line on stdout

    lines = [json.loads(line) for line in server.log_lines()]  # every stderr line is JSON
    names = [x["event"] for x in lines]
    assert {"server.listening", "connection.open", "command", "server.stopping", "connection.close",
            "server.stopped"} <= set(names)
    command = next(x for x in lines if x["event"] == "command")
    assert {"game", "seat", "decision", "kind", "option", "latency_ms", "seq", "level", "timestamp"} <= set(command)
    text = server.log.read_text()
    assert sa.token not in text and sb.token not in text

    store = await SQLiteStore.open(db)
    try:
        stored = await store.read(sa.game_id)
    finally:
        await store.close()
    assert len(stored) >= max(acks)
    assert not any(isinstance(decode_event(s.data), GameEnded) for s in stored)
    verify = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "verify", sa.game_id, "--db", str(db)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_settings_from_the_environment_and_flags():
    env = {"SKIRMISH_PORT": "9100", "SKIRMISH_MOVE_MS": "500", "SKIRMISH_RATE": "7.5", "SKIRMISH_DB": "x.sqlite",
           "SKIRMISH_HOST": "0.0.0.0"}
    c = ServerConfig.from_env(env, move_ms=250, reserve_ms=None)
    assert (c.port, c.move_ms, c.rate, c.db, c.host, c.reserve_ms) == (9100, 250, 7.5, "x.sqlite", "0.0.0.0", 120_000)
    assert ServerConfig.from_env({}) == ServerConfig()
    with pytest.raises(ValueError, match="SKIRMISH_PORT"):
        ServerConfig.from_env({"SKIRMISH_PORT": "eighty"})
    with pytest.raises(ValueError):
        ServerConfig(max_frame=2**21)  # above websockets' max_size
    with pytest.raises(ValueError):
        ServerConfig(port=70000)
    assert ServerConfig().store_writer == "process"
    assert ServerConfig.from_env({"SKIRMISH_STORE_WRITER": "thread"}).store_writer == "thread"
    with pytest.raises(ValueError, match="store_writer"):
        ServerConfig(store_writer="fibre")


def test_serve_refuses_bad_settings():
    out = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", ":memory:",
                          "--rate", "0"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "rate" in out.stderr and out.stdout == ""


async def test_serve_runs_the_garbage_collector_by_the_clock_and_restores_it_after():
    import gc
    import io
    import os
    import signal

    from skirmish.server.app import serve_until_signalled

    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    out = io.StringIO()
    task = asyncio.create_task(serve_until_signalled(ServerConfig(port=0, db=":memory:"), out=out))
    async with asyncio.timeout(10):
        while "listening on ws://" not in out.getvalue():
            await asyncio.sleep(0.01)
    assert not gc.isenabled()  # the Collector's clock collects, not the allocation count
    assert gc.get_freeze_count() > frozen  # what start-up made is frozen
    os.kill(os.getpid(), signal.SIGTERM)  # the server's own handler takes it: a graceful stop
    assert await asyncio.wait_for(task, 10) == 0
    assert gc.isenabled() == enabled and gc.get_freeze_count() == frozen


async def test_each_full_pass_of_serves_collector_is_logged(capsys):
    import json

    from skirmish.server.app import logged_collector
    from skirmish.server.logs import configure_logging, get_logger

    configure_logging("info")
    collector = logged_collector(get_logger())
    collector.start(asyncio.get_running_loop())
    try:
        collected = collector.full()
    finally:
        collector.stop()
    lines = [json.loads(x) for x in capsys.readouterr().err.splitlines() if '"gc.full"' in x]
    assert len(lines) == 1
    assert lines[0]["collected"] == collected and lines[0]["ms"] >= 0 and lines[0]["blocks"] > 0

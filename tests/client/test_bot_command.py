"""``skirmish bot``: two bot processes meet on a real server and finish a game."""

from __future__ import annotations

import asyncio
import re
import sys

from skirmish.server.app import ServerConfig, running_server
from skirmish.server.store import MemoryStore
from skirmish.engine.codec import decode_event
from skirmish.engine.events import ClientSeedAdded
from skirmish.engine.verify import LoggedEvent, verify_log


async def _bot(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "skirmish.server.cli", "bot", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_two_bot_processes_play_a_game_on_a_real_server():
    store = MemoryStore()
    async with running_server(ServerConfig(port=0, db=":memory:"), store=store) as srv:
        creator = await _bot("--strategy", "random", "--seed", "1", "--server", srv.url, "--create", "ridge",
                             "--client-seed", "chosen by the creator")
        line = (await asyncio.wait_for(creator.stdout.readline(), 20)).decode()
        game_id = re.search(r"seated: game (\S+), seat (a|b)", line).group(1)
        joiner = await _bot("--strategy", "skirmish.bots.random_bot:RandomBot", "--server", srv.url, "--game", game_id,
                            "--codec", "json")
        outs = await asyncio.wait_for(asyncio.gather(creator.communicate(), joiner.communicate()), 120)
        assert creator.returncode == 0 and joiner.returncode == 0, outs
        stored = await store.read(game_id)
        for out, _ in outs:
            assert "game over:" in out.decode()
            # issue 12, item 14: the head hash game_over announced, which is the log's
            assert f"head hash: {stored[-1].hash.hex()} " in out.decode()
    report = verify_log(game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
    assert report.ok and report.finished, report.summary()
    # issue 12, item 16: --client-seed is the seat's seed; without it, a random one
    seeds = {e.seat: e.seed for e in map(decode_event, (s.data for s in stored)) if isinstance(e, ClientSeedAdded)}
    creator_seat = re.search(r"seated: game \S+, seat (a|b)", line).group(1)
    joiner_seat = "b" if creator_seat == "a" else "a"
    assert seeds[creator_seat] == "chosen by the creator"
    assert re.fullmatch(r"[0-9a-f]{32}", seeds[joiner_seat])


async def test_an_unknown_strategy_and_an_absent_server_are_one_line_errors():
    proc = await _bot("--strategy", "nope", "--server", "ws://127.0.0.1:1", "--create", "ridge")
    out, err = await proc.communicate()
    assert proc.returncode == 2 and "unknown bot strategy 'nope'" in err.decode() and not out
    proc = await _bot("--server", "ws://127.0.0.1:1", "--create", "ridge")
    out, err = await proc.communicate()
    assert proc.returncode == 2 and "cannot connect" in err.decode() and len(err.decode().splitlines()) == 1

"""Every bot entry point sends a client seed when it takes a seat, so that no game's dice rest on
the server's seed alone: the library's ``run_bot`` (creating and joining), ``skirmish bot``
(``--create``, ``--game`` and ``--forever``; the server's house bots run ``skirmish bot --game``),
a tournament played through a server, and the two all-JSON bots of the docs (docs/bots.md's
example bot, docs/protocol.md's minimal client). Each plays real games on a real server; then
every game in the store must log a ``ClientSeedAdded`` for both seats."""

from __future__ import annotations

import asyncio
import re
import sys

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.events import ClientSeedAdded, GameEnded, SeatTaken

from .helpers import ROOT


async def _cli(*argv: str, timeout: float = 120) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "skirmish.server.cli", *argv, cwd=ROOT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    return proc.returncode, out.decode(), err.decode()


async def _json_bot(doc_block: str, url: str, tmp_path, game_id: str | None = None):
    from tests.bots.test_example_bot import example_bot  # the code blocks, as their own tests extract them
    from tests.client.test_protocol_doc import minimal_client

    code = example_bot() if doc_block == "example" else minimal_client()
    script = tmp_path / f"{doc_block}.py"
    script.write_text(code)
    return await asyncio.create_subprocess_exec(sys.executable, str(script), url, *([game_id] if game_id else []),
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_every_bot_entry_point_sends_a_client_seed(make_server, tmp_path):
    async with make_server(rate=1000.0, burst=1000, games_per_minute=0) as srv:
        url = srv.url
        # the library, creating and joining
        seated = asyncio.get_running_loop().create_future()
        creator = asyncio.create_task(run_bot(url, make_bot("random", 1), mission="ridge", seat="a",
                                              on_seated=seated.set_result))
        await run_bot(url, make_bot("random", 2), game_id=(await seated).game_id)
        await creator
        # skirmish bot --create, then --game
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "skirmish.server.cli", "bot", "--server", url, "--create", "ridge", cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        game_id = re.match(r"seated: game (\S+), seat a", line).group(1)
        code, out, err = await _cli("bot", "--server", url, "--game", game_id, "--codec", "json")
        assert code == 0 and "game over" in out, err
        assert await asyncio.wait_for(proc.wait(), 30) == 0
        # skirmish bot --forever joins a game the library opened
        opened = asyncio.get_running_loop().create_future()
        opener = asyncio.create_task(run_bot(url, make_bot("random", 3), mission="ridge", seat="a",
                                             on_seated=opened.set_result))
        await opened
        code, out, err = await _cli("bot", "--server", url, "--forever", "--games", "1", "--poll", "0.1")
        assert code == 0 and '"game.result"' in err, err
        await opener
        # a tournament through the server
        code, out, err = await _cli("tournament", "--bots", "random,greedy", "--games", "2", "--workers", "1",
                                    "--server", url, "--out", str(tmp_path / "t"), "--quiet", "--seed", "4")
        assert code == 0, err
        # the docs' JSON bots: the example bot creates, the minimal client joins
        first = await _json_bot("example", url, tmp_path)
        game_id = re.match(r"game (\S+) seat", (await asyncio.wait_for(first.stdout.readline(), 30)).decode()).group(1)
        second = await _json_bot("minimal", url, tmp_path, game_id)
        for p in (first, second):
            _, err = await asyncio.wait_for(p.communicate(), 120)
            assert p.returncode == 0, err.decode()

        games = [g.game_id for g in await srv.store.list_games()]
        assert len(games) == 6
        for gid in games:
            events = [decode_event(s.data) for s in await srv.store.read(gid)]
            assert any(isinstance(e, GameEnded) for e in events), gid
            names = {e.seat: e.name for e in events if isinstance(e, SeatTaken)}
            seeds = {e.seat: e.seed for e in events if isinstance(e, ClientSeedAdded)}
            assert set(seeds) == {"a", "b"} and all(seeds.values()), (gid, names, seeds)

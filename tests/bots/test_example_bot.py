"""docs/bots.md: its example bot (plain Python, websockets and JSON only) plays whole games
against a real server and a built-in bot."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import pytest

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.events import OptionChosen
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.app import ServerConfig, running_server

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def example_bot() -> str:
    block = re.search(r"<!-- example-bot:begin -->\s*```python\n(.*?)```\s*<!-- example-bot:end -->",
                      DOC.read_text(), re.S)
    assert block, "docs/bots.md has no example-bot code block"
    return block.group(1)


def test_the_example_bot_is_a_few_dozen_lines_of_websockets_and_json():
    code = example_bot()
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", code, re.M))
    assert imported <= {"asyncio", "itertools", "json", "sys", "uuid", "websockets.asyncio.client"}, imported
    assert len(code.splitlines()) < 80


def test_the_example_bot_prefers_lethal_attacks_then_closing_in():
    namespace: dict = {}
    exec(compile(example_bot(), "example_bot.py", "exec"), namespace)
    choose = namespace["choose"]
    units = {"a1": ("a", (0, 0)), "b1": ("b", (5, 5))}
    attack = {"kind": "act", "options": [["end"], ["attack", "b1", 0, 0], ["attack", "b1", 0, 1], ["move", 1, 1]]}
    assert choose(attack, "a", units) == ["attack", "b1", 0, 1]
    move = {"kind": "act", "options": [["end"], ["move", 1, 0], ["move", 1, 1], ["move", 0, 1]]}
    assert choose(move, "a", units) == ["move", 1, 1]
    assert choose({"kind": "buy_dice", "options": [["buy", 0], ["buy", 1, "momentum"]]}, "a", units) == ["buy", 0]


@pytest.fixture
async def server():
    async with running_server(ServerConfig(port=0, db=":memory:")) as srv:
        yield srv


@pytest.mark.parametrize("opponent", ["random", "greedy"])
async def test_the_example_bot_plays_a_whole_game_on_a_real_server(server, tmp_path, opponent):
    script = tmp_path / "example_bot.py"
    script.write_text(example_bot())
    proc = await asyncio.create_subprocess_exec(sys.executable, str(script), server.url,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    line = (await asyncio.wait_for(proc.stdout.readline(), 15)).decode()
    m = re.match(r"game (\S+) seat ([ab])$", line.strip())
    assert m, (line, (await proc.stderr.read()).decode())
    game_id, seat = m.groups()
    other = await asyncio.wait_for(run_bot(server.url, make_bot(opponent, 3), game_id=game_id), 120)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    last = out.decode().strip().splitlines()[-1]
    assert last.startswith("game over: "), out.decode()
    outcome = json.loads(last.removeprefix("game over: "))
    assert outcome["winner"] == other.winner and outcome["reason"] == other.reason

    stored = await server.store.read(game_id)
    report = verify_log(game_id, [LoggedEvent(x.seq, x.data, x.hash) for x in stored])
    assert report.ok and report.finished and report.seed_verified, report.summary()
    chosen = [e for e in map(decode_event, (x.data for x in stored)) if isinstance(e, OptionChosen) and e.side == seat]
    assert chosen and not any(e.timeout for e in chosen)
    assert {e.option[0] for e in chosen} & {"attack", "move"}  # it played, not just ended turns

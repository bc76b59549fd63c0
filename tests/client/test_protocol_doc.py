"""docs/protocol.md: its complete JSON client plays a whole game against a real server, and the
page names every error code there is."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

from protocol.errors import CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"


def minimal_client() -> str:
    text = DOC.read_text()
    block = re.search(r"<!-- minimal-client:begin -->\s*```python\n(.*?)```\s*<!-- minimal-client:end -->", text, re.S)
    assert block, "docs/protocol.md has no minimal-client code block"
    return block.group(1)


def test_the_minimal_client_uses_only_websockets_and_json():
    code = minimal_client()
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", code, re.M))
    assert imported <= {"asyncio", "itertools", "json", "random", "sys", "uuid", "websockets.asyncio.client"}, imported
    assert len(code.splitlines()) < 70


async def test_the_minimal_client_plays_a_game_to_the_end(server, tmp_path):
    script = tmp_path / "minimal_client.py"
    script.write_text(minimal_client())
    first = await asyncio.create_subprocess_exec(sys.executable, str(script), server.url,
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    line = (await asyncio.wait_for(first.stdout.readline(), 15)).decode()
    m = re.match(r"game (\S+) seat ([ab])", line)
    assert m, line
    game_id, seat = m.groups()
    second = await asyncio.create_subprocess_exec(sys.executable, str(script), server.url, game_id,
                                                  stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    (out1, err1), (out2, err2) = await asyncio.wait_for(asyncio.gather(first.communicate(), second.communicate()), 60)
    assert first.returncode == 0, err1.decode()
    assert second.returncode == 0, err2.decode()
    over1 = out1.decode().strip().splitlines()[-1]
    lines2 = out2.decode().strip().splitlines()
    assert lines2[0] == f"game {game_id} seat {'b' if seat == 'a' else 'a'}"
    assert over1.startswith("game over: ") and over1 == lines2[-1]
    outcome = json.loads(over1.removeprefix("game over: "))
    assert outcome["winner"] in ("a", "b", None) and outcome["reason"]


def test_every_error_code_is_documented():
    text = DOC.read_text()
    missing = [code for code in CODES if f"| `{code}` |" not in text]
    assert not missing, f"docs/protocol.md does not document {missing}"


def test_every_client_and_server_message_is_documented():
    from protocol.messages import CLIENT_TYPES, ServerMessage

    text = DOC.read_text()
    server_types = [cls.__struct_config__.tag for cls in ServerMessage.__args__]
    missing = [t for t in [*CLIENT_TYPES, *server_types] if f"| `{t}` |" not in text]
    assert not missing, missing


def test_every_event_and_decision_kind_is_documented():
    import typing

    from engine.decide import ANSWERS
    from engine.events import AnyEvent
    from engine.rules import registry

    text = DOC.read_text()
    missing = [cls.__name__ for cls in typing.get_args(AnyEvent) if f"| `{cls.__name__}` |" not in text]
    assert registry.ANSWERS, "the rules modules' decision kinds are registered"
    missing += [kind for kind in [*ANSWERS, *registry.ANSWERS] if f"| `{kind}` |" not in text]
    assert not missing, missing

"""Issue 12 item 8 (client side): text that came from someone else (a player's or a client's
name, a mission file's strings, the server's messages) never reaches a terminal raw. An ANSI
escape or a newline in a name comes out escaped (``\\x1b``, ``\\n``) in the output of every
command that prints it: ``replay``, ``play``, ``spectate`` and ``games``, so a player cannot
clear the other's screen or forge a line such as "side b resigns" in it."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.client import render
from skirmish.client.connection import connect
from skirmish.client.narrate import describe
from skirmish.client.safe import safe
from skirmish.engine import events as ev
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created, parse_mission
from skirmish.server import missions
from tests.client.test_client_cli import run

RAW = "Hale\x1b[2J\x1b[31m\nside b resigns"  # clears the screen, turns red, forges a line
ESCAPED = "Hale\\x1b[2J\\x1b[31m\\nside b resigns"
TOML_RAW = "Hale\\u001b[2J\\u001b[31m\\nside b resigns"  # the same, as a TOML string spells it
MISSION_ID = "evil\\u001b]0;owned\\u0007"  # an OSC that would retitle the window
MISSION_ESCAPED = "evil\\x1b]0;owned\\x07"


def evil_mission_text() -> str:
    text = (Path(missions.__file__).parent / "ridge.toml").read_text(encoding="utf-8")
    text = text.replace('id = "ridge"', f'id = "{MISSION_ID}"', 1)
    assert 'name = "Lt. Cmdr. Hale"' in text
    return text.replace('name = "Lt. Cmdr. Hale"', f'name = "{TOML_RAW}"', 1)


def assert_escaped(out: str) -> None:
    assert "\x1b" not in out and "\x07" not in out, "a raw escape reached the terminal"
    assert ESCAPED in out or MISSION_ESCAPED in out
    assert not any(line.lstrip().startswith("side b resigns") for line in out.splitlines()), \
        "a forged line"


def test_safe_escapes_controls_and_keeps_printable_text():
    assert safe(RAW) == ESCAPED
    assert safe("Kor'val é 漢字 ok") == "Kor'val é 漢字 ok"
    assert safe("a\tb\rc\x00d\x7fe\x9bf\u202eg\u200bh\\i") == "a\\tb\\rc\\x00d\\x7fe\\x9bf\\u202eg\\u200bh\\\\i"
    assert "\n" not in safe("x\ny") and safe(3) == "3"


def test_narration_and_labels_escape_names():
    mission = parse_mission(evil_mission_text(), "evil.toml")
    created = game_created("g-evil", mission, "local", "")
    state = initial_state(created)
    for event in (created, ev.SeatTaken(seat="a", name=RAW), ev.TurnStarted(unit="a1"),
                  ev.ClientSeedAdded(seat="a", seed=RAW)):
        line = describe(event, state)
        assert "\x1b" not in line and "\n" not in line, line
    assert ESCAPED in describe(ev.SeatTaken(seat="a", name=RAW), state)
    assert describe(ev.TurnStarted(unit="a1"), state).startswith(f"{ESCAPED} [a1] takes a turn")
    decision = render.Decision(5, "a", "activate", (("unit", "a1"),))
    assert render.label(("unit", "a1"), state, decision) == f"activate a1 ({ESCAPED})"
    for text in (render.units(state, "a"), render.status(state, "a"), render.decision_text(decision, state)):
        assert "\x1b" not in text
    assert len(render.units(state, "a").splitlines()) == len(state.units)


def test_replay_escapes_names_from_a_mission_file(capsys, tmp_path):
    path = tmp_path / "evil.toml"
    path.write_text(evil_mission_text(), encoding="utf-8")
    db = tmp_path / "games.sqlite"
    code, out, err = run(capsys, "match", "--mission", path, "--db", db, "--bots", "random,random", "--seed", 5)
    assert code == 0, err
    gid = re.search(r"^game (g-\S+):", out, re.M).group(1)
    code, out, err = run(capsys, "replay", gid, "--db", db, "--as", "all")
    assert code == 0, err
    assert_escaped(out)
    assert MISSION_ESCAPED in out.splitlines()[0]  # the GameCreated line names the mission
    assert f"{ESCAPED} [a1]" in out


def test_replay_escapes_a_player_name_stored_raw(capsys, tmp_path):
    """A store written before names were checked (or by another server) holds a seat's name with
    an escape and a newline: replay prints it escaped."""
    from skirmish.engine.codec import encode_event
    from skirmish.server.game import LiveGame
    from skirmish.server.store import SQLiteStore

    db = tmp_path / "games.sqlite"

    async def make() -> str:
        store = await SQLiteStore.open(db)
        async with store:
            game = await LiveGame.create(store, missions.load("ridge"))
            await store.append(game.game_id, game.state.seq, [encode_event(ev.SeatTaken(seat="a", name=RAW))])
            return game.game_id

    gid = asyncio.run(make())
    code, out, err = run(capsys, "replay", gid, "--db", db)
    assert code == 0, err
    assert_escaped(out)
    assert f"seat a is taken by {ESCAPED}" in out


@pytest.fixture
def evil_server(server_thread):
    """The test server, also offering a mission someone gave its operator."""
    server_thread.app.lobby.missions["evil"] = parse_mission(evil_mission_text(), "evil.toml")
    return server_thread


async def _bots_play(url: str, mission: str):
    loop = asyncio.get_running_loop()
    seated = loop.create_future()
    a = asyncio.create_task(run_bot(url, make_bot("random", 3), mission=mission, seat="a",
                                    on_seated=seated.set_result))
    gid = (await seated).game_id
    b = asyncio.create_task(run_bot(url, make_bot("random", 4), game_id=gid))
    _KEEP.update((a, b))
    return gid


_KEEP: set = set()


def test_games_escapes_what_the_server_lists(capsys, evil_server):
    async def create():
        async with connect(evil_server.url) as c:
            return (await c.create_game("evil", seat="a")).game_id

    gid = evil_server.run(create())
    code, out, err = run(capsys, "games", "--server", evil_server.url, server=evil_server)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    row = next(line for line in out.splitlines() if line.startswith(gid))
    assert MISSION_ESCAPED in row and len(out.strip().splitlines()) == 2


def test_spectate_escapes_names(capsys, evil_server):
    gid = evil_server.run(_bots_play(evil_server.url, "evil"))
    code, out, err = run(capsys, "spectate", "--server", evil_server.url, gid, server=evil_server)
    assert code == 0, err
    assert_escaped(out)
    assert f"{ESCAPED} [a1]" in out and MISSION_ESCAPED in out
    evil_server.settle()


def test_play_escapes_names(capsys, monkeypatch, evil_server):
    from tests.client.test_client_cli import _join_first_waiting

    url = evil_server.url
    opponent = asyncio.run_coroutine_threadsafe(_join_first_waiting(url), evil_server._loop)
    # side a acts first, activates a1 (the evil name), ends its turn, then resigns
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n1\nq\ny\n"))
    code, out, err = run(capsys, "play", "--server", url, "--create", "evil", "--seat", "a", server=evil_server)
    assert code == 0, err
    assert opponent.result(15).reason == "side a resigned"
    assert_escaped(out)
    assert f"activate a1 ({ESCAPED})" in out  # the option's label
    assert MISSION_ESCAPED in out
    evil_server.settle()

"""``skirmish games``, ``spectate`` and ``play`` against a real server (in a thread of its own),
through ``skirmish.server.cli.main(argv)`` in-process; stdin is scripted for ``play``."""

from __future__ import annotations

import asyncio
import io
import re

import pytest

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.client.connection import connect
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event
from skirmish.server import cli


def run(capsys, *argv, server=None) -> tuple[int, str, str]:
    """Exit code, stdout, and stderr without the server's JSON log lines (the test server
    shares this process's stderr)."""
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    if server is not None:
        server.settle("skirmish ")  # the CLI's own connection
    out, err = capsys.readouterr()
    err = "".join(line for line in err.splitlines(keepends=True) if not line.startswith('{"'))
    return code, out, err


async def _create(url: str, seat: str = "a") -> str:
    """A game with one seat taken (the connection closes; the seat stays taken)."""
    async with connect(url) as c:
        return (await c.create_game("ridge", seat=seat)).game_id


async def _start_game(url: str, seeds=(21, 22)):
    """Two bots start a game; returns its id at once while they play on (their task is kept
    on the server's loop)."""
    loop = asyncio.get_running_loop()
    seated = loop.create_future()
    a = asyncio.create_task(run_bot(url, make_bot("random", seeds[0]), mission="ridge", seat="a",
                                    on_seated=seated.set_result))
    gid = (await seated).game_id
    b = asyncio.create_task(run_bot(url, make_bot("random", seeds[1]), game_id=gid))
    _BACKGROUND.update((a, b))  # the loop keeps only weak references to tasks
    return gid


_BACKGROUND: set = set()


async def _join_first_waiting(url: str, seed: int = 31, timeout: float = 15.0):
    """A bot that waits for a game with one seat taken, joins it and plays it to the end."""
    async with connect(url) as c:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            waiting = [g for g in await c.list_games() if len(g.seats) == 1 and not g.over]
            if waiting:
                break
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError("nobody created a game")
            await asyncio.sleep(0.05)
    return await run_bot(url, make_bot("random", seed), game_id=waiting[-1].game_id)


def test_games_prints_a_table(capsys, server_thread):
    code, out, _ = run(capsys, "games", "--server", server_thread.url, server=server_thread)
    assert code == 0 and "no games on this server" in out
    gid = server_thread.run(_create(server_thread.url))
    code, out, err = run(capsys, "games", "--server", server_thread.url, "--codec", "json", server=server_thread)
    assert code == 0, err
    header, row = out.strip().splitlines()
    assert header.split() == ["GAME", "MISSION", "SEATS", "STATE", "EVENTS", "HEAD", "HASH", "(finished", "games)"]
    assert row.split()[:3] == [gid, "ridge", "a"] and "waiting for a player" in row


def test_spectate_narrates_a_live_game_until_it_ends(capsys, server_thread):
    gid = server_thread.run(_start_game(server_thread.url))
    code, out, err = run(capsys, "spectate", "--server", server_thread.url, gid, server=server_thread)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].split()[:3] == ["1", "game", f"{gid}:"]
    assert any("── round 1 ──" in line for line in lines)
    assert any("GAME OVER" in line for line in lines)
    assert lines[-1].startswith("game over: ")
    assert re.match(r"head hash: [0-9a-f]{64} \(keep it: 'skirmish verify --file FILE --expect-head [0-9a-f]{64}'", lines[-2])
    seqs = [int(line.split()[0]) for line in lines[:-2]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    server_thread.settle()


@pytest.mark.parametrize("argv", [["games"], ["spectate", "g-x"], ["play", "--create", "ridge"]])
def test_no_server_is_a_one_line_error(capsys, argv):
    code, out, err = run(capsys, *argv[:1], "--server", "ws://127.0.0.1:1", *argv[1:])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "connection refused" in err and err.startswith(f"skirmish {argv[0]}: ")


def test_refusals_are_one_line_errors(capsys, server_thread):
    code, _, err = run(capsys, "spectate", "--server", server_thread.url, "g-nosuchgame", server=server_thread)
    assert code == 2 and err.strip() == "skirmish spectate: lobby.no_such_game: no game 'g-nosuchgame'"
    code, _, err = run(capsys, "play", "--server", server_thread.url, "--create", "atlantis", server=server_thread)
    assert code == 2 and err.startswith("skirmish play: lobby.no_such_mission") and err.count("\n") == 1
    code, _, err = run(capsys, "play", "--server", server_thread.url, "--resume", "g-x", server=server_thread)
    assert code == 2 and "--resume needs --token" in err
    code, _, err = run(capsys, "games", "--server", "http://127.0.0.1:1")
    assert code == 2 and "not a WebSocket address" in err


def test_help_texts(capsys):
    for command in ("play", "spectate", "games"):
        with pytest.raises(SystemExit) as exit_:
            cli.main([command, "--help"])
        assert exit_.value.code == 0
        out = capsys.readouterr().out
        assert "--server URL" in out and "--codec" in out


def test_play_through_stdin(capsys, monkeypatch, server_thread):
    """A human at the terminal: bad input is asked again, 'q' needs confirming, numbers answer;
    then 'q' + 'y' resigns and the game ends."""
    url = server_thread.url
    opponent = asyncio.run_coroutine_threadsafe(_join_first_waiting(url), server_thread._loop)
    monkeypatch.setattr("sys.stdin", io.StringIO("x\n99\n1\nt\n1\nq\nn\n1\nq\ny\n"))
    code, out, err = run(capsys, "play", "--server", url, "--create", "ridge", "--seat", "a", server=server_thread)
    assert code == 0, err
    outcome = opponent.result(15)
    assert outcome.winner == "b" and outcome.reason == "side a resigned"
    assert re.search(r"your seat token \(keep it secret; it is how you resume\): \S{20,}", out)
    assert out.count("your seat token") == 1
    assert "    0  1  2  3  4  5  6  7  8  9  10 11" in out  # the board's column header
    assert re.search(r"^\*a1 .*stress \d+/\d+", out, re.M)  # the units, this side's marked
    assert re.search(r"^\s+1\) ", out, re.M) and "clock: " in out
    assert re.search(r"'x' is not a (command|move here): type 1-\d+", out)  # who acts first, or a unit
    assert re.search(r"there is no option 99: type 1-\d+", out)
    assert "not resigning" in out and "you resigned" in out
    assert out.strip().splitlines()[-1] == "game over: side b wins (side a resigned)"
    assert re.match(r"head hash: [0-9a-f]{64} ", out.strip().splitlines()[-2])  # issue 12, item 14
    # issue 12, item 16: play sent a random client seed, logged before the first roll
    gid = re.search(r"you hold seat a of game (\S+) ", out).group(1)
    stored = [decode_event(s.data) for s in server_thread.run(server_thread.app.store.read(gid))]
    seeds = {e.seat: e.seed for e in stored if isinstance(e, ev.ClientSeedAdded)}
    assert re.fullmatch(r"[0-9a-f]{32}", seeds["a"]), seeds
    server_thread.settle()


def test_play_leaves_on_end_of_input_and_resumes(capsys, monkeypatch, server_thread):
    url = server_thread.url
    opponent = asyncio.run_coroutine_threadsafe(_join_first_waiting(url, seed=41), server_thread._loop)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    code, out, err = run(capsys, "play", "--server", url, "--create", "ridge", "--seat", "b", server=server_thread)
    assert code == 0, err
    token = re.search(r"resume\): (\S+)", out).group(1)
    hint = re.search(r"resume with: skirmish play --server \S+ --resume (\S+) --token=TOKEN --last-seq (\d+)", out)
    assert hint, out
    gid, last_seq = hint.group(1), int(hint.group(2))
    printed = [int(m) for m in re.findall(r"^ *(\d+)  (?!\d)", out, re.M)]
    assert printed and max(printed) <= last_seq

    monkeypatch.setattr("sys.stdin", io.StringIO("q\ny\n"))
    code, out, err = run(capsys, "play", "--server", url, "--resume", gid, f"--token={token}",
                         "--last-seq", last_seq, server=server_thread)
    assert code == 0, err
    assert f"resumed seat b of game {gid}" in out
    assert "your seat token" not in out
    shown = [int(m) for m in re.findall(r"^ *(\d+)  (?!\d)", out, re.M)]
    assert shown and min(shown) > last_seq  # what was seen before is not printed again
    assert out.strip().splitlines()[-1] == "game over: side a wins (side b resigned)"
    assert opponent.result(15).winner == "a"
    server_thread.settle()

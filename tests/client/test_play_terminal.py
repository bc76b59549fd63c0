"""Issue 12 item 33: a human plays a whole game in the terminal. The real ``skirmish play`` runs
as a process of its own against a real server, and a scripted "human" reads what it prints and
types commands as a person would (numbers, moves by their cell, ``?``, ``s``, ``b``, ``t``),
until the game is over. Then the transcript is checked: every roll explained, the hand shown,
human labels for every option, the help, the clock."""

from __future__ import annotations

import asyncio
import os
import pty
import random
import re
import select
import subprocess
import sys
import threading
import time
from pathlib import Path


from tests.client.test_client_cli import _join_first_waiting

ROOT = Path(__file__).resolve().parents[2]
PROMPT = re.compile(r"your choice \(([^;]*); \? help, q resign\)> $")
DECISION = re.compile(r"^decision \d+: ", re.M)
OPTION = re.compile(r"^ +(\d+)\) (.*)$", re.M)
CELLS = re.compile(r"^  m X Y\) .* on the board \((-?\d+),(-?\d+)", re.M)


def play_argv(url: str, *args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from skirmish.server.cli import main; sys.exit(main())",
            "play", "--server", url, *args]


class Human:
    """Reads ``skirmish play``'s stdout as it comes and answers each prompt."""

    def __init__(self, proc: subprocess.Popen, seed: int):
        self.proc = proc
        self.out = ""
        self.rng = random.Random(seed)
        self.typed: list[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            chunk = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") else self.proc.stdout.read(1)
            if not chunk:
                return
            with self._lock:
                self.out += chunk.decode("utf-8", "replace")

    def type(self, line: str) -> None:
        self.typed.append(line)
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def play(self, timeout: float, extra: list[str]) -> str:
        deadline = time.monotonic() + timeout
        answered = 0
        while time.monotonic() < deadline:
            with self._lock:
                out = self.out
            prompts = out.count("your choice (")
            if self.proc.poll() is not None:
                time.sleep(0.2)
                return self.out
            if prompts > answered and PROMPT.search(out):
                answered = prompts
                block = out[[m.start() for m in DECISION.finditer(out)][-1]:]
                self.type(extra.pop(0) if extra else self.choose(block))
            time.sleep(0.005)
        raise AssertionError("the game did not end in time:\n" + self.out[-3000:])

    def choose(self, block: str) -> str:
        options = OPTION.findall(block)
        cell = CELLS.search(block)
        if cell and (not options or self.rng.random() < 0.5):
            x, y = cell.groups()
            return self.rng.choice([f"m {x} {y}", f"{x},{y}", f"move {x} {y}"])
        attacks = [n for n, text in options if text.startswith(("attack", "assassinate", "sabotage", "play "))]
        if attacks and self.rng.random() < 0.7:
            return self.rng.choice(attacks)
        ends = [n for n, text in options if text == "end the turn"]
        rest = [n for n, _ in options if n not in ends] or [n for n, _ in options]
        assert rest, f"no options in:\n{block}"
        return self.rng.choice(rest)


def _play_whole_game(server_thread, mission: str, seed: int, extra: list[str]) -> str:
    url = server_thread.url
    opponent = asyncio.run_coroutine_threadsafe(_join_first_waiting(url, seed=seed, timeout=30),
                                                server_thread._loop)
    proc = subprocess.Popen(play_argv(url, "--create", mission, "--seat", "a"), cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "TERM": "dumb"})
    try:
        human = Human(proc, seed)
        out = human.play(240, extra)
        assert proc.wait(10) == 0, proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    outcome = opponent.result(30)
    assert f"game over: {'side ' + outcome.winner + ' wins' if outcome.winner else 'a draw'}" in out
    assert out.rstrip().splitlines()[-1].startswith("game over: ")
    return out


def _common(out: str) -> None:
    # ? and help explain the commands
    assert "How to play (type a command and Enter):" in out and "m X Y         move to the cell" in out
    # every d20 roll of a Task says its successes and Complications, its target and Difficulty
    tasks = re.findall(r"rolls \d+d20 \[[\d, ]+\] vs \d+: (\d+) success(?:es)?, (?:no|\d+) Complications?", out)
    assert tasks, "no explained d20 roll"
    assert re.search(r"=> .*: \d+ success(es)? .*against Difficulty \d+: (passed|failed)", out)
    assert re.search(r"\(Difficulty \d+; success at \d+ or under, two (on a 1|at \d+ or under), Complication on ", out)
    assert "rolls 0d" not in out and "[]" not in out  # hidden rolls are said, not printed empty
    # options are labelled for people; the moves are one line, picked by cell
    assert not re.search(r"^ +\d+\) (fate \d|card \w|move \(|\w+ \w+ \d+$)", out, re.M)
    assert re.search(r"^  m X Y\) move to one of \d+ cells marked o on the board", out, re.M)
    assert re.search(r"^ +\d  ?(\S{2} +|\.o +)", out, re.M) and ".o " in out  # reachable cells marked
    # the clock: the prompt shows the time left; t prints it
    assert re.search(r"^\[\d+s \+ \d+:\d\d reserve\] your choice", out, re.M)
    assert "clock: " in out and "s for this move + " in out
    # pools and tokens
    assert re.search(r"Momentum: a \(you\) \d+, b \d+; Threat: a \(you\) \d+, b \d+", out)
    # the board is not printed again for every choice
    assert out.count("    0  1  2  3") < out.count("your choice (")


def test_a_human_plays_a_whole_game_of_knives(server_thread):
    out = _play_whole_game(server_thread, "knives", 11, ["?", "s", "t", "b", "help", "x"])
    _common(out)
    # knives: your own hand (with what each card does) and the other's hand size
    assert re.search(r"your hand \(\d+\): .*\w+ \((\+\d dice|re-roll|turn up to|\+\d fate)", out), out[:4000]
    assert re.search(r"side b holds \d+ cards? \(hidden\)", out)
    assert "Action Points: a (you)" in out
    assert "'x' is not a" in out
    # your own draws are yours to see; the other side's draws are not printed as empty dice
    assert re.search(r"side a draws (jam|luck|omen|reinforce)", out) and "side b draws a card (hidden)" in out
    assert "the server draws the secret salt" in out


def test_a_human_plays_a_whole_game_of_ridge(server_thread):
    out = _play_whole_game(server_thread, "ridge", 12, ["?", "t"])
    _common(out)
    assert re.search(r"rolls \d+d6 \[[\d, ]+\]: \d+ damage", out) or "attacks" not in out


def test_on_a_terminal_the_clock_ticks_while_you_think(server_thread):
    """Through a pseudo-terminal, as a person runs it: the line above the prompt counts the time
    down every second (rewritten in place: cursor saved, moved up, line cleared, restored)
    while the prompt waits, and what is typed still answers."""
    url = server_thread.url
    opponent = asyncio.run_coroutine_threadsafe(_join_first_waiting(url, seed=5, timeout=30), server_thread._loop)
    master, slave = pty.openpty()
    proc = subprocess.Popen(play_argv(url, "--create", "ridge", "--seat", "a"), cwd=ROOT, stdin=slave,
                            stdout=slave, stderr=subprocess.PIPE, env={**os.environ, "TERM": "xterm"})
    os.close(slave)
    out = b""

    def read_for(seconds: float, until: bytes = b"") -> None:
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (until and until in out):
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    return

    try:
        read_for(20, b"your choice (")
        assert b"your choice (" in out, out.decode(errors="replace")
        start = len(out)
        read_for(3.5)
        ticks = re.findall(rb"\x1b7\x1b\[1A\r\x1b\[2Ktime left: (\d+)s \+ 2:00 reserve\x1b8", out[start:])
        assert len(ticks) >= 2 and len(set(ticks)) >= 2, out[start:]
        assert int(ticks[-1]) < int(ticks[0]) <= 30
        os.write(master, b"q\n")
        read_for(10, b"[y/N]> ")
        os.write(master, b"y\n")
        read_for(20, b"game over: ")
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    text = out.decode(errors="replace")
    assert "time left: " in text and "game over: side b wins (side a resigned)" in text
    assert opponent.result(30).reason == "side a resigned"

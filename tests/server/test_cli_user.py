"""A new user's first hour, through the real ``skirmish`` command run as a subprocess (issue 12,
items 28-31 and 34): the README's own bot, a crashing bot in ``match``, ``--db`` paths that
cannot be used, stores that are not supported, every subcommand's ``--help`` and ``--version``.

The command is the installed console script (not ``python -m``, which would put the current
folder on ``sys.path`` and hide what a user sees), run in a temporary folder.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def skirmish_command() -> list[str]:
    script = Path(sys.executable).with_name("skirmish")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-P", "-m", "skirmish.server.cli"]  # -P: the current folder is not put on sys.path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SKIRMISH_DB"] = str(tmp_path / "default" / "must-not-be-used.sqlite")
    return env


def skirmish(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*skirmish_command(), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def readme_bot() -> tuple[str, str, list[str]]:
    """The README's bot: (file name, code, the match command's arguments), as the README gives them."""
    section = README.read_text(encoding="utf-8").split("## How to write a bot", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    filename = re.search(r"Save it as `(\w+\.py)`", section)
    command = re.search(r"`(skirmish match --bots [^`]+)`", section)
    assert code and filename and command, "the README's 'How to write a bot' no longer has its bot, file or command"
    args = shlex.split(command.group(1))
    assert args[0] == "skirmish"
    return filename.group(1), code.group(1), args[1:]


# -- item 28: bots from the current folder and from a file ------------------------------------


def test_the_readmes_bot_plays_from_the_current_folder(tmp_path: Path, env) -> None:
    filename, code, args = readme_bot()
    (tmp_path / filename).write_text(code, encoding="utf-8")
    db = tmp_path / "games.sqlite"
    done = skirmish([*args, "--seed", "3", "--db", str(db)], tmp_path, env)
    assert done.returncode == 0, done.stderr
    game = re.search(r"^game (g-[0-9a-f]+):", done.stdout, re.M)
    assert game, done.stdout
    assert "Cautious (a)" in done.stdout
    verified = skirmish(["verify", game.group(1), "--db", str(db)], tmp_path, env)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_bot_from_a_file_path_plays_from_any_folder(tmp_path: Path, env) -> None:
    filename, code, _ = readme_bot()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / filename).write_text(code, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = tmp_path / "games.sqlite"
    for spec in (f"../mine/{filename}:Cautious", f"{tmp_path / 'mine' / filename}:Cautious"):
        done = skirmish(["match", "--bots", f"random,{spec}", "--seed", "4", "--db", str(db)], elsewhere, env)
        assert done.returncode == 0, done.stderr
        assert f"{spec} (b)" in done.stdout


def test_a_missing_bot_file_or_class_is_named(tmp_path: Path, env) -> None:
    filename, code, _ = readme_bot()
    (tmp_path / filename).write_text(code, encoding="utf-8")
    db = tmp_path / "games.sqlite"
    for spec, problem in ((f"{filename}:Reckless", "has no 'Reckless'"), ("nowhere/bots.py:Cautious", "no file"),
                          ("notamodule:Cautious", "No module named 'notamodule'")):
        done = skirmish(["match", "--bots", f"{spec},random", "--db", str(db)], tmp_path, env)
        assert done.returncode == 2, done.stderr
        assert spec in done.stderr and problem in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not db.exists()


def test_a_tournament_config_finds_the_bot_beside_it(tmp_path: Path, env) -> None:
    filename, code, _ = readme_bot()
    folder = tmp_path / "club"
    folder.mkdir()
    (folder / filename).write_text(code, encoding="utf-8")
    module = filename.removesuffix(".py")
    (folder / "tourney.toml").write_text(
        f'bots = ["cautious={module}:Cautious", "random"]\ngames = 2\nseed = 5\nworkers = 1\nout = "results"\n',
        encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = skirmish(["tournament", "--config", str(folder / "tourney.toml"), "--quiet"], elsewhere, env)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^ +\d +cautious ", done.stdout, re.M), done.stdout
    # ... and from the bot's own folder, given on the command line
    done = skirmish(["tournament", "--bots", f"{module}:Cautious,random", "--games", "2", "--seed", "5",
                     "--workers", "1", "--out", "here", "--quiet"], folder, env)
    assert done.returncode == 0, done.stderr


# -- item 34: every command says what it does; --version -------------------------------------


def subcommands() -> list[str]:
    from skirmish.server import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


def test_every_subcommand_is_covered() -> None:
    assert {"match", "missions", "replay", "verify", "serve", "tournament", "play", "bot"} <= set(subcommands())


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommands_help_has_a_description(command: str, capsys) -> None:
    from skirmish.server import cli

    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", out) if p.strip()]
    assert paragraphs[0].startswith(f"usage: skirmish {command}")
    description = paragraphs[1]
    assert not description.startswith(("options:", "positional arguments:")), f"{command} --help has no description"
    assert len(description.split()) >= 4, description


def test_version_comes_from_the_package_metadata(tmp_path: Path, env) -> None:
    from importlib.metadata import version

    done = skirmish(["--version"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"skirmish {version('skirmish')}"
    helped = skirmish(["--help"], tmp_path, env)
    assert "--version" in helped.stdout


# -- items 30 and 31: a --db where no store can be, a store that is not supported --------------


def commands_with_db() -> set[str]:
    from skirmish.server import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {name for name, p in sub.choices.items() if any("--db" in a.option_strings for a in p._actions)}


def db_argv(command: str, tmp_path: Path) -> list[str]:
    """The command with its required arguments (a replay file that exists for import)."""
    replay = tmp_path / "some.skr"
    replay.write_bytes(b"not looked at before the store")
    return {"match": ["match", "--seed", "1"], "replay": ["replay", "g-1"], "verify": ["verify", "g-1"],
            "export": ["export", "g-1", str(tmp_path / "out.skr")], "import": ["import", str(replay)],
            "serve": ["serve", "--port", "0"], "backup": ["backup", "--to", str(tmp_path / "copy.sqlite")]}[command]


def test_every_command_with_a_db_is_checked_here() -> None:
    assert commands_with_db() == {"match", "replay", "verify", "export", "import", "serve", "backup"}


@pytest.mark.parametrize("command", sorted(commands_with_db()))
def test_a_db_under_a_file_names_the_path_and_the_problem(command: str, tmp_path: Path, env) -> None:
    (tmp_path / "afile").write_text("I am a file\n")
    done = skirmish([*db_argv(command, tmp_path), "--db", "afile/games.sqlite"], tmp_path, env, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    assert "afile/games.sqlite" in done.stderr and "afile is a file, not a folder" in done.stderr, done.stderr
    assert (tmp_path / "afile").read_text() == "I am a file\n"


@pytest.mark.parametrize("command", sorted(commands_with_db()))
def test_a_db_that_is_a_folder_is_named(command: str, tmp_path: Path, env) -> None:
    (tmp_path / "folder").mkdir()
    done = skirmish([*db_argv(command, tmp_path), "--db", "folder"], tmp_path, env, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    assert "store folder: is a folder, not a SQLite file" in done.stderr, done.stderr


@pytest.mark.parametrize("command", sorted(commands_with_db()))
@pytest.mark.parametrize("address, problem", [
    ("postgresql:skirmish", "a PostgreSQL address is a URL"),
    ("mysql://localhost/skirmish", "mysql: stores are not supported"),
    ("redis:6379", "redis: stores are not supported"),
])
def test_an_unsupported_store_is_refused_naming_the_supported_ones(command: str, address: str, problem: str,
                                                                   tmp_path: Path, env) -> None:
    done = skirmish([*db_argv(command, tmp_path), "--db", address], tmp_path, env, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    assert address in done.stderr and problem in done.stderr, done.stderr
    assert "supported: a SQLite file" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["some.skr"]  # no file or folder was made


def test_an_unsupported_store_in_the_environment_is_refused(tmp_path: Path, env) -> None:
    env = {**env, "SKIRMISH_DB": "mysql://localhost/skirmish"}
    for argv in (["verify", "g-1"], ["serve", "--port", "0"]):
        done = skirmish(argv, tmp_path, env, timeout=60)
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "SKIRMISH_DB" in done.stderr and "mysql: stores are not supported" in done.stderr, done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", sorted(commands_with_db()))
def test_a_postgres_address_never_makes_a_file(command: str, tmp_path: Path, env) -> None:
    # nothing listens on port 1: the command fails naming the address (without its password),
    # and, unlike before PostgreSQL was supported, no SQLite file named after the URL appears
    address = "postgresql://someone:hunter2@127.0.0.1:1/skirmish?connect_timeout=2"
    done = skirmish([*db_argv(command, tmp_path), "--db", address], tmp_path, env, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    assert "postgresql://someone:***@127.0.0.1:1/skirmish" in done.stderr, done.stderr
    assert "hunter2" not in done.stderr + done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["some.skr"]


def test_supported_stores_still_open(tmp_path: Path, env) -> None:
    done = skirmish(["match", "--seed", "2", "--db", "sqlite:deep/er/games.sqlite"], tmp_path, env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "deep" / "er" / "games.sqlite").is_file()
    done = skirmish(["match", "--seed", "2", "--db", ":memory:"], tmp_path, env)
    assert done.returncode == 2 and "keeps nothing" in done.stderr, done.stderr


def test_the_server_config_refuses_an_unsupported_store() -> None:
    from skirmish.server.config import ServerConfig

    with pytest.raises(ValueError, match="a PostgreSQL address is a URL"):
        ServerConfig(db="postgresql:skirmish")
    assert ServerConfig(db=":memory:").in_memory
    ServerConfig(db="postgresql://localhost/skirmish?schema=s1")
    ServerConfig(db="sqlite:var/games.sqlite")


def test_a_tournament_out_under_a_file_is_named(tmp_path: Path, env) -> None:
    (tmp_path / "afile").write_text("x")
    done = skirmish(["tournament", "--bots", "random,random", "--out", "afile/t", "--quiet"], tmp_path, env)
    assert done.returncode == 2, done.stderr
    assert "--out afile/t" in done.stderr and "afile is a file, not a folder" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


# -- item 29: a bot that misbehaves in match forfeits, as in a tournament ---------------------

BAD_BOTS = '''\
import time

from skirmish.bots.base import Bot


class _AfterSome(Bot):
    def new_game(self, side):
        super().new_game(side)
        self.count = 0

    def choose(self, view, decision):
        self.count += 1
        return self.misbehave(decision) if self.count > 3 else self.rng.choice(decision.options)


class Crasher(_AfterSome):
    def misbehave(self, decision):
        print("crasher: about to fail")
        raise RuntimeError("the crasher bot gives up")


class Illegal(_AfterSome):
    def misbehave(self, decision):
        return ("fly", 99, 99)


class Slow(_AfterSome):
    def misbehave(self, decision):
        time.sleep(30)
        return decision.options[0]


class BrokenConstructor(Bot):
    def __init__(self, seed=None):
        raise OSError("no model file")

    def choose(self, view, decision):
        return decision.options[0]
'''


@pytest.mark.parametrize("bot, kind, error", [
    ("Crasher", "crash", "RuntimeError: the crasher bot gives up"),
    ("Illegal", "illegal", "answered ('fly', 99, 99), which is not one of the"),
    ("Slow", "timeout", "no answer within the decision time limit of 1000 ms"),
    ("BrokenConstructor", "crash", "creating the bot failed: OSError: no model file"),
])
@pytest.mark.parametrize("side", ["a", "b"])
def test_a_misbehaving_bot_in_match_forfeits_cleanly(bot: str, kind: str, error: str, side: str, tmp_path: Path,
                                                     env) -> None:
    from contextlib import closing
    import sqlite3

    from skirmish.engine.codec import decode_event
    from skirmish.engine.events import GameEnded, Resigned
    from skirmish.server.cli import EXIT_FORFEIT

    (tmp_path / "badbots.py").write_text(BAD_BOTS, encoding="utf-8")
    db = tmp_path / "games.sqlite"
    pair = ["random", f"badbots:{bot}"] if side == "b" else [f"badbots:{bot}", "random"]
    done = skirmish(["match", "--bots", ",".join(pair), "--seed", "6", "--game-id", "g-bad",
                     "--decision-timeout-ms", "1000", "--db", str(db)], tmp_path, env)
    assert done.returncode == EXIT_FORFEIT == 3, done.stderr
    other = "a" if side == "b" else "b"
    assert f"side {other} wins: side {side}: forfeit ({kind})" in done.stdout, done.stdout
    assert f"side {side} (badbots:{bot}) forfeits ({kind}): {error}" in done.stderr, done.stderr
    assert "the game is stored and verifies" in done.stderr
    # the bot's own traceback is shown, nothing of skirmish's
    assert "server/" not in done.stderr and "asyncio" not in done.stderr, done.stderr
    if bot == "Crasher":
        assert "in misbehave" in done.stderr and "crasher: about to fail" in done.stdout
    # the record is the tournament's: the game ends with the side's Resign, "forfeit (KIND)", and verifies
    with closing(sqlite3.connect(db)) as conn:
        events = [decode_event(bytes(d)) for (d,) in conn.execute(
            "SELECT data FROM events WHERE game_id = 'g-bad' ORDER BY seq")]
    resigned = [e for e in events if isinstance(e, Resigned)]
    assert [(r.side, r.reason) for r in resigned] == [(side, f"forfeit ({kind})")]
    assert isinstance(events[-2], GameEnded) or any(isinstance(e, GameEnded) for e in events)
    verified = skirmish(["verify", "g-bad", "--db", str(db)], tmp_path, env)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_match_exit_codes_are_documented(capsys) -> None:
    from skirmish.server import cli

    with pytest.raises(SystemExit):
        cli.main(["match", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Exit status: 0 the game was played, 3 it was played and a bot forfeited, 2 a problem" in out

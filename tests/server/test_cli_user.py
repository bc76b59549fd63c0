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
    return [sys.executable, "-P", "-m", "server.cli"]  # -P: the current folder is not put on sys.path


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
    from server import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


def test_every_subcommand_is_covered() -> None:
    assert {"match", "missions", "replay", "verify", "serve", "tournament", "play", "bot"} <= set(subcommands())


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommands_help_has_a_description(command: str, capsys) -> None:
    from server import cli

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

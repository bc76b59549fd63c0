"""One import name (issue 13 item 6): the folders protocol/ engine/ server/ client/ bots/ stay at the
top of the repository but install as skirmish.protocol, skirmish.engine, ... and nothing else is
installed at the top level, so no user's ``server`` or ``engine`` module is shadowed."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("protocol", "engine", "server", "client", "bots")


def source_packages() -> set[str]:
    """skirmish.<dotted folder> for every folder of the five that holds Python files."""
    found = set()
    for top in FOLDERS:
        for path in (ROOT / top).rglob("*.py"):
            folder = path.parent.relative_to(ROOT)
            found.add("skirmish." + ".".join(folder.parts))
    return found


def test_pyproject_installs_every_folder_under_skirmish():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    tool = config["tool"]["setuptools"]
    assert tool["package-dir"] == {f"skirmish.{top}": top for top in FOLDERS}
    missing = source_packages() - set(tool["packages"])
    assert not missing, f"folders with Python files that pyproject.toml's packages leave out: {sorted(missing)}"
    assert all(p.startswith("skirmish.") for p in tool["packages"]), tool["packages"]
    no_init = [p for p in source_packages() if not (ROOT / Path(*p.split(".")[1:]) / "__init__.py").is_file()]
    assert not no_init, f"packages without __init__.py: {sorted(no_init)}"
    assert config["project"]["scripts"] == {"skirmish": "skirmish.server.cli:main"}


def test_installed_distribution_has_one_top_level_package():
    dist = importlib.metadata.distribution("skirmish")
    assert (dist.read_text("top_level.txt") or "").split() == ["skirmish"]
    (script,) = [e for e in dist.entry_points if e.group == "console_scripts"]
    assert script.name == "skirmish" and script.load().__module__ == "skirmish.server.cli"


def test_only_skirmish_imports_outside_the_repository(tmp_path):
    """From another folder, skirmish.engine imports and a bare ``engine`` (or server, ...) does not."""
    code = (
        "import importlib, skirmish.engine, skirmish.server.cli\n"
        "bad = []\n"
        f"for name in {FOLDERS!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "        bad.append(name)\n"
        "    except ModuleNotFoundError:\n"
        "        pass\n"
        "print(','.join(bad))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"importable at the top level: {out.stdout.strip()}"


def test_the_wheel_holds_only_the_skirmish_package(tmp_path):
    """Build the real wheel (offline, with the build backend) from a copy of the sources and list it."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for top in FOLDERS:
        shutil.copytree(ROOT / top, src / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = subprocess.run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as b; print(b.build_wheel(sys.argv[1]))",
         str(tmp_path / "dist")], cwd=src, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    wheel = tmp_path / "dist" / out.stdout.strip().splitlines()[-1]
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"skirmish", f"skirmish-{importlib.metadata.version('skirmish')}.dist-info"}, sorted(tops)
    sources = {
        "skirmish/" + str(p.relative_to(src)) for top in FOLDERS for p in (src / top).rglob("*")
        if p.is_file() and p.suffix in (".py", ".toml")
    }
    assert sources - set(names) == set(), "left out of the wheel"
    assert not any(n.startswith("skirmish/__init__") for n in names)  # a namespace package: no folder of its own

"""Architecture: imports only go downwards, and engine/protocol are sans-I/O (STYLE.md habit 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"protocol", "engine", "server", "client", "bots"}
ALLOWED = {
    "engine": {"engine"},
    "protocol": {"protocol", "engine"},
    "client": {"client", "engine", "protocol"},
    "bots": {"bots", "engine", "protocol", "client"},
    "server": OURS,
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_only_go_downwards(package):
    bad = []
    for path in (ROOT / package).rglob("*.py"):
        for name in imports_of(path) & OURS - ALLOWED[package]:
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_engine_and_protocol_do_no_io():
    code = (
        "import sys, pkgutil, importlib\n"
        "for pkg in ('engine', 'protocol'):\n"
        "    m = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(m.__path__, pkg + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = [n for n in ('asyncio', 'socket', 'sqlite3', 'websockets', 'threading') if n in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine/protocol pulled in: {out.stdout.strip()}"

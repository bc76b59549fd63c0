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


def modules_imported(path: Path) -> set[str]:
    """The absolute module names a file imports (``from skirmish import engine`` is skirmish.engine)."""
    tree = ast.parse(path.read_text(), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module == "skirmish":
                found |= {f"skirmish.{a.name}" for a in node.names}
    return found


def imports_of(path: Path) -> set[str]:
    """Which of our packages a file imports: skirmish.engine.model -> engine."""
    return {name.split(".")[1] for name in modules_imported(path)
            if name.startswith("skirmish.") and name.split(".")[1] in OURS}


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_only_go_downwards(package):
    bad = []
    for path in (ROOT / package).rglob("*.py"):
        for name in imports_of(path) & OURS - ALLOWED[package]:
            bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_engine_and_protocol_do_no_io(tmp_path):
    code = (
        "import sys, pkgutil, importlib\n"
        "for pkg in ('skirmish.engine', 'skirmish.protocol'):\n"
        "    m = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(m.__path__, pkg + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = [n for n in ('asyncio', 'socket', 'sqlite3', 'websockets', 'threading') if n in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine/protocol pulled in: {out.stdout.strip()}"


def _function_level_imports(path: Path) -> list[int]:
    """Lines of the imports inside a function (or method) of ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [n.lineno for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return sorted(set(found))


def test_the_engine_imports_nothing_inside_a_function():
    """An import inside a function hides a cycle or a dependency from the reader (issue 13):
    the engine's files import at the top, and a cycle is mended by restructuring."""
    bad = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "engine").rglob("*.py"))
           for line in _function_level_imports(path)]
    assert not bad, f"imports inside functions: {bad}"


RULES = ROOT / "engine" / "rules"


def _module_packages() -> list[str]:
    from skirmish.engine.rules.registry import BUNDLED

    return sorted(BUNDLED)


def _names_imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


@pytest.mark.parametrize("package", _module_packages())
def test_a_rules_module_does_not_import_another_module(package):
    """A module builds on the core (skirmish.engine.rules.core, the registry, the context) and on the
    shared engine, never on another module: what two modules share goes through the hooks."""
    others = [m for m in _module_packages() if m != package]
    bad = []
    for path in sorted((RULES / package).rglob("*.py")):
        for name in _names_imported(path):
            for other in others:
                if name == f"skirmish.engine.rules.{other}" or name.startswith(f"skirmish.engine.rules.{other}."):
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_importing_the_engine_wires_nothing():
    """No module registers itself by being imported: the rules, the view and the verifier load
    without any module's hooks (only the data files the log's union gathers: events, frames,
    evolve handlers), and a game's rule set loads exactly the modules it names."""
    code = (
        "import sys\n"
        "import skirmish.engine.decide, skirmish.engine.view, skirmish.engine.verify, skirmish.engine.codec\n"
        "mods = ('skirmish.engine.rules.capture.module', 'skirmish.engine.rules.challenges.module', 'skirmish.engine.rules.morale.module')\n"
        "print(','.join(m for m in mods if m in sys.modules))\n"
        "from skirmish.engine.rules.registry import rules_for\n"
        "rules = rules_for(('morale',))\n"
        "print(','.join(m for m in mods if m in sys.modules), rules.names)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["", "skirmish.engine.rules.morale.module ('morale',)"], out.stdout


@pytest.mark.parametrize("folder", ["protocol", "engine", "server", "client", "bots", "tests", "bench"])
def test_nothing_imports_a_bare_package_name(folder):
    """Our packages are imported as skirmish.engine, ...: from the repository's folder a bare ``engine``
    would also import (the current folder is on sys.path), as a second copy of every module."""
    bad = []
    for path in (ROOT / folder).rglob("*.py"):
        for name in modules_imported(path):
            if name.split(".")[0] in OURS:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, bad


def test_every_module_imports_outside_the_repository(tmp_path):
    """Every module of the five packages imports from another folder, and none of them pulls in a
    bare top-level ``engine``, ``server``, ... (a name the script that renamed them missed)."""
    code = (
        "import sys, pkgutil, importlib\n"
        f"for pkg in {sorted('skirmish.' + p for p in OURS)!r}:\n"
        "    m = importlib.import_module(pkg)\n"
        "    for info in pkgutil.walk_packages(m.__path__, pkg + '.'):\n"
        "        if not info.name.endswith('__main__'):\n"
        "            importlib.import_module(info.name)\n"
        f"print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in {sorted(OURS)!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "", f"imported under a bare name: {out.stdout.strip()}"


def _patches(path: Path) -> list[str]:
    """Module-level statements of ``path`` that change what another module holds: ``m.X[...] = ``,
    ``m.X = ``, ``m.X.update(...)`` and the like, where ``m`` is an imported module."""
    tree = ast.parse(path.read_text(), str(path))
    imported = {a.asname or a.name.split(".")[0] for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    imported |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names
                 if n.module and n.module.startswith("skirmish.") and a.name.islower()}

    def root(node):
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    found = []
    for node in tree.body:
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            targets = [t for t in targets if isinstance(t, (ast.Attribute, ast.Subscript))]
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, (ast.Attribute, ast.Subscript)):
            targets = [node.value.func.value]
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        found += [f"{where}:{node.lineno}" for t in targets if root(t) in imported]
    return found


def test_no_engine_file_patches_another_at_import():
    """No wiring by import side effects (issue 13 item 2): no file of the engine fills or changes
    another module's table when it is imported (each table is built where it is defined, or handed
    to the code that reads it)."""
    bad = [hit for path in sorted((ROOT / "engine").rglob("*.py")) for hit in _patches(path)]
    assert not bad, f"module-level changes to another module's names: {bad}"


def test_the_patch_check_finds_a_patch(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from skirmish.engine.rules.capture import dice as d12\nd12.OUTCOMES.update({})\n"
                     "d12.TABLE['x'] = 1\nTABLE = {}\nTABLE['y'] = 2\n")
    assert _patches(probe) == ["probe.py:2", "probe.py:3"]

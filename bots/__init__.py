"""Bot strategies and the bot runner. Any bot is an ordinary client of the server."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from skirmish.bots.base import Bot
from skirmish.bots.greedy import GreedyBot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.random_bot import RandomBot

STRATEGIES: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by strategy name, by import path ``package.module:ClassName`` (a module in the current
    folder included), or by file ``path/to/file.py:ClassName``.

    ``mcts:MS`` is the search bot with a budget of MS milliseconds per decision (``mcts`` alone:
    200 ms).
    """
    if name in STRATEGIES:
        return STRATEGIES[name](seed)
    strategy, _, budget = name.partition(":")
    if strategy == "mcts" and budget:
        try:
            ms = float(budget)
        except ValueError:
            raise ValueError(f"bad budget in {name!r}: mcts:MS takes milliseconds, e.g. mcts:100") from None
        if not ms > 0:
            raise ValueError(f"bad budget in {name!r}: the milliseconds must be positive")
        return MctsBot(seed, budget_ms=ms)
    if ":" in name:
        return _load_class(name)(seed)
    raise ValueError(f"unknown bot strategy {name!r}; built in: {', '.join(STRATEGIES)}; or give module:Class "
                     "or path/to/file.py:Class")


def is_file_spec(module: str) -> bool:
    """Whether the module part of ``module:Class`` names a file (``mybots.py``, ``path/to/mybots``)."""
    return module.endswith(".py") or "/" in module or os.sep in module


def _load_class(name: str) -> type[Bot]:
    """The Bot subclass ``module:Class`` or ``path/to/file.py:Class`` names.

    A module name is imported as Python imports it (installed packages, ``PYTHONPATH``); one that
    is not found there is looked for in the current folder (where ``mybots.py`` sits next to the
    user, whatever folder the ``skirmish`` script itself lives in). A file path (ending in
    ``.py`` or holding a ``/``) is loaded from that file, relative to the current folder.
    """
    module, _, attr = name.rpartition(":")
    if not module or not attr:
        raise ValueError(f"cannot load bot {name!r}: give module:Class or path/to/file.py:Class")
    try:
        loaded = _load_file(module) if is_file_spec(module) else _import(module)
        cls = getattr(loaded, attr)
    except AttributeError:
        raise ValueError(f"cannot load bot {name!r}: {module} has no {attr!r}") from None
    except ImportError as exc:
        raise ValueError(f"cannot load bot {name!r}: {exc}") from None
    except SyntaxError as exc:
        raise ValueError(f"cannot load bot {name!r}: {exc.filename}, line {exc.lineno}: {exc.msg}") from None
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ValueError(f"{name!r} is not a subclass of skirmish.bots.base.Bot")
    return cls


def _import(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.partition(".")[0]
        here = os.getcwd()
        if exc.name != top or here in sys.path or not (
                Path(here, top + ".py").is_file() or Path(here, top, "__init__.py").is_file()):
            raise
    # the module is in the current folder, which the skirmish script does not put on sys.path (python
    # -m does): look there last, so that a file in this folder never shadows an installed module
    sys.path.append(here)
    importlib.invalidate_caches()
    return importlib.import_module(module)


def _load_file(path_text: str):
    path = Path(path_text).expanduser()
    if path.suffix != ".py" and not path.is_file():
        path = path.with_name(path.name + ".py")
    path = path.resolve()
    if not path.is_file():
        raise ImportError(f"no file {path_text} ({path} does not exist)" if not path.exists()
                          else f"{path} is not a file")
    key = f"_skirmish_bot_file_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}_{path.stem}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise ImportError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # (pickle and dataclasses look classes up by their module)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[key]
        raise
    return module

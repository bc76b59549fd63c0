"""Bot strategies and the bot runner. Any bot is an ordinary client of the server."""

from __future__ import annotations

import importlib

import bots.hands  # noqa: F401  (registers the challenges module's determinization sampler)
from bots.base import Bot
from bots.greedy import GreedyBot
from bots.mcts import MctsBot
from bots.random_bot import RandomBot

STRATEGIES: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by strategy name, or by import path ``package.module:ClassName``.

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
        module, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load bot {name!r}: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Bot)):
            raise ValueError(f"{name!r} is not a subclass of bots.base.Bot")
        return cls(seed)
    raise ValueError(f"unknown bot strategy {name!r}; built in: {', '.join(STRATEGIES)}; or give module:Class")

"""Bots for the tournament tests, loaded by import path (``tournament_testbots:Crasher``).

``conftest.py`` puts this directory on ``sys.path`` (and on ``PYTHONPATH`` for the CLI run as a
subprocess); worker processes inherit it.
"""

from __future__ import annotations

import time

from bots.base import Bot


class _AfterSome(Bot):
    """Plays randomly for ``good`` decisions, then misbehaves."""

    good = 3

    def new_game(self, side):
        super().new_game(side)
        self.count = 0

    def choose(self, view, decision):
        self.count += 1
        if self.count > self.good:
            return self.misbehave(decision)
        return self.rng.choice(decision.options)


class Crasher(_AfterSome):
    name = "crasher"

    def misbehave(self, decision):
        print(f"crasher: about to fail at decision {decision.id}")
        raise RuntimeError("the crasher bot gives up")


class Illegal(_AfterSome):
    name = "illegal"

    def misbehave(self, decision):
        return ("fly", 99, 99)


class Slow(_AfterSome):
    """Sleeps far past any test's time limit: the guard must interrupt it."""

    name = "slow"

    def misbehave(self, decision):
        time.sleep(5)
        return decision.options[0]


class SlowButSwallows(_AfterSome):
    """Sleeps past the limit and swallows ordinary exceptions: still a time-out."""

    name = "swallow"

    def misbehave(self, decision):
        try:
            time.sleep(1.5)
        except Exception:  # noqa: BLE001
            pass
        return decision.options[0]


class FirstOption(Bot):
    """Deterministic: always the first option."""

    name = "first"

    def choose(self, view, decision):
        return decision.options[0]


class ListAnswer(Bot):
    """Answers with a list (as over the wire): legal."""

    name = "lister"

    def choose(self, view, decision):
        return list(self.rng.choice(decision.options))


class BrokenConstructor(Bot):
    name = "broken"

    def __init__(self, seed=None):
        super().__init__(seed)
        if seed not in (0, None):  # passes the config check (seed 0), fails in games
            raise OSError("no model file")

    def choose(self, view, decision):
        return decision.options[0]


class NotABot:
    pass

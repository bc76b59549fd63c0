"""Bots for the tournament tests, loaded by import path (``tournament_testbots:Crasher``).

``conftest.py`` puts this directory on ``sys.path`` (and on ``PYTHONPATH`` for the CLI run as a
subprocess); worker processes inherit it.
"""

from __future__ import annotations

import time

from skirmish.bots.base import Bot


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


class Rememberer(Bot):
    """A bot that remembers across games (issue 12, item 36): in every game it notes its own opening
    hand (knives: hidden tactic cards); in the mirror of a game it remembers (game 2k + 1 after
    2k, the sides swapped), it predicts that its opponent holds what that seat held in game 2k,
    and writes the prediction to the file ``$SKIRMISH_REMEMBER_FILE`` (one JSON line) for the test
    to check against the log. Memory is the class's, so it outlives each game's bot instance in
    the worker process, as a real bot's module-level cache would."""

    name = "rememberer"
    memory: dict[str, dict[str, list[str]]] = {}

    def new_game(self, side):
        super().new_game(side)
        self.first = True

    def choose(self, view, decision):
        if self.first:
            self.first = False
            self.remember(view)
        return self.rng.choice(decision.options)

    def remember(self, view):
        import json
        import os

        game = view.game_id
        self.memory.setdefault(game, {})[self.side] = sorted(view.hands.get(self.side, []))
        prefix, _, index = game.rpartition("-")
        if int(index) % 2 == 1:  # the mirror of the game before it
            earlier = self.memory.get(f"{prefix}-{int(index) - 1:05d}", {})
            opponent = "b" if self.side == "a" else "a"
            if opponent in earlier and os.environ.get("SKIRMISH_REMEMBER_FILE"):
                with open(os.environ["SKIRMISH_REMEMBER_FILE"], "a", encoding="utf-8") as f:
                    f.write(json.dumps({"game": game, "side": self.side, "opponent": opponent,
                                        "predicted": earlier[opponent]}) + "\n")


class Dawdler(Bot):
    """Plays randomly; with ``$SKIRMISH_TEST_DAWDLE=N`` it takes 0.5 s over every decision of the
    games from index N on (a game then lasts a minute or more), so that a test can interrupt a
    tournament with some games finished and others in flight. Without the variable it is quick.
    A slow one also ignores SIGINT and SIGTERM, as a stubborn bot would: stopping its worker then
    takes the runner's SIGKILL after its grace period, so a second Ctrl-C surely lands while the
    tournament is still stopping (else a fast stop could end before it arrives)."""

    name = "dawdler"

    def choose(self, view, decision):
        import os
        import signal

        slow_from = os.environ.get("SKIRMISH_TEST_DAWDLE")
        if slow_from is not None and int(view.game_id.rpartition("-")[2]) >= int(slow_from):
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            except ValueError:  # not the worker's main thread: nothing to ignore with
                pass
            time.sleep(0.5)
        return self.rng.choice(decision.options)


class Exiter(_AfterSome):
    """Ends its whole process (no exception for the guard to catch): the worker dies with the game."""

    name = "exiter"

    def misbehave(self, decision):
        import os

        os._exit(3)

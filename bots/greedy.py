"""``greedy``: one ply of lookahead with the shared evaluation (``skirmish.bots.evaluate``).

For each candidate option the bot plays it on a copy of its own view with fast local dice
(``skirmish.bots.simulate.step``), runs on to the next decision of either side -- through the decisions
inside the procedure the option started (buying dice, re-rolling, avoiding an Injury, the
melee winner's choice, ...), which it answers with the static policy (``skirmish.bots.policy``), so that
an attack is judged by its rolled result and not by its declaration -- and evaluates the
result from its own side. An option whose simulation rolled dice is averaged over ``samples``
dice streams; every option sees the same streams (common random numbers), so two attacks are
compared on the same luck. The best average wins; ties go to the bot's seeded ``rng``.

To stay fast, when a decision has more than ``max_options`` options the static policy picks
which ones to simulate (the best by its score, plus "end"), and simulation stops at the
``budget_ms`` deadline (options not reached keep their static score's rank below the others).
Where its view holds a unit it cannot place (a unit behind an Impersonation marker: its position
is hidden), the bot plays from one determinization of its view per decision
(``skirmish.bots.determinize``), drawn with its seeded ``rng``; other hidden things (cards, a
Lieutenant) it evaluates as the view holds them, as before.
"""

from __future__ import annotations

import time

from skirmish.bots.base import Bot
from skirmish.bots.determinize import determinize
from skirmish.engine.base import Hidden
from skirmish.bots.evaluate import evaluate
from skirmish.bots.policy import option_scores
from skirmish.bots.simulate import clone, settle, step
from skirmish.engine.dice import LocalDice
from skirmish.engine.model import Decision, Option, State


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self, seed: int | None = None, *, samples: int = 6, max_options: int = 16,
                 budget_ms: float = 150.0):
        super().__init__(seed)
        self.samples = samples
        self.max_options = max_options
        self.budget_ms = budget_ms

    def choose(self, view: State, decision: Decision) -> Option:
        options = decision.options
        if len(options) == 1:
            return options[0]
        deadline = time.perf_counter() + self.budget_ms / 1000
        side = decision.side
        scored = options
        if any(isinstance(u.x, Hidden) for u in view.units.values()):  # a unit it cannot place (behind a marker)
            view = determinize(view, side, self.rng)
            decision = view.pending  # the same options in the same order, a marker named as the unit behind it
            scored = decision.options
        static = option_scores(view, decision)
        order = sorted(range(len(options)), key=lambda i: -static[i])
        if len(order) > self.max_options:
            keep = order[: self.max_options]
            keep += [i for i in order[self.max_options:] if options[i][0] in ("end", "none")]
            order = keep
        seeds = [self.rng.getrandbits(64) for _ in range(self.samples)]
        values: dict[int, float] = {}
        for i in order:
            total = 0.0
            n = 0
            for seed in seeds:
                state = clone(view)
                dice = LocalDice(seed)
                rolled = step(state, scored[i], dice)
                rolled |= settle(state, dice)
                total += evaluate(state, side)
                n += 1
                if not rolled:
                    break
            values[i] = total / n
            if time.perf_counter() > deadline:
                break
        best = max(values.values())
        ties = [i for i, v in values.items() if v >= best - 1e-9]
        return options[ties[0] if len(ties) == 1 else self.rng.choice(ties)]

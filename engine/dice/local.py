"""Dice that are not provably fair: fast seeded dice for simulations and scripted dice for tests.

``LocalDice`` draws from ``random.Random(seed)``. Its results depend only on the seed and the
order of calls: the nonce is checked like every ``Dice`` checks it, then ignored. A replay never
rolls (the results are in the events), so nothing needs to recompute these rolls from a nonce;
but they prove nothing to a player, so a real game uses ``ProvablyFairDice``.

``ScriptedDice`` returns a fixed list of results in order, for rule tests that need a given roll.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from skirmish.engine.dice.fair import check_roll_args


class LocalDice:
    """Seeded, fast, unbiased dice (``random.Random.randrange``); the nonce does not matter.

    Two instances with the same ``seed`` give the same results for the same sequence of
    ``(sides, count)`` calls. With ``seed=None`` a seed is drawn from ``random.SystemRandom`` and
    kept in ``self.seed``, so that a simulation can be rerun.
    """

    __slots__ = ("seed", "_randrange")

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = random.SystemRandom().getrandbits(64)
        elif not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__} {seed!r}")
        self.seed: int = seed
        self._randrange = random.Random(seed).randrange

    def roll(self, nonce: int, sides: int, count: int) -> tuple[int, ...]:
        check_roll_args(nonce, sides, count)
        randrange = self._randrange
        # randrange(sides) uses getrandbits with rejection: no modulo bias.
        return tuple([randrange(sides) + 1 for _ in range(count)])

    def __repr__(self) -> str:
        return f"LocalDice(seed={self.seed!r})"


class ScriptedDice:
    """Dice that return the given results in order, whatever the nonce.

    Each roll takes the next ``count`` results. A result outside ``1..sides`` raises
    ``ValueError`` and running out raises ``RuntimeError``; either way, nothing is consumed.
    ``remaining`` tells how many results are left (a test can assert it is 0 at the end).
    """

    __slots__ = ("_results", "_next")

    def __init__(self, results: Iterable[int]) -> None:
        values = tuple(results)
        for i, value in enumerate(values):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"scripted result #{i} must be an int, got {type(value).__name__} {value!r}")
            if value < 1:
                raise ValueError(f"scripted result #{i} must be >= 1, got {value}")
        self._results = values
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._results) - self._next

    def roll(self, nonce: int, sides: int, count: int) -> tuple[int, ...]:
        check_roll_args(nonce, sides, count)
        start = self._next
        if self.remaining < count:
            raise RuntimeError(
                f"ScriptedDice ran out: roll nonce={nonce} wants {count}d{sides} "
                f"but only {self.remaining} of {len(self._results)} scripted results are left"
            )
        out = self._results[start : start + count]
        for i, value in enumerate(out, start):
            if value > sides:
                raise ValueError(
                    f"scripted result #{i} is {value}, outside 1..{sides} for roll nonce={nonce} ({count}d{sides})"
                )
        self._next = start + count
        return out

    def __repr__(self) -> str:
        return f"ScriptedDice(remaining={self.remaining} of {len(self._results)})"

"""The one interface all randomness comes through (DESIGN.md section 3).

A roll is addressed by its *nonce*: the game state counts rolls (``state.next_nonce``), the rules
pass that count in, and the roll's results go into a ``DiceRolled`` event together with the
nonce. Replay never rolls; verification recomputes each roll from the revealed seed and the
nonce. A ``Dice`` therefore needs no state of its own that replay would have to rebuild.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Dice(Protocol):
    def roll(self, nonce: int, sides: int, count: int) -> tuple[int, ...]:
        """Roll ``count`` dice of ``sides`` faces (each result in 1..sides) as roll ``nonce``."""
        ...

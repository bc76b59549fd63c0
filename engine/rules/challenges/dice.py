"""Challenge dice (seed 002; RULES-BRIEF "Dice, by module"): pools of d6, three faces succeed.

"If the assassin's total successes exceed those of the defending hero then the difference is
applied as wounds" (opposed); "If the heroes' success total EQUALS or exceeds the threshold then
the challenge is successful" (threshold).
"""

from __future__ import annotations

SIDES = 6
SUCCESS_FACES = (4, 5, 6)  # RULES-BRIEF: three faces of six are successes


def successes(pool: tuple[int, ...]) -> int:
    return sum(1 for face in pool if face >= 4)


def failed(pool: tuple[int, ...]) -> list[int]:
    """Indices of the failed dice of a pool, in order."""
    return [i for i, face in enumerate(pool) if face < 4]


def succeeded(pool: tuple[int, ...]) -> list[int]:
    return [i for i, face in enumerate(pool) if face >= 4]


def replace_at(pool: tuple[int, ...], indices: list[int], faces: tuple[int, ...]) -> tuple[int, ...]:
    out = list(pool)
    for i, face in zip(indices, faces):
        out[i] = face
    return tuple(out)


def opposed(attacker: tuple[int, ...], defender: tuple[int, ...]) -> int:
    """Attacker successes minus defender successes (negative: the defender rolled more)."""
    return successes(attacker) - successes(defender)


def threshold_met(pool: tuple[int, ...], threshold: int) -> bool:
    return successes(pool) >= threshold

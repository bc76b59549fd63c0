"""Secret salts: how every rules module draws one (issue 12, hidden information).

A salt is a secret folded into the game state so that a public ``Checkpoint`` hash cannot be
searched for hidden information (a side could hash the few hands its opponent might hold until
one matched). It guards a searchable hash, so it must be out of reach of a brute-force search:
at least ``MIN_SALT_BITS`` secret bits, the usual margin for such a secret. Every salt is drawn
here, as provably fair d65536 (16 bits each: the largest die ``skirmish.engine.dice`` rolls), so that
``skirmish verify`` recomputes it from the revealed seed like any other roll; the roll and the
event holding the salt are redacted until the game is over by the module that draws it.

``tests/engine/rules/test_salt.py`` holds every salt of every bundled mission to this, and every
roll in ``engine/`` whose purpose is a salt to going through ``draw_salt``.
"""

from __future__ import annotations

import math

from skirmish.engine.rules.context import Context
from skirmish.engine.versions import V0_2

MIN_SALT_BITS = 128
OLD_SALT_DICE = 4  # the rules of engine 0.1.0 drew 4 d65536, 64 bits (skirmish.engine.versions)
SALT_SIDES = 65536  # 16 bits a die


def salt_dice(bits: int = MIN_SALT_BITS) -> int:
    """How many d65536 hold ``bits`` secret bits (never fewer than ``MIN_SALT_BITS``)."""
    return math.ceil(max(bits, MIN_SALT_BITS) / math.log2(SALT_SIDES))


def entropy_bits(sides: int, count: int) -> float:
    """The secret bits of ``count`` fair dice of ``sides`` faces."""
    return count * math.log2(sides)


def draw_salt(ctx: Context, purpose: str, bits: int = MIN_SALT_BITS) -> tuple[int, ...]:
    """Roll a salt of at least ``bits`` (and ``MIN_SALT_BITS``) secret bits; ``purpose`` names it
    (``"<module>:salt"``), so views can redact it."""
    count = salt_dice(bits) if ctx.state.rules_version >= V0_2 else OLD_SALT_DICE
    return ctx.roll(SALT_SIDES, count, purpose)

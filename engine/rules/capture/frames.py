"""The capture module's procedure frames (seed 000): part of ``skirmish.engine.model.FrameT``."""

from __future__ import annotations

from skirmish.engine.base import Frame


class D12Frame(Frame, tag="d12"):
    """A seed 000 roll held open for a Command Token re-roll (the morale module on): a d12 test
    (``test``: capture | free | escape, against D(``difficulty``), ``needed`` successes) or a
    captured bogey's escape roll (``test`` "bogey_escape": any die at ``difficulty`` or more).
    Steps: ``reroll`` (each side in turn, the roller's first, may re-roll if the result went
    against it) -> ``resolve`` (the test's outcome, as without the window). ``target``: the
    captured target (capture), the captive freed (free), the enemy holding the escaper."""

    unit: str
    test: str
    difficulty: int
    needed: int = 1
    target: str = ""
    step: str = "reroll"
    nonce: int = -1
    rolled: tuple[int, ...] = ()
    asked: tuple[str, ...] = ()


FRAMES = (D12Frame,)

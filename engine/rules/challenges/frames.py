"""The challenges module's procedure frame (seed 002): part of ``skirmish.engine.model.FrameT``."""

from __future__ import annotations

from skirmish.engine.base import Frame


class ChallengeFrame(Frame, tag="challenge"):
    """A dice challenge in its Defender's Prerogative loop (seed 002).

    ``op``: assassinate | sabotage | create (a threshold challenge) | capture_kill.
    Steps: ``roll`` -> ``turn`` (``to_decide`` accepts, spends fate or plays a card) -> ``assess``.
    """

    op: str
    attacker: str  # the unit that initiated it
    target: str = ""  # a unit, a facility, or (create) the ability used
    aside: str = ""
    dside: str = ""  # "" for a threshold challenge
    step: str = "roll"
    apool: tuple[int, ...] = ()
    dpool: tuple[int, ...] = ()
    afate: int = 0  # fate each side may still spend in this challenge
    dfate: int = 0
    threshold: int = 0
    prerogative: bool = True  # the defender has not ceded Defender's Prerogative
    to_decide: str = ""
    accepted: tuple[str, ...] = ()  # sides that accepted since the dice last changed
    duel: bool = False  # assassin vs assassin, or saboteur vs Intel Center
    intel: int = 0
    anonce: int = -1  # the last roll into each pool: what a re-roll of it replaces
    dnonce: int = -1


FRAMES = (ChallengeFrame,)

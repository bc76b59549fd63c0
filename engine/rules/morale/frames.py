"""The morale module's procedure frames (seed 004): part of ``skirmish.engine.model.FrameT``."""

from __future__ import annotations

from skirmish.engine.base import Frame


class MoraleTestFrame(Frame, tag="morale_test"):
    """A seed 004 roll in progress: an Endurance test, an Unconscious pilot's wake-up roll, a
    Morale Test or a Courage Test. Steps: ``roll`` -> ``reroll`` (each side in turn may spend a
    Command Token) -> ``resolve``."""

    test: str  # endurance | wake | fear | fear_end | courage
    unit: str  # the unit whose pilot tests ("" for a Courage Test)
    side: str  # the side taking the test
    target: int  # Endurance: the test value; Morale / Courage: the value to roll at or under
    count: int  # dice to roll (d6)
    step: str = "roll"
    nonce: int = -1
    rolled: tuple[int, ...] = ()
    asked: tuple[str, ...] = ()  # the sides that have had their chance to re-roll


class RerollFrame(Frame, tag="reroll"):
    """A core Task has been rolled: each side in turn may spend a Command Token to re-roll
    the Task's dice or the defender's (seed 004 "Command Tokens")."""

    task_nonce: int
    defence_nonce: int = -1  # -1: no Opposed roll
    rolled: tuple[int, ...] = ()
    opposed: tuple[int, ...] = ()
    asked: tuple[str, ...] = ()


class InitiativeFrame(Frame, tag="initiative"):
    """The initiative rolls, open to a Command Token re-roll by the side losing it."""

    a_nonce: int
    a_die: int
    a_tcv: int
    b_nonce: int
    b_die: int
    b_tcv: int
    asked: tuple[str, ...] = ()


FRAMES = (MoraleTestFrame, RerollFrame, InitiativeFrame,)

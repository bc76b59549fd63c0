"""The skills module's procedure frames (seed 003): part of ``skirmish.engine.model.FrameT``."""

from __future__ import annotations

import msgspec

from skirmish.engine.base import Frame


class Roller(msgspec.Struct, frozen=True):
    """One unit's d20 in a roll: its attribute, the MODs and the die it has now."""

    unit: str
    attribute: str  # wip | ph | bs | cc | arm
    base: int
    mods: tuple[tuple[str, int], ...]
    target: int  # the Success Value
    die: int
    nonce: int  # the DiceRolled of ``die`` (a re-roll replaces it)


class SkillRollFrame(Frame, tag="skill_roll"):
    """A seed 003 roll, held open for a Command Token re-roll (the morale module on), then settled:
    a Normal Roll (one roller) or a Face to Face Roll (two, the active one first). Its one step:
    each side in turn (the first roller's first) may re-roll a die that went against it, once;
    then the frame ends and the module's outcome for ``purpose`` reads the result."""

    purpose: str  # what the roll decides: a key of the module's outcomes (skirmish.engine.rules.skills.module)
    rollers: tuple[Roller, ...]
    about: str = ""  # what the roll is about, for its outcome (a unit, a cell, a terrain...)
    asked: tuple[str, ...] = ()  # the sides that have had their chance to re-roll


class ReactionFrame(Frame, tag="reaction"):
    """A reaction window (skills/reactions.py): the side opposing ``actor`` may react to its attack
    at ``target`` (``trigger`` "attack") or to its move (``trigger`` "move"); ``step`` "declare"
    asks which reaction, "dodge_move" where ``unit``, whose Dodge won, moves."""

    trigger: str
    actor: str
    target: str = ""
    step: str = "declare"
    unit: str = ""


class RegainFrame(Frame, tag="imp_regain"):
    """Regaining IMP-1 (skills/imp_regain.py), the Entire Order ``unit`` declared: held while the
    enemy's reveal window (Hidden Deployment) is answered, then carried out unless a revealed enemy
    disrupted it (seed 003's Impersonation example)."""

    unit: str


from skirmish.engine.rules.skills.hd_parts import HiddenFrame  # noqa: E402  (Hidden Deployment)

FRAMES = (SkillRollFrame, HiddenFrame,
          ReactionFrame, RegainFrame,)

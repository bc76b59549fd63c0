"""The skills module's events (seed 003): part of the log's closed union (``skirmish.engine.events.AnyEvent``)."""

from __future__ import annotations

from skirmish.engine.base import Event


class DeploymentStarted(Event):
    """The game has units to deploy: the deployment phase comes before round 1."""


class UnitDeployed(Event):
    """A unit is placed on the table (seed 003's Deployment Phase)."""

    unit: str
    x: int
    y: int


class DeploymentEnded(Event):
    """Every unit is on the table: round 1 comes next."""


class SkillRolled(Event):
    """A d20 roll of seed 003 (a Normal Roll, or one side of a Face to Face Roll), read: the
    ``DiceRolled`` of nonce ``nonce`` rolled ``die`` against ``target``, the attribute's value
    ``base`` plus the MODs (their sum held to +-12, ``skirmish.engine.rules.skills.rolls``)."""

    unit: str
    purpose: str  # what the roll is for, e.g. "infiltration"
    attribute: str  # wip | ph | bs | cc | arm
    base: int
    mods: tuple[tuple[str, int], ...]  # (reason, MOD) for each MOD, as given
    target: int  # the Success Value
    die: int
    result: str  # critical | success | failure
    nonce: int


class FaceToFaceResolved(Event):
    """The two rolls of a Face to Face Roll compared: ``winner`` is the unit whose roll stands
    (its opponent's is cancelled), "" when neither does."""

    purpose: str
    units: tuple[str, str]
    winner: str
    how: str  # "higher success" | "critical beats success" | "only success" | "tie" | "both critical" | "both failed"


EVENTS = (DeploymentStarted, UnitDeployed, DeploymentEnded, SkillRolled, FaceToFaceResolved,)

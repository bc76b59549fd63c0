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


class AmmunitionUsed(Event):
    """A successful attack's hit with Special Ammunition (skills/ammunition.py): ``ammo`` the
    weapon's (and Marksmanship's), ``counted`` what the damage uses, ``ignored`` what the victim
    treats as Normal (an Immunity)."""

    unit: str
    target: str
    ammo: tuple[str, ...]
    counted: tuple[str, ...]
    ignored: tuple[str, ...]


class AttackModified(Event):
    """A BS Attack's MODs in a skills game (skills/marksmanship.py): each (reason, MOD), the
    Difficulty they add (each full 3 of their sum one step, the other way) and the d20 the Burst
    adds."""

    unit: str
    target: str
    mods: tuple[tuple[str, int], ...]
    difficulty: int
    burst: int


class AimedShot(Event):
    """Marksmanship LX: ``unit``'s attack now has B 1 and +6 BS; ``unit`` "" when it is over."""

    unit: str


class WoundRegained(Event):
    """Regeneration passed: ``unit``'s Injury is healed (skills/regeneration.py)."""

    unit: str


class MediKitUsed(Event):
    """A Paramedic's First Aid with a MediKit begins (``unit`` on ``ally``); both "" when it is over
    (skills/paramedic.py)."""

    unit: str
    ally: str


class CommsAttacked(Event):
    """A Comms Attack is declared (skills/comms.py): ``attack`` a Hacking Program ("spotlight",
    "total control"), "observe" (Forward Observer) or "sat_lock"; the WIP roll follows."""

    unit: str
    target: str
    attack: str


class StateChanged(Event):
    """``unit`` enters (``on``) or leaves a state of skills/comms.py: "targeted" or "possessed"."""

    unit: str
    state: str
    on: bool


class PilotDismounted(Event):
    """Manned / Pilot (skills/manned.py): the Pilot ``pilot`` of the Manned ``unit`` leaves it and is
    placed at (``x``, ``y``), a unit of its own on the table. ``ejected``: by an enemy Hacking Program
    (Total Control) in the enemy's turn; else the vehicle's Move of its turn, which goes on as the
    Pilot's. With the morale module the seed 004 pilot's Endurance and Fear Token go with it."""

    unit: str
    pilot: str
    x: int
    y: int
    ejected: bool = False


EVENTS = (DeploymentStarted, UnitDeployed, DeploymentEnded, SkillRolled, FaceToFaceResolved,
          AmmunitionUsed, AttackModified, AimedShot, WoundRegained, MediKitUsed,
          CommsAttacked, StateChanged,
          PilotDismounted,)

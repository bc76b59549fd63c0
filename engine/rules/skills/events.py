"""The skills module's events (seed 003): part of the log's closed union (``skirmish.engine.events.AnyEvent``)."""

from __future__ import annotations

from skirmish.engine.base import Event, Hidden


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


class InfiltrationFailed(Event):
    """``unit`` failed its Infiltration Roll (skills/infiltrate.py): it is off the table again, to
    be placed in its own Deployment Zone at a table edge, and has lost its Camouflage and Hidden
    Deployment options and its deployables (``State.infiltration_failed``)."""

    unit: str


class GutsDue(Event):
    """``unit`` was hit and is still standing: a Guts Roll is due (skills/guts.py)."""

    unit: str


class MetaChemistryRolled(Event):
    """``unit``'s roll on the MetaChemistry Table (skills/metachemistry.py): the d20 ``die`` and
    the row it gives (``row`` a key of ``metachemistry.TABLE``); die 0 and row "" when its side
    declined to roll."""

    unit: str
    die: int
    row: str


class WoundIgnored(Event):
    """``unit`` would have fallen Unconscious but, by ``skill`` ("v: dogged" or "v: no wound
    incapacitation"), stays in play with its Wound lost (skills/dogged.py)."""

    unit: str
    skill: str


class DoggedEnded(Event):
    """The End Phase: ``unit``, in the Dogged state, is Dead (skills/dogged.py)."""

    unit: str


class GutsTaken(Event):
    """``unit``'s Guts Roll is taken (skills/guts.py): ``how`` is "roll" (a WIP Normal Roll
    follows), "religious" (passed without rolling: it holds), "hold" / "cover" (V: Courage's
    choice, or a Religious Troop declining the voluntary roll), "voluntary" (a Religious Troop's
    voluntary roll follows), "none" (in a Null state or off the table: nothing)."""

    unit: str
    how: str


class LieutenantOrder(Event):
    """``unit``, its side's Lieutenant, has its Special Lieutenant Order of round ``round``: it may
    be activated again; ``coordinated``: the other units of an Inspiring Leadership Lieutenant's
    Coordinated Order, activated with it (skills/command.py)."""

    unit: str
    round: int
    coordinated: tuple[str, ...] = ()


class RetreatEntered(Event):
    """``side`` is in Retreat! (skills/command.py; without the morale module)."""

    side: str


class UnitWithdrew(Event):
    """``unit``, of a side in Retreat!, leaves the table by its deployment zone (skills/command.py)."""

    unit: str


class ReactionDeclared(Event):
    """``unit`` reacts (an ARO, skills/reactions.py) with ``reaction`` ("dodge", "change_facing",
    "engage") to the enemy ``against`` during the enemy Order ``order`` ("round:unit")."""

    unit: str
    reaction: str
    against: str
    order: str


class FacingChanged(Event):
    """``unit`` now faces the direction ``(dx, dy)`` (each -1, 0 or 1): Change Facing."""

    unit: str
    dx: int
    dy: int


class AttackDodged(Event):
    """``unit`` won its Dodge against ``attacker``: the attack is cancelled."""

    unit: str
    attacker: str


class TerrainChosen(Event):
    """Multiterrain: ``unit`` moves normally through ``terrain`` (skills/terrain.py)."""

    unit: str
    terrain: str


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
          InfiltrationFailed,
          MetaChemistryRolled,
          WoundIgnored,
          DoggedEnded,
          GutsDue, GutsTaken, LieutenantOrder, RetreatEntered, UnitWithdrew,
          ReactionDeclared,
          FacingChanged,
          AttackDodged,
          TerrainChosen,
          PilotDismounted,)


# -- the Lieutenant as Private Information (skills/private.py) and the secrecy salt (skills/secrecy.py) --


class LieutenantChosen(Event):
    """``side`` chose (before deployment) or nominated (after a Loss of Lieutenant) its Lieutenant
    among the mission's candidates: ``unit``, a ``Hidden("unit")`` for the other side and spectators
    until a ``LieutenantRevealed``."""

    side: str
    unit: str | Hidden


class LieutenantRevealed(Event):
    """``side``'s Lieutenant ``unit`` is public from now on: ``why`` is "order" (its Special
    Lieutenant Order is used), "inspiring leadership" (its gifts are public effects) or "lost"
    (Loss of Lieutenant, a public effect: the unit is in a Null state or off the table)."""

    side: str
    unit: str
    why: str


class SecrecySalted(Event):
    """The skills module's secret salt (skills/secrecy.py): a ``Hidden("salt")`` for every live
    viewer until the game ends, so that a ``Checkpoint`` hash cannot be searched for who is a Lieutenant."""

    salt: tuple[int, ...] | Hidden


EVENTS = EVENTS + (LieutenantChosen, LieutenantRevealed, SecrecySalted)

# Hidden Deployment (skills/hd_parts.py)
from skirmish.engine.rules.skills.hd_parts import EVENTS as _HD_EVENTS  # noqa: E402
from skirmish.engine.rules.skills.hd_parts import HiddenPlaced, HiddenRevealed, CamouflageDiscovered, OrderDisrupted  # noqa: E402,F401

EVENTS = EVENTS + _HD_EVENTS

# -- Impersonation and Discover (skills/imp_events.py) --------------------------------------------------------

from skirmish.engine.rules.skills.imp_events import IMP_EVENTS  # noqa: E402

EVENTS = EVENTS + IMP_EVENTS

"""The game state: plain data that msgpack carries, procedures in progress included.

Everything here is a ``msgspec.Struct``. The state is only ever changed by ``skirmish.engine.evolve``,
which owns the object it is given; everybody else treats it as read-only (``decide`` works on a
clone). Names follow the rule texts: a *unit* is a character or NPC (seed 001), *heroes* and
*bogeys* are seed 000's names for them (RULES-BRIEF "Units and their numbers").
"""

from __future__ import annotations

from typing import Union

import msgspec

from skirmish.engine.base import Frame, Hidden
from skirmish.engine.rules.bundled import parts
from skirmish.engine.versions import CURRENT as CURRENT_RULES

Side = str  # "a" or "b"
SIDES: tuple[Side, Side] = ("a", "b")
MOMENTUM_MAX = 6  # seed 001 / RULES-BRIEF: a side's Momentum pool holds at most 6

# An option is a small canonical value: a tuple of strings and ints whose first item names it,
# e.g. ("move", 3, 4), ("attack", "b1", 0, 1), ("end",). It has one wire form (an array). In a
# viewer's view an item a rules module hides is a ``Hidden`` (``("card", Hidden("card"))``): the
# state's own options never hold one, and no command may send one.
Option = tuple[Union[str, int, Hidden], ...]


def other(side: Side) -> Side:
    return "b" if side == "a" else "a"


class _WeaponCore(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A weapon's fields but those the modules add in their own folder (``Weapon``)."""

    name: str
    kind: str  # "melee" | "ranged"
    damage: int  # damage rating: Challenge Dice before Security is added (seed 001 step 5)
    qualities: tuple[str, ...] = ()


# A weapon: the core's fields, then each bundled module's (``WEAPON`` in its ``fields.py``, if any;
# each with a default, so ``Weapon(name, kind, damage)`` is still a weapon).
Weapon = msgspec.defstruct("Weapon", [f for part in parts("fields") for f in getattr(part, "WEAPON", ())],
                           bases=(_WeaponCore,), module=__name__, frozen=True, forbid_unknown_fields=True)

UNARMED = Weapon("Unarmed Strike", "melee", 1)


class Stats(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """seed 001's Attributes (7-12) and Disciplines (0-5)."""

    control: int = 8
    daring: int = 8
    fitness: int = 8
    insight: int = 8
    presence: int = 8
    reason: int = 8
    command: int = 1
    conn: int = 1
    engineering: int = 1
    security: int = 1
    medicine: int = 1
    science: int = 1


class Objective(msgspec.Struct):
    """A place on the board worth victory points to the side that secured it last.

    Securing it is the Interact Minor Action while in Reach of it, or, where the mission gives
    it an ``attribute``, an Other Task (seed 001 "Combat Tasks": "Other Tasks") of
    ``attribute`` + ``discipline`` at ``difficulty``.
    """

    id: str
    name: str
    x: int
    y: int
    points: int = 1
    attribute: str = ""
    discipline: str = ""
    difficulty: int = 0
    holder: str = ""  # the side that secured it last, "" while nobody has


class Item(msgspec.Struct):
    """Something lying on the board that Draw Item picks up from within Reach (seed 001)."""

    id: str
    name: str
    x: int
    y: int
    weapon: Weapon | None = None  # picking it up adds this weapon, drawn
    carrier: str = ""  # the unit carrying it, "" while it lies on the board


class _UnitCore(msgspec.Struct):
    """A unit's fields but those of the rules modules (``Unit``)."""

    id: str
    side: Side
    name: str | Hidden  # Hidden, x and y too: only in a view whose rules module hides it
    stats: Stats
    stress_max: int
    stress: int
    resistance: int
    weapons: tuple[Weapon, ...]
    x: int | Hidden
    y: int | Hidden
    kind: str = "hero"  # "hero" | "bogey"
    tier: str = ""  # bogeys: "grunt" (Minor NPC), "elite" (Notable NPC), "boss" (Major NPC)
    focuses: tuple[str, ...] = ()
    points: int = 1  # victory points the opponent scores when this unit is taken out
    commander: bool = False
    prone: bool = False
    injury: str = ""  # "" | "nonlethal" | "lethal"
    dead: bool = False
    stabilised: bool = False
    avoid_available: bool = True
    acted: bool = False  # the action counter (seed 004), cleared in the End Phase
    stowed: tuple[int, ...] = ()  # weapons carried but not drawn (Draw Item draws one)
    guarding: bool = False  # Guard: attacks against it are harder until its next turn
    readied: bool = False  # Ready: waiting to attack an enemy that moves into its sights
    assisted_by: str = ""  # Assist: this unit's next Task is assisted by that ally
    recovered: int = 0  # Recover: extra Resistance until its next turn
    exposed: bool = False  # Create Advantage against it: the next attack on it is easier
    directed: bool = False  # Directed this round (house rule: once a round)
    # -- the rules modules' fields: ``Unit`` below

    @property
    def incapacitated(self) -> bool:
        return self.dead or self.injury != ""


def _module_fields(table: str) -> list:
    """The ``table`` fields (``UNIT``, ``STATE``) of every bundled module that has a ``fields.py``,
    in ``BUNDLED``'s order."""
    return [f for part in parts("fields") for f in getattr(part, table, ())]


# A unit: the core's fields, then each bundled module's (``Unit`` in its ``fields.py``), in the
# order of ``skirmish.engine.rules.bundled.BUNDLED``: the order of the stored GameCreated's bytes.
Unit = msgspec.defstruct("Unit", _module_fields("UNIT"), bases=(_UnitCore,),
                         module=__name__)


class Board(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A square grid, row-major, one terrain character per cell (see skirmish.engine.board)."""

    width: int
    height: int
    cells: str
    reach: int = 1
    close: int = 2
    medium: int = 4
    long: int = 8
    midline: str = "y"  # the board is split across this axis: side a's half is the low one


class Decision(msgspec.Struct, frozen=True):
    """Who must choose what: ``side`` picks one of ``options`` (finite, in a fixed order)."""

    id: int
    side: Side
    kind: str
    options: tuple[Option, ...]
    unit: str = ""  # the unit the decision is about, if any


class Outcome(msgspec.Struct, frozen=True):
    winner: Side | None  # None: a draw
    reason: str
    points: dict[str, int] = {}


class Turn(msgspec.Struct):
    """The activation in progress (seed 001 "Conflict Actions")."""

    unit: str
    minors: list[str] = []  # Minor Actions taken this turn, in order
    task: str = ""  # the Task attempted this turn, "" while none


# Procedures in progress live on ``State.stack`` as frames (``skirmish.engine.base.Frame``).


class TaskFrame(Frame, tag="task"):
    """A Task in progress (seed 001 "Combat Tasks"), attacks included ("Attacks and Damage").

    Steps: ``buy`` (bonus d20 for Momentum or Threat) -> ``roll`` -> ``aim`` (attacks after the
    Aim Minor Action) -> ``resolve`` -> the task's own steps: attacks ``bystander``,
    ``outcome`` (the melee winner chooses), ``damage``, ``injury``; Recover and Sprint ``spend``.
    """

    unit: str
    task: str  # attack | recover | sprint | first_aid | create_advantage | other
    step: str = "buy"
    target: str = ""  # a unit, or an objective for "other"
    weapon: int = -1
    lethal: bool = False
    dice: int = 2  # d20 to roll: 2 plus those bought
    nonce: int = -1  # the roll being resolved (an Aim re-roll replaces it)
    rolled: tuple[int, ...] = ()
    opposed: tuple[int, ...] = ()  # the defender's dice of an Opposed Task
    assist: int = 0  # successes from an assisting ally's die
    winner: str = ""  # attacks: the unit that made a successful attack
    victim: str = ""
    injuries: int = 0  # Injuries still to resolve, one at a time (seed 001 step 7)
    momentum: int = 0  # Momentum the task generated (Recover, Sprint spend from the pool)


class ReadyFrame(Frame, tag="ready"):
    """An enemy moved into the sights of a unit that took the Ready Task."""

    mover: str


class DirectFrame(Frame, tag="direct"):
    """A commanding officer's Direct: ``ally`` may immediately attempt a single Task."""

    commander: str
    ally: str


# the frames of the bundled modules (their frames.py: skirmish.engine.rules.bundled.parts)
_MODULE_FRAMES = tuple(frame for part in parts("frames") for frame in part.FRAMES)
FrameT = Union[(TaskFrame, ReadyFrame, DirectFrame, *_MODULE_FRAMES)]


class _StateCore(msgspec.Struct):
    """The state's fields but those of the rules modules (``State``)."""

    game_id: str
    mission: str
    board: Board
    units: dict[str, Unit]
    rounds: int  # the round limit
    modules: tuple[str, ...] = ()  # the rules modules this game has on (skirmish.engine.rules.registry)
    objectives: dict[str, Objective] = {}
    items: dict[str, Item] = {}
    midline_points: int = 0  # victory points per unit standing in the enemy half at the end
    dice: str = "fair"  # "fair" (provably fair, verifiable) or "local"
    commitment: str = ""  # sha256 of the server seed, hex
    client_seeds: dict[str, str] = {}
    seats: dict[str, str] = {}  # seat ("a", "b") -> the name of the player who took it
    revealed_seed: str = ""
    seq: int = 0  # events applied so far
    next_nonce: int = 0  # rolls made so far; the next roll's nonce
    next_decision: int = 1
    started: bool = False
    round: int = 0
    phase: str = "setup"  # setup | activation | over
    to_act: Side = "a"
    kept_initiative: bool = False
    momentum: dict[str, int] = msgspec.field(default_factory=lambda: {"a": 0, "b": 0})
    threat: dict[str, int] = msgspec.field(default_factory=lambda: {"a": 0, "b": 0})
    turn: Turn | None = None
    stack: list[FrameT] = []
    pending: Decision | None = None
    outcome: Outcome | None = None
    draw_offer: str = ""  # the side whose draw offer stands (engine.commands.OfferDraw), "" for none
    # -- the rules modules' fields: ``State`` below
    # -- the rules this game is played under (skirmish.engine.versions): set from GameCreated.engine_version,
    # left out of the state hash (skirmish.engine.codec.state_hash)
    rules_version: int = CURRENT_RULES

    def side_units(self, side: Side) -> list[Unit]:
        return [u for u in self.units.values() if u.side == side]

    def active_units(self, side: Side) -> list[Unit]:
        return [u for u in self.units.values() if u.side == side and not u.incapacitated]


# The game state: the core's fields, then each bundled module's (``STATE`` in its ``fields.py``).
# (The rules' version, last of the core's, is left out of the state hash, so where it stands
# changes no hash.)
State = msgspec.defstruct("State", _module_fields("STATE"), bases=(_StateCore,),
                          module=__name__)


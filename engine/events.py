"""Events: frozen, past tense, each carrying what replay needs and nothing it can derive.

Every event is a ``msgspec.Struct`` tagged with its class name, so the stored form is a
MessagePack map ``{"type": "UnitMoved", "unit": "a1", "x": 3, "y": 4}``: readable by any
MessagePack library, with field names for auditors and for upcasting old versions.
"""

from __future__ import annotations

from typing import Union

import msgspec

from skirmish.engine.rules.bundled import fields, parts
from skirmish.engine.model import Board, Decision, FrameT, Item, Objective, Option, Outcome, Unit


from skirmish.engine.base import Event, Hidden  # noqa: E402  (the base of every event, the modules' too)


# -- the game's frame ------------------------------------------------------------------------


class _GameCreatedCore(Event):
    game_id: str
    mission: str
    board: Board
    units: tuple[Unit, ...]
    rounds: int
    dice: str  # "fair" | "local"
    commitment: str  # sha256(server_seed) hex; "" for local dice
    engine_version: str
    objectives: tuple[Objective, ...] = ()
    items: tuple[Item, ...] = ()
    midline_points: int = 0
    modules: tuple[str, ...] = ()  # the rules modules on, in the mission's order


# The game's data each bundled module takes from its mission (``CREATED`` in its ``fields.py``), in
# the order of ``skirmish.engine.rules.bundled.BUNDLED``: after the core's, the order of the stored
# bytes. Each is in every game's GameCreated, at its default in a game without the module.
MODULE_CREATED = fields("fields", "CREATED")


class GameCreated(msgspec.defstruct("_GameCreated", MODULE_CREATED, bases=(_GameCreatedCore,), module=__name__)):
    """The first event: everything the initial state is made of, so the log stands alone: the
    core's fields, then the modules' (``MODULE_CREATED``)."""


class ClientSeedAdded(Event):
    seat: str
    seed: str


class SeatTaken(Event):
    """A player took seat ``seat`` ("a" or "b") under the name ``name``; appended by the server
    (not by a command) when the seat is handed out, so that the seating survives a restart."""

    seat: str
    name: str = ""


class GameStarted(Event):
    pass


class Resigned(Event):
    side: str
    reason: str = ""  # "" for a player's own resignation; "forfeit: N time-outs" when the clock forfeits


class DrawOffered(Event):
    """``side`` offers a draw (``OfferDraw``): it stands until the other side accepts it
    (``DrawAgreed``) or answers a decision instead."""

    side: str


class DrawAgreed(Event):
    """``side`` accepts the other side's standing draw offer; the ``GameEnded`` (no winner) follows."""

    side: str


class GameEnded(Event):
    outcome: Outcome


class GameCancelled(Event):
    """A game nobody joined ends before it started: ``reason`` "cancelled" (by the player in
    ``seat``, with its seat token) or "expired" (nobody joined in time; ``seat`` is ""). The
    ``GameEnded`` (no winner) and ``SeedRevealed`` of any end follow."""

    reason: str  # "cancelled" | "expired"
    seat: str = ""  # the seat that cancelled; "" when the game expired


class SeedRevealed(Event):
    server_seed: str  # hex; checked against GameCreated.commitment by verify


class Checkpoint(Event):
    """The state hash after every event before this one: a replay must reproduce it."""

    state_hash: str


# -- dice, decisions -------------------------------------------------------------------------


class DiceRolled(Event):
    nonce: int
    sides: int
    results: tuple[int, ...] | Hidden  # Hidden: in the view of a viewer a rules module hides the roll from
    purpose: str  # why: "initiative", "task:attack", "damage", "cover", ...
    unit: str = ""
    target: int = 0  # the target number of a task roll, 0 where none
    replaces: int = -1  # the nonce of the roll this one re-rolls, -1 for none


class DecisionRequested(Event):
    decision: Decision


class OptionChosen(Event):
    decision_id: int
    side: str
    option: Option
    timeout: bool = False  # the server chose the documented default when the clock ran out


# -- the round -------------------------------------------------------------------------------


class RoundStarted(Event):
    round: int


class InitiativeWon(Event):
    side: str


class ActivationPassed(Event):
    """The next activation goes to ``side`` (seed 001: "the action passes to the opposing side")."""

    side: str
    kept: bool = False  # Keep the Initiative was used


class TurnStarted(Event):
    unit: str


class TurnEnded(Event):
    unit: str


class RoundEnded(Event):
    round: int


# -- actions and their effects ---------------------------------------------------------------


class MinorActionTaken(Event):
    unit: str
    action: str
    cost: int  # Momentum paid (seed 001: equal to the Minor Actions already taken)


class TaskAttempted(Event):
    unit: str
    task: str


class UnitMoved(Event):
    unit: str
    x: int | Hidden  # Hidden: in the view of a viewer a rules module hides the unit's position from
    y: int | Hidden


class ProneChanged(Event):
    unit: str
    prone: bool


class PoolChanged(Event):
    side: str
    pool: str  # "momentum" | "threat"
    delta: int
    reason: str


class ProcedureStarted(Event):
    """A procedure (a Task, a Ready reaction, a Direct) begins: its frame goes on the stack."""

    frame: FrameT


class ProcedureUpdated(Event):
    """The procedure on top of the stack moves on: its frame is replaced."""

    frame: FrameT


class ProcedureEnded(Event):
    pass


class WeaponDrawn(Event):
    unit: str
    weapon: int


class ItemPickedUp(Event):
    unit: str
    item: str


class ObjectiveSecured(Event):
    objective: str
    side: str
    unit: str


class GuardTaken(Event):
    unit: str


class Readied(Event):
    unit: str


class ReadyTriggered(Event):
    unit: str  # the readied unit, which now attacks (its Ready is spent)


class AssistGiven(Event):
    unit: str
    ally: str


class AssistUsed(Event):
    ally: str


class Directed(Event):
    commander: str
    ally: str


class AdvantageCreated(Event):
    unit: str  # the enemy the next attack against is easier


class AdvantageUsed(Event):
    unit: str


class Stabilised(Event):
    unit: str


class Recovered(Event):
    unit: str
    resistance: int  # extra Resistance until its next turn


class StressRegained(Event):
    unit: str
    amount: int


class StressLost(Event):
    unit: str
    amount: int


class InjuryAvoided(Event):
    unit: str
    by: str  # "momentum" | "complication" | "threat"


class ComplicationSuffered(Event):
    unit: str
    reason: str


class InjurySuffered(Event):
    unit: str
    lethal: bool  # the attack was lethal
    result: str  # the unit's condition now: "nonlethal" | "lethal" | "dead"


class UnitDied(Event):
    unit: str
    reason: str


# the events of the modules that keep them in their own folder (skirmish.engine.rules.bundled.parts)
_MODULE_EVENTS = tuple(event for part in parts("events") for event in part.EVENTS)
AnyEvent = Union[(
    GameCreated, ClientSeedAdded, SeatTaken, GameStarted, Resigned, GameEnded, SeedRevealed, Checkpoint,
    GameCancelled,
    DrawOffered, DrawAgreed,
    DiceRolled, DecisionRequested, OptionChosen,
    RoundStarted, InitiativeWon, ActivationPassed, TurnStarted, TurnEnded, RoundEnded,
    MinorActionTaken, TaskAttempted, UnitMoved, ProneChanged, PoolChanged,
    ProcedureStarted, ProcedureUpdated, ProcedureEnded, StressLost, InjuryAvoided,
    ComplicationSuffered, InjurySuffered, UnitDied, WeaponDrawn, ItemPickedUp, ObjectiveSecured,
    GuardTaken, Readied, ReadyTriggered, AssistGiven, AssistUsed, Directed, AdvantageCreated,
    AdvantageUsed, Stabilised, Recovered, StressRegained,
    *_MODULE_EVENTS,
)]

"""The challenges module's fields (seed 002) of ``skirmish.engine.model.Unit`` and ``skirmish.engine.model.State``,
and its mission data's stored form (``ChallengeSetup``: in ``GameCreated.challenges``, ``Mission.challenges``
and ``State.challenges``).

``(name, type, default)``, as ``msgspec.defstruct`` takes them; the shared types append them after
the core's, in ``skirmish.engine.rules.bundled.BUNDLED``'s order, so their order here is their order in
the stored ``GameCreated`` and in the state hash. All of them are left out of the state hash while
they hold their defaults (``skirmish.engine.codec.state_hash``: every field added after the first
release): a game without the module hashes as before the module existed.
"""

from __future__ import annotations

import msgspec

from skirmish.engine.base import Hidden


class Facility(msgspec.Struct):
    """seed 002: a facility card on the board (defence, structure points, an intel center)."""

    id: str
    name: str
    side: str
    x: int
    y: int
    defence: int  # the defender's dice pool in a sabotage challenge
    structure: int  # structure points: destroyed when its damage reaches them
    intel: int = 0  # the level of an intel center it holds, 0 for none
    points: int = 1  # victory points the saboteur's side scores when it is destroyed
    damage: int = 0
    destroyed: bool = False


class Card(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A tactic card (seed 002): what playing it in a challenge does."""

    name: str
    effect: str  # "dice" (+value dice) | "reroll" (re-roll the opponent's successes)
    #              | "convert" (turn up to value failures into successes) | "fate" (+value fate)
    value: int = 1


class Creation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a Tactician / Technologist / Geneticist creates by beating a threshold (seed 002)."""

    card: str
    threshold: int


class ChallengeSetup(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The challenges module's mission data (public: the decks are the cards each side brings)."""

    cards: dict[str, Card]
    decks: dict[str, tuple[str, ...]]  # side -> its deck's cards, sorted (no order exists before a draw)
    facilities: tuple[Facility, ...] = ()
    hand: int = 2  # cards each side draws at the start
    draw: int = 1  # cards each side draws at the start of each round after the first
    hand_limit: int = 5
    action_points: int = 3  # each side's Action Points at the start of each round
    costs: dict[str, int] = {}  # operation -> Action Points
    creates: dict[str, Creation] = {}  # ability -> what it creates


UNIT = (
    ("fate", int, 0),  # a hero's Fate (its defence pool, and the re-rolls it may buy)
    ("abilities", dict[str, int], {}),  # special abilities and their levels, e.g. {"assassin": 7}
    ("stealthed", bool, False),  # "stealth status"
)

STATE = (
    ("challenges", ChallengeSetup | None, None),  # the mission's data, public
    ("facilities", dict[str, Facility], {}),
    ("hands", dict[str, list[str | Hidden]], {}),  # hidden: a viewer holds a Hidden for each card it may not see
    ("decks", dict[str, list[str | Hidden]], {}),  # hidden: the cards left, sorted (Hidden where the viewer may not see)
    ("played", dict[str, list[str]], {}),  # cards each side has played (public)
    ("created", dict[str, list[str]], {}),  # cards each side has created (public)
    ("action_points", dict[str, int], {}),
    ("salt", tuple[int, ...] | Hidden, ()),  # hidden: keeps the Checkpoint hashes from revealing the hands
)

# The fields it adds to ``GameCreated`` and ``skirmish.engine.mission.Mission``: the mission's data
# (``skirmish.engine.rules.challenges.mission.game_data`` builds it; ``evolve.initial`` puts it in the state).
CREATED = (
    ("challenges", ChallengeSetup | None, None),
)

"""The challenges module's part of a mission file (seed 002; documented in ``docs/missions.md``).

Profiles may carry ``fate``, ``abilities`` and ``stealthed`` (``PROFILE``); a ``[challenges]`` table
(``TABLES``) holds the Action Points, the tactic cards and each side's deck, what the creating
abilities create, and the facilities on the board. ``skirmish.engine.mission`` appends ``PROFILE``
to its ``ProfileSpec`` and ``TABLES`` to its ``MissionSpec``, converts the named entries of
``ENTRIES`` one at a time, takes each unit's fields from ``unit_fields`` and, once the core's
parts are built, the mission's data from ``game_data`` (``GameCreated.challenges``). Every problem is
a ``MissionError`` naming the field.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from skirmish.engine import board as geo
from skirmish.engine.model import SIDES, Board
from skirmish.engine.rules.challenges.fields import Card, ChallengeSetup, Creation, Facility

# ability -> the largest level it takes (1: a flag such as Master Assassin or Slayer)
ABILITIES = {
    "assassin": 20, "saboteur": 20, "bodyguard": 20, "tactician": 20, "technologist": 20,
    "geneticist": 20, "stealth": 20, "detection": 20, "bonus_damage": 20,
    "master_assassin": 1, "master_saboteur": 1, "slayer": 1,
}
EFFECTS = ("dice", "reroll", "convert", "fate")
OPERATIONS = ("assassinate", "sabotage", "create", "stealth")

# (name, type, default), as msgspec.defstruct takes them; only with modules = ["challenges"]
PROFILE = (
    ("fate", int, 0),
    ("abilities", dict[str, int], {}),
    ("stealthed", bool, False),
)


class _Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class CardSpec(_Strict):
    effect: Literal["dice", "reroll", "convert", "fate"]
    name: str = ""
    value: int = 1


class CreationSpec(_Strict):
    card: str
    threshold: int


class FacilitySpec(_Strict):
    id: str
    side: str
    at: tuple[int, int]
    defence: int
    structure: int
    name: str = ""
    intel: int = 0
    points: int = 1


class ChallengesSpec(_Strict):
    action_points: int = 3
    hand: int = 2
    draw: int = 1
    hand_limit: int = 5
    costs: dict[str, int] = {}
    cards: dict[str, CardSpec] = {}
    decks: dict[str, list[str]] = {}
    creates: dict[str, CreationSpec] = {}
    facilities: list[FacilitySpec] = []


def check_profile(key: str, fate: int, abilities: dict[str, int], on: bool, used: bool, fail) -> None:
    where = f"profiles.{key}"
    if used and not on:
        fail(where, "fate, abilities and stealthed need the 'challenges' module in [mission] modules")
    if not 0 <= fate <= 20:
        fail(f"{where}.fate", f"must be 0..20, not {fate}")
    for name, level in abilities.items():
        if name not in ABILITIES:
            fail(f"{where}.abilities.{name}", f"unknown ability (known: {', '.join(sorted(ABILITIES))})")
        if not 0 <= level <= ABILITIES[name]:
            fail(f"{where}.abilities.{name}", f"a level is 0..{ABILITIES[name]}, not {level}")


def build(spec: ChallengesSpec, board: Board, taken: set[tuple[int, int]], fail) -> ChallengeSetup:
    """``taken``: cells already holding an objective or item (a facility needs its own cell)."""
    for name, lo, hi in (("action_points", 0, 50), ("hand", 0, 20), ("draw", 0, 10), ("hand_limit", 1, 20)):
        value = getattr(spec, name)
        if not lo <= value <= hi:
            fail(f"challenges.{name}", f"must be {lo}..{hi}, not {value}")
    if spec.hand > spec.hand_limit:
        fail("challenges.hand", f"the opening hand ({spec.hand}) exceeds hand_limit ({spec.hand_limit})")
    for op, c in spec.costs.items():
        if op not in OPERATIONS:
            fail(f"challenges.costs.{op}", f"unknown operation (known: {', '.join(OPERATIONS)})")
        if not 0 <= c <= 50:
            fail(f"challenges.costs.{op}", f"must be 0..50, not {c}")
    cards: dict[str, Card] = {}
    for key, c in spec.cards.items():
        if not key:
            fail("challenges.cards", "a card needs a non-empty key")
        if not 0 <= c.value <= 10:
            fail(f"challenges.cards.{key}.value", f"must be 0..10, not {c.value}")
        cards[key] = Card(c.name or key, c.effect, c.value)
    for side in spec.decks:
        if side not in SIDES:
            fail(f"challenges.decks.{side}", "decks are per side: 'a' and 'b'")
    decks: dict[str, tuple[str, ...]] = {}
    for side in SIDES:
        deck = spec.decks.get(side, [])
        if len(deck) > 200:
            fail(f"challenges.decks.{side}", f"at most 200 cards, not {len(deck)}")
        for card in deck:
            if card not in cards:
                fail(f"challenges.decks.{side}", f"no card {card!r} in [challenges.cards]")
        decks[side] = tuple(sorted(deck))
    creates: dict[str, Creation] = {}
    for ability, c in spec.creates.items():
        if ability not in ("tactician", "technologist", "geneticist"):
            fail(f"challenges.creates.{ability}", "only tactician, technologist and geneticist create cards")
        if c.card not in cards:
            fail(f"challenges.creates.{ability}.card", f"no card {c.card!r} in [challenges.cards]")
        if not 1 <= c.threshold <= 20:
            fail(f"challenges.creates.{ability}.threshold", f"must be 1..20, not {c.threshold}")
        creates[ability] = Creation(c.card, c.threshold)
    facilities: list[Facility] = []
    ids: set[str] = set()
    for i, f in enumerate(spec.facilities):
        where = f"challenges.facilities[{i}]"
        if not f.id or f.id in ids:
            fail(f"{where}.id", f"a facility needs a unique id, not {f.id!r}")
        ids.add(f.id)
        if f.side not in SIDES:
            fail(f"{where}.side", f"must be 'a' or 'b', not {f.side!r}")
        x, y = f.at
        if not geo.on_board(board, x, y):
            fail(f"{where}.at", f"{list(f.at)} is off the {board.width}x{board.height} board")
        if geo.terrain(board, x, y) in geo.BLOCKING:
            fail(f"{where}.at", f"{list(f.at)} is blocking terrain")
        if (x, y) in taken:
            fail(f"{where}.at", f"{list(f.at)} already holds an objective, item or facility")
        taken.add((x, y))
        for name, lo, hi in (("defence", 0, 20), ("structure", 1, 20), ("intel", 0, 20), ("points", 0, 10)):
            value = getattr(f, name)
            if not lo <= value <= hi:
                fail(f"{where}.{name}", f"must be {lo}..{hi}, not {value}")
        facilities.append(Facility(f.id, f.name or f.id, f.side, x, y, f.defence, f.structure, f.intel, f.points))
    return ChallengeSetup(cards=cards, decks=decks, facilities=tuple(facilities), hand=spec.hand, draw=spec.draw,
                          hand_limit=spec.hand_limit, action_points=spec.action_points, costs=dict(spec.costs),
                          creates=creates)


# its table of the mission file, as msgspec.defstruct takes it (a field of MissionSpec)
TABLES = (
    ("challenges", ChallengesSpec | None, None),
)
# tables of named entries, converted one entry at a time so that an error names the entry
ENTRIES = (
    ("challenges.cards", CardSpec),
    ("challenges.creates", CreationSpec),
)


def unit_fields(p) -> dict:
    """The ``Unit`` fields (``skirmish.engine.rules.challenges.fields``) a profile gives."""
    return {"fate": p.fate, "abilities": dict(p.abilities), "stealthed": p.stealthed}


def game_data(spec, made, fail) -> dict:
    """The values of the module's ``CREATED`` fields (``skirmish.engine.rules.challenges.fields``) for
    this mission: the profiles' fields checked (refused without the module), and the
    ``[challenges]`` table (refused without the module; its defaults when the module is on and
    the table is left out) built into ``{"challenges": ChallengeSetup or None}``. ``made``: what
    the core made of the mission (a facility needs a cell without an objective or item)."""
    on = "challenges" in spec.mission.modules
    for key, p in spec.profiles.items():
        check_profile(key, p.fate, p.abilities, on, bool(p.fate or p.abilities or p.stealthed), fail)
    if spec.challenges is not None and not on:
        fail("challenges", "the [challenges] table needs the 'challenges' module in [mission] modules")
    if not on:
        return {"challenges": None}
    taken = {(o.x, o.y) for o in made.objectives} | {(i.x, i.y) for i in made.items}
    return {"challenges": build(spec.challenges or ChallengesSpec(), made.board, taken, fail)}

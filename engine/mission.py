"""Missions as data: a TOML text (human-editable, with an ASCII map) -> a checked ``Mission``.

The engine parses text only (it does no I/O); ``skirmish.server.missions`` finds and reads the files.
Every problem is a ``MissionError`` naming the source, the field and what is wrong. The format
is documented in ``docs/missions.md``.
"""

from __future__ import annotations

import hashlib
import tomllib
from typing import Literal, NamedTuple

import msgspec

from skirmish.engine import board as geo
from skirmish.engine.errors import MissionError
from skirmish.engine.events import MODULE_CREATED, GameCreated
from skirmish.engine.model import SIDES, Board, Item, Objective, Stats, Unit, Weapon
from skirmish.engine.rules.bundled import fields, parts
from skirmish.engine.rules.registry import known_modules
from skirmish.engine.versions import ENGINE_VERSION  # the rules' version, logged in every GameCreated (skirmish.engine.versions)



class _Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class MissionInfo(_Strict):
    id: str
    name: str
    rounds: int
    description: str = ""
    modules: list[str] = []


class Bands(_Strict):
    reach: int = 1
    close: int = 2
    medium: int = 4
    long: int = 8


class BoardSpec(_Strict):
    map: str
    bands: Bands = msgspec.field(default_factory=Bands)
    midline: str = "y"  # the board is split across this axis ("y": rows, "x": columns)


class TaskSpec(_Strict):
    attribute: str
    discipline: str
    difficulty: int = 1


class ObjectiveSpec(_Strict):
    id: str
    name: str
    at: tuple[int, int]
    points: int = 1
    task: TaskSpec | None = None


class ItemSpec(_Strict):
    id: str
    name: str
    at: tuple[int, int]
    weapon: str = ""


class ScoringSpec(_Strict):
    midline: int = 0


class SideSpec(_Strict):
    name: str


class _WeaponSpecCore(_Strict):
    kind: Literal["melee", "ranged"]
    damage: int
    name: str = ""
    qualities: list[str] = []
    # -- the fields of the modules that keep them in their own folder: ``WeaponSpec`` below


def _optional(part, name: str, default):
    """A mission part's optional table or function (``WEAPON_SPEC``, ``UNIT_SPEC``, ``weapon_fields``,
    ``unit_spec_fields``: skirmish.engine.rules.bundled), or ``default`` when it has none."""
    return getattr(part, name, default)


def _no_fields(spec) -> dict:
    return {}


# A weapon: the core's fields, then each bundled module's (``WEAPON_SPEC`` in its ``mission.py``, if any).
WeaponSpec = msgspec.defstruct("WeaponSpec", [f for part in parts("mission") for f in _optional(part, "WEAPON_SPEC", ())],
                               bases=(_WeaponSpecCore,), module=__name__, forbid_unknown_fields=True)


class _ProfileCore(_Strict):
    kind: Literal["hero", "bogey"] = "hero"
    tier: Literal["", "grunt", "elite", "boss"] = ""
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
    focuses: list[str] = []
    weapons: list[str] = []
    stowed: list[str] = []  # weapons carried but not drawn; each is also in ``weapons``
    resistance: int = 0
    stress: int | None = None  # derived: Fitness + Security (RULES-BRIEF) unless given
    points: int = 1
    # -- the rules modules' fields: ``ProfileSpec`` below


# A profile: the core's fields, then each bundled module's (``PROFILE`` in its ``mission.py``).
ProfileSpec = msgspec.defstruct("ProfileSpec", [f for part in parts("mission") for f in part.PROFILE],
                                bases=(_ProfileCore,), module=__name__, forbid_unknown_fields=True)


class _UnitSpecCore(_Strict):
    id: str
    side: str
    profile: str
    at: tuple[int, int]
    name: str = ""
    commander: bool = False
    # -- the fields of the modules that keep them in their own folder: ``UnitSpec`` below


# A ``[[units]]`` entry: the core's fields, then each bundled module's (``UNIT_SPEC`` in its ``mission.py``, if any).
UnitSpec = msgspec.defstruct("UnitSpec", [f for part in parts("mission") for f in _optional(part, "UNIT_SPEC", ())],
                             bases=(_UnitSpecCore,), module=__name__, forbid_unknown_fields=True)


class _MissionSpecCore(_Strict):
    mission: MissionInfo
    board: BoardSpec
    sides: dict[str, SideSpec]
    weapons: dict[str, WeaponSpec]
    profiles: dict[str, ProfileSpec]
    units: list[UnitSpec]
    objectives: list[ObjectiveSpec] = []
    items: list[ItemSpec] = []
    scoring: ScoringSpec = msgspec.field(default_factory=ScoringSpec)


# A mission file: the core's tables, then each bundled module's (``TABLES`` in its ``mission.py``).
MissionSpec = msgspec.defstruct("MissionSpec", fields("mission", "TABLES"), bases=(_MissionSpecCore,), module=__name__,
                                forbid_unknown_fields=True)


class _MissionCore(msgspec.Struct, frozen=True):
    id: str
    name: str
    description: str
    rounds: int
    modules: tuple[str, ...]
    sides: dict[str, str]
    board: Board
    units: tuple[Unit, ...]
    digest: str  # sha256 of the mission text
    objectives: tuple[Objective, ...] = ()
    items: tuple[Item, ...] = ()
    midline_points: int = 0


# A checked mission: the core's fields, then the game's data each module takes from it (the same
# fields as GameCreated's: ``MODULE_CREATED``, which ``game_created`` copies).
Mission = msgspec.defstruct("Mission", MODULE_CREATED, bases=(_MissionCore,), module=__name__)


class Made(NamedTuple):
    """What the core made of a mission, for the modules' ``game_data`` (``_build``)."""

    board: Board
    units: tuple[Unit, ...]
    objectives: tuple[Objective, ...]
    items: tuple[Item, ...]


ATTRIBUTES = ("control", "daring", "fitness", "insight", "presence", "reason")
DISCIPLINES = ("command", "conn", "engineering", "security", "medicine", "science")
MAX_BAND = 100  # the largest Long band, in cells


def parse_mission(text: str, source: str = "<mission>") -> Mission:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MissionError(source, "(toml)", str(exc)) from None
    # Tables of named entries (the core's, then the modules' ``ENTRIES``: a dotted path) are
    # converted one entry at a time, so an error names the entry.
    named = [("sides", SideSpec), ("weapons", WeaponSpec), ("profiles", ProfileSpec)]
    for path, kind in named + [e for part in parts("mission") for e in getattr(part, "ENTRIES", ())]:
        entries = raw
        for table in path.split("."):
            entries = entries.get(table) if isinstance(entries, dict) else None
        if isinstance(entries, dict):
            for key, value in entries.items():
                _convert(value, kind, source, f"{path}.{key}")
    spec = _convert(raw, MissionSpec, source, "")
    return _build(spec, source, hashlib.sha256(text.encode()).hexdigest())


def _convert(value, kind, source: str, prefix: str):
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as exc:
        msg = str(exc)
        problem, _, where = msg.partition(" - at `")
        where = where.rstrip("`").removeprefix("$")
        field = (prefix + where).lstrip(".") or "(top level)"
        raise MissionError(source, field, problem) from None


def _build(spec: MissionSpec, source: str, digest: str) -> Mission:
    def fail(field: str, problem: str):
        raise MissionError(source, field, problem)

    info = spec.mission
    if not 1 <= info.rounds <= 50:
        fail("mission.rounds", f"must be 1..50, not {info.rounds}")
    known = known_modules()
    for m in info.modules:
        if m not in known:
            fail("mission.modules", f"unknown module {m!r} (known: {', '.join(sorted(known)) or 'none yet'})")
    if len(set(info.modules)) != len(info.modules):
        fail("mission.modules", f"a module is named twice: {list(info.modules)}")
    if set(spec.sides) != set(SIDES):
        fail("sides", f"a mission has exactly the sides 'a' and 'b', not {sorted(spec.sides)}")

    board = _board(spec.board, fail)
    weapons = _weapons(spec, fail)
    _check_profiles(spec, weapons, fail)
    for part in parts("mission"):  # the modules' profile fields: needed with the module, refused without it
        if hasattr(part, "check"):
            part.check(spec, fail)
    units = _units(spec, board, weapons, fail)
    objectives = _objectives(spec, board, fail)
    items = _items(spec, board, weapons, objectives, fail)
    if not 0 <= spec.scoring.midline <= 10:
        fail("scoring.midline", f"victory points per unit in the enemy half are 0..10, not {spec.scoring.midline}")
    made = Made(board, tuple(units), tuple(objectives), tuple(items))
    data = {name: value for part in parts("mission") if hasattr(part, "game_data")
            for name, value in part.game_data(spec, made, fail).items()}  # the modules' (``MODULE_CREATED``)

    return Mission(info.id, info.name, info.description, info.rounds, tuple(info.modules),
                   {k: v.name for k, v in spec.sides.items()}, board, made.units, digest,
                   objectives=made.objectives, items=made.items, midline_points=spec.scoring.midline, **data)


def _cell(x: int, y: int) -> str:
    """A cell for an error message: the map's row and column (from 1) and its ``at``."""
    return f"row {y + 1}, column {x + 1} (at = [{x}, {y}])"


def _board(spec: BoardSpec, fail) -> Board:
    rows = [r.strip() for r in spec.map.strip("\n").split("\n")]
    if not rows or not rows[0]:
        fail("board.map", "the map is empty")
    width = len(rows[0])
    for y, row in enumerate(rows):
        if len(row) != width:
            fail("board.map", f"row {y + 1} has {len(row)} cells where row 1 has {width}")
        for x, ch in enumerate(row):
            if ch not in geo.TERRAIN:
                fail("board.map", f"{_cell(x, y)}: unknown terrain {ch!r} "
                                  f"(known: {''.join(sorted(geo.TERRAIN))})")
    if spec.midline not in ("x", "y"):
        fail("board.midline", f"must be \"y\" (split the rows) or \"x\" (split the columns), not {spec.midline!r}")
    b = spec.bands
    if b.reach < 1:
        fail("board.bands.reach", f"must be at least 1, not {b.reach}")
    for smaller, larger in (("reach", "close"), ("close", "medium"), ("medium", "long")):
        lo, hi = getattr(b, smaller), getattr(b, larger)
        if hi <= lo:
            fail(f"board.bands.{larger}", f"must be greater than {smaller} ({lo}), not {hi}")
    if b.long > MAX_BAND:
        fail("board.bands.long", f"must be at most {MAX_BAND}, not {b.long}")
    board = Board(width, len(rows), "".join(rows), b.reach, b.close, b.medium, b.long, spec.midline)
    # Side a's half is the low one (skirmish.engine.board.half): a deployment zone in the enemy's half
    # would turn the mid-line scoring round.
    for y in range(board.height):
        for x in range(board.width):
            ch = geo.terrain(board, x, y)
            if ch in SIDES and geo.in_enemy_half(board, ch, x, y):
                axis = "rows" if spec.midline == "y" else "columns"
                fail("board.map", f"{_cell(x, y)}: side {ch}'s deployment zone lies in the other side's half "
                                  f"(midline = {spec.midline!r}: side a has the low {axis}, side b the high ones)")
    return board


def _weapons(spec: MissionSpec, fail) -> dict[str, Weapon]:
    weapons: dict[str, Weapon] = {}
    for key, w in spec.weapons.items():
        if not 0 <= w.damage <= 10:
            fail(f"weapons.{key}.damage", f"must be 0..10, not {w.damage}")
        weapons[key] = Weapon(w.name or key, w.kind, w.damage, tuple(w.qualities),
                              **{k: v for part in parts("mission")
                                 for k, v in _optional(part, "weapon_fields", _no_fields)(w).items()})
    return weapons


def _check_profiles(spec: MissionSpec, weapons: dict[str, Weapon], fail) -> None:
    for key, p in spec.profiles.items():
        for a in ATTRIBUTES:
            if not 7 <= getattr(p, a) <= 12:
                fail(f"profiles.{key}.{a}", f"an Attribute is 7..12, not {getattr(p, a)}")
        for d in DISCIPLINES:
            if not 0 <= getattr(p, d) <= 5:
                fail(f"profiles.{key}.{d}", f"a Discipline is 0..5, not {getattr(p, d)}")
        for w in p.weapons:
            if w not in weapons:
                fail(f"profiles.{key}.weapons", f"no weapon {w!r} in [weapons]")
        for w in p.stowed:
            if w not in p.weapons:
                fail(f"profiles.{key}.stowed", f"{w!r} is not one of the profile's weapons {p.weapons}")
            if p.stowed.count(w) > p.weapons.count(w):
                fail(f"profiles.{key}.stowed", f"{w!r} is stowed more often than the profile carries it")
        if p.stress is not None and p.stress < 1:
            fail(f"profiles.{key}.stress", f"must be at least 1, not {p.stress}")
        if p.resistance < 0:
            fail(f"profiles.{key}.resistance", f"must be at least 0, not {p.resistance}")
        if p.points < 0:
            fail(f"profiles.{key}.points", f"must be at least 0, not {p.points}")
        if p.kind == "bogey" and not p.tier:
            fail(f"profiles.{key}.tier", "a bogey needs a tier: grunt, elite or boss")
        if p.kind == "hero" and p.tier:
            fail(f"profiles.{key}.tier", "only bogeys have a tier")


def _stowed(p: ProfileSpec) -> tuple[int, ...]:
    """Indices into the unit's weapons of the stowed ones (a repeated key takes the next copy)."""
    taken: list[int] = []
    for w in p.stowed:
        taken.append(next(i for i, k in enumerate(p.weapons) if k == w and i not in taken))
    return tuple(sorted(taken))


def _units(spec: MissionSpec, board: Board, weapons: dict[str, Weapon], fail) -> list[Unit]:
    units: list[Unit] = []
    seen_ids: set[str] = set()
    taken: dict[tuple[int, int], str] = {}
    for i, u in enumerate(spec.units):
        where = f"units[{i}]"
        if u.id in seen_ids:
            fail(f"{where}.id", f"duplicate unit id {u.id!r}")
        seen_ids.add(u.id)
        if u.side not in SIDES:
            fail(f"{where}.side", f"must be 'a' or 'b', not {u.side!r}")
        p = spec.profiles.get(u.profile)
        if p is None:
            fail(f"{where}.profile", f"no profile {u.profile!r} in [profiles]")
        x, y = u.at
        if not geo.on_board(board, x, y):
            fail(f"{where}.at", f"{list(u.at)} is off the {board.width}x{board.height} board")
        cell = geo.terrain(board, x, y)
        if cell in geo.BLOCKING:
            fail(f"{where}.at", f"{list(u.at)} is blocking terrain")
        zone = u.side
        if zone in board.cells and cell != zone:
            fail(f"{where}.at", f"{list(u.at)} is outside side {u.side}'s deployment zone")
        if (x, y) in taken:
            fail(f"{where}.at", f"{list(u.at)} is already taken by {taken[(x, y)]}")
        taken[(x, y)] = u.id
        stats = Stats(**{k: getattr(p, k) for k in ATTRIBUTES + DISCIPLINES})
        stress = p.stress if p.stress is not None else p.fitness + p.security
        units.append(Unit(
            id=u.id, side=u.side, name=u.name or u.id, stats=stats, stress_max=stress, stress=stress,
            resistance=p.resistance, weapons=tuple(weapons[w] for w in p.weapons), x=x, y=y,
            kind=p.kind, tier=p.tier, focuses=tuple(p.focuses), points=p.points, commander=u.commander,
            stowed=_stowed(p),
            **{k: v for part in parts("mission") for k, v in part.unit_fields(p).items()},
            **{k: v for part in parts("mission") for k, v in _optional(part, "unit_spec_fields", _no_fields)(u).items()},
        ))
    for side in SIDES:
        if not any(u.side == side for u in units):
            fail("units", f"side {side} has no units")
        if sum(u.commander for u in units if u.side == side) > 1:
            fail("units", f"side {side} has more than one commander")
    return units


def _place(board: Board, where: str, at: tuple[int, int], fail) -> tuple[int, int]:
    x, y = at
    if not geo.on_board(board, x, y):
        fail(f"{where}.at", f"{list(at)} is off the {board.width}x{board.height} board")
    if geo.terrain(board, x, y) in geo.BLOCKING:
        fail(f"{where}.at", f"{list(at)} is blocking terrain")
    return x, y


def _objectives(spec: MissionSpec, board: Board, fail) -> list[Objective]:
    markers = {(i % board.width, i // board.width) for i, ch in enumerate(board.cells) if ch == geo.OBJECTIVE_MARKER}
    out: list[Objective] = []
    ids: set[str] = set()
    cells: dict[tuple[int, int], str] = {}
    for i, o in enumerate(spec.objectives):
        where = f"objectives[{i}]"
        if o.id in ids:
            fail(f"{where}.id", f"duplicate objective id {o.id!r}")
        ids.add(o.id)
        x, y = _place(board, where, o.at, fail)
        if markers and (x, y) not in markers:
            fail(f"{where}.at", f"{list(o.at)} is not an objective marker '*'; the map's markers are at "
                                f"{sorted([list(c) for c in markers], key=lambda c: (c[1], c[0]))}")
        if (x, y) in cells:
            fail(f"{where}.at", f"{list(o.at)} already holds objective {cells[(x, y)]!r}")
        cells[(x, y)] = o.id
        if not 1 <= o.points <= 10:
            fail(f"{where}.points", f"must be 1..10, not {o.points}")
        attribute = discipline = ""
        difficulty = 0
        if o.task is not None:
            t = o.task
            if t.attribute not in ATTRIBUTES:
                fail(f"{where}.task.attribute", f"{t.attribute!r} is not an Attribute ({', '.join(ATTRIBUTES)})")
            if t.discipline not in DISCIPLINES:
                fail(f"{where}.task.discipline", f"{t.discipline!r} is not a Discipline ({', '.join(DISCIPLINES)})")
            if not 0 <= t.difficulty <= 5:
                fail(f"{where}.task.difficulty", f"a Difficulty is 0..5, not {t.difficulty}")
            attribute, discipline, difficulty = t.attribute, t.discipline, t.difficulty
        out.append(Objective(o.id, o.name, x, y, o.points, attribute, discipline, difficulty))
    for y in range(board.height):
        for x in range(board.width):
            if (x, y) in markers and (x, y) not in cells:
                fail("board.map", f"{_cell(x, y)}: the objective marker '*' has no objective in [[objectives]]")
    return out


def _items(spec: MissionSpec, board: Board, weapons: dict[str, Weapon], objectives: list[Objective],
           fail) -> list[Item]:
    out: list[Item] = []
    ids = {o.id: "objective" for o in objectives}
    cells: dict[tuple[int, int], str] = {}
    for i, it in enumerate(spec.items):
        where = f"items[{i}]"
        if it.id in ids:
            fail(f"{where}.id", f"duplicate id {it.id!r} (already an {ids[it.id]})")
        ids[it.id] = "item"
        x, y = _place(board, where, it.at, fail)
        if (x, y) in cells:
            fail(f"{where}.at", f"{list(it.at)} already holds item {cells[(x, y)]!r}")
        cells[(x, y)] = it.id
        weapon = None
        if it.weapon:
            if it.weapon not in weapons:
                fail(f"{where}.weapon", f"no weapon {it.weapon!r} in [weapons]")
            weapon = weapons[it.weapon]
        out.append(Item(it.id, it.name, x, y, weapon))
    return out


def game_created(game_id: str, mission: Mission, dice: str, commitment: str) -> GameCreated:
    """The first event of a new game of ``mission``."""
    return GameCreated(game_id=game_id, mission=mission.id, board=mission.board, units=mission.units,
                       rounds=mission.rounds, dice=dice, commitment=commitment, engine_version=ENGINE_VERSION,
                       objectives=mission.objectives, items=mission.items, midline_points=mission.midline_points,
                       modules=mission.modules,
                       **{name: getattr(mission, name) for name, _, _ in MODULE_CREATED})

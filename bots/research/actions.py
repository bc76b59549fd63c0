"""A fixed action space per mission: every option the engine can offer, numbered once.

An option is a tuple whose first item names it (``skirmish.engine.model.Option``): ``("move", 3, 4)``,
``("attack", "b1", 0, 1)``, ``("end",)``. ``HEADS`` gives, for each option name and length, the
domain of each of its items; a domain is one of ``SLOTS``, read off the mission:

- ``unit``: the mission's unit ids, in the mission's order, then the ``marker`` domain (an option
  names a marker where the unit behind it is hidden);
- ``x``, ``y``: the board's columns and rows;
- ``weapon``: -1 (unarmed) .. the most weapons any unit can hold - 1 (its own, and every item's);
- ``flag``: 0, 1 (an attack's lethal flag);
- ``count``: 0 .. ``COUNT_MAX`` (dice bought, Momentum spent, the die an Aim re-rolls, costs);
- ``side``: "a", "b";
- ``marker``: the Camouflage markers' handles and, with Impersonation, each side's marker ids
  (``MARKERS_MAX`` a side); ``step``: -1, 0, 1 (a facing's direction); ``minor``: the capture
  module's bonus Minor Actions (``MINORS``);
- ``word``: the mission's words (``words``): its objective and item ids and every string in
  the data its rules modules keep (cards, facilities, abilities), the engine's words
  (``ENGINE_WORDS``) and the modules' (terrain names, hacking programs).

A mission's actions are, in ``HEADS``' order, every option name with the product of its item
domains (``itertools.product`` order); in a mission with Impersonation, then every one of them
again carried by ``("reveal", ...)`` (a marker's action that replaces it with its figure). ``ActionTable.encode`` maps an option to its action and
``decode`` maps it back; ``mask`` marks the pending decision's options. An option outside the
table (a module's new option: add it to ``HEADS``) raises ``UnknownOption``, so nothing is
ever silently dropped; ``tests/bots/research/test_actions.py`` checks every option the engine
offers over random games of every bundled mission. docs/research.md lists the table.
"""

from __future__ import annotations

import itertools
from typing import Iterable

from skirmish.engine.mission import Mission
from skirmish.engine.model import Option
from skirmish.engine.rules.skills.comms import PROGRAMS
from skirmish.engine.rules.skills.hd_parts import marker_handles
from skirmish.engine.rules.skills.impersonation import marker_id
from skirmish.engine.rules.skills.terrain import CHARS

COUNT_MAX = 9
# words the rules use in options: the ways to Avoid an Injury, pools to buy dice with, the morale
# module's re-roll of a Task, the challenges module's "any target"; the sides
ENGINE_WORDS = ("a", "b", "*", "momentum", "threat", "complication", "task")
MINORS = ("move", "stand", "interact", "draw", "pickup")  # the capture module's bonus Minor Actions
MODULE_WORDS = tuple(sorted(CHARS)) + tuple(sorted(PROGRAMS))  # the skills module's terrain, programs

# (name, length) -> the domain of each item after the name; a "a|b" domain is the union
HEADS: dict[tuple[str, int], tuple[str, ...]] = {
    ("end", 1): (), ("aim", 1): (), ("boost", 1): (), ("guard", 1): (), ("prepare", 1): (),
    ("prone", 1): (), ("ready", 1): (), ("recover", 1): (), ("regenerate", 1): (), ("rest", 1): (),
    ("sprint", 1): (), ("stand", 1): (), ("withdraw", 1): (), ("keep", 1): (), ("accept", 1): (),
    ("threat", 1): (), ("none", 1): (), ("stay", 1): (), ("pass", 1): (), ("decline", 1): (),
    ("roll", 1): (), ("hold", 1): (), ("damage", 1): (), ("reroll", 1): (),
    ("move", 3): ("x", "y"), ("sprint", 3): ("x", "y"), ("deploy", 3): ("x", "y"),
    ("dismount", 3): ("x", "y"), ("dodge_move", 3): ("x", "y"), ("fend", 3): ("x", "y"),
    ("attack", 4): ("unit", "weapon", "flag"), ("aimed_shot", 4): ("unit", "weapon", "flag"),
    ("fire", 4): ("unit", "weapon", "flag"), ("engage", 4): ("unit", "x", "y"),
    ("unit", 2): ("unit",), ("assist", 2): ("unit",), ("capture", 2): ("unit",), ("counter", 2): ("unit",),
    ("create_advantage", 2): ("unit",), ("direct", 2): ("unit",), ("first_aid", 2): ("unit",),
    ("medikit", 2): ("unit",), ("observe", 2): ("unit",), ("sat_lock", 2): ("unit",),
    ("bystander", 2): ("unit",), ("cover", 2): ("unit",), ("hold", 2): ("unit",), ("roll", 2): ("unit",),
    ("lieutenant", 2): ("unit",), ("change_facing", 2): ("unit",), ("dodge", 2): ("unit",),
    ("interact", 2): ("word",), ("other", 2): ("word",), ("pickup", 2): ("word",), ("avoid", 2): ("word",),
    ("card", 2): ("word",), ("first", 2): ("side",),
    ("draw", 2): ("weapon",), ("damage", 2): ("count",), ("spend", 2): ("count",), ("fate", 2): ("count",),
    ("stealth", 2): ("count",), ("buy", 2): ("count",), ("buy", 3): ("count", "word"),
    ("reroll", 2): ("count|side|word",),
    ("assassinate", 3): ("unit|word", "count"), ("sabotage", 3): ("word", "count"),
    ("create", 3): ("word", "count"), ("hack", 3): ("word", "unit"), ("terrain", 3): ("unit", "word"),
    # Hidden Deployment, Camouflage and Impersonation (the skills module; issue 15)
    ("hide", 3): ("x", "y"), ("reveal", 2): ("unit",), ("reveal", 4): ("unit", "weapon", "flag"),
    ("impersonate", 1): (), ("impersonate", 3): ("x", "y"),
    ("discover", 2): ("marker",), ("discover", 3): ("unit", "marker"), ("imp_redeploy", 4): ("unit", "x", "y"),
    ("face", 4): ("unit", "step", "step"),
    # the capture module (seed 000): freeing, escaping, dragging a captive, and the bonus actions
    ("free", 2): ("unit",), ("escape", 1): (), ("drag", 2): ("unit",), ("exit", 2): ("unit",),
    ("bonus", 2): ("minor",), ("bonus", 3): ("minor", "word|weapon"), ("bonus", 4): ("minor", "x", "y"),
}
MARKERS_MAX = 8  # an impersonating side's marker ids: a-imp1 .. a-imp8 (a regained marker takes the next id)


class UnknownOption(ValueError):
    """An option the mission's action table has no action for."""


def _strings(value) -> Iterable[str]:
    """Every string in a nest of structs, dicts, lists and tuples (dict keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _strings(v)
    elif hasattr(value, "__struct_fields__"):
        for f in value.__struct_fields__:
            yield from _strings(getattr(value, f))


def words(mission: Mission) -> tuple[str, ...]:
    """The ``word`` domain of ``mission``: sorted, without duplicates, without the unit ids."""
    units = {u.id for u in mission.units}
    module_data = [getattr(mission, f) for f in mission.__struct_fields__ if f not in _CORE_FIELDS]
    found = {o.id for o in mission.objectives} | {i.id for i in mission.items}
    found |= set(_strings(module_data)) | set(ENGINE_WORDS) | set(MODULE_WORDS)
    return tuple(sorted(found - units))


def impersonates(mission: Mission) -> bool:
    """Whether a profile of the mission has Impersonation (its markers, and its ``reveal`` options)."""
    return any(w.startswith("impersonation ") for u in mission.units for w in getattr(u, "skills", ()))


def markers(mission: Mission) -> tuple[str, ...]:
    """The ``marker`` domain: each Camouflage marker's handle ("camo-b1", in the mission's order of
    its side's markers) and, where a profile has Impersonation, ``MARKERS_MAX`` marker ids a side."""
    out = list(marker_handles(mission).values())  # a mission's units carry ``camouflaged`` as GameCreated's do
    if impersonates(mission):
        out += [marker_id(side, k) for side in ("a", "b") for k in range(1, MARKERS_MAX + 1)]
    return tuple(out)


# the core's fields of a Mission (skirmish.engine.mission._MissionCore): the rest are the modules' data
_CORE_FIELDS = frozenset(("id", "name", "description", "rounds", "modules", "sides", "board", "units", "digest",
                          "objectives", "items", "midline_points"))


class ActionTable:
    """The actions of one mission: ``options[i]`` is action ``i``'s option; ``index`` the reverse."""

    def __init__(self, mission: Mission):
        self.mission_id = mission.id
        most = max((len(u.weapons) for u in mission.units), default=1)
        weapons = most + sum(1 for i in mission.items if i.weapon is not None)
        self.domains: dict[str, tuple] = {
            "unit": tuple(u.id for u in mission.units) + markers(mission),  # a marker stands for its unit
            "x": tuple(range(mission.board.width)),
            "y": tuple(range(mission.board.height)),
            "weapon": tuple(range(-1, weapons)),
            "flag": (0, 1),
            "count": tuple(range(COUNT_MAX + 1)),
            "side": ("a", "b"),
            "word": words(mission),
            "marker": markers(mission),
            "step": (-1, 0, 1),
            "minor": MINORS,
        }
        options: list[Option] = []
        for (name, _), slots in HEADS.items():
            for args in itertools.product(*(self._domain(s) for s in slots)):
                options.append((name, *args))
        if impersonates(mission):  # an impersonator's marker offers every other action as ("reveal", *action)
            known = set(options)
            options += [w for w in (("reveal", *o) for o in list(options) if o[0] != "reveal") if w not in known]
        self.options: tuple[Option, ...] = tuple(options)
        self.index: dict[Option, int] = {o: i for i, o in enumerate(self.options)}
        assert len(self.index) == len(self.options), "an option is numbered twice"

    def _domain(self, slot: str) -> tuple:
        out: list = []
        for part in slot.split("|"):
            out += [v for v in self.domains[part] if v not in out]
        return tuple(out)

    @property
    def n(self) -> int:
        return len(self.options)

    def encode(self, option: Option) -> int:
        try:
            return self.index[tuple(option)]
        except (KeyError, TypeError):
            raise UnknownOption(f"mission {self.mission_id}: no action for option {option!r}") from None

    def decode(self, action: int) -> Option:
        if not 0 <= int(action) < len(self.options):
            raise UnknownOption(f"mission {self.mission_id}: no action {action} (0..{len(self.options) - 1})")
        return self.options[int(action)]

    def legal(self, options: Iterable[Option]) -> list[int]:
        """The actions of ``options`` (a decision's), ascending."""
        return sorted(self.encode(o) for o in options)

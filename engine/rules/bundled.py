"""The bundled rules modules: name -> package (adding a module is its folder plus one line here),
and their data parts, which the shared types gather when they are built.

A module package ``P`` holds ``P.module`` (its ``skirmish.engine.rules.registry.Module``: hooks, loaded by
the registry when a game needs it) and may hold data parts that import only ``skirmish.engine.base``, the
model and each other: ``P.events`` (``EVENTS``: appended to ``skirmish.engine.events.AnyEvent``),
``P.frames`` (``FRAMES``: to ``skirmish.engine.model.FrameT``), ``P.fields`` (``UNIT``, ``STATE``: to
``skirmish.engine.model.Unit`` and ``State``; optionally ``WEAPON``: to ``Weapon``; ``CREATED``: the
game's data the module takes from its mission, to ``skirmish.engine.events.GameCreated`` and
``skirmish.engine.mission.Mission``), ``P.evolve`` (``HANDLERS``: to ``skirmish.engine.evolve``'s table;
``initial(state, created)``: its part of the initial state, from ``GameCreated``) and ``P.mission``
(``PROFILE``, ``check``, ``unit_fields``; ``TABLES``, the mission file's tables it reads, and
``game_data(spec, made, fail)``, the values of its ``CREATED`` fields; optionally ``ENTRIES``, the
tables of named entries in its tables, converted one entry at a time so that an error names the
entry, ``UNIT_SPEC`` and
``unit_spec_fields(entry)``, a ``[[units]]`` entry's fields and the ``Unit`` fields they give, and
``WEAPON_SPEC`` and ``weapon_fields(entry)``, a ``[weapons]`` entry's: to ``skirmish.engine.mission``).
Each table is ``(name, type, default)`` rows, as ``msgspec.defstruct`` takes them, gathered by
``fields`` in ``BUNDLED``'s order: their order in the stored events. Every field a module adds has a
default. This file imports nothing of ours, so the shared files can ask it while they are being
imported.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import MappingProxyType
from typing import Mapping

# The core's package and the bundled modules' packages, in the order they are listed to users.
CORE = "skirmish.engine.rules.core"  # seed 001
BUNDLED: Mapping[str, str] = MappingProxyType({
    "capture": "skirmish.engine.rules.capture",  # seed 000
    "challenges": "skirmish.engine.rules.challenges",  # seed 002
    "morale": "skirmish.engine.rules.morale",  # seed 004
    "skills": "skirmish.engine.rules.skills",  # seed 003
})


def _part_of(package: str, part: str) -> str | None:
    name = f"{package}.{part}"
    return name if importlib.util.find_spec(name) is not None else None


def parts(part: str) -> list:
    """The ``part`` files (``events``, ``frames``, ``fields``, ``evolve``, ``mission``) of the bundled modules that have
    one, imported, in ``BUNDLED``'s order: what the shared files gather into the log's closed
    union, the frame union and the evolve table. They import only ``skirmish.engine.base``, the model
    and each other, so the shared files can load them while they are being imported."""
    return [importlib.import_module(name) for pkg in BUNDLED.values() if (name := _part_of(pkg, part))]


def fields(part: str, table: str, here: Mapping[str, tuple] | None = None) -> list:
    """The ``table`` rows (``(name, type, default)``) of the bundled modules' ``part`` files, in
    ``BUNDLED``'s order: what a shared type appends to the core's fields. ``here``: module name ->
    the rows of a module whose part has no such table, that the shared file keeps for it."""
    here = here or {}
    found = {p.__name__: p for p in parts(part)}
    rows = []
    for name, pkg in BUNDLED.items():
        own = getattr(found.get(f"{pkg}.{part}"), table, None)
        rows += own if own is not None else here.get(name, ())
    return rows

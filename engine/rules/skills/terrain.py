"""Heavyweight and Multiterrain (seed 003): how a unit moves over gates and difficult terrain.

The board (``skirmish.engine.board``) has the terrain: water ``~``, desert ``:``, mountain ``^``,
jungle ``%`` and zero-g ``0`` are difficult (2 movement a cell for every unit); a narrow gate
``n`` is entered and left orthogonally only, a wide gate ``w`` is passable. A unit's own way of
moving is its ``Gait``, given to every way of moving by the module's ``gait`` hook
(``registry.reachable``):

- **Multiterrain**: "can move normally through the Type of Terrain of their choosing": the
  chosen terrain costs 1. "Before deploying, the user must choose ... only one single Type of
  Terrain ... If the Troop Profile includes a list ... only choose from that list": a profile's
  ``multiterrain`` (any of the five) or ``multiterrain water/jungle`` (those) asks the choice, a
  ``terrain`` decision, right after the unit's placement in the deployment phase ("You must
  declare the user's chosen Type of Terrain when you deploy him"); such a unit must deploy (a
  mission error otherwise). ``multiterrain jungle``, one type, needs no choice.
- **Heavyweight**: "cannot cross Narrow Gates": a narrow gate is never entered; "The Movement
  ... ends automatically whenever he passes through a Wide Gate ... placed on the far side ...
  in base to base contact with it": the step out of a wide gate is the movement's last, and a
  move never ends in the gate (adapted: the gate is a cell, the far side the cell beyond it).
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import catalog
from skirmish.engine.rules.skills.events import TerrainChosen

# Multiterrain's Types of Terrain -> the board's character for it
CHARS = {"water": "~", "desert": ":", "mountain": "^", "jungle": "%", "zero-g": "0"}
assert set(CHARS) == set(catalog.TERRAINS) and set(CHARS.values()) <= geo.DIFFICULT


def level(unit: Unit, name: str) -> str | None:
    """The level of skill ``name`` on ``unit`` ("" for none), None without it."""
    for entry in unit.skills:
        n, lv = catalog.split(entry)
        if n == name:
            return lv
    return None


def choices(unit: Unit) -> tuple[str, ...]:
    """The Types of Terrain ``unit``'s Multiterrain may choose from (() without it)."""
    lv = level(unit, "multiterrain")
    if lv is None:
        return ()
    return tuple(lv.split("/")) if lv else catalog.TERRAINS


def chosen(state: State, unit: Unit) -> str:
    """The unit's Type of Terrain: its only choice, or the one it chose ("" none yet / none)."""
    options = choices(unit)
    if len(options) == 1:
        return options[0]
    return next((t for u, t in state.terrains if u == unit.id), "")


def gait(state: State, unit: Unit) -> geo.Gait | None:
    terrain = chosen(state, unit) if unit.skills else ""
    heavy = bool(unit.skills) and level(unit, "heavyweight") is not None
    if not terrain and not heavy:
        return None
    return geo.Gait(easy=frozenset(CHARS[terrain]) if terrain else frozenset(), heavy=heavy)


def after_deploy(ctx: Context, uid: str) -> None:
    """Multiterrain with a choice: the Type of Terrain is declared when the unit deploys."""
    unit = ctx.state.units[uid]
    options = choices(unit)
    if len(options) > 1 and not chosen(ctx.state, unit):
        ctx.ask(unit.side, "terrain", [("terrain", uid, t) for t in options], unit=uid)


def answer(ctx: Context, option: Option) -> None:
    ctx.emit(TerrainChosen(unit=option[1], terrain=option[2]))


def check(spec, fail) -> None:
    """A unit whose Multiterrain has a choice deploys (it chooses when it deploys)."""
    for i, u in enumerate(spec.units):
        p = spec.profiles.get(u.profile)
        if p is None or u.deploy:
            continue
        for entry in p.skills:
            name, lv = catalog.parse(entry)
            if name == "multiterrain" and (not lv or "/" in lv):
                fail(f"units[{i}].deploy", f"its Multiterrain {lv or '(any terrain)'} chooses a Type of Terrain when "
                                           "the unit deploys (seed 003): set deploy = true, or name one terrain")

"""MetaChemistry (seed 003, "METACHEMISTRY", Deployment Skill, Optional) and what its table grants
(docs/rules.md, seed 003, "The Deployment Skills").

"Immediately after placing each of your troopers with MetaChemistry on the table for deployment,
you may roll on the MetaChemistry Table once": whenever the game is idle before round 1 (after
each placement of the deployment phase, its Infiltration Roll and any new placement included; at
the start for a unit the mission places), the side of the first unit on the table with the skill
and no roll yet is asked (decision ``metachemistry``: ``("roll",)``, the time-out default, as
every row helps, or ``("decline",)``). Rolled: a d20 (purpose ``metachemistry``) and a
``MetaChemistryRolled`` naming the row, which ``grant`` applies to the unit for the whole game.

Each row's smallest *adapted* effect here (*Infinity* defines them, seed 003 only names them):

- **Natural Armor** (+1 ARM): +1 Resistance (ARM is Resistance; and +1 to a profile's own ARM).
- **V: Dogged**, **V: No Wound Incapacitation**: ``skirmish.engine.rules.skills.dogged``.
- **Bioimmunity**: Shock Special Ammunition treated as Normal (``ammunition.IMMUNE``): this game
  has no BTS and no biological ammunition to choose an ARM or BTS save against; Shock, which
  kills the wounded outright, is the nearest harm a biological immunity stops.
- **Enhanced Mobility** (MOV 8-4): +2 cells to the Movement Minor Action (``movement_bonus``):
  *Infinity*'s 4-4 to 8-4 moves 12" an Order instead of 8", half as far again; the Movement's
  Medium range is 4 cells.
- **Reinforced Biotech** (+6 BTS): a Hacking Program at the unit rolls at -6 (``biotech_mods``,
  read by ``comms.act``): BTS is what a Comms Attack must beat; seed 001 has none, so it is the
  attacker's MOD, as *Infinity*'s earlier editions applied it.
- **Enhanced Physique** (+3 PH): +3 PH (its PH Rolls: Infiltration, Regeneration).
- **Sixth Sense L2**: no surprise: an attack on the unit gains nothing from a Create Advantage
  against it (``attack_difficulty`` gives the step back); *Infinity*'s Surprise Attack MOD and
  reacting without LoF need hidden markers (issue 15).
- **Regeneration**: the skill (``regeneration.py``; its Shock Immunity too).
- **Super-Jump**: its Movement may jump over blocking cells and other units (each cell 1),
  ending on a free cell it could enter (``turn_options``: the cells the core's Movement misses).
- **Climbing Plus**: its Movement may climb over blocking cells (each cell 2, as difficult
  terrain), not through units, ending on a free cell it could enter.
- **Total Immunity**: the skill Immunity (Total) (``ammunition.IMMUNE``).

A row that grants a skill the unit has already changes nothing (*house rule*: the seed gives no
second roll). The skills are added to ``Unit.skills`` (shown with the unit); the MODs change its
numbers.
"""

from __future__ import annotations

import msgspec

from skirmish.engine import board as geo
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules import registry
from skirmish.engine.rules.skills.events import MetaChemistryRolled
from skirmish.engine.rules.skills.metatable import TABLE, row_of

__all__ = ["TABLE", "row_of"]  # the table's home is metatable.py (plain data: evolve reads it)

SKILL = "metachemistry"
PURPOSE = "metachemistry"  # the d20's purpose
MOBILITY = 2  # Enhanced Mobility's cells
BIOTECH_MOD = -6  # Reinforced Biotech's MOD to a Hacking Program at the unit


# -- the roll -------------------------------------------------------------------------------------


def waiting(state: State) -> Unit | None:
    """The first unit on the table with MetaChemistry and no roll yet, before round 1."""
    if not state.started or state.round != 0 or state.outcome is not None:
        return None
    done = {uid for uid, _ in state.metachemistry}
    return next((u for u in state.units.values()
                 if SKILL in u.skills and u.deployed and not u.dead and u.id not in done), None)


def on_idle(ctx) -> bool:
    """Ask for the next MetaChemistry roll; True if it asked."""
    unit = waiting(ctx.state)
    if unit is None:
        return False
    ctx.ask(unit.side, "metachemistry", [("roll",), ("decline",)], unit=unit.id)
    return True


def answer(ctx, option: Option) -> None:
    unit = waiting(ctx.state)  # the unit the decision was about (the same rule chose it)
    if option[0] == "decline":
        ctx.emit(MetaChemistryRolled(unit=unit.id, die=0, row=""))
        return
    die = ctx.roll(20, 1, PURPOSE, unit=unit.id)[0]
    ctx.emit(MetaChemistryRolled(unit=unit.id, die=die, row=row_of(die)))


# -- what the rows do -----------------------------------------------------------------------------


def movement_bonus(state: State, unit: Unit) -> int:
    return MOBILITY if "enhanced mobility" in unit.skills else 0


def attack_difficulty(state: State, attacker: Unit, target: Unit) -> int:
    """Sixth Sense L2: a Create Advantage against the target (the core's -1) gives nothing."""
    return 1 if target.exposed and "sixth sense 2" in target.skills else 0


def biotech_mods(target: Unit) -> tuple[tuple[str, int], ...]:
    return (("Reinforced Biotech", BIOTECH_MOD),) if "reinforced biotech" in target.skills else ()


def _may_move(state: State, unit: Unit) -> bool:
    """The core's conditions for the Movement Minor Action (``actions.minor_options``)."""
    t = state.turn
    return (t is not None and t.unit == unit.id and "move" not in t.minors and t.task != "sprint"
            and state.momentum[unit.side] >= len(t.minors)  # the Minor Action's cost (actions.minor_cost)
            and not unit.prone and not unit.incapacitated and registry.allows(state, "can_move", unit))


def jump_cells(state: State, unit: Unit) -> set[tuple[int, int]]:
    """The cells Super-Jump or Climbing Plus reach in one Movement (empty without them)."""
    jump, climb = "super-jump" in unit.skills, "climbing plus" in unit.skills
    if not (jump or climb) or not _may_move(state, unit):
        return set()
    b = state.board
    others = {(u.x, u.y) for u in state.units.values() if not u.dead and u.id != unit.id and u.deployed}
    over = "." if jump else "%"  # a blocking cell costs 1 to jump, 2 to climb
    board = msgspec.structs.replace(b, cells="".join(over if c in geo.BLOCKING else c for c in b.cells))
    budget = b.medium + registry.bonus(state, "movement_bonus", unit)
    cells = geo.reachable(board, (unit.x, unit.y), budget, set() if jump else others)
    return {c for c in cells if c not in others and geo.terrain(b, *c) not in geo.BLOCKING}


def turn_options(state: State, unit: Unit, options: list) -> list:
    """Super-Jump and Climbing Plus: the Movement's cells the core's path misses."""
    extra = jump_cells(state, unit)
    if not extra:
        return options
    have = {(o[1], o[2]) for o in options if o[0] == "move"}
    return options + [("move", x, y) for x, y in sorted(extra - have, key=lambda c: (c[1], c[0]))]

"""The MetaChemistry Table (seed 003, "METACHEMISTRY"): its rows and what each does to a unit's
profile (plain data and a pure function: ``skirmish.engine.rules.skills.evolve`` applies a roll with
``grant``; ``skirmish.engine.rules.skills.metachemistry`` says what each row means in play)."""

from __future__ import annotations

from typing import NamedTuple

from skirmish.engine.rules.skills import attributes

ARMOR = 1  # Natural Armor: +1 ARM
PHYSIQUE = 3  # Enhanced Physique: +3 PH


class Row(NamedTuple):
    low: int
    high: int
    name: str  # as the seed prints it


# row key (a skill's canonical entry, or a MOD's name) -> its dice and name, in the seed's order
TABLE: dict[str, Row] = {
    "natural armor": Row(1, 3, "Natural Armor (+1 ARM)"),
    "v: dogged": Row(4, 5, "V: Dogged"),
    "bioimmunity": Row(6, 6, "Bioimmunity"),
    "enhanced mobility": Row(7, 8, "Enhanced Mobility (MOV 8-4)"),
    "reinforced biotech": Row(9, 9, "Reinforced Biotech (+6 BTS)"),
    "enhanced physique": Row(10, 11, "Enhanced Physique (+3 PH)"),
    "v: no wound incapacitation": Row(12, 13, "V: No Wound Incapacitation"),
    "sixth sense 2": Row(14, 14, "Sixth Sense L2"),
    "regeneration": Row(15, 16, "Regeneration"),
    "super-jump": Row(17, 18, "Super-Jump"),
    "climbing plus": Row(19, 19, "Climbing Plus"),
    "immunity total": Row(20, 20, "Total Immunity"),
}
MODS = ("natural armor", "enhanced physique")  # rows that change numbers, not skills


def row_of(die: int) -> str:
    return next(key for key, r in TABLE.items() if r.low <= die <= r.high)


def grant(unit, row: str) -> None:
    """Apply ``row`` to ``unit`` (evolve: ``MetaChemistryRolled``)."""
    if row == "natural armor":
        unit.resistance += ARMOR
        if unit.arm is not None:
            unit.arm += ARMOR
    elif row == "enhanced physique":
        unit.ph = attributes.value(unit, "ph") + PHYSIQUE
    else:
        unit.skills = tuple(sorted(set(unit.skills) | {row}))

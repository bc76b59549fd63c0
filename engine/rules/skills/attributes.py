"""seed 003's attributes from the canonical stat block (RULES-BRIEF "Units and their numbers").

WIP, PH, BS and CC are rolled d20 at or under (``skirmish.engine.rules.skills.rolls``). Each is an
Attribute + Discipline pair of seed 001 unless the profile gives it (``docs/rules.md``, seed 003,
"The attributes"); ARM is the unit's Resistance unless given.
"""

from __future__ import annotations

# attribute -> (seed 001 Attribute, Discipline): the pair of a seed 001 Task that does the same work
DERIVED: dict[str, tuple[str, str]] = {
    "wip": ("presence", "command"),  # Willpower: Presence is seed 001's "willpower", Command leading others
    "ph": ("fitness", "security"),  # Physique: seed 001's Sprint Task (Fitness + Security)
    "bs": ("control", "security"),  # Ballistic Skill: seed 001's ranged attack (Control + Security)
    "cc": ("daring", "security"),  # Close Combat: seed 001's melee attack (Daring + Security)
}
ATTRIBUTES = ("wip", "ph", "bs", "cc", "arm")
NAMES = {"wip": "WIP", "ph": "PH", "bs": "BS", "cc": "CC", "arm": "ARM"}


def derived(unit, name: str) -> int:
    """The formula's value, whatever the profile says."""
    if name == "arm":
        return unit.resistance
    attribute, discipline = DERIVED[name]
    return getattr(unit.stats, attribute) + getattr(unit.stats, discipline)


def value(unit, name: str) -> int:
    """The unit's ``name`` attribute: the profile's, else the formula's."""
    given = getattr(unit, name)
    return derived(unit, name) if given is None else given

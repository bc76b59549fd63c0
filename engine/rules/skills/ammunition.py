"""Special Ammunition and the Immunities (seed 003: Immunity, Marksmanship L1, Regeneration's
"IMPORTANT!"; issue 14, "What the skills refer to"), adapted onto seed 001's damage and Injuries.

Seed 003 names the Special Ammunitions without defining them (they are the rulebook's); each is
the smallest adapted form of what it does in *Infinity* N3, on seed 001 steps 5-7 (*house rules*,
listed in docs/rules.md, seed 003, "Special Ammunition"):

- **Normal**: the core's damage.
- **Shock**: a Lethal attack that causes an Injury causes one more (*Infinity*: the target skips
  Unconscious and is Dead). Not against a TAG or REM (their Structure is not Wounds).
- **AP**: the victim's Resistance, cover dice included, is halved, rounded up (*Infinity*: ARM halved).
- **DA** / **EXP**: two / three damage rolls, each reduced by the same Resistance (two / three ARM rolls).
- **Fire**: while a damage roll gets through the Resistance, roll again, up to ``FIRE_REPEATS``
  more times (*Infinity*: repeat the ARM roll until it is passed; the cap keeps a game finite).

A weapon's ammunition is its ``ammo`` (a mission's ``[weapons]`` field); Marksmanship L1 adds
Shock to the user's BS Weapons. Immunity (Shock) and Regeneration treat Shock as Normal;
Immunity (Total) treats all of them as Normal. An ``AmmunitionUsed`` event names what the hit
used and what the victim ignored; the damage rolls of the extra hits have purpose
``damage:<ammo>``.
"""

from __future__ import annotations

from skirmish.engine.rules.registry import Hit
from skirmish.engine.rules.skills.events import AmmunitionUsed

AMMO = ("normal", "shock", "ap", "da", "exp", "fire")
NAMES = {"normal": "Normal", "shock": "Shock", "ap": "AP", "da": "DA", "exp": "EXP", "fire": "Fire"}
FIRE_REPEATS = 3
STRUCTURE = ("TAG", "REM")  # Troop Types with Structure, not Wounds: Shock does nothing to them
TOTAL = ("shock", "ap", "da", "exp", "fire")  # Immunity (Total): "AP, DA, EXP, Fire, ..., Shock"

# a skill the victim has -> the ammunition it treats as Normal
IMMUNE: dict[str, tuple[str, ...]] = {
    "immunity shock": ("shock",),
    "regeneration": ("shock",),  # "Regeneration automatically grants its user the Shock Immunity"
    "immunity total": TOTAL,
    "bioimmunity": ("shock",),  # MetaChemistry's Bioimmunity (skills/metachemistry.py)
}


def canonical(name: str) -> str:
    return " ".join(str(name).lower().split())


def immune_to(unit) -> frozenset[str]:
    """The Special Ammunitions ``unit`` treats as Normal Ammunition."""
    return frozenset(a for skill in unit.skills for a in IMMUNE.get(skill, ()))


def hit(ammo, unit, lethal: bool) -> tuple[Hit, tuple[str, ...]]:
    """The ``Hit`` of ammunition ``ammo`` against ``unit`` (a Lethal attack or not), and the
    ammunition that counted."""
    counted = tuple(a for a in AMMO if a in ammo and a != "normal" and a not in immune_to(unit))
    rolls = 3 if "exp" in counted else 2 if "da" in counted else 1
    shock = "shock" in counted and lethal and unit.troop_type not in STRUCTURE
    return Hit(rolls=rolls, halve_resistance="ap" in counted, repeat=FIRE_REPEATS if "fire" in counted else 0,
               extra_injuries=1 if shock else 0, why="+".join(counted)), counted


def hit_effects(ctx, f, winner, victim, weapon, extra: tuple[str, ...] = ()) -> Hit | None:
    """The skills module's ``hit_effects``: the weapon's ammunition plus ``extra`` (Marksmanship's
    Shock); None for Normal Ammunition (the core's damage, no event)."""
    ammo = tuple(weapon.ammo) + tuple(extra)
    if not any(a != "normal" for a in ammo):
        return None
    h, counted = hit(ammo, victim, f.lethal)
    ignored = tuple(a for a in AMMO if a in ammo and a in immune_to(victim))
    ctx.emit(AmmunitionUsed(unit=winner.id, target=victim.id, ammo=tuple(a for a in AMMO if a in ammo),
                            counted=counted, ignored=ignored))
    return h

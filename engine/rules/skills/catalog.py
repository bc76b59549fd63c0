"""The Special Skills a profile may carry (seed 003, *Infinity* N3 pp. 80-89), their levels, and
the other profile words of seed 003: Troop Types, Silhouette, Training.

Plain data and pure functions (no engine import): ``skirmish.engine.mission`` reads a profile's
``skills`` through ``skirmish.engine.rules.skills.mission``, which checks each entry here.

A profile writes a skill as its name, then its level if it has levels: ``"heavyweight"``,
``"infiltrate 1"``, ``"marksmanship x"``, ``"immunity shock"``, ``"multiterrain jungle"``. Case
and spacing do not matter, and a level may be written ``L1`` / ``LX`` as the seed prints it. The
canonical form (``canonical``) is lower case, one space: what ``Unit.skills`` holds, sorted.
"""

from __future__ import annotations

from typing import NamedTuple

# seed 003's kinds of Special Skill (the label under each skill's title)
AUTOMATIC = "automatic skill"
DEPLOYMENT = "deployment skill"
ENTIRE_ORDER = "entire order"


class Skill(NamedTuple):
    name: str  # canonical: lower case
    kind: str  # AUTOMATIC, DEPLOYMENT or ENTIRE_ORDER (seed 003's label)
    levels: tuple[str, ...] = ("",)  # the levels the seed gives; "" is a skill without levels
    default: str = ""  # the level of the bare name: "lieutenant" is Lieutenant L1
    several: bool = False  # a profile may carry more than one of its levels (the Immunities)
    subset: bool = False  # a level may name several of the choices, joined by "/" (Multiterrain)
    seed: bool = True  # one of the nineteen of seed 003; False: a skill they refer to (see REFERRED)


TERRAINS = ("water", "desert", "mountain", "jungle", "zero-g")  # Multiterrain's Types of Terrain

# The nineteen Special Skills of seed 003, in the seed's order.
SKILLS: dict[str, Skill] = {s.name: s for s in (
    Skill("heavyweight", AUTOMATIC),
    Skill("impersonation", DEPLOYMENT, ("1", "2")),
    Skill("infiltrate", DEPLOYMENT, ("0", "1", "2")),
    Skill("immunity", AUTOMATIC, ("possession", "shock", "total"), several=True),
    Skill("inspiring leadership", AUTOMATIC),
    Skill("kinematika", AUTOMATIC, ("1", "2")),
    Skill("lieutenant", AUTOMATIC, ("1",), default="1"),
    Skill("manned", AUTOMATIC),
    Skill("marksmanship", AUTOMATIC, ("1", "2", "x"), several=True),
    Skill("mechanized deployment", DEPLOYMENT, ("1",), default="1"),
    Skill("metachemistry", DEPLOYMENT),
    Skill("morat", AUTOMATIC),
    Skill("multiterrain", AUTOMATIC, ("",) + TERRAINS, subset=True),
    Skill("non-hackable", AUTOMATIC),
    Skill("paramedic", AUTOMATIC),
    Skill("pilot", AUTOMATIC),
    Skill("regeneration", ENTIRE_ORDER),
    Skill("religious troop", AUTOMATIC),
    Skill("sat-lock", ENTIRE_ORDER),
)}
assert len(SKILLS) == 19

# Skills the nineteen refer to that seed 003 does not define (issue 14, "What the skills refer
# to"): a profile may carry them so that a skill needing them can be used (Sat-Lock needs Forward
# Observer and Sensor; Morat is Veteran L1 and Religious Troop; MetaChemistry rolls V: Dogged).
REFERRED: dict[str, Skill] = {s.name: s for s in (
    Skill("forward observer", AUTOMATIC, seed=False),
    Skill("sensor", AUTOMATIC, seed=False),
    Skill("veteran", AUTOMATIC, ("1", "2"), seed=False),
    Skill("v: courage", AUTOMATIC, seed=False),
    Skill("v: dogged", AUTOMATIC, seed=False),
    Skill("hacker", AUTOMATIC, seed=False),  # the minimal hacking's Hacking Programs (skills/comms.py)
    # the MetaChemistry Table's rows that are skills or MODs (skills/metachemistry.py: TABLE)
    Skill("v: no wound incapacitation", AUTOMATIC, seed=False),
    Skill("bioimmunity", AUTOMATIC, seed=False),
    Skill("enhanced mobility", AUTOMATIC, seed=False),
    Skill("reinforced biotech", AUTOMATIC, seed=False),
    Skill("sixth sense", AUTOMATIC, ("2",), default="2", seed=False),
    Skill("super-jump", AUTOMATIC, seed=False),
    Skill("climbing plus", AUTOMATIC, seed=False),
    Skill("dodge", AUTOMATIC, seed=False),  # the reactions (AROs) seed 003 names: where a profile grants them
    Skill("engage", AUTOMATIC, seed=False),  # (skills/reactions.py; Discover comes with issue 15)
    Skill("change facing", AUTOMATIC, seed=False),
    Skill("hidden deployment", DEPLOYMENT, seed=False),
    Skill("camouflage", DEPLOYMENT, seed=False),  # a Camouflage marker (skills/camouflage.py)  # Camouflage and Hiding's option (skills/hidden_deployment.py)
)}

KNOWN: dict[str, Skill] = {**SKILLS, **REFERRED}
_BY_LENGTH = sorted(KNOWN, key=len, reverse=True)  # "v: courage" before a shorter name it starts with

TROOP_TYPES = ("LI", "MI", "HI", "TAG", "REM", "SK", "WB")  # Light, Medium, Heavy Infantry, TAG, Remote, Skirmisher, Warband
TRAININGS = ("regular", "irregular")
SILHOUETTES = range(1, 9)  # S1 .. S8


class SkillError(ValueError):
    """A profile's skill entry that is not a skill of the catalog at one of its levels."""


def _level(skill: Skill, text: str) -> str:
    """The canonical level of ``skill`` written ``text`` (``""``: the bare name)."""
    level = text.removeprefix("level ").strip()
    if level[:1] == "l" and level[1:] and level[1:] in skill.levels:
        level = level[1:]  # "L1", "LX" as the seed prints them
    if not level:
        if skill.default:
            return skill.default
        if "" in skill.levels:
            return ""
        raise SkillError(f"{skill.name} needs a level: {_levels(skill)}")
    if skill.subset:
        parts = [p.strip() for p in level.split("/")]
        bad = [p for p in parts if p not in skill.levels or not p]
        if bad or len(set(parts)) != len(parts):
            raise SkillError(f"{skill.name} {level!r}: the level is one or more of {', '.join(x for x in skill.levels if x)} "
                             f"joined by '/'")
        return "/".join(p for p in skill.levels if p in parts)
    if level not in skill.levels:
        raise SkillError(f"{skill.name} has no level {level!r}: {_levels(skill)}")
    return level


def _levels(skill: Skill) -> str:
    named = [x for x in skill.levels if x]
    if not named:
        return "it has no levels"
    return "its levels are " + ", ".join(named) + (" (or none)" if "" in skill.levels else "")


def parse(text: str) -> tuple[str, str]:
    """``(name, level)`` of a profile's skill entry; ``SkillError`` naming what is wrong."""
    words = " ".join(str(text).lower().split())
    for name in _BY_LENGTH:
        if words == name or words.startswith(name + " "):
            return name, _level(KNOWN[name], words[len(name):].strip())
    raise SkillError(f"{text!r} is not a skill; the Special Skills are: {', '.join(SKILLS)} "
                     f"(and those they refer to: {', '.join(REFERRED)})")


def canonical(name: str, level: str) -> str:
    return f"{name} {level}" if level else name


def check_list(entries) -> tuple[str, ...]:
    """The canonical, sorted skills of a profile's ``skills`` list; ``SkillError`` (with the
    index of the bad entry as ``.index``) for an unknown skill or level, or a skill listed twice
    (the same level twice, or two levels of a skill that a profile carries one of)."""
    seen: dict[str, list[str]] = {}
    out = []
    for i, text in enumerate(entries):
        try:
            name, level = parse(text)
            taken = seen.setdefault(name, [])
            if level in taken:
                raise SkillError(f"{canonical(name, level)!r} is listed twice")
            if taken and not KNOWN[name].several:
                raise SkillError(f"{name} is listed twice ({canonical(name, taken[0])!r} and {canonical(name, level)!r}): "
                                 "a profile has one level of it")
            if name == "marksmanship" and level != "x" and any(t != "x" for t in taken):
                raise SkillError("marksmanship has one numbered level (1 or 2) on a profile, besides LX")
        except SkillError as exc:
            exc.index = i
            raise
        taken.append(level)
        out.append(canonical(name, level))
    return tuple(sorted(out))


def split(entry: str) -> tuple[str, str]:
    """A canonical entry of ``Unit.skills`` back into ``(name, level)``."""
    for name in _BY_LENGTH:
        if entry == name or entry.startswith(name + " "):
            return name, entry[len(name):].strip()
    raise KeyError(entry)

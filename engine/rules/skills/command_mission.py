"""The mission checks of Lieutenant L1 and Inspiring Leadership (seed 003; docs/rules.md, seed 003,
"Command and courage"): plain data, no engine rules imported (``skirmish.engine.rules.skills.mission``
calls ``check`` for every mission with the module on)."""

from __future__ import annotations

from skirmish.engine.model import SIDES
from skirmish.engine.rules.skills import catalog

LIEUTENANT = "lieutenant 1"
LEADERSHIP = "inspiring leadership"


def check(spec, fail) -> None:
    """Lieutenant: "You must field exactly one single trooper with this Special Skill" / "Your Army
    List cannot include more than one" -- when a mission uses the skill (a mission without it has
    no Lieutenants); Inspiring Leadership: "the user must be his army's Lieutenant"."""
    skills = {}
    for key, p in spec.profiles.items():
        try:
            skills[key] = catalog.check_list(p.skills)
        except catalog.SkillError:
            skills[key] = ()  # reported by the profile's own check
    chosen = candidates(spec)
    if _check_candidates(spec, skills, chosen, fail):
        return
    for key, have in skills.items():
        if LEADERSHIP in have and LIEUTENANT not in have:
            fail(f"profiles.{key}.skills", "inspiring leadership needs lieutenant on the same profile: "
                                           "its user must be his army's Lieutenant (seed 003)")
    lts = {side: [i for i, u in enumerate(spec.units) if u.side == side and LIEUTENANT in skills.get(u.profile, ())]
           for side in SIDES}
    if not any(lts.values()):
        return
    for side in SIDES:
        if len(lts[side]) != 1:
            where = f"units[{lts[side][1]}].profile" if lts[side] else "units"
            fail(where, f"side {side} fields {len(lts[side])} Lieutenants: with the skill in use, each side "
                        f"fields exactly one (seed 003, Lieutenant L1)")


def candidates(spec) -> dict[str, tuple[str, ...]]:
    """The mission's ``[skills] lieutenant_candidates``: side -> unit ids, in the mission's order
    ({} without: the Lieutenant, if any, is fixed by the profiles)."""
    table = getattr(spec, "skills", None)
    named = table.lieutenant_candidates if table is not None else {}
    return {side: tuple(named[side]) for side in SIDES if side in named}


def _check_candidates(spec, skills: dict, chosen: dict, fail) -> bool:
    """The Lieutenant as Private Information (skills/private.py): each side names at least two of
    its own units, once each; no profile fixes a Lieutenant; Inspiring Leadership only on a
    candidate's profile ("whether chosen during the creation of the Army List or appointed during
    the battle"). False: the mission names no candidates."""
    named = getattr(spec.skills, "lieutenant_candidates", {}) if spec.skills is not None else {}
    if not named:
        return False
    sides = {u.id: u.side for u in spec.units}
    for side in named:
        if side not in SIDES:
            fail(f"skills.lieutenant_candidates.{side}", f"a side is one of {', '.join(SIDES)}")
    for side in SIDES:
        ids = named.get(side, [])
        where = f"skills.lieutenant_candidates.{side}"
        if len(set(ids)) < 2 or len(set(ids)) != len(ids):
            fail(where, f"side {side} names at least two candidates, each once: with one the Lieutenant "
                        f"would be public (seed 003: Private Information)")
        for i, uid in enumerate(ids):
            if sides.get(uid) != side:
                fail(f"{where}[{i}]", f"{uid!r} is not a unit of side {side}")
    for key, have in skills.items():
        if LIEUTENANT in have:
            fail(f"profiles.{key}.skills", "with lieutenant_candidates each side chooses its Lieutenant in private: "
                                           "no profile carries lieutenant (seed 003: Private Information)")
    named_ids = {uid for ids in named.values() for uid in ids}
    for i, u in enumerate(spec.units):
        if LEADERSHIP in skills.get(u.profile, ()) and u.id not in named_ids:
            fail(f"units[{i}].profile", "inspiring leadership needs its user to be a Lieutenant candidate: "
                                        "its user must be his army's Lieutenant (seed 003)")
    return True

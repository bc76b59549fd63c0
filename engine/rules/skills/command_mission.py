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

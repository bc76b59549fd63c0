"""The mission fields of Manned and Pilot and of the specialist objectives (skills/manned.py,
skills/specialists.py): their checks, each a ``MissionError`` naming the field.

- ``pilot = "KEY"`` on a profile: only on a Manned one; KEY a profile carrying the Pilot skill.
  (*adapted*: a Manned profile may leave it out -- a TAG whose crew never leaves it --, then it has
  nothing to dismount.)
- ``aboard = "ID"`` on a ``[[units]]`` entry: the unit is a Pilot that starts aboard the Manned unit
  ID, of its side, whose profile names this unit's as its ``pilot``; one Pilot per Manned unit; a
  Pilot does not deploy (it deploys with its vehicle). Each unit of a Manned profile with a
  ``pilot`` has its Pilot aboard, and every unit with the Pilot skill is aboard one.
- ``[skills] specialist_objectives``: ids of the mission's objectives, each secured by Interact
  (*house rule*: an objective's Other Task can be Directed, and a Direct's Task is the core's).
"""

from __future__ import annotations

MANNED = "manned"
PILOT = "pilot"


def _skills(profile) -> set[str]:
    return {" ".join(s.lower().split()) for s in profile.skills}


def check(spec, fail) -> None:
    for key, p in spec.profiles.items():
        skills = _skills(p)
        if p.pilot and MANNED not in skills:
            fail(f"profiles.{key}.pilot", "only a Manned profile has a Pilot profile (seed 003)")
        if p.pilot and (p.pilot not in spec.profiles or PILOT not in _skills(spec.profiles[p.pilot])):
            fail(f"profiles.{key}.pilot", f"{p.pilot!r} is not a profile with the Pilot skill")
    units = {u.id: (i, u) for i, u in enumerate(spec.units)}
    seated: dict[str, str] = {}
    for i, u in enumerate(spec.units):
        profile = spec.profiles.get(u.profile)
        if profile is not None and PILOT in _skills(profile) and not u.aboard:
            fail(f"units[{i}].aboard", "a unit with the Pilot skill is the Pilot of a Manned unit: name it")
        if not u.aboard:
            continue
        _, v = units.get(u.aboard, (0, None))
        vp = spec.profiles.get(v.profile) if v is not None else None
        if v is None or vp is None or vp.pilot != u.profile or v.side != u.side:
            fail(f"units[{i}].aboard", f"{u.aboard!r} is not a Manned unit of side {u.side} whose profile's "
                                       f"pilot is {u.profile!r}")
        if u.aboard in seated:
            fail(f"units[{i}].aboard", f"{u.aboard} already has its Pilot {seated[u.aboard]}")
        if u.deploy:
            fail(f"units[{i}].deploy", "a Pilot deploys aboard its Manned unit")
        seated[u.aboard] = u.id
    for i, u in enumerate(spec.units):
        profile = spec.profiles.get(u.profile)
        if profile is not None and profile.pilot and u.id not in seated:
            fail(f"units[{i}]", f"a unit of a Manned profile with a pilot needs its Pilot: a [[units]] entry "
                                f"with aboard = {u.id!r}")


def specialist_objectives(spec, fail) -> tuple[str, ...]:
    table = spec.skills
    if table is None:
        return ()
    ids = {o.id: o for o in spec.objectives}
    for i, oid in enumerate(table.specialist_objectives):
        if oid not in ids:
            fail(f"skills.specialist_objectives[{i}]", f"no objective {oid!r}")
        if ids[oid].task is not None:
            fail(f"skills.specialist_objectives[{i}]", f"{oid} has a task: a specialist objective is secured by Interact")
    return tuple(sorted(set(table.specialist_objectives)))

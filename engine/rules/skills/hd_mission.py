"""Hidden Deployment's and Camouflage's mission checks (skills/hidden_deployment.py): a ``[[units]]`` entry's
``hidden = true`` needs the ``hidden deployment`` skill on its profile, is never the public
commander, a Pilot or a Lieutenant candidate (each would name it in public), and its side's
deployment zone must have a free cell for it (docs/missions.md, "Skills module fields")."""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.model import SIDES
from skirmish.engine.rules.skills import catalog

SKILL = "hidden deployment"


def check(spec, fail) -> None:
    named = getattr(spec.skills, "lieutenant_candidates", {}) if spec.skills is not None else {}
    candidates = {uid for ids in named.values() for uid in ids}
    for i, u in enumerate(spec.units):
        if u.camouflage:
            _check_marker(spec, i, u, candidates, fail)
        if not u.hidden:
            continue
        where = f"units[{i}].hidden"
        profile = spec.profiles.get(u.profile)
        if profile is not None and SKILL not in catalog.check_list(profile.skills):
            fail(where, f"a unit deploys hidden only with the {SKILL!r} skill on its profile ({u.profile!r})")
        if u.commander:
            fail(where, "the commander is public (Direct, the Team Command Value): it cannot deploy hidden")
        if u.aboard:
            fail(where, "a Pilot starts aboard its vehicle: it cannot deploy hidden")
        if u.deploy:
            fail(where, "a hidden unit is placed in private after the deployment phase, not in it: drop deploy")
        if u.id in candidates:
            fail(where, "a Lieutenant candidate is named in public: it cannot deploy hidden")
    _check_zone(spec, fail)


def _check_marker(spec, i: int, u, candidates: set, fail) -> None:
    where = f"units[{i}].camouflage"
    profile = spec.profiles.get(u.profile)
    if profile is not None and "camouflage" not in catalog.check_list(profile.skills):
        fail(where, f"a unit deploys as a Camouflage marker only with the 'camouflage' skill on its profile ({u.profile!r})")
    if u.commander or u.aboard or u.hidden or u.id in candidates:
        fail(where, "a Camouflage marker is not the commander, a Pilot, a hidden unit or a Lieutenant candidate "
                    "(each would name it in public or take it off the table)")


def _check_zone(spec, fail) -> None:
    rows = [r.strip() for r in spec.board.map.strip("\n").split("\n")]
    fixed = {tuple(u.at) for u in spec.units if not (u.deploy or u.hidden)}
    for side in SIDES:
        mine = [i for i, u in enumerate(spec.units) if u.side == side and (u.deploy or u.hidden)]
        hidden = [i for i in mine if spec.units[i].hidden]
        if not hidden:
            continue
        free = {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row)
                if ch == side and (x, y) not in fixed and ch not in geo.BLOCKING}
        if len(free) < len(mine):
            fail(f"units[{hidden[0]}].hidden", f"side {side} places {len(mine)} units in its deployment zone "
                                              f"(hidden or deployed), but it has {len(free)} free cells")

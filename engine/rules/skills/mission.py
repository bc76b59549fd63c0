"""The skills module's mission fields (seed 003): a profile's skills, Troop Type, Silhouette, Training
and attributes, a unit's ``deploy``, a weapon's ``burst``; their checks and errors, and the
``Unit`` and ``Weapon`` fields they give (``skirmish.engine.mission`` appends ``PROFILE``, ``UNIT_SPEC`` and
``WEAPON_SPEC`` to its specs, and calls ``check``, ``unit_fields``, ``unit_spec_fields`` and
``weapon_fields`` for every mission). docs/missions.md, "Skills module fields", says it for
mission writers."""

from __future__ import annotations

import msgspec

from skirmish.engine import board as geo
from skirmish.engine.model import SIDES
from skirmish.engine.rules.skills import ammunition, catalog, pilots_mission, terrain
from skirmish.engine.rules.skills import command_mission, hd_mission
from skirmish.engine.rules.skills.attributes import ATTRIBUTES

MODULE = "skills"

# (name, type, default), as msgspec.defstruct takes them; each default is the Unit's (fields.py)
PROFILE = (
    ("skills", list[str], []),  # e.g. ["infiltrate 1", "immunity shock"]
    ("troop_type", str, "LI"),
    ("silhouette", int, 2),
    ("training", str, "regular"),
    ("wip", int | None, None),  # seed 003's attributes: derived unless given
    ("ph", int | None, None),
    ("bs", int | None, None),
    ("cc", int | None, None),
    ("arm", int | None, None),
    ("pilot", str, ""),  # Manned: the key of the profile of its Pilot, the alternative Troop Profile
)
UNIT_SPEC = (
    ("deploy", bool, False),  # placed in the deployment phase; ``at`` is then only its time-out cell
    ("aboard", str, ""),  # a Pilot: the id of the Manned unit it starts aboard (its ``at`` is not used)
    ("hidden", bool, False),  # deploys in Hidden Deployment (skills/hidden_deployment.py): ``at`` is its time-out cell
    ("camouflage", bool, False),  # deploys as a Camouflage marker at ``at`` (skills/camouflage.py)
)
WEAPON_SPEC = (
    ("burst", int, 1),  # B
    ("ammo", list[str], []),  # Special Ammunition, e.g. ["ap", "shock"] (skills/ammunition.py)
)



class SkillsSpec(msgspec.Struct, forbid_unknown_fields=True):
    """The mission's ``[skills]`` table as written (docs/missions.md)."""

    specialist_objectives: list[str] = []  # objectives only Specialist Troopers secure (skills/specialists.py)
    # side -> the units it may choose its Lieutenant from, in private (skills/private.py)
    lieutenant_candidates: dict[str, list[str]] = {}
    # the sides whose army is of a species alien to the other side's (Impersonation L1: skills/impersonation.py)
    alien: list[str] = []


# the mission file's tables the module reads: (name, type, default), as msgspec.defstruct takes them
TABLES = (
    ("skills", SkillsSpec | None, None),
)

ATTRIBUTE_MAX = 30  # d20 at or under: above 20 every roll passes (rolls.judge), MODs aside
ARM_MAX = 20
BURST_MAX = 6
REQUIRES = {"sat-lock": ("forward observer", "sensor")}  # a skill -> the skills it needs beside it
REQUIRES_ANY = {"kinematika": ("dodge", "engage")}  # a skill -> one of these beside it (skills/reactions.py)
_DEFAULTS = {name: default for name, _, default in PROFILE}


def check(spec, fail) -> None:
    """The module's fields: refused without the module; with it, each checked."""
    on = MODULE in spec.mission.modules
    if not on:
        _refuse_without(spec, fail)
        return
    for key, p in spec.profiles.items():
        _check_profile(f"profiles.{key}", p, fail)
    for key, w in spec.weapons.items():
        if not 1 <= w.burst <= BURST_MAX:
            fail(f"weapons.{key}.burst", f"a Burst (B) is 1..{BURST_MAX}, not {w.burst}")
        for i, ammo in enumerate(w.ammo):
            if ammunition.canonical(ammo) not in ammunition.AMMO:
                fail(f"weapons.{key}.ammo[{i}]", f"{ammo!r} is not a Special Ammunition: {', '.join(ammunition.AMMO)}")
    _check_deployment(spec, fail)
    command_mission.check(spec, fail)
    terrain.check(spec, fail)
    pilots_mission.check(spec, fail)
    hd_mission.check(spec, fail)
    _check_hidden_with_morale(spec, fail)


def _check_hidden_with_morale(spec, fail) -> None:
    """Impersonation beside the morale module is refused: a Command Token's re-roll of an
    impersonator's secret deployment roll would show the roll (no redaction covers it yet)."""
    if "morale" not in spec.mission.modules:
        return
    for i, u in enumerate(spec.units):
        p = spec.profiles.get(u.profile)
        if u.deploy and p is not None and any(str(k).startswith("impersonation") for k in p.skills):
            fail(f"units[{i}].profile", "an impersonator that deploys cannot play beside the morale module: a "
                                        "Command Token's re-roll would show its secret deployment roll")


def _refuse_without(spec, fail) -> None:
    why = f'only the skills module reads it: add "{MODULE}" to [mission] modules'
    for key, p in spec.profiles.items():
        for name, default in _DEFAULTS.items():
            if getattr(p, name) != default:
                fail(f"profiles.{key}.{name}", why)
    for key, w in spec.weapons.items():
        if w.burst != 1:
            fail(f"weapons.{key}.burst", why)
        if w.ammo:
            fail(f"weapons.{key}.ammo", why)
    for i, u in enumerate(spec.units):
        if u.deploy:
            fail(f"units[{i}].deploy", why)
        if u.hidden:
            fail(f"units[{i}].hidden", why)
        if u.camouflage:
            fail(f"units[{i}].camouflage", why)
        if u.aboard:
            fail(f"units[{i}].aboard", why)
    if spec.skills is not None:
        fail("skills", why)


def _check_profile(where: str, p, fail) -> None:
    try:
        skills = catalog.check_list(p.skills)
    except catalog.SkillError as exc:
        fail(f"{where}.skills[{exc.index}]", str(exc))
    for skill, needs in REQUIRES.items():
        if skill in skills and not set(needs) <= set(skills):
            fail(f"{where}.skills", f"{skill} needs {' and '.join(needs)} on the same profile (seed 003)")
    for skill, needs in REQUIRES_ANY.items():
        if any(catalog.split(s)[0] == skill for s in skills) and not set(needs) & set(skills):
            fail(f"{where}.skills", f"{skill} works only with the {' or '.join(needs).title()} reaction: "
                                    f"add {' or '.join(repr(n) for n in needs)} to the profile (seed 003)")
    if p.troop_type not in catalog.TROOP_TYPES:
        fail(f"{where}.troop_type", f"a Troop Type is one of {', '.join(catalog.TROOP_TYPES)}, not {p.troop_type!r}")
    if p.silhouette not in catalog.SILHOUETTES:
        fail(f"{where}.silhouette", f"a Silhouette is {catalog.SILHOUETTES[0]}..{catalog.SILHOUETTES[-1]}, "
                                    f"not {p.silhouette}")
    if p.training not in catalog.TRAININGS:
        fail(f"{where}.training", f"Training is {' or '.join(repr(t) for t in catalog.TRAININGS)}, not {p.training!r}")
    for name in ATTRIBUTES:
        value = getattr(p, name)
        top = ARM_MAX if name == "arm" else ATTRIBUTE_MAX
        low = 0 if name == "arm" else 1
        if value is not None and not low <= value <= top:
            fail(f"{where}.{name}", f"{name.upper()} is {low}..{top}, not {value}")


def _check_deployment(spec, fail) -> None:
    """Each side with units to deploy has a deployment zone with a free cell for each of them."""
    rows = [r.strip() for r in spec.board.map.strip("\n").split("\n")]
    zone = {side: {(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == side} for side in SIDES}
    fixed = {tuple(u.at) for u in spec.units if not u.deploy}
    for side in SIDES:
        deploying = [i for i, u in enumerate(spec.units) if u.deploy and u.side == side]
        if not deploying:
            continue
        where = f"units[{deploying[0]}].deploy"
        if not zone[side]:
            fail(where, f"side {side} deploys units, but the map has no deployment zone '{side}'")
        free = {c for c in zone[side] if c not in fixed and rows[c[1]][c[0]] not in geo.BLOCKING}
        if len(free) < len(deploying):
            fail(where, f"side {side} deploys {len(deploying)} units, but its deployment zone has "
                        f"{len(free)} free cells")


def unit_fields(p) -> dict:
    """The ``Unit`` fields (``skirmish.engine.rules.skills.fields``) a profile gives."""
    return {"skills": catalog.check_list(p.skills), "troop_type": p.troop_type, "silhouette": p.silhouette,
            "training": p.training, **{name: getattr(p, name) for name in ATTRIBUTES}}


def unit_spec_fields(u) -> dict:
    """The ``Unit`` fields a ``[[units]]`` entry gives: a unit that deploys starts undeployed."""
    return {"deployed": not (u.deploy or u.hidden), "vehicle": u.aboard, "hidden_deploy": u.hidden,
            "camouflaged": u.camouflage}


def weapon_fields(w) -> dict:
    """The ``Weapon`` fields (``skirmish.engine.rules.skills.fields``) a ``[weapons]`` entry gives."""
    return {"burst": w.burst, "ammo": tuple(sorted({ammunition.canonical(a) for a in w.ammo} - {"normal"}))}


def game_data(spec, made, fail) -> dict:
    """The ``[skills]`` table's ``CREATED`` fields (skirmish.engine.rules.skills.fields)."""
    return {"specialist_objectives": pilots_mission.specialist_objectives(spec, fail),
            "lt_candidates": command_mission.candidates(spec),
            "alien_sides": _alien(spec, fail)}


def _alien(spec, fail) -> tuple[str, ...]:
    table = getattr(spec, "skills", None)
    sides = tuple(sorted(set(table.alien))) if table is not None else ()
    for side in sides:
        if side not in ("a", "b"):
            fail("skills.alien", f"no side {side!r} (a or b)")
    return sides

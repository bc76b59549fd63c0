"""The morale module's mission fields (seed 004): a profile's pilot and size, their checks and errors,
and the unit fields they give (``skirmish.engine.mission`` calls ``check`` and ``unit_fields`` for every
mission, and appends ``PROFILE`` to its ``ProfileSpec``)."""

from __future__ import annotations

# (name, type, default), as msgspec.defstruct takes them; only with modules = ["morale"]
PROFILE = (
    ("endurance", int, 0),  # the pilot's Endurance (d6 in an Endurance test)
    ("morale", int, 0),  # the pilot's Morale (2d6 at or under it passes a Morale Test)
    ("size", int, 0),  # Size Class
    ("command_unit", bool, False),  # the "Command Unit" ability
)

MORALE_FIELDS = tuple(name for name, _, _ in PROFILE)
ENDURANCE_MAX = 10
MORALE_MAX = 12  # 2d6 cannot roll more
SIZE_MAX = 10


def check(spec, fail) -> None:
    """The morale module's profile fields: required with the module, refused without it."""
    on = "morale" in spec.mission.modules
    used = {u.profile for u in spec.units}
    for key, p in spec.profiles.items():
        if not on:
            for name in MORALE_FIELDS:
                if getattr(p, name):
                    fail(f"profiles.{key}.{name}", 'only the morale module reads it: add "morale" to [mission] modules')
            continue
        if key in used and not 1 <= p.endurance <= ENDURANCE_MAX:
            fail(f"profiles.{key}.endurance", f"with the morale module every unit has a pilot: Endurance is "
                                              f"1..{ENDURANCE_MAX}, not {p.endurance}")
        if key in used and not 2 <= p.morale <= MORALE_MAX:
            fail(f"profiles.{key}.morale", f"a pilot's Morale is 2..{MORALE_MAX} (2d6 at or under it), not {p.morale}")
        if not 0 <= p.size <= SIZE_MAX:
            fail(f"profiles.{key}.size", f"a Size Class is 0..{SIZE_MAX}, not {p.size}")


def unit_fields(p) -> dict:
    """The ``Unit`` fields (``skirmish.engine.rules.morale.fields``) a profile gives."""
    return {"endurance": p.endurance, "endurance_max": p.endurance, "morale": p.morale, "size": p.size,
            "command_unit": p.command_unit}

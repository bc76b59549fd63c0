"""The capture module's mission fields (seed 000): a profile's d12 stats, their checks and errors and
the unit fields they give (``skirmish.engine.mission`` calls ``check`` and ``unit_fields`` for every
mission, and appends ``PROFILE`` to its ``ProfileSpec``), and the ``[capture]`` table (``TABLES``:
``CaptureSpec``, appended to its ``MissionSpec``) and its parsing into the game's ``CaptureRules``
(``game_data``: ``Mission.capture`` and ``GameCreated.capture``)."""

from __future__ import annotations

import msgspec

from skirmish.engine.rules.capture.fields import CaptureRules

# (name, type, default), as msgspec.defstruct takes them: seed 000's d12 stats, derived from the
# Attributes unless given (skirmish.engine.rules.capture.dice)
PROFILE = (
    ("mobility", int | None, None),
    ("fight", int | None, None),
    ("acuity", int | None, None),
)

STATS = tuple(name for name, _, _ in PROFILE)
EXIT_EDGES = ("north", "south", "east", "west")


class CaptureSpec(msgspec.Struct, forbid_unknown_fields=True):
    """The mission's ``[capture]`` table as written (docs/missions.md)."""

    captor: str = "both"
    exit: str = ""
    captive_points: int = 0
    exit_points: int = 0
    character_points: int = 0


def check(spec, fail) -> None:
    """The d12 stats a profile gives are 1..6 d12."""
    for key, p in spec.profiles.items():
        for stat in STATS:
            value = getattr(p, stat)
            if value is not None and not 1 <= value <= 6:
                fail(f"profiles.{key}.{stat}", f"a seed 000 stat is 1..6 d12, not {value}")


def unit_fields(p) -> dict:
    """The ``Unit`` fields (``skirmish.engine.rules.capture.fields``) a profile gives."""
    return {stat: getattr(p, stat) or 0 for stat in STATS}


# the mission file's tables the module reads: (name, type, default), as msgspec.defstruct takes them
TABLES = (
    ("capture", CaptureSpec | None, None),
)


def game_data(spec, made, fail) -> dict:
    """The values of the module's ``CREATED`` fields (``skirmish.engine.rules.capture.fields``) for this
    mission (``made``: what the core made of it, not needed here)."""
    return {"capture": table(spec, fail)}


def table(spec, fail) -> CaptureRules | None:
    """The ``[capture]`` table: only with the capture module on; defaults when the module is on
    and the table is left out."""
    on = "capture" in spec.mission.modules
    c = spec.capture
    if c is None:
        return CaptureRules() if on else None
    if not on:
        fail("capture", 'a [capture] table needs the capture module: modules = ["capture"]')
    if c.captor not in ("a", "b", "both"):
        fail("capture.captor", f'the side whose heroes capture is "a", "b" or "both", not {c.captor!r}')
    if c.exit not in EXIT_EDGES + ("",):
        fail("capture.exit", f"the exit is a board edge ({', '.join(EXIT_EDGES)}) or \"\" for none, not {c.exit!r}")
    for name in ("captive_points", "exit_points", "character_points"):
        value = getattr(c, name)
        if not 0 <= value <= 10:
            fail(f"capture.{name}", f"victory points are 0..10, not {value}")
    if c.exit_points and not c.exit:
        fail("capture.exit_points", "points for removing captives need an exit edge (capture.exit)")
    return CaptureRules(c.captor, c.exit, c.captive_points, c.exit_points, c.character_points)

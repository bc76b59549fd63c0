"""The capture module's fields (seed 000) of ``skirmish.engine.model.Unit`` and ``skirmish.engine.model.State``,
and of ``skirmish.engine.events.GameCreated`` and ``skirmish.engine.mission.Mission`` (``CREATED``): its
mission table's stored form (``CaptureRules``, in ``GameCreated.capture`` and ``State.capture``).

``(name, type, default)``, as ``msgspec.defstruct`` takes them; the model appends them after the
core's, in ``skirmish.engine.rules.bundled.BUNDLED``'s order, so their order here is their order in
the stored ``GameCreated`` and in the state hash. All of them are left out of the state hash while
they hold their defaults (``skirmish.engine.codec.state_hash``: every field added after the first
release): a game without the module hashes as before the module existed.
"""

from __future__ import annotations

import msgspec


class CaptureRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The mission's ``[capture]`` table (docs/missions.md): who captures, the exit, the points."""

    captor: str = "both"  # the side whose heroes may capture: "a", "b" or "both"
    exit: str = ""  # the board edge captives are removed by: "north" | "south" | "east" | "west" | ""
    captive_points: int = 0  # victory points per captured bogey held at the end, beyond its own points
    exit_points: int = 0  # victory points per captured bogey removed from the table
    character_points: int = 0  # victory points per enemy character held captured at the end


UNIT = (
    ("captured", bool, False),  # seed 000 "NEW STATE - CAPTURED": stacks on top of the unit's other states
    ("dragging", str, ""),  # the captive this unit drags ("" for none)
    ("bonus_actions", int, 0),  # seed 000 bonus actions not yet spent (one extra Minor Action each; lost in the End Phase)
    ("xp", int, 0),  # experience earned in this scene (seed 000: +1 for removing a captive)
    ("removed", bool, False),  # taken off the table as a captive (then also ``dead``: out of play)
    ("mobility", int, 0),  # seed 000's stats when the profile gives them; 0: derived (skirmish.engine.rules.capture.dice)
    ("fight", int, 0),
    ("acuity", int, 0),
)

STATE = (
    ("capture", CaptureRules | None, None),  # the mission's [capture] table, None when it has none
)

CREATED = (
    ("capture", CaptureRules | None, None),  # the mission's [capture] table (skirmish.engine.rules.capture.mission)
)

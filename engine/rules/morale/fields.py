"""The morale module's fields (seed 004) of ``skirmish.engine.model.Unit`` and ``skirmish.engine.model.State``.

``(name, type, default)``, as ``msgspec.defstruct`` takes them; the model appends them after the
core's, so their order here is their order in the stored ``GameCreated`` and in the state hash.
All of them are left out of the state hash while they hold their defaults
(``skirmish.engine.codec.state_hash``: every field added after the first release): a game without the module hashes as before the module existed.
"""

from __future__ import annotations

import msgspec

UNIT = (
    ("endurance", int, 0),  # the pilot's Endurance now; 0 with endurance_max 0: no pilot
    ("endurance_max", int, 0),  # the pilot's starting Endurance
    ("unconscious", bool, False),  # the pilot is Unconscious (Endurance 0)
    ("morale", int, 0),  # the pilot's Morale value (2d6 at or under it passes)
    ("size", int, 0),  # Size Class
    ("command_unit", bool, False),  # the "Command Unit" ability
    ("fear", bool, False),  # a Fear Token
    ("move_bonus", int, 0),  # Command Tokens spent on Movement this turn
    ("resting", bool, False),  # stood down this round without an action: no action counter
)

STATE = (
    ("tokens", dict[str, int], msgspec.field(default_factory=lambda: {"a": 0, "b": 0})),  # Command Tokens
    ("commander_lost", dict[str, bool], msgspec.field(default_factory=lambda: {"a": False, "b": False})),
    # units lost at the last Courage Test, -1 before the first
    ("courage_lost", dict[str, int], msgspec.field(default_factory=lambda: {"a": -1, "b": -1})),
    ("retreated", dict[str, bool], msgspec.field(default_factory=lambda: {"a": False, "b": False})),
    ("fear_due", list[str], []),  # units that must take a Morale Test for Fear at the end of the phase
)

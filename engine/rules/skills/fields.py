"""The skills module's fields (seed 003) of ``skirmish.engine.model.Unit``, ``State`` and ``Weapon``.

``(name, type, default)``, as ``msgspec.defstruct`` takes them; the model appends them after the
core's. All of them are left out of the state hash while they hold their defaults
(``skirmish.engine.codec.state_hash``): a game without the module hashes as before the module existed.
The defaults are the values a profile that says nothing gets (a Regular Light Infantry of
Silhouette 2; a weapon of Burst 1), so a game without the module leaves every one at its default.
"""

from __future__ import annotations

import msgspec
from skirmish.engine.base import Hidden

UNIT = (
    ("skills", tuple[str, ...], ()),  # canonical "name level" entries, sorted (skirmish.engine.rules.skills.catalog)
    ("troop_type", str, "LI"),  # LI, MI, HI, TAG, REM, SK, WB
    ("silhouette", int, 2),  # S
    ("training", str, "regular"),  # regular | irregular
    # seed 003's attributes as the profile gives them; None: derived (skirmish.engine.rules.skills.attributes)
    ("wip", int | None, None),
    ("ph", int | None, None),
    ("bs", int | None, None),
    ("cc", int | None, None),
    ("arm", int | None, None),
    ("deployed", bool, True),  # False until the unit is placed in the deployment phase
    ("vehicle", str, ""),  # a Pilot: the Manned unit whose alternative Troop Profile it is (skills/manned.py)
    ("hidden_deploy", bool, False),  # deploys in Hidden Deployment (skills/hidden_deployment.py)
    ("camouflaged", bool, False),  # deploys as a Camouflage marker (skills/camouflage.py)
)

STATE = (
    ("deployer", str, ""),  # the side that placed the last unit in the deployment phase ("" before any)
    ("aimed", str, ""),  # the unit whose attack in progress is a Marksmanship LX shot (skills/marksmanship.py)
    ("medikit", str, ""),  # the Paramedic whose First Aid in progress uses a MediKit (skills/paramedic.py)
    # the units in the Targeted and the Possessed states (skirmish.engine.rules.skills.comms), sorted: on the
    # state, not the units, to keep a game's messages small (every unit of every game carries a unit field)
    ("targeted", tuple[str, ...], ()),
    ("possessed", tuple[str, ...], ()),
    # the units that failed their Infiltration Roll, in order (skills/infiltrate.py): they have lost the
    # Camouflage, TO Camouflage and Hidden Deployment options and their deployables (issue 15 reads it)
    ("infiltration_failed", tuple[str, ...], ()),
    # (unit, row) for each MetaChemistry roll made or declined ("" row), in order (skills/metachemistry.py)
    ("metachemistry", tuple[tuple[str, str], ...], ()),
    # the units in the Dogged state (V: Dogged) and those going on with a Wound lost by V: No Wound
    # Incapacitation, sorted (skills/dogged.py)
    ("dogged", tuple[str, ...], ()),
    ("unfazed", tuple[str, ...], ()),
    ("guts_due", tuple[str, ...], ()),  # the units hit and still standing whose Guts Roll is due (skills/guts.py)
    ("lt_order_round", tuple[int, int], (0, 0)),  # the round of side a's, b's last Lieutenant Order (skills/command.py)
    ("coordinated", tuple[str, ...], ()),  # the units of each side's last Lieutenant Order, the Lieutenant first
    ("retreat", tuple[str, ...], ()),  # the sides in Retreat! (skills/command.py)
    ("reacted", tuple[str, ...], ()),  # the units that reacted to the enemy Order ``reacted_in`` (skills/reactions.py)
    ("reacted_in", str, ""),  # that Order: "round:unit"
    ("facings", tuple[tuple[str, int, int], ...], ()),  # (unit, dx, dy): facings changed by Change Facing, sorted
    ("terrains", tuple[tuple[str, str], ...], ()),  # (unit, terrain): Multiterrain's choices, sorted
    # Manned (skills/manned.py): each Pilot still aboard, by its vehicle's id, kept off ``units`` (not on
    # the table, not a target, not activated, neither survivor nor casualty) until it dismounts; and the
    # vehicles whose Pilot has dismounted, sorted. ("Unit": the model's, named where it is defined.)
    ("aboard", "dict[str, Unit]", msgspec.field(default_factory=dict)),
    ("dismounted", tuple[str, ...], ()),
    # the objectives only Specialist Troopers may secure (a mission's [skills] table; skills/specialists.py)
    ("specialist_objectives", tuple[str, ...], ()),
    # the Lieutenant as Private Information (skills/private.py): each side's candidates (public, from the
    # mission), its chosen Lieutenant (a Hidden("unit") in the other side's and spectators' views until
    # revealed), the sides whose Lieutenant is public, the round each side's Lieutenant was found lost
    # in (0: not lost); the secrecy salt (skills/secrecy.py; a Hidden("salt") in every live view)
    ("lt_candidates", dict[str, tuple[str, ...]], msgspec.field(default_factory=dict)),
    ("lieutenants", dict[str, str | Hidden], msgspec.field(default_factory=dict)),
    ("lt_revealed", tuple[str, ...], ()),
    ("lt_lost", tuple[int, int], (0, 0)),
    ("secrecy_salt", tuple[int, ...] | Hidden, ()),
    # Hidden Deployment (skills/hidden_deployment.py): the units off the table in Hidden Deployment, by id
    # (by handle, their name and position Hidden, in the other side's view), and id -> handle ("hidden-b1")
    ("hidden", "dict[str, Unit]", msgspec.field(default_factory=dict)),
    ("hidden_handles", dict[str, str], msgspec.field(default_factory=dict)),
    # Camouflage markers (skills/camouflage.py): handle ("camo-b1") -> the unit's id (the other side's view:
    # the handle), until Discovered; the marker is in ``units`` under its handle
    ("markers", dict[str, str], msgspec.field(default_factory=dict)),
    # Impersonation (skills/impersonation.py, markers.py): marker -> the unit behind it (a Hidden("unit") in
    # the other side's and spectators' views until revealed); the markers on the table now -> "imp1" | "imp2";
    # the markers whose unit is public; the units that lost the skill (Burnt); (unit, marker, order) for a
    # failed Discover; the Order in which a marker revealed itself with a Surprise Attack or Shot ("round:unit")
    ("imp_markers", dict[str, str | Hidden], msgspec.field(default_factory=dict)),
    ("imp_states", dict[str, str], msgspec.field(default_factory=dict)),
    ("imp_known", tuple[str, ...], ()),
    ("imp_lost", tuple[str, ...], ()),
    ("imp_barred", tuple[tuple[str, str, str], ...], ()),
    ("imp_surprise", str, ""),
    ("imp_facing", tuple[str, ...], ()),  # units revealed whose owner chooses their facing next
    ("alien_sides", tuple[str, ...], ()),  # the sides whose army is alien to the other's (the mission's)
)

WEAPON = (
    ("burst", int, 1),  # B: the shots of one BS Attack (Marksmanship LX reduces it to 1)
    ("ammo", tuple[str, ...], ()),  # its Special Ammunition (skirmish.engine.rules.skills.ammunition); () Normal
)

CREATED = (
    ("specialist_objectives", tuple[str, ...], ()),  # the mission's [skills] specialist_objectives
    ("lt_candidates", dict[str, tuple[str, ...]], msgspec.field(default_factory=dict)),  # [skills] lieutenant_candidates
    ("alien_sides", tuple[str, ...], ()),  # [skills] alien: Impersonation L1 adopts no IMP-1 against them
)

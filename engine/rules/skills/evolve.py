"""The skills module's evolve handlers (seed 003): ``skirmish.engine.evolve`` applies its events with them."""

from __future__ import annotations

from typing import Callable

from skirmish.engine.base import Hidden
from skirmish.engine.base import unit_of as _unit
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import State
from skirmish.engine.rules.skills import events as ev
from skirmish.engine.rules.skills import hd_parts, metatable


def _deployment_started(s: State, e: ev.DeploymentStarted) -> None:
    if not s.started or s.round != 0 or s.phase != "end":
        raise InvalidEvent("the deployment phase comes only before the first round")
    s.phase = "deployment"


def _unit_deployed(s: State, e: ev.UnitDeployed) -> None:
    u = _unit(s, e.unit)
    if u.deployed:
        raise InvalidEvent(f"{e.unit} is already on the table")
    if not (0 <= e.x < s.board.width and 0 <= e.y < s.board.height):
        raise InvalidEvent(f"({e.x},{e.y}) is off the board")
    u.x, u.y = e.x, e.y
    u.deployed = True
    s.deployer = u.side


def _deployment_ended(s: State, e: ev.DeploymentEnded) -> None:
    if s.phase != "deployment":
        raise InvalidEvent("no deployment phase is in progress")
    s.phase = "end"  # round 0 has "ended": the first round starts next


def _read(s: State, e) -> None:
    """A roll read (the dice are the DiceRolled's): nothing changes."""


def _aimed_shot(s: State, e: ev.AimedShot) -> None:
    if e.unit:
        _unit(s, e.unit)
    s.aimed = e.unit


def _wound_regained(s: State, e: ev.WoundRegained) -> None:
    u = _unit(s, e.unit)
    if not u.dead and (e.unit in s.dogged or e.unit in s.unfazed):  # the Wound V: Dogged / NWI went on without
        s.dogged = tuple(x for x in s.dogged if x != e.unit)
        s.unfazed = tuple(x for x in s.unfazed if x != e.unit)
        return
    if u.dead or not u.injury:
        raise InvalidEvent(f"{e.unit} has no Injury to heal")
    u.injury = ""
    u.stabilised = False


def _medikit_used(s: State, e: ev.MediKitUsed) -> None:
    if e.unit:
        _unit(s, e.unit)
        _unit(s, e.ally)
    s.medikit = e.unit


def _state_changed(s: State, e: ev.StateChanged) -> None:
    _unit(s, e.unit)
    if e.state not in ("targeted", "possessed"):
        raise InvalidEvent(f"no state {e.state!r}")
    now = set(getattr(s, e.state)) - {e.unit}
    setattr(s, e.state, tuple(sorted(now | {e.unit} if e.on else now)))


def _infiltration_failed(s: State, e: ev.InfiltrationFailed) -> None:
    u = _unit(s, e.unit)
    if not u.deployed:
        raise InvalidEvent(f"{e.unit} is not on the table")
    u.deployed = False  # to be placed again in its own zone
    s.infiltration_failed = s.infiltration_failed + (e.unit,)


def _metachemistry_rolled(s: State, e: ev.MetaChemistryRolled) -> None:
    u = _unit(s, e.unit)
    if any(uid == e.unit for uid, _ in s.metachemistry):
        raise InvalidEvent(f"{e.unit} has had its MetaChemistry roll")
    if e.row and e.row not in metatable.TABLE:
        raise InvalidEvent(f"no MetaChemistry row {e.row!r}")
    s.metachemistry = s.metachemistry + ((e.unit, e.row),)
    if e.row:
        metatable.grant(u, e.row)


def _wound_ignored(s: State, e: ev.WoundIgnored) -> None:
    u = _unit(s, e.unit)
    if u.dead:
        raise InvalidEvent(f"{e.unit} is dead")
    field = {"v: dogged": "dogged", "v: no wound incapacitation": "unfazed"}.get(e.skill)
    if field is None:
        raise InvalidEvent(f"{e.skill!r} does not keep a unit from falling")
    setattr(s, field, tuple(sorted(set(getattr(s, field)) | {e.unit})))


def _dogged_ended(s: State, e: ev.DoggedEnded) -> None:
    u = _unit(s, e.unit)
    if e.unit not in s.dogged:
        raise InvalidEvent(f"{e.unit} is not Dogged")
    s.dogged = tuple(x for x in s.dogged if x != e.unit)
    u.dead = True
    u.injury = "lethal"


def _guts_due(s: State, e: ev.GutsDue) -> None:
    _unit(s, e.unit)
    s.guts_due = s.guts_due + (e.unit,)


def _guts_taken(s: State, e: ev.GutsTaken) -> None:
    if e.unit not in s.guts_due:
        raise InvalidEvent(f"{e.unit} has no Guts Roll due")
    due = list(s.guts_due)
    due.remove(e.unit)
    s.guts_due = tuple(due)


def _lieutenant_order(s: State, e: ev.LieutenantOrder) -> None:
    u = _unit(s, e.unit)
    others = [_unit(s, uid) for uid in e.coordinated]
    if any(o.side != u.side for o in others):
        raise InvalidEvent("a Coordinated Order is of one side's units")
    for o in (u, *others):
        o.acted = False
    i = 0 if u.side == "a" else 1
    rounds = list(s.lt_order_round)
    rounds[i] = e.round
    s.lt_order_round = (rounds[0], rounds[1])
    s.coordinated = tuple(x for x in s.coordinated if s.units[x].side != u.side) + (e.unit, *e.coordinated)


def _retreat_entered(s: State, e: ev.RetreatEntered) -> None:
    s.retreat = tuple(sorted(set(s.retreat) | {e.side}))


def _unit_withdrew(s: State, e: ev.UnitWithdrew) -> None:
    u = _unit(s, e.unit)
    if not u.deployed or u.incapacitated:
        raise InvalidEvent(f"{e.unit} cannot leave the table")
    u.deployed = False


def _reaction_declared(s: State, e: ev.ReactionDeclared) -> None:
    _unit(s, e.unit)
    _unit(s, e.against)
    if s.reacted_in != e.order:
        s.reacted, s.reacted_in = (), e.order
    if e.unit in s.reacted:
        raise InvalidEvent(f"{e.unit} has already reacted to this Order")
    s.reacted = tuple(sorted(s.reacted + (e.unit,)))


def _facing_changed(s: State, e: ev.FacingChanged) -> None:
    _unit(s, e.unit)
    if not (e.dx or e.dy) or max(abs(e.dx), abs(e.dy)) > 1:
        raise InvalidEvent(f"({e.dx},{e.dy}) is not a direction")
    s.facings = tuple(sorted([f for f in s.facings if f[0] != e.unit] + [(e.unit, e.dx, e.dy)]))


def _terrain_chosen(s: State, e: ev.TerrainChosen) -> None:
    _unit(s, e.unit)
    if any(u == e.unit for u, _ in s.terrains):
        raise InvalidEvent(f"{e.unit} has already chosen its terrain")
    s.terrains = tuple(sorted(s.terrains + ((e.unit, e.terrain),)))


def initial(s: State, created) -> None:
    """Each Pilot (a unit with a ``vehicle``) starts aboard its Manned unit, off the table; the
    mission's specialist objectives."""
    for uid in [u.id for u in s.units.values() if u.vehicle]:
        pilot = s.units.pop(uid)
        s.aboard[pilot.vehicle] = pilot
    s.specialist_objectives = tuple(created.specialist_objectives)
    s.lt_candidates = {side: tuple(ids) for side, ids in created.lt_candidates.items()}
    hd_parts.initial(s, created)  # units in Hidden Deployment start off the table
    s.alien_sides = tuple(created.alien_sides)


def _pilot_dismounted(s: State, e: ev.PilotDismounted) -> None:
    v = _unit(s, e.unit)
    pilot = s.aboard.get(e.unit)
    if pilot is None or pilot.id != e.pilot or v.dead:
        raise InvalidEvent(f"{e.unit} has no Pilot {e.pilot} aboard")
    if not (0 <= e.x < s.board.width and 0 <= e.y < s.board.height):
        raise InvalidEvent(f"({e.x},{e.y}) is off the board")
    if not e.ejected and (s.turn is None or s.turn.unit != e.unit):
        raise InvalidEvent(f"{e.unit} is not acting: its Pilot dismounts only in its turn")
    del s.aboard[e.unit]
    pilot.x, pilot.y = e.x, e.y
    pilot.acted = v.acted
    # seed 004 with the morale module: the vehicle's pilot is this Pilot; its Endurance and Fear go with it
    if v.endurance_max:
        pilot.endurance = min(v.endurance, pilot.endurance_max or v.endurance)
        pilot.fear, pilot.unconscious = v.fear, v.unconscious
        v.endurance = v.endurance_max = 0
        v.unconscious = v.fear = False
    v.readied = v.guarding = False  # no AROs for the empty vehicle
    s.units[pilot.id] = pilot
    s.units = dict(sorted(s.units.items()))  # as a clone orders them (skirmish.engine.clone)
    s.dismounted = tuple(sorted({*s.dismounted, e.unit}))
    if not e.ejected:  # the vehicle's Move Short Skill dismounts; the turn goes on as the Pilot's
        s.turn.unit = pilot.id


HANDLERS: dict[type, Callable[[State, ev.Event], None]] = {
    ev.DeploymentStarted: _deployment_started,
    ev.UnitDeployed: _unit_deployed,
    ev.DeploymentEnded: _deployment_ended,
    ev.SkillRolled: _read,
    ev.FaceToFaceResolved: _read,
    ev.AmmunitionUsed: _read,
    ev.AttackModified: _read,
    ev.AimedShot: _aimed_shot,
    ev.WoundRegained: _wound_regained,
    ev.MediKitUsed: _medikit_used,
    ev.CommsAttacked: _read,
    ev.StateChanged: _state_changed,
    ev.InfiltrationFailed: _infiltration_failed,
    ev.MetaChemistryRolled: _metachemistry_rolled,
    ev.WoundIgnored: _wound_ignored,
    ev.DoggedEnded: _dogged_ended,
    ev.GutsDue: _guts_due,
    ev.GutsTaken: _guts_taken,
    ev.LieutenantOrder: _lieutenant_order,
    ev.RetreatEntered: _retreat_entered,
    ev.UnitWithdrew: _unit_withdrew,
    ev.ReactionDeclared: _reaction_declared,
    ev.FacingChanged: _facing_changed,
    ev.AttackDodged: _read,
    ev.TerrainChosen: _terrain_chosen,
    ev.PilotDismounted: _pilot_dismounted,
}


# -- the Lieutenant as Private Information (skills/private.py) and the secrecy salt (skills/secrecy.py) --


def _side_index(side: str) -> int:
    if side not in ("a", "b"):
        raise InvalidEvent(f"no side {side!r}")
    return 0 if side == "a" else 1


def _lieutenant_chosen(s: State, e: ev.LieutenantChosen) -> None:
    """A side's Lieutenant chosen, in private: the other side's view holds a ``Hidden``."""
    _side_index(e.side)
    if not isinstance(e.unit, Hidden) and e.unit not in s.lt_candidates.get(e.side, ()):
        raise InvalidEvent(f"{e.unit!r} is not a Lieutenant candidate of side {e.side}")
    s.lieutenants = {**s.lieutenants, e.side: e.unit}
    s.lt_revealed = tuple(x for x in s.lt_revealed if x != e.side)
    lost = list(s.lt_lost)
    lost[_side_index(e.side)] = 0
    s.lt_lost = (lost[0], lost[1])


def _lieutenant_revealed(s: State, e: ev.LieutenantRevealed) -> None:
    i = _side_index(e.side)
    known = s.lieutenants.get(e.side)
    if known is None or (not isinstance(known, Hidden) and known != e.unit):
        raise InvalidEvent(f"{e.unit!r} is not side {e.side}'s Lieutenant")
    s.lieutenants = {**s.lieutenants, e.side: e.unit}
    s.lt_revealed = tuple(sorted({*s.lt_revealed, e.side}))
    if e.why == "lost":
        lost = list(s.lt_lost)
        lost[i] = max(s.round, 1)
        s.lt_lost = (lost[0], lost[1])


def _secrecy_salted(s: State, e: ev.SecrecySalted) -> None:
    s.secrecy_salt = e.salt if isinstance(e.salt, Hidden) else tuple(e.salt)


HANDLERS.update({
    ev.LieutenantChosen: _lieutenant_chosen,
    ev.LieutenantRevealed: _lieutenant_revealed,
    ev.SecrecySalted: _secrecy_salted,
})
HANDLERS.update(hd_parts.HANDLERS)  # Hidden Deployment


# -- Impersonation and Discover (skills/imp_evolve.py) ------------------------------------------------------------

from skirmish.engine.rules.skills.imp_evolve import HANDLERS as _IMP_HANDLERS  # noqa: E402

HANDLERS.update(_IMP_HANDLERS)
_facing_then = HANDLERS[ev.FacingChanged]


def _facing_changed_after_reveal(s: State, e: ev.FacingChanged) -> None:
    """A revealed impersonator's facing, of its owner's choice (skills/impersonation.py), is a Change Facing too."""
    _facing_then(s, e)
    if e.unit in s.imp_facing:
        s.imp_facing = tuple(x for x in s.imp_facing if x != e.unit)


HANDLERS[ev.FacingChanged] = _facing_changed_after_reveal

"""The skills module's evolve handlers (seed 003): ``skirmish.engine.evolve`` applies its events with them."""

from __future__ import annotations

from typing import Callable

from skirmish.engine.base import unit_of as _unit
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import State
from skirmish.engine.rules.skills import events as ev


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


def initial(s: State, created) -> None:
    """Each Pilot (a unit with a ``vehicle``) starts aboard its Manned unit, off the table; the
    mission's specialist objectives."""
    for uid in [u.id for u in s.units.values() if u.vehicle]:
        pilot = s.units.pop(uid)
        s.aboard[pilot.vehicle] = pilot
    s.specialist_objectives = tuple(created.specialist_objectives)


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
    ev.PilotDismounted: _pilot_dismounted,
}

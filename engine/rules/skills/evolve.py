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
    ev.ReactionDeclared: _reaction_declared,
    ev.FacingChanged: _facing_changed,
    ev.AttackDodged: _read,
    ev.TerrainChosen: _terrain_chosen,
}

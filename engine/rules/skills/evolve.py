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


HANDLERS: dict[type, Callable[[State, ev.Event], None]] = {
    ev.DeploymentStarted: _deployment_started,
    ev.UnitDeployed: _unit_deployed,
    ev.DeploymentEnded: _deployment_ended,
    ev.SkillRolled: _read,
    ev.FaceToFaceResolved: _read,
}

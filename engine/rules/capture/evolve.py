"""The capture module's evolve handlers (seed 000): ``skirmish.engine.evolve`` applies its events with
them, and sets up the initial state with ``initial``."""

from __future__ import annotations

from typing import Callable

from skirmish.engine.base import unit_of as _unit
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import State
from skirmish.engine.rules.capture import events as ev


def initial(s: State, created) -> None:
    """The mission's ``[capture]`` table, from ``GameCreated`` (None without the module)."""
    s.capture = created.capture


def _d12_tested(s: State, e: ev.D12Tested) -> None:
    _unit(s, e.unit)
    if e.nonce != s.next_nonce - 1:
        raise InvalidEvent(f"d12 test of {e.unit}: roll {e.nonce} is not the roll just made")


def _unit_captured(s: State, e: ev.UnitCaptured) -> None:
    u, by = _unit(s, e.unit), _unit(s, e.by)
    if u.captured or u.dead or by.side == u.side:
        raise InvalidEvent(f"{e.by} cannot capture {e.unit}")
    u.captured = True
    if u.kind == "bogey":
        u.injury = ""  # seed 000: "the bogey loses its down state and becomes captured"
        u.stabilised = False


def _captive_released(u) -> None:
    if not u.captured:
        raise InvalidEvent(f"{u.id} is not captured")
    u.captured = False


def _captive_escaped(s: State, e: ev.CaptiveEscaped) -> None:
    _captive_released(_unit(s, e.unit))


def _captive_freed(s: State, e: ev.CaptiveFreed) -> None:
    _unit(s, e.by)
    _captive_released(_unit(s, e.unit))


def _bonus_actions_gained(s: State, e: ev.BonusActionsGained) -> None:
    _unit(s, e.unit).bonus_actions += e.count


def _bonus_action_taken(s: State, e: ev.BonusActionTaken) -> None:
    u = _unit(s, e.unit)
    if u.bonus_actions < 1 or s.turn is None or s.turn.unit != e.unit:
        raise InvalidEvent(f"{e.unit} has no bonus action to take now")
    u.bonus_actions -= 1


def _bonus_actions_lost(s: State, e: ev.BonusActionsLost) -> None:
    _unit(s, e.unit).bonus_actions = 0


def _drag_started(s: State, e: ev.DragStarted) -> None:
    u, c = _unit(s, e.unit), _unit(s, e.captive)
    if not c.captured or u.dragging:
        raise InvalidEvent(f"{e.unit} cannot drag {e.captive}")
    u.dragging = c.id


def _drag_ended(s: State, e: ev.DragEnded) -> None:
    u = _unit(s, e.unit)
    if not u.dragging:
        raise InvalidEvent(f"{e.unit} drags nobody")
    u.dragging = ""


def _captive_removed(s: State, e: ev.CaptiveRemoved) -> None:
    u, c = _unit(s, e.unit), _unit(s, e.captive)
    if u.dragging != c.id or not c.captured:
        raise InvalidEvent(f"{e.unit} does not drag the captive {e.captive}")
    u.dragging = ""
    u.xp += e.xp
    c.removed = True
    c.dead = True  # off the table: out of play for every rule (not killed: ``removed`` says so)


HANDLERS: dict[type, Callable[[State, ev.Event], None]] = {
    ev.D12Tested: _d12_tested,
    ev.UnitCaptured: _unit_captured,
    ev.CaptiveEscaped: _captive_escaped,
    ev.CaptiveFreed: _captive_freed,
    ev.BonusActionsGained: _bonus_actions_gained,
    ev.BonusActionTaken: _bonus_action_taken,
    ev.BonusActionsLost: _bonus_actions_lost,
    ev.DragStarted: _drag_started,
    ev.DragEnded: _drag_ended,
    ev.CaptiveRemoved: _captive_removed,
}

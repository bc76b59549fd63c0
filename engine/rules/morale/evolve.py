"""The morale module's evolve handlers (seed 004): ``skirmish.engine.evolve`` applies its events with them."""

from __future__ import annotations

from typing import Callable

from skirmish.engine.base import unit_of as _unit
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import State
from skirmish.engine.rules.morale import events as ev


def _tokens_changed(s: State, e: ev.TokensChanged) -> None:
    value = s.tokens[e.side] + e.delta
    if value < 0:
        raise InvalidEvent(f"side {e.side} would have {value} Command Tokens")
    s.tokens[e.side] = value


def _endurance_changed(s: State, e: ev.EnduranceChanged) -> None:
    u = _unit(s, e.unit)
    value = u.endurance + e.delta
    if not 0 <= value <= u.endurance_max:
        raise InvalidEvent(f"{e.unit}'s pilot would have Endurance {value} (0..{u.endurance_max})")
    u.endurance = value


def _pilot_unconscious(s: State, e: ev.PilotUnconscious) -> None:
    u = _unit(s, e.unit)
    if u.endurance != 0 or u.unconscious:
        raise InvalidEvent(f"{e.unit}'s pilot cannot fall unconscious now")
    u.unconscious = True
    u.readied = False  # an Unconscious pilot's unit makes no actions, reactions included


def _pilot_woke(s: State, e: ev.PilotWoke) -> None:
    u = _unit(s, e.unit)
    if not u.unconscious:
        raise InvalidEvent(f"{e.unit}'s pilot is not unconscious")
    u.unconscious = False
    u.endurance = 1


def _fear_due(s: State, e: ev.FearDue) -> None:
    _unit(s, e.unit)
    if e.unit not in s.fear_due:
        s.fear_due.append(e.unit)


def _fear_tests_taken(s: State, e: ev.FearTestsTaken) -> None:
    s.fear_due = []


def _fear_taken(s: State, e: ev.FearTaken) -> None:
    u = _unit(s, e.unit)
    u.fear = True
    u.acted = True


def _fear_removed(s: State, e: ev.FearRemoved) -> None:
    u = _unit(s, e.unit)
    if not u.fear:
        raise InvalidEvent(f"{e.unit} has no Fear Token")
    u.fear = False


def _move_boosted(s: State, e: ev.MoveBoosted) -> None:
    _unit(s, e.unit).move_bonus += 1


def _move_boosts_ended(s: State, e: ev.MoveBoostsEnded) -> None:
    for u in s.units.values():
        u.move_bonus = 0


def _action_counter_removed(s: State, e: ev.ActionCounterRemoved) -> None:
    u = _unit(s, e.unit)
    if not u.acted:
        raise InvalidEvent(f"{e.unit} has no action counter")
    u.acted = False


def _unit_rested(s: State, e: ev.UnitRested) -> None:
    u = _unit(s, e.unit)
    if s.turn is None or s.turn.unit != e.unit or s.turn.minors or s.turn.task:
        raise InvalidEvent(f"{e.unit} can rest only in its own turn, before any action")
    u.acted = False
    u.resting = True


def _rests_ended(s: State, e: ev.RestsEnded) -> None:
    for u in s.units.values():
        u.resting = False


def _commander_lost(s: State, e: ev.CommanderLost) -> None:
    s.commander_lost[e.side] = True


def _courage_test_due(s: State, e: ev.CourageTestDue) -> None:
    s.courage_lost[e.side] = e.lost_units


def _courage_failed(s: State, e: ev.CourageFailed) -> None:
    s.retreated[e.side] = True


HANDLERS: dict[type, Callable[[State, ev.Event], None]] = {
    ev.TokensChanged: _tokens_changed,
    ev.EnduranceChanged: _endurance_changed,
    ev.PilotUnconscious: _pilot_unconscious,
    ev.PilotWoke: _pilot_woke,
    ev.FearDue: _fear_due,
    ev.FearTestsTaken: _fear_tests_taken,
    ev.FearTaken: _fear_taken,
    ev.FearRemoved: _fear_removed,
    ev.MoveBoosted: _move_boosted,
    ev.MoveBoostsEnded: _move_boosts_ended,
    ev.ActionCounterRemoved: _action_counter_removed,
    ev.CommanderLost: _commander_lost,
    ev.CourageTestDue: _courage_test_due,
    ev.CourageFailed: _courage_failed,
    ev.UnitRested: _unit_rested,
    ev.RestsEnded: _rests_ended,
}

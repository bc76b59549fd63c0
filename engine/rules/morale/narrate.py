"""The morale module's narration for clients (seed 004): one line per event, per test started and
per roll (``skirmish.client.narrate`` calls these through ``Module.narration`` and ``Module.rolls_narration``).

Each event or frame function takes the event (or frame), the state before it and ``n(unit id)``,
the unit's display name, and returns the line or None; the caller escapes it for the terminal.
"""

from __future__ import annotations

from skirmish.engine.rules.morale import events as mev
from skirmish.engine.rules.morale.frames import MoraleTestFrame


def _test_started(f: MoraleTestFrame, state, n) -> str:
    who = n(f.unit) + "'s pilot" if f.unit else f"side {f.side}"
    how = {"endurance": f"any die of {f.target} or more passes",
           "wake": "a 6 wakes the pilot"}.get(f.test, f"a total of {f.target} or under passes")
    return f"  {who} takes {'an' if f.test[0] in 'aeiou' else 'a'} {f.test.replace('_', ' ')} test ({f.count}d6: {how})"


def _nothing(event, state, n) -> None:
    return None


NARRATION = {
    mev.TokensChanged: lambda event, state, n: f"  side {event.side} Command Tokens {event.delta:+d} ({event.reason})",
    mev.EnduranceChanged: lambda event, state, n: f"  {n(event.unit)}: {event.delta:+d} Endurance ({event.reason})",
    mev.PilotUnconscious: lambda event, state, n: f"  {n(event.unit)}'s pilot falls unconscious",
    mev.PilotWoke: lambda event, state, n: f"  {n(event.unit)}'s pilot wakes",
    mev.FearDue: lambda event, state, n: f"  {n(event.unit)} must test for Fear of {n(event.enemy)} at the end of the phase",
    mev.FearTestsTaken: _nothing,
    mev.FearTaken: lambda event, state, n: f"  {n(event.unit)} takes a Fear Token",
    mev.FearRemoved: lambda event, state, n: f"  {n(event.unit)} loses its Fear Token ({event.reason})",
    mev.MoveBoosted: lambda event, state, n: f"  {n(event.unit)} gets +1 Movement this turn",
    mev.MoveBoostsEnded: _nothing,
    mev.RestsEnded: _nothing,
    mev.ActionCounterRemoved: lambda event, state, n: f"  {n(event.unit)}'s action counter is removed",
    mev.UnitRested: lambda event, state, n: f"  {n(event.unit)} stands down to rest",
    mev.CommanderLost: lambda event, state, n: f"  side {event.side} loses its Team Commander",
    mev.CourageTestDue: lambda event, state, n: f"  side {event.side} must test its Courage ({event.lost_units} units out of action)",
    mev.CourageFailed: lambda event, state, n: f"  side {event.side} fails its Courage and retreats",
    MoraleTestFrame: _test_started,  # a test starts (ProcedureStarted)
}


def morale_roll(e, test: str, results: tuple[int, ...], replaced: str) -> str:
    """The d6 of a test (purpose "morale:<test>")."""
    if test == "endurance":
        ok = any(r >= e.target for r in results)
        return f": {'passed' if ok else 'failed'} (passes with any die of {e.target} or more){replaced}"
    if test == "wake":
        return f": {'wakes' if 6 in results else 'stays unconscious'} (a 6 wakes the pilot){replaced}"
    total = sum(results)
    return (f": total {total}, {'passed' if total <= e.target else 'failed'} "
            f"(passes at or under {e.target}){replaced}")


ROLLS = {"morale": morale_roll}

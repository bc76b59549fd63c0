"""The capture module's narration for clients (seed 000): one line per event and per roll
(``skirmish.client.narrate`` calls these through ``Module.narration`` and ``Module.rolls_narration``).

Each event function takes the event, the state before it and ``n(unit id)``, the unit's display
name, and returns the line or None; the caller escapes it for the terminal.
"""

from __future__ import annotations

from skirmish.engine.rules.capture import events as cev


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _successes(count: int) -> str:
    return "1 success" if count == 1 else f"{count} successes"


def _d12_tested(event: cev.D12Tested, state, n) -> str:
    groups = " ".join("+".join(map(str, g)) for g in event.groups) or "none"
    return (f"  {n(event.unit)}'s {event.test} test against D({event.difficulty}): groups reaching "
            f"{event.difficulty}: {groups} = {_successes(event.successes)}, {event.needed} needed: "
            f"{'passed' if event.passed else 'failed'}")


NARRATION = {
    cev.D12Tested: _d12_tested,
    cev.UnitCaptured: lambda event, state, n: f"  {n(event.by)} captures {n(event.unit)}",
    cev.CaptiveEscaped: lambda event, state, n: f"  {n(event.unit)} escapes",
    cev.CaptiveFreed: lambda event, state, n: f"  {n(event.by)} frees {n(event.unit)}",
    cev.BonusActionsGained: lambda event, state, n: f"  {n(event.unit)} gains {_plural(event.count, 'bonus action')}",
    cev.BonusActionTaken: lambda event, state, n: f"  {n(event.unit)} spends a bonus action: {event.action}",
    cev.BonusActionsLost: lambda event, state, n: None,
    cev.DragStarted: lambda event, state, n: f"  {n(event.unit)} takes hold of {n(event.captive)}",
    cev.DragEnded: lambda event, state, n: f"  {n(event.unit)} lets go of its captive",
    cev.CaptiveRemoved: lambda event, state, n: f"  {n(event.unit)} takes {n(event.captive)} off the table ({event.xp} XP)",
}


def capture_roll(e, test: str, results: tuple[int, ...], replaced: str) -> str:
    """The d12 of a test (purpose "capture:<test>"), and a held bogey's escape d6 ("capture:bogey_escape")."""
    if test == "bogey_escape":
        ok = any(r >= e.target for r in results)
        return f": {'escapes' if ok else 'still held'} (escapes with any die of {e.target} or more)"
    return f": grouped into totals of {e.target} or more, one success each (the test follows)"


ROLLS = {"capture": capture_roll}

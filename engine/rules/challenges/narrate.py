"""The challenges module's narration for clients (seed 002): one line per event, per challenge started
and per roll (``skirmish.client.narrate`` calls these through ``Module.narration``,
``Module.rolls_narration`` and ``Module.roll_lines``).

Each event or frame function takes the event (or frame), the state before it and ``n(unit id)``,
the unit's display name, and returns the line or None; the caller escapes it for the terminal.
"""

from __future__ import annotations

from skirmish.engine.base import Hidden
from skirmish.engine.rules.challenges import dice
from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.rules.challenges.cards import DRAW
from skirmish.engine.rules.challenges.frames import ChallengeFrame
from skirmish.engine.rules.challenges.hidden import SALT


def _challenge_started(f: ChallengeFrame, state, n) -> str:
    against = n(f.target) if f.target in state.units else (
        state.facilities[f.target].name if f.target in state.facilities else f.target)
    kind = "a threshold challenge" if not f.dside else "a challenge"
    return (f"  {n(f.attacker)} starts {kind}: {f.op.replace('_', ' ')}"
            + (f" against {against}" if against else "")
            + (f" (threshold {f.threshold})" if f.threshold else ""))


def _resolved(event: cev.ChallengeResolved, state, n) -> str:
    return (f"  {event.op}: {n(event.attacker)} {event.attacker_successes} against {event.defender_successes} "
            f"({event.target}): {event.result}" + (f" {event.amount}" if event.amount else ""))


def _stealth_changed(event: cev.StealthChanged, state, n) -> str:
    return f"  {n(event.unit)} {'hides' if event.stealthed else 'is no longer stealthed'}" + (
        f" ({event.reason})" if event.reason else "")


NARRATION = {
    cev.SaltDrawn: lambda event, state, n: None,
    cev.ActionPointsChanged: lambda event, state, n: (f"  side {event.side}: {event.delta:+d} Action Points "
                                                      f"({event.reason})"),
    cev.CardDrawn: lambda event, state, n: (f"  side {event.side} draws "
                                            f"{'a card (hidden)' if isinstance(event.card, Hidden) else event.card}"),
    cev.CardPlayed: lambda event, state, n: f"  side {event.side} plays {event.card}",
    cev.CardCreated: lambda event, state, n: f"  {n(event.unit)} creates the card {event.card}",
    cev.FateChanged: lambda event, state, n: f"  {n(event.unit)}: {event.delta:+d} fate ({event.reason})",
    cev.ChallengeResolved: _resolved,
    cev.FacilityDamaged: lambda event, state, n: f"  facility {event.facility} takes {event.amount} damage",
    cev.FacilityDestroyed: lambda event, state, n: f"  facility {event.facility} is destroyed",
    cev.StealthChanged: _stealth_changed,
    ChallengeFrame: _challenge_started,  # a challenge starts (ProcedureStarted)
}


def _pool(e, results: tuple[int, ...], replaced: str) -> str:
    n = dice.successes(results)
    need = f", {e.target} needed: {'met' if n >= e.target else 'not met'}" if e.target else ""
    return f": {'1 success' if n == 1 else f'{n} successes'} (4, 5 and 6 succeed){need}{replaced}"


def challenge_roll(e, rest: str, results: tuple[int, ...], replaced: str) -> str:
    """A challenge's pool of d6 (purpose "challenge:<op>", "challenge:card", "challenge:token")."""
    return _pool(e, results, replaced) if e.sides == 6 else replaced


def challenges_roll(e, rest: str, results: tuple[int, ...], replaced: str) -> str:
    """The module's other rolls: a detection pool of d6 ("challenges:detection"), a random target
    ("challenges:target")."""
    if e.sides == 6:
        return _pool(e, results, replaced)
    if rest == "target":
        return f": the target is picked at random, number {results[0]} of {e.sides}"
    return replaced


ROLLS = {"challenge": challenge_roll, "challenges": challenges_roll}

# rolls told their own way: the salt's dice stay secret; the CardDrawn that follows a draw says
# it (the card to its side, hidden to others)
LINES = {
    SALT: lambda e, state, who: "  the server draws the secret salt of the hidden hands (its dice are hidden)",
    DRAW: lambda e, state, who: None,
}

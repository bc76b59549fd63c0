"""The skills module's narration for clients (seed 003): one line per event and per roll
(``skirmish.client.narrate`` calls these through ``Module.narration`` and ``Module.rolls_narration``).

Each event function takes the event, the state before it and ``n(unit id)``, the unit's display
name, and returns the line or None; the caller escapes it for the terminal.
"""

from __future__ import annotations

from skirmish.engine.rules.skills import events as sev
from skirmish.engine.rules.skills.attributes import NAMES
from skirmish.engine.rules.skills.rolls import MOD_CAP


def mods_text(mods) -> str:
    """``-3 (Infiltrate L0), +6 (Marksmanship LX)``; "no MODs" for none; the cap when it bites."""
    if not mods:
        return "no MODs"
    total = sum(v for _, v in mods)
    text = ", ".join(f"{v:+d} ({why})" for why, v in mods)
    if abs(total) > MOD_CAP:
        text += f" = {total:+d}, held to {MOD_CAP if total > 0 else -MOD_CAP:+d}"
    return text


def _rolled(e: sev.SkillRolled, state, n) -> str:
    attr = NAMES.get(e.attribute, e.attribute.upper())
    what = e.purpose.replace("_", " ")
    return (f"  {n(e.unit)}'s {attr} roll ({what}): {attr} {e.base}, {mods_text(e.mods)}: "
            f"{e.die} against {e.target}, a {e.result}")


def _face_to_face(e: sev.FaceToFaceResolved, state, n) -> str:
    a, b = (n(u) for u in e.units)
    if e.winner:
        return f"  face to face, {a} against {b}: {n(e.winner)} wins ({e.how})"
    return f"  face to face, {a} against {b}: neither wins ({e.how})"


NARRATION = {
    sev.DeploymentStarted: lambda e, state, n: "── deployment: the sides place their units in turn ──",
    sev.UnitDeployed: lambda e, state, n: f"  {n(e.unit)} deploys at ({e.x},{e.y})",
    sev.DeploymentEnded: lambda e, state, n: "  every unit is deployed",
    sev.SkillRolled: _rolled,
    sev.FaceToFaceResolved: _face_to_face,
}


def skill_roll(e, purpose: str, results: tuple[int, ...], replaced: str) -> str:
    """The d20 of a seed 003 roll (purpose "skills:<purpose>"); the SkillRolled that follows reads it."""
    return f": d20 at or under {e.target}, equal is a critical{replaced}"


ROLLS = {"skills": skill_roll}

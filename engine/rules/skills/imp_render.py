"""What Impersonation adds to the clients' text views and narration (issue 15; skills/render.py and
skills/narrate.py take these in): markers as markers to the other side, a side's own impersonators
as its own, with the marker each stands behind."""

from __future__ import annotations

from skirmish.engine.base import Hidden
from skirmish.engine.rules.skills import imp_events as iev

STATES = {"imp1": "IMP-1", "imp2": "IMP-2"}


def unit_flags(u) -> list[str] | None:
    """A unit a view holds for a marker it cannot name: only what the marker shows."""
    if isinstance(u.name, str):
        return None
    return ["Impersonation marker (who is behind it is hidden)", f"S{u.silhouette}"]


def label(option, state, decision, uname) -> str | None:
    match option[0], option[1:]:
        case "impersonate", (x, y):
            return f"deploy {uname(decision.unit)} as an Impersonation-1 marker at ({x},{y})"
        case "impersonate", ():
            return f"{uname(decision.unit)} regains its Impersonation-1 marker (Entire Order, out of enemy LoF)"
        case "reveal", (hidden,) if isinstance(hidden, Hidden):
            return "an action that replaces the marker with the figure (which one is hidden)"
        case "discover", (marker,):
            mod = "-6, IMP-1" if state.imp_states.get(marker) == "imp1" else "no MOD, IMP-2"
            return f"Discover the marker {marker} (a WIP Roll, {mod})"
        case "discover", (uid, marker):
            return f"{uname(uid)} Discovers the marker {marker} (a WIP Roll)"
        case "imp_redeploy", (uid, x, y):
            return f"place {uname(uid)} at ({x},{y}) in your zone, at a table edge"
        case "face", (uid, dx, dy):
            return f"{uname(uid)} faces ({dx:+d},{dy:+d})"
    return None


def status(state, side) -> list[str]:
    """Each marker on the table as the viewer knows it."""
    lines = []
    for m, st in sorted(state.imp_states.items()):
        uid = state.imp_markers.get(m)
        where = state.units.get(m) or (state.units.get(uid) if isinstance(uid, str) else None)
        at = f" at ({where.x},{where.y})" if where is not None else ""
        if isinstance(uid, str) and uid in state.units and state.units[uid].side == side:
            hidden = "" if m in state.imp_known else ", the enemy does not know who"
            lines.append(f"{state.units[uid].name} [{uid}] is behind your {STATES[st]} marker {m}{at}{hidden}")
        elif isinstance(uid, str) and uid in state.units:
            lines.append(f"{STATES[st]} marker {m}{at}: {state.units[uid].name} [{uid}] (revealed before)")
        else:
            lines.append(f"{STATES[st]} marker {m}{at}: an enemy impersonator, unknown (no Attack, no base contact; Discover it)")
    return lines


TITLES = {"imp_redeploy": "the Impersonation deployment roll failed: where in your zone, at a table edge?",
          "imp_facing": "the marker is replaced by the figure: which way does it face?"}
CARRIERS = {"reveal": "reveal the figure, then: "}


def _who(e, n) -> str:
    return n(e.unit) if isinstance(e.unit, str) else "an impersonator (who is hidden)"


REVEALED = {"deployed as a figure": "deployed as a figure", "failed deployment roll": "its deployment roll failed",
            "discovered": "Discovered", "declared": "it declared an action the marker cannot", "base contact":
            "it moves into base contact", "surprise attack": "a Surprise Attack", "surprise shot": "a Surprise Shot",
            "retreat!": "Retreat!"}

NARRATION = {
    iev.ImpersonatorsAssigned: lambda e, state, n: (
        f"  side {e.side}'s impersonators get the markers {', '.join(e.markers)}"
        + ("" if all(isinstance(u, str) for u in e.units) else " (who is behind which is hidden)")),
    iev.MarkerPlaced: lambda e, state, n: f"  {_who(e, n)} is on the table as the IMP-1 marker {e.marker} at ({e.x},{e.y})"
                                          + (" (regained)" if e.why == "regained" else ""),
    iev.MarkerDiscovered: lambda e, state, n: f"  {n(e.by)} Discovers the marker {e.marker}: it is an IMP-2 marker now",
    iev.ImpersonationRevealed: lambda e, state, n: (
        f"  the marker {e.marker} is {n(e.unit)} ({REVEALED.get(e.why, e.why)})"),
    iev.ImpersonatorDispersed: lambda e, state, n: f"  {n(e.unit)} is dispersed to ({e.x},{e.y})",
    iev.ImpersonationLost: lambda e, state, n: f"  {n(e.unit)} is Burnt: it can no longer impersonate",
    iev.DiscoverFailed: lambda e, state, n: f"  {n(e.unit)} fails to Discover {e.marker}: not again this Turn",
}

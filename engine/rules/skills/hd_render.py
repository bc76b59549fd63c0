"""Hidden Deployment for the clients (skills/hidden_deployment.py): its events' narration, its
options' labels, its decisions' titles, and the status lines that show a side its own hidden units
(where each lies, hidden from the enemy) and the enemy's as handles whose place is unknown.
``narrate.py`` and ``render.py`` join these to the module's tables."""

from __future__ import annotations

from skirmish.engine.base import Hidden
from skirmish.engine.rules.skills.hd_parts import HiddenPlaced, HiddenRevealed, OrderDisrupted


def _placed(e: HiddenPlaced, state, n) -> str:
    if isinstance(e.x, Hidden):
        return f"  side {e.side} places {e.unit} in Hidden Deployment, in secret (no figure, no marker)"
    return f"  {n(e.unit)} is placed in Hidden Deployment at ({e.x},{e.y}) (the enemy does not see it)"


def _revealed(e: HiddenRevealed, state, n) -> str:
    return f"  {e.handle} reveals itself: {e.name if isinstance(e.name, str) else e.unit} at ({e.x},{e.y}), " \
           "out of Hidden Deployment to declare an ARO"


NARRATION = {
    HiddenPlaced: _placed,
    HiddenRevealed: _revealed,
    OrderDisrupted: lambda e, state, n: f"  {n(e.unit)}'s Order is disrupted by {n(e.by)}: it cannot be carried out and is lost",
}

TITLES = {"hide": "Hidden Deployment: where does your hidden unit lie? (the enemy will not know)",
          "reveal": "an enemy Order: does a unit in Hidden Deployment reveal itself to react?"}


def label(option, state, decision, uname) -> str | None:
    match option[0], option[1:]:
        case "hide", (x, y):
            if isinstance(x, Hidden):
                return "a place in Hidden Deployment, in secret"
            return f"hide {uname(decision.unit)} at ({x},{y})"
        case "stay", () if decision.kind == "reveal":
            return "stay hidden"
        case "reveal", (uid,) if decision.kind == "reveal":
            return "a hidden unit reveals itself" if isinstance(uid, Hidden) else f"{_name(state, uid)} reveals itself (no attack)"
        case "reveal", (uid, weapon, lethal) if decision.kind == "reveal":
            u = state.hidden.get(uid)
            w = u.weapons[weapon].name if u is not None and 0 <= weapon < len(u.weapons) else weapon
            return f"{_name(state, uid)} reveals itself and shoots at {uname(decision.unit)} with {w}, " \
                   f"{'lethal' if lethal else 'non-lethal'} (a Normal Roll)"
    return None


def _name(state, uid) -> str:
    u = state.hidden.get(uid)
    return f"{u.name} [{uid}]" if u is not None and isinstance(u.name, str) else str(uid)


def status(state, side) -> list[str]:
    """The viewer's own hidden units, each with where it lies; the enemy's, by handle."""
    lines = []
    for uid, u in sorted(state.hidden.items()):
        if u.side == side:
            where = f"at ({u.x},{u.y})" if u.deployed and isinstance(u.x, int) else "not yet placed"
            lines.append(f"yours: {_name(state, uid)} in Hidden Deployment {where} (hidden from the enemy)")
        else:
            lines.append(f"side {u.side}: {uid} in Hidden Deployment, where and who unknown")
    return lines

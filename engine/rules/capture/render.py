"""What the capture module adds to the clients' text views (seed 000; ``skirmish.client.render`` through
``Module.render``): its units' flags, its options' labels, and its bonus actions, which carry the
Minor Action they buy (``("bonus", "move", x, y)``: labelled "bonus action: " and that action's
label, a bonus Movement packed with the moves)."""

from __future__ import annotations

from skirmish.engine.rules.registry import Shown


def unit_flags(u) -> list[str]:
    return [f for f, on in (("captured", u.captured), (f"dragging {u.dragging}", u.dragging),
                            (f"{u.bonus_actions} bonus actions", u.bonus_actions)) if on]


def label(option, state, decision, uname) -> str | None:
    match option[0], option[1:]:
        case "capture", (uid,):
            return f"capture {uname(uid)} (task)"
        case "free", (uid,):
            return f"free {uname(uid)} (task)"
        case "escape", ():
            return "try to escape (task)"
        case "drag", (uid,):
            return f"take hold of the captive {uname(uid)} to drag it"
        case "exit", (uid,):
            return f"take the captive {uname(uid)} off the table by the exit"
    return None


SHOWN = Shown(unit_flags=unit_flags, label=label, carriers={"bonus": "bonus action: "})

"""What the morale module adds to the clients' text views (seed 004; ``skirmish.client.render`` through
``Module.render``): its units' flags, the Command Token pools, its options and its decisions."""

from __future__ import annotations

from skirmish.engine.rules.registry import Shown


def unit_flags(u) -> list[str]:
    flags = [f for f, on in (("unconscious", u.unconscious), ("fear", u.fear), ("resting", u.resting)) if on]
    if u.endurance_max:
        flags.append(f"endurance {u.endurance}/{u.endurance_max}")
    return flags


def label(option, state, decision, uname) -> str | None:
    match option[0], option[1:]:
        case "reroll", (side,) if decision.kind == "initiative_reroll":
            return f"spend a Command Token: re-roll side {side}'s initiative die" + (" (yours)" if side == decision.side else "")
        case "reroll", ("task",):
            return "spend a Command Token: re-roll the task's dice"
        case "reroll", ("defence",):
            return "spend a Command Token: re-roll the defender's dice"
        case "reroll", ():
            return "spend a Command Token: re-roll the test"
        case "token", (side,):
            return f"spend a Command Token: re-roll side {side}'s pool" + (" (yours)" if side == decision.side else "")
        case "rest", ():
            return "stand down (no action counter: the pilot recovers Endurance)"
        case "boost", ():
            return "spend a Command Token: +1 Movement this turn"
        case "counter", (uid,):
            return f"spend a Command Token: remove {uname(uid)}'s action counter"
        case "retreat", ():
            return "retreat (the side loses the game)"
        case "ignore", ():
            return "spend a Command Token: ignore the failed Courage Test"
    return None


SHOWN = Shown(
    unit_flags=unit_flags,
    label=label,
    titles={
        "test_reroll": "a test: spend a Command Token to re-roll?", "reroll": "a Command Token re-roll?",
        "initiative_reroll": "initiative: spend a Command Token to re-roll?",
        "courage_failed": "Courage failed: retreat or spend a Command Token",
    },
    pools=lambda state: [("Command Tokens", state.tokens)],
)

"""What the challenges module adds to the clients' text views (seed 002; ``skirmish.client.render``
through ``Module.render``): its units' flags, the Action Point pools, the hands of cards, the
facilities, the challenge in progress, its options' labels and its decisions' titles.

Everything here returns raw text: card, facility and unit names come from a mission file, and the
client escapes every label and line it is given (``skirmish.client.safe``) before it prints it.
"""

from __future__ import annotations

from skirmish.engine.base import Hidden
from skirmish.engine.rules.challenges import dice
from skirmish.engine.rules.challenges.frames import ChallengeFrame
from skirmish.engine.rules.registry import Shown

CARD_EFFECTS = {"dice": "+{v} dice to your pool", "reroll": "re-roll the opponent's successes",
                "convert": "turn up to {v} failed dice into successes", "fate": "+{v} fate for re-rolls"}


def card_text(state, name) -> str:
    """A card and what playing it does, e.g. ``jam (re-roll the opponent's successes)``."""
    if isinstance(name, Hidden):
        return "a hidden card"
    card = state.challenges.cards.get(name) if state.challenges else None
    if card is None:
        return name
    return f"{name} ({CARD_EFFECTS.get(card.effect, card.effect).format(v=card.value)})"


def unit_flags(u) -> list[str]:
    return [f for f, on in ((f"fate {u.fate}", u.fate), ("stealthed", u.stealthed)) if on]


def _facility(state, fid) -> str:
    f = state.facilities.get(fid)
    return f"{fid} ({f.name})" if f else str(fid)


def label(option, state, decision, uname) -> str | None:
    match option[0], option[1:]:
        case "accept", () if decision.kind == "prerogative":
            return "accept the dice as they are (Defender's Prerogative: the challenge ends now)"
        case "accept", () if decision.kind in ("respond", "threshold"):
            return "accept the dice as they are"
        case "fate", (n,):
            return f"spend {n} fate: re-roll your failed dice"
        case "card", (name,):
            return "play a card (hidden from you)" if isinstance(name, Hidden) else f"play {card_text(state, name)}"
        case "assassinate", ("*", ap):
            return f"assassinate an enemy hero within reach, picked at random ({ap} Action Points)"
        case "assassinate", (uid, ap):
            return f"assassinate {uname(uid)} ({ap} Action Points)"
        case "sabotage", ("*", ap):
            return f"sabotage an enemy facility within reach, picked at random ({ap} Action Points)"
        case "sabotage", (fid, ap):
            return f"sabotage {_facility(state, fid)} ({ap} Action Points)"
        case "create", (ability, ap):
            made = state.challenges.creates.get(ability) if state.challenges else None
            what = f"the card {made.card}" if made else "a card"
            return f"create {what} as {ability} ({ap} Action Points)"
        case "stealth", (ap,):
            return f"hide: go stealthed ({ap} Action Points)"
    return None


def hands(state, side: str) -> list[str]:
    """Your hand of cards, and how many the other side holds."""
    if state.challenges is None:
        return []
    lines = []
    for s in sorted(state.hands):
        hand = state.hands.get(s, [])
        if s == side:
            cards = ", ".join(card_text(state, c) for c in sorted(hand)) or "no cards"
            lines.append(f"  your hand ({len(hand)}): {cards}")
        else:
            lines.append(f"  side {s} holds {len(hand)} card{'s' if len(hand) != 1 else ''} (hidden)")
    return lines


def facilities(state) -> list[str]:
    lines = []
    for f in state.facilities.values():
        gone = "destroyed" if f.damage >= f.structure else f"damage {f.damage}/{f.structure}"
        intel = f", intel center {f.intel}" if f.intel else ""
        lines.append(f"facility {f.id} '{f.name}' of side {f.side} at ({f.x},{f.y}): "
                     f"defence {f.defence}, {gone}{intel}")
    return lines


def challenge(frame: ChallengeFrame, state, side: str) -> list[str]:
    """A challenge's two pools while the sides answer each other (each die, the successes, the fate
    left), and how they stand."""
    if frame.step != "turn":
        return []

    def pool(who: str, uid: str, dice_: tuple[int, ...], fate: int, s: str) -> str:
        you = " (you)" if s == side else ""
        n = dice.successes(dice_)
        rolled = f"{list(dice_)} = {n} success{'' if n == 1 else 'es'}" if dice_ else "no dice, 0 successes"
        return f"{who} {uid}{you}: {rolled}, {fate} fate to spend"

    lines = [f"challenge: {frame.op.replace('_', ' ')} by {frame.attacker}"
             + (f" against {frame.target}" if frame.target else "")
             + "; the dice succeed on 4, 5 and 6"]
    lines.append("  " + pool("attacker", frame.attacker, frame.apool, frame.afate, frame.aside))
    if frame.dside:
        lines.append("  " + pool("defender", frame.target, frame.dpool, frame.dfate, frame.dside))
        margin = dice.opposed(frame.apool, frame.dpool)
        lines.append(f"  as they stand: {'the attacker wins by ' + str(margin) if margin > 0 else 'no hit'}")
    else:
        met = dice.threshold_met(frame.apool, frame.threshold)
        lines.append(f"  threshold {frame.threshold}: {'met' if met else 'not met'}")
    return lines


SHOWN = Shown(
    unit_flags=unit_flags,
    label=label,
    titles={"prerogative": "challenge: your Defender's Prerogative", "respond": "challenge: respond",
            "threshold": "challenge: against the threshold"},
    pools=lambda state: [("Action Points", state.action_points)] if state.action_points else [],
    status=hands,
    places=facilities,
    procedures={ChallengeFrame: challenge},
)

"""The skills module's narration for clients (seed 003): one line per event and per roll
(``skirmish.client.narrate`` calls these through ``Module.narration`` and ``Module.rolls_narration``).

Each event function takes the event, the state before it and ``n(unit id)``, the unit's display
name, and returns the line or None; the caller escapes it for the terminal.
"""

from __future__ import annotations

from skirmish.engine.rules.core.tasks import CHALLENGE_FACES
from skirmish.engine.rules.skills import events as sev
from skirmish.engine.rules.skills import hd_render
from skirmish.engine.rules.skills.ammunition import NAMES as AMMO_NAMES
from skirmish.engine.rules.skills.attributes import NAMES
from skirmish.engine.rules.skills.metatable import TABLE
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


def _ammo(e: sev.AmmunitionUsed, state, n) -> str:
    names = ", ".join(AMMO_NAMES.get(a, a) for a in e.ammo)
    text = f"  {n(e.unit)}'s hit on {n(e.target)}: {names} Special Ammunition"
    if e.ignored:
        text += f"; {n(e.target)} is immune to {', '.join(AMMO_NAMES.get(a, a) for a in e.ignored)}"
    return text


def _attack_mods(e: sev.AttackModified, state, n) -> str:
    parts = [mods_text(e.mods)] if e.mods else []
    if e.difficulty:
        parts.append(f"Difficulty {e.difficulty:+d}")
    if e.burst:
        parts.append(f"Burst: {e.burst} more d20")
    return f"  {n(e.unit)}'s BS Attack on {n(e.target)}: " + "; ".join(parts)


def _aimed(e: sev.AimedShot, state, n) -> str | None:
    return f"  {n(e.unit)} takes an aimed shot (Marksmanship LX: B 1, +6 BS)" if e.unit else None


def _metachemistry(e: sev.MetaChemistryRolled, state, n) -> str:
    if not e.row:
        return f"  {n(e.unit)} does not roll on the MetaChemistry Table"
    return f"  {n(e.unit)}'s MetaChemistry: {e.die}, {TABLE[e.row].name}"


def _wound_ignored(e: sev.WoundIgnored, state, n) -> str:
    if e.skill == "v: dogged":
        return f"  {n(e.unit)} fights on, Dogged (V: Dogged): Dead in the End Phase unless healed"
    return f"  {n(e.unit)} fights on with a Wound lost (V: No Wound Incapacitation)"


def _dogged_ended(e: sev.DoggedEnded, state, n) -> str | None:
    u = state.units.get(e.unit)
    return None if u is None or u.dead else f"  {n(e.unit)}, Dogged, falls dead (V: Dogged)"


COMMS = {"spotlight": "Hacking Program Spotlight", "total control": "Hacking Program Total Control",
         "observe": "Forward Observer", "sat_lock": "Sat-Lock"}

REACTIONS = {"dodge": "Dodge", "change_facing": "Change Facing", "engage": "Engage"}
DIRECTIONS = {(0, -1): "north", (1, -1): "north-east", (1, 0): "east", (1, 1): "south-east", (0, 1): "south",
              (-1, 1): "south-west", (-1, 0): "west", (-1, -1): "north-west"}


def _reaction(e: sev.ReactionDeclared, state, n) -> str:
    return f"  {n(e.unit)} reacts to {n(e.against)}: {REACTIONS.get(e.reaction, e.reaction)}"


def _facing(e: sev.FacingChanged, state, n) -> str:
    return f"  {n(e.unit)} turns to face {DIRECTIONS.get((e.dx, e.dy), f'({e.dx},{e.dy})')} (Change Facing)"


NARRATION = {
    sev.DeploymentStarted: lambda e, state, n: "── deployment: the sides place their units in turn ──",
    sev.UnitDeployed: lambda e, state, n: f"  {n(e.unit)} deploys at ({e.x},{e.y})",
    sev.DeploymentEnded: lambda e, state, n: "  every unit is deployed",
    sev.SkillRolled: _rolled,
    sev.FaceToFaceResolved: _face_to_face,
    sev.AmmunitionUsed: _ammo,
    sev.AttackModified: _attack_mods,
    sev.AimedShot: _aimed,
    sev.CommsAttacked: lambda e, state, n: f"  {n(e.unit)} makes a Comms Attack ({COMMS.get(e.attack, e.attack)}) "
                                           f"at {n(e.target)}",
    sev.StateChanged: lambda e, state, n: f"  {n(e.unit)} {'is now' if e.on else 'is no longer'} {e.state.title()}",
    sev.MediKitUsed: lambda e, state, n: f"  {n(e.unit)} uses a MediKit on {n(e.ally)} (Paramedic)" if e.unit else None,
    sev.WoundRegained: lambda e, state, n: f"  {n(e.unit)}'s Injury is healed",
    sev.InfiltrationFailed: lambda e, state, n: f"  {n(e.unit)} fails to infiltrate: back to its own Deployment Zone, "
                                                "at a table edge, without Camouflage, Hidden Deployment or deployables",
    sev.MetaChemistryRolled: _metachemistry,
    sev.WoundIgnored: _wound_ignored,
    sev.DoggedEnded: _dogged_ended,
    sev.GutsDue: lambda e, state, n: None,  # told when it is taken
    sev.GutsTaken: lambda e, state, n: _guts(e, n),
    sev.LieutenantOrder: lambda e, state, n: f"  {n(e.unit)} has its Special Lieutenant Order: it may act again"
                                             + (f", with {', '.join(n(u) for u in e.coordinated)} in a Coordinated Order"
                                                if e.coordinated else ""),
    sev.RetreatEntered: lambda e, state, n: f"  side {e.side} has lost most of its force: Retreat!",
    sev.UnitWithdrew: lambda e, state, n: f"  {n(e.unit)} leaves the table (Retreat!)",
    sev.ReactionDeclared: _reaction,
    sev.FacingChanged: _facing,
    sev.AttackDodged: lambda e, state, n: f"  {n(e.unit)} dodges {n(e.attacker)}'s attack: the attack is cancelled",
    sev.TerrainChosen: lambda e, state, n: f"  {n(e.unit)} chooses {e.terrain} for its Multiterrain",
    sev.PilotDismounted: lambda e, state, n: _dismounted(e, state, n),
}

GUTS = {"roll": "makes a Guts Roll (WIP)", "religious": "holds its ground (Religious Troop: Guts Roll passed)",
        "hold": "holds its ground", "cover": "seeks cover", "voluntary": "makes a voluntary Guts Roll (Religious Troop)",
        "none": ""}


def _guts(e, n) -> str | None:
    return f"  {n(e.unit)} {GUTS[e.how]}" if GUTS.get(e.how) else None


def _dismounted(e: sev.PilotDismounted, state, n) -> str:
    """The Pilot is still aboard in the state before the event: named from there."""
    pilot = state.aboard.get(e.unit) if state is not None else None
    who = f"{pilot.name} [{pilot.id}]" if pilot is not None else e.pilot
    how = "is ejected by the Hacking Program" if e.ejected else "dismounts (Move), and the Order goes on as the Pilot's"
    return f"  {who}, the Pilot of {n(e.unit)}, {how}: placed at ({e.x},{e.y})"


def skill_roll(e, purpose: str, results: tuple[int, ...], replaced: str) -> str:
    """The d20 of a seed 003 roll (purpose "skills:<purpose>"); the SkillRolled that follows reads it."""
    return f": d20 at or under {e.target}, equal is a critical{replaced}"


def extra_damage(e, ammo: str, results: tuple[int, ...], replaced: str) -> str:
    """A further damage roll of Special Ammunition (purpose "damage:<ammo>", skills/ammunition.py)."""
    total = sum(CHALLENGE_FACES[r - 1] for r in results)
    names = "+".join(AMMO_NAMES.get(a, a) for a in ammo.split("+"))
    return f": {total} damage, another damage roll of {names} Special Ammunition against the same Resistance{replaced}"


def metachemistry_roll(e, rest: str, results: tuple[int, ...], replaced: str) -> str:
    """The d20 on the MetaChemistry Table (purpose "metachemistry")."""
    return f": a d20 on the MetaChemistry Table{replaced}"


ROLLS = {"skills": skill_roll, "damage": extra_damage,
         "metachemistry": metachemistry_roll}


# -- the Lieutenant as Private Information (skills/private.py) and the secrecy salt (skills/secrecy.py) --

REVEALS = {"order": "its Special Lieutenant Order is used", "inspiring leadership": "its Inspiring Leadership is public",
           "lost": "Loss of Lieutenant"}


def _lt_chosen(e: sev.LieutenantChosen, state, n) -> str:
    if isinstance(e.unit, str):
        return f"  side {e.side}'s Lieutenant is {n(e.unit)} (Private Information: the enemy does not know)"
    return f"  side {e.side} chooses its Lieutenant in secret (Private Information)"


NARRATION.update({
    sev.LieutenantChosen: _lt_chosen,
    sev.LieutenantRevealed: lambda e, state, n: (
        f"  side {e.side} has lost its Lieutenant, {n(e.unit)}: Loss of Lieutenant (a new one is named next round)"
        if e.why == "lost" else f"  {n(e.unit)} is revealed as side {e.side}'s Lieutenant ({REVEALS.get(e.why, e.why)})"),
    sev.SecrecySalted: lambda e, state, n: None,
})
NARRATION.update(hd_render.NARRATION)  # Hidden Deployment

# rolls told their own way (Module.roll_lines): the salt's dice stay secret
LINES = {"skills:salt": lambda e, state, who: "  the server draws the secret salt of the hidden information "
                                               "(its dice are hidden)"}

# Impersonation (skills/imp_render.py); its deployment roll, hidden from the other side, as a hidden roll
from skirmish.engine.rules.skills.imp_render import NARRATION as _IMP  # noqa: E402

NARRATION.update(_IMP)

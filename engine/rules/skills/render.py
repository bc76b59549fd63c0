"""What the skills module adds to the clients' text views (seed 003; ``skirmish.client.render`` through
``Module.render``): its units' flags, its options and its decisions."""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.rules.registry import Shown
from skirmish.engine.rules.skills import attributes, hd_render, imp_render
from skirmish.engine.rules.skills.metatable import TABLE


def unit_flags(u) -> list[str]:
    """"not deployed" until it is placed; its Troop Type, Silhouette, Training, skills and seed 003
    attributes -- for a unit that has skills or is not a Regular LI of S2 (every unit of a game
    without the module is one, and shows nothing more than before)."""
    marker = imp_render.unit_flags(u)
    if marker is not None:
        return marker
    flags = [] if u.deployed else ["not deployed"]
    if u.vehicle:
        flags.append(f"Pilot of {u.vehicle}")
    if u.skills or (u.troop_type, u.silhouette, u.training) != ("LI", 2, "regular"):
        flags.append(f"{u.troop_type} S{u.silhouette}" + (" irregular" if u.training == "irregular" else ""))
        flags += list(u.skills)
        flags.append(" ".join(f"{attributes.NAMES[a]} {attributes.value(u, a)}" for a in attributes.ATTRIBUTES))
    return flags


def label(option, state, decision, uname) -> str | None:
    told = imp_render.label(option, state, decision, uname)
    if told is not None:
        return told
    match option[0], option[1:]:
        case "deploy", (x, y):
            terrain = geo.TERRAIN_NAMES.get(geo.terrain(state.board, x, y), "") if state.board else ""
            where = " (cover)" if terrain == "cover" else ""
            return f"deploy {uname(decision.unit)} at ({x},{y}){where}"
        case "aimed_shot", (target, weapon, lethal):
            w = state.units[decision.unit].weapons[weapon].name if decision.unit in state.units else weapon
            kind = "lethal" if lethal else "non-lethal"
            return f"aimed shot (Marksmanship LX: B 1, +6 BS) at {uname(target)} with {w}, {kind}"
        case "hack", (program, target):
            return f"hack {uname(target)}: {program.title()} (a WIP Comms Attack)"
        case "observe", (target,):
            return f"Forward Observer at {uname(target)} (WIP Comms Attack: Targeted)"
        case "sat_lock", (target,):
            return f"Sat-Lock {uname(target)} (Entire Order: WIP-6, no LoF: Targeted)"
        case "medikit", (ally,):
            return f"MediKit on {uname(ally)} (First Aid; passed, its Injury is healed)"
        case "regenerate", ():
            return f"regenerate {uname(decision.unit)} (Entire Order: a PH Roll heals its Injury; failing, it dies)"
        case "roll", () if decision.kind == "metachemistry":
            return f"roll on the MetaChemistry Table for {uname(decision.unit)} (a d20: a MOD or a Special Skill)"
        case "decline", () if decision.kind == "metachemistry":
            return f"do not roll on the MetaChemistry Table for {uname(decision.unit)}"
        case "none", () if decision.kind == "react":
            return "no reaction"
        case "dodge", (uid,):
            return f"{uname(uid)} dodges (PH Face to Face Roll; won: the attack is cancelled and it moves)"
        case "change_facing", (uid,):
            return f"{uname(uid)} changes facing towards {uname(decision.unit)}"
        case "engage", (uid, x, y):
            return f"{uname(uid)} engages {uname(decision.unit)}: moves to ({x},{y}), in base contact"
        case "stay", () if decision.kind == "dodge_move":
            return f"{uname(decision.unit)} stays where it is"
        case "dodge_move", (x, y):
            return f"{uname(decision.unit)} dodges to ({x},{y})"
        case "terrain", (uid, terrain):
            return f"{uname(uid)}'s Multiterrain: {terrain}"
        case "dismount", (x, y):
            return f"dismount the Pilot of {uname(decision.unit)} at ({x},{y}) (Move; the Order goes on as the Pilot's)"
        case "reroll", (i,) if decision.kind == "skill_reroll":
            f = state.stack[-1] if state.stack else None
            roller = f.rollers[i] if f is not None and i < len(getattr(f, "rollers", ())) else None
            if roller is None:
                return "spend a Command Token: re-roll a d20"
            name = attributes.NAMES.get(roller.attribute, roller.attribute)
            return f"spend a Command Token: re-roll {uname(roller.unit)}'s {name} roll (rolled {roller.die})"
        case ("hold" | "cover" | "roll"), (uid,) if decision.kind == "guts":
            return {"hold": f"{uname(uid)} holds its ground",
                    "cover": f"{uname(uid)} seeks cover (out of the enemies' line of fire, or Prone)",
                    "roll": f"{uname(uid)} makes a voluntary Guts Roll (Religious Troop: passed, it seeks cover)"}[option[0]]
        case "withdraw", ():
            return f"{uname(decision.unit)} leaves the table (Retreat!)"
        case "lieutenant", (uid,) if decision.kind == "lieutenant":
            return f"{uname(uid)} is your Lieutenant (in secret)" if isinstance(uid, str) else "a Lieutenant, in secret"
    return hd_render.label(option, state, decision, uname)


def status(state, side) -> list[str]:
    """The Dogged and those going on with a Wound lost (skills/dogged.py), and each MetaChemistry roll."""
    name = lambda uid: state.units[uid].name if uid in state.units else uid  # noqa: E731
    lines = [f"{name(uid)}: Dogged (V: Dogged), Dead in the End Phase unless healed"
             for uid in state.dogged if not state.units[uid].dead]
    lines += [f"{name(uid)}: a Wound lost, fights on (V: No Wound Incapacitation)"
              for uid in state.unfazed if not state.units[uid].dead]
    lines += [f"{name(uid)}: MetaChemistry {TABLE[row].name}" for uid, row in state.metachemistry if row]
    return lines + _lieutenants(state, side, name) + hd_render.status(state, side) + imp_render.status(state, side)


def _lieutenants(state, side, name) -> list[str]:
    """Each side's Lieutenant as the viewer knows it (skills/private.py): its own, a revealed one, or secret."""
    lines = []
    for s, uid in sorted(state.lieutenants.items()):
        known = isinstance(uid, str)
        how = "" if s in state.lt_revealed or not known else " (secret from the enemy)" if s == side else " (secret)"
        lines.append(f"side {s}'s Lieutenant: {name(uid) if known else 'unknown (Private Information)'}{how}")
    return lines


def places(state) -> list[str]:
    """The Pilots aboard their Manned units, the empty ones, and the specialist objectives."""
    lines = [f"{p.name} [{p.id}], the Pilot of {vid}, is aboard (off the table)" for vid, p in sorted(state.aboard.items())]
    lines += [f"{vid}: its Pilot has dismounted (no Orders or AROs; still a target)" for vid in state.dismounted]
    if state.specialist_objectives:
        lines.append("only Specialist Troopers (Paramedics) secure: " + ", ".join(state.specialist_objectives))
    return lines


SHOWN = Shown(
    unit_flags=unit_flags,
    label=label,
    status=status,
    places=places,
    titles={"deploy": "deployment: where does the unit go?",
            "skill_reroll": "a d20 roll: spend a Command Token to re-roll?",
            "redeploy": "the Infiltration Roll failed: where in your zone, at a table edge, does the unit go?",
            "metachemistry": "MetaChemistry: roll on its table for the unit just placed?",
            "guts": "hit and still standing: a Guts Roll",
            "react": "a reaction (ARO): does one of your units react?",
            "dodge_move": "the Dodge won: where does the unit move?",
            "terrain": "Multiterrain: which Type of Terrain?",
            "lieutenant": "Private Information: which candidate is your Lieutenant?",
            **hd_render.TITLES, **imp_render.TITLES},
    carriers=imp_render.CARRIERS,
)

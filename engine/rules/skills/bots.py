"""The skills module's bot hooks (seed 003): the static worth of its decisions
(``skirmish.bots.policy`` reads them through ``Module.bots``; ``greedy`` and ``mcts`` then look
ahead with the engine's own rules as for any decision).

The engine imports no bot code: the scorers take ``kit``, the bots' evaluation
(``skirmish.bots.evaluate``), as an argument.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.model import other
from skirmish.engine.rules.registry import BotHooks
from skirmish.engine.rules.skills import attributes
from skirmish.engine.rules.skills.terrain import CHARS

TOKEN = 0.15  # a Command Token, in victory points (the morale module prices it so)
COVER = 0.15  # standing in cover at the start, in victory points
FORWARD = 0.02  # per cell nearer the objectives (or the enemy's zone on a map without them)

# a roll's purpose -> what its result is worth, in victory points (the skills add theirs)
STAKES: dict[str, float] = {}
STAKE = 0.3


def _goals(state, side: str) -> list[tuple[int, int]]:
    """Where a side wants to be: the objectives, else the enemy's deployment zone."""
    goals = [(o.x, o.y) for o in state.objectives.values()]
    if goals:
        return goals
    b = state.board
    enemy = other(side)
    return [(i % b.width, i // b.width) for i, ch in enumerate(b.cells) if ch == enemy] or [(b.width // 2, b.height // 2)]


MARKER = 1.0  # an impersonator placed as a marker: no Attack can reach it until it is Discovered twice


def _deploy(state, d, kit) -> list[float]:
    """A placement in cover, nearer the objectives, is worth more; as a marker, more still."""
    goals = _goals(state, d.side)
    out = []
    for o in d.options:
        x, y = o[-2], o[-1]
        near = min(geo.distance(x, y, gx, gy) for gx, gy in goals)
        out.append((COVER if geo.in_cover(state.board, x, y) else 0.0) - FORWARD * near
                   + (MARKER if o[0] == "impersonate" else 0.0))
    return out


def _reroll(state, d, kit) -> list[float]:
    f = state.stack[-1] if state.stack else None
    stake = STAKES.get(getattr(f, "purpose", ""), STAKE)
    return [0.0 if o[0] == "keep" else 0.4 * stake - TOKEN for o in d.options]


def _aimed_shot(state, unit, o, kit) -> float:
    """An aimed shot is worth the attack it is (the lookahead of greedy and mcts sees the +6)."""
    t = state.units[o[1]]
    if t.incapacitated:
        return -0.05
    return kit.attack_value(state, unit, kit.drawn_weapon(unit, o[2]), t) + AIMED_EDGE


AIMED_EDGE = 0.01


def _comms(state, unit, o, kit) -> float:
    """A Comms Attack: a Possessed enemy is out of the fight; a Targeted one easier to hit."""
    target = state.units[o[-1]]
    p = min(20, max(0, attributes.value(unit, "wip") - (6 if o[0] == "sat_lock" else 0))) / 20
    return p * target.points * (0.6 if o[0] == "hack" and o[1] == "total control" else 0.1)


def _medikit(state, unit, o, kit) -> float:
    """Healing an ally puts its points back in the fight (the Task's odds are the lookahead's)."""
    return 0.5 * state.units[o[1]].points


def _regenerate(state, unit, o, kit) -> float:
    """Healing is worth the unit's points at the PH odds, less the same for dying on a failure
    (an Unconscious unit that is not healed may die at the scene's end anyway)."""
    p = min(20, max(0, attributes.value(unit, "ph"))) / 20
    return unit.points * (p - 0.5 * (1 - p))


def _metachemistry(state, d, kit) -> list[float]:
    """Every row of the table helps: rolling is worth a little more than not."""
    return [METACHEMISTRY if o[0] == "roll" else 0.0 for o in d.options]


METACHEMISTRY = 0.1


def _guts(state, d, kit) -> list[float]:
    """Seeking cover (or rolling for it) is worth a little to a unit still exposed; holding keeps it
    where the side put it (the lookahead sees where it goes)."""
    return [0.0 if o[0] == "hold" else GUTS_EDGE for o in d.options]


GUTS_EDGE = 0.02


def _withdraw(state, unit, o, kit) -> float:
    """Leaving the table in Retreat! keeps the unit's points from the enemy: worth it when it is hurt."""
    return 0.5 * unit.points if unit.stress == 0 else -0.05


DODGE = 0.25  # a Dodge, per point of the dodger: the attack it may cancel
FACING = 0.05  # turning to face an enemy behind
ENGAGE = 0.05  # base contact with a mover: its ranged attacks are harder (an enemy in its Reach)


def _react(state, d, kit) -> list[float]:
    """Reactions (skills/reactions.py): a Dodge is worth the attack it may cancel; an Engage a
    little, more into cover; Change Facing a little; none nothing."""
    out = []
    for o in d.options:
        if o[0] == "dodge":
            out.append(DODGE * state.units[o[1]].points)
        elif o[0] == "change_facing":
            out.append(FACING)
        elif o[0] == "engage":
            out.append(ENGAGE + (COVER if geo.in_cover(state.board, o[2], o[3]) else 0.0))
        else:
            out.append(0.0)
    return out


def _dodge_move(state, d, kit) -> list[float]:
    """After a won Dodge: into cover, away from the enemies' line of fire."""
    unit = state.units[d.unit]
    enemies = [e for e in state.units.values() if e.side != unit.side and not e.incapacitated]
    out = []
    for o in d.options:
        if o[0] == "stay":
            out.append(0.0)
            continue
        x, y = o[1], o[2]
        seen = sum(geo.line_of_fire(state.board, x, y, e.x, e.y) for e in enemies)
        before = sum(geo.line_of_fire(state.board, unit.x, unit.y, e.x, e.y) for e in enemies)
        cover = COVER if geo.in_cover(state.board, x, y) else 0.0
        out.append(cover + 0.05 * (before - seen) - (COVER if geo.in_cover(state.board, unit.x, unit.y) else 0.0))
    return out


def _terrain(state, d, kit) -> list[float]:
    """Multiterrain: the Type of Terrain the board has most of."""
    return [0.001 * state.board.cells.count(CHARS[o[2]]) for o in d.options]


def _dismount(state, unit, o, kit) -> float:
    """Dismounting an Unconscious vehicle puts its Pilot back in the fight; leaving a sound one
    gives up the vehicle's Orders (its lookahead sees the rest)."""
    pilot = state.aboard.get(unit.id)
    worth = pilot.points if pilot is not None else 0
    return 0.8 * worth if unit.incapacitated else -0.5 * unit.points


def manned_term(state, side: str, active: list, kit) -> float:
    """A Pilot aboard a sound vehicle is part of it (safe, off the table); an empty vehicle is no
    fighter though the evaluation counts it standing: the first adds, the second takes away."""
    aboard = sum(p.points for vid, p in state.aboard.items()
                 if p.side == side and vid in state.units and not state.units[vid].incapacitated)
    empty = sum(state.units[vid].points for vid in state.dismounted
                if state.units[vid].side == side and not state.units[vid].incapacitated)
    return aboard - empty


HOOKS = BotHooks(
    terms=(("manned", 0.5, manned_term),),
    option_values={"aimed_shot": _aimed_shot, "regenerate": _regenerate, "medikit": _medikit,
                   "hack": _comms, "observe": _comms, "sat_lock": _comms,
                   "withdraw": _withdraw, "dismount": _dismount},
    scorers={"deploy": _deploy, "skill_reroll": _reroll,
             "redeploy": _deploy, "imp_redeploy": _deploy, "metachemistry": _metachemistry,
             "guts": _guts,
             "react": _react, "dodge_move": _dodge_move, "terrain": _terrain},
    procedure_kinds=frozenset({"skill_reroll", "guts",
                               "react", "dodge_move"}),
)

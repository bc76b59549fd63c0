"""Special operations (seed 002, "Special Operations Challenges"), offered in a unit's activation.

Each operation is the unit's Task for its activation and costs its side Action Points ("offer
the 'Assassinate Hero' option followed by the cost in Action Points"): the cost is the option's
last item, and an operation the side cannot afford is not offered ("If sufficient Action Points
are not available then the option will appear in red text and not be selectable").

``("assassinate", target, ap)``  an Assassin within Reach ("in the same hex") of observed enemy
                                 heroes; ``target`` is ``"*"`` (a random observed hero) unless it
                                 is a Master Assassin, which is offered each target
``("sabotage", facility, ap)``   a Saboteur within Reach of enemy facilities; ``"*"`` unless a
                                 Master Saboteur
``("create", ability, ap)``      a Tactician / Technologist / Geneticist's threshold challenge
``("stealth", ap)``              a unit with Stealth, not stealthed, out of enemies' Reach, hides
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import TaskAttempted
from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.challenges import procedure
from skirmish.engine.rules.challenges.events import ActionPointsChanged, StealthChanged
from skirmish.engine.rules.challenges.frames import ChallengeFrame

CREATORS = ("tactician", "technologist", "geneticist")
DEFAULT_COSTS = {"assassinate": 2, "sabotage": 2, "create": 1, "stealth": 1}
TARGET = "challenges:target"


def cost(state: State, op: str) -> int:
    return state.challenges.costs.get(op, DEFAULT_COSTS[op])


def _near(state: State, unit: Unit, x: int, y: int) -> bool:
    return geo.distance(unit.x, unit.y, x, y) <= state.board.reach


def observed_heroes(state: State, unit: Unit) -> list[Unit]:
    """"the heroes observed in that hex location": enemy heroes not dead, not stealthed, within
    Reach of the assassin, in id order."""
    return sorted((u for u in state.units.values()
                   if u.side != unit.side and u.kind == "hero" and not u.dead and not u.stealthed
                   and _near(state, unit, u.x, u.y)), key=lambda u: u.id)


def observed_facilities(state: State, unit: Unit) -> list:
    return sorted((f for f in state.facilities.values()
                   if f.side != unit.side and not f.destroyed and _near(state, unit, f.x, f.y)),
                  key=lambda f: f.id)


def operation_options(state: State, unit: Unit) -> list[Option]:
    ap = state.action_points.get(unit.side, 0)
    ab = unit.abilities
    opts: list[Option] = []
    c = cost(state, "assassinate")
    if ab.get("assassin", 0) > 0 and ap >= c:
        heroes = observed_heroes(state, unit)
        if ab.get("master_assassin", 0) > 0:
            opts += [("assassinate", h.id, c) for h in heroes]
        elif heroes:
            opts.append(("assassinate", "*", c))
    c = cost(state, "sabotage")
    if ab.get("saboteur", 0) > 0 and ap >= c:
        facilities = observed_facilities(state, unit)
        if ab.get("master_saboteur", 0) > 0:
            opts += [("sabotage", f.id, c) for f in facilities]
        elif facilities:
            opts.append(("sabotage", "*", c))
    c = cost(state, "create")
    for ability in CREATORS:
        if ab.get(ability, 0) > 0 and ability in state.challenges.creates and ap >= c:
            opts.append(("create", ability, c))
    c = cost(state, "stealth")
    if ab.get("stealth", 0) > 0 and not unit.stealthed and ap >= c and not any(
            u.side != unit.side and not u.incapacitated and _near(state, unit, u.x, u.y)
            for u in state.units.values()):
        opts.append(("stealth", c))
    return opts


def can_target(state: State, unit: Unit, target: Unit) -> bool:
    """Stealth (house rule): a stealthed unit is not attacked (in a turn, a Ready reaction or a
    Direct), and does not attack (it would give itself away); it keeps its operations."""
    return not (unit.stealthed or target.stealthed)


def turn_options(state: State, unit: Unit, opts: list[Option]) -> list[Option]:
    if state.turn is not None and not state.turn.task:
        opts = opts + operation_options(state, unit)
    return opts


def _pay(ctx: Context, unit: Unit, op: str, ap: int) -> None:
    ctx.emit(TaskAttempted(unit=unit.id, task=op))
    ctx.emit(ActionPointsChanged(side=unit.side, delta=-int(ap), reason=op))


def _pick(ctx: Context, chosen: str, candidates: list[str], unit: Unit) -> str:
    """The Master's choice, or "a random target from among" those observed."""
    if chosen != "*":
        return chosen
    if len(candidates) == 1:
        return candidates[0]
    return candidates[ctx.roll(len(candidates), 1, TARGET, unit=unit.id)[0] - 1]


def act_assassinate(ctx: Context, unit: Unit, option: Option) -> None:
    s = ctx.state
    _pay(ctx, unit, "assassinate", option[2])
    target = s.units[_pick(ctx, str(option[1]), [h.id for h in observed_heroes(s, unit)], unit)]
    # "Assassin vs. Assassin: Whenever an assassin initiates a challenge that targets another
    # assassin a special duel ensues."
    procedure.start(ctx, ChallengeFrame(op="assassinate", attacker=unit.id, target=target.id, aside=unit.side,
                                        dside=target.side, afate=unit.fate, dfate=target.fate,
                                        duel=target.abilities.get("assassin", 0) > 0))


def intel_level(state: State, facility) -> int:
    """The best intel center among the defender's standing facilities within Reach of the target
    (adapted: "with an intel center in the same hex"), the target itself included."""
    return max((f.intel for f in state.facilities.values()
                if f.side == facility.side and not f.destroyed
                and geo.distance(f.x, f.y, facility.x, facility.y) <= state.board.reach), default=0)


def act_sabotage(ctx: Context, unit: Unit, option: Option) -> None:
    s = ctx.state
    _pay(ctx, unit, "sabotage", option[2])
    fac = s.facilities[_pick(ctx, str(option[1]), [f.id for f in observed_facilities(s, unit)], unit)]
    intel = intel_level(s, fac)
    # Saboteur vs. Intel Center: the defender's extra successes wound the saboteur, and the
    # defender gains fate equal to the intel facility's level (RULES-BRIEF "challenges").
    procedure.start(ctx, ChallengeFrame(op="sabotage", attacker=unit.id, target=fac.id, aside=unit.side,
                                        dside=fac.side, afate=unit.fate, dfate=intel, duel=intel > 0,
                                        intel=intel))


def act_create(ctx: Context, unit: Unit, option: Option) -> None:
    _pay(ctx, unit, "create", option[2])
    ability = str(option[1])
    procedure.start(ctx, ChallengeFrame(op="create", attacker=unit.id, target=ability, aside=unit.side,
                                        afate=unit.fate, threshold=ctx.state.challenges.creates[ability].threshold))


def act_stealth(ctx: Context, unit: Unit, option: Option) -> None:
    _pay(ctx, unit, "stealth", option[1])
    ctx.emit(StealthChanged(unit=unit.id, stealthed=True, reason="hid"))


ACTS = {"assassinate": act_assassinate, "sabotage": act_sabotage, "create": act_create, "stealth": act_stealth}

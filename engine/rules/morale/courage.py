"""Courage Tests (seed 004 "Courage Test").

"When a team loses unit(s) that combed VP (Victory Points) equal to 25% or more of the teams
total VP, they must take a courage tests during the End Phase. They must roll 2D6 ... If the
result is equal to or less than the teams Courage value, which is their TCV plus five, they
pass ... If they roll higher, they fail the courage test and retreat. All units in base contact
to opposing units are treated as making a Breakaway Move action. After that the team is classed
as losing the game. A team will first roll when they loss 25% VP and then on turns they loss a
unit until they have loss 50% or more, than they take Courage Tests every turn. They will also
suffer a -2 to their Courage value if they lost more than 50% of their total VP value and they
will suffer an automatic failure if all Pilots are out of action or Unconscious. Full VP on the
Pilot Sheets is the total VP of the team. 25% VP ... rounded up and 50% VP ... rounded up."

A unit's VP are its victory points (``Unit.points``); a unit is lost when it is out of action
(``Unit.incapacitated``: an Injury, seed 001).
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import UnitMoved
from skirmish.engine.rules.morale.events import CourageFailed, CourageTestDue
from skirmish.engine.model import SIDES, Option, Outcome, State, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale import rolls, tokens

COURAGE_BASE = 5  # "their TCV plus five"
PAST_HALF = -2  # "a -2 to their Courage value if they lost more than 50%"


def vp(state: State, side: str) -> tuple[int, int]:
    """(total VP, VP lost) of a side."""
    units = state.side_units(side)
    return sum(u.points for u in units), sum(u.points for u in units if u.incapacitated)


def thresholds(total: int) -> tuple[int, int]:
    """25% and 50% of the total VP, each rounded up."""
    return -(-total // 4), -(-total // 2)


def lost_units(state: State, side: str) -> int:
    return sum(1 for u in state.side_units(side) if u.incapacitated)


def due(state: State, side: str) -> bool:
    total, lost = vp(state, side)
    q25, q50 = thresholds(total)
    if total == 0 or lost < q25:
        return False
    if lost >= q50:
        return True  # "than they take Courage Tests every turn"
    last = state.courage_lost[side]
    return last < 0 or lost_units(state, side) > last  # first at 25%, then "on turns they loss a unit"


def courage_value(state: State, side: str) -> int:
    total, lost = vp(state, side)
    return registry.rules_of(state).core.team_command_value(state, side) + COURAGE_BASE + (PAST_HALF if 2 * lost > total else 0)


def automatic_failure(state: State, side: str) -> bool:
    """"all Pilots are out of action or Unconscious" (a side with pilots)."""
    pilots = [u for u in state.side_units(side) if u.endurance_max > 0]
    return bool(pilots) and all(u.incapacitated or u.unconscious for u in pilots)


def end_phase_tests(ctx: Context) -> None:
    s = ctx.state
    for side in reversed(SIDES):  # side a tests first (the stack runs its top first)
        if s.outcome is None and due(s, side) and registry.allows(s, "can_retreat", side):
            ctx.emit(CourageTestDue(side=side, lost_units=lost_units(s, side)))
            rolls.start_test(ctx, "courage", side, courage_value(s, side), 0 if automatic_failure(s, side) else 2)


def can_ignore(state: State, side: str) -> bool:
    """"To ignore a failed Courage Test only if the team has not lost more than 50% of its units.\""""
    units = state.side_units(side)
    return tokens.can_pay(state, side) and 2 * lost_units(state, side) <= len(units)


def _tested(ctx: Context, f, ok: bool) -> None:
    if not ok:
        failed(ctx, f.side)


RESOLVE = {"courage": _tested}  # what a Courage Test's result does (skirmish.engine.rules.morale.rolls.test_step)


def failed(ctx: Context, side: str) -> None:
    if can_ignore(ctx.state, side):
        ctx.ask(side, "courage_failed", [("retreat",), ("ignore",)])
    else:
        retreat(ctx, side)


def answer_courage_failed(ctx: Context, option: Option) -> None:
    side = ctx.events[-1].side
    if option[0] == "ignore":
        tokens.pay(ctx, side, "ignore a failed courage test")
    else:
        retreat(ctx, side)


def retreat(ctx: Context, side: str) -> None:
    """"All units in base contact to opposing units are treated as making a Breakaway Move
    action. After that the team is classed as losing the game." Breakaway Move (*adapted*: seed
    004's movement chapter is not in the excerpt): each unit in an enemy's Reach moves, within
    its Movement (the Medium band), to the cell farthest from the nearest enemy, out of every
    enemy's Reach if it can. A unit that may not move (a Fear Token: "cannot make any move
    actions"; the registry's ``can_move``) stays. The game ends in ``on_idle`` once the End
    Phase's tests are done."""
    s = ctx.state
    for u in [u for u in s.side_units(side) if not u.incapacitated and registry.allows(s, "can_move", u)
              and registry.allows(s, "breaks_away", u)]:
        enemies = [e for e in s.units.values() if e.side != side and not e.incapacitated]
        if not any(geo.distance(u.x, u.y, e.x, e.y) <= s.board.reach for e in enemies):
            continue
        occupied = {(o.x, o.y) for o in s.units.values() if not o.dead and o.id != u.id}
        cells = [*registry.reachable(s, u, s.board.medium, occupied), (u.x, u.y)]
        best = max(sorted(cells, key=lambda c: (c[1], c[0])),
                   key=lambda c: min(geo.distance(c[0], c[1], e.x, e.y) for e in enemies))
        if best != (u.x, u.y):
            ctx.emit(UnitMoved(unit=u.id, x=best[0], y=best[1]))
    ctx.emit(CourageFailed(side=side))


def end_if_retreated(ctx: Context) -> None:
    s = ctx.state
    end_game, points = ctx.rules.core.end_game, ctx.rules.core.points
    if s.outcome is not None or not any(s.retreated.values()):
        return
    if all(s.retreated.values()):
        end_game(ctx, Outcome(None, "both sides failed a Courage Test and retreated", points(s)))
    else:
        loser = "a" if s.retreated["a"] else "b"
        end_game(ctx, Outcome(other(loser), f"side {loser} failed a Courage Test and retreated", points(s)))

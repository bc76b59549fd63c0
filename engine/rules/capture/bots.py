"""The capture module's bot hooks (seed 000): its terms of the bots' evaluation, the static worth of
its options and of activating a captive, and what a capture or the exit adds to a moving unit's
cell (``skirmish.bots.evaluate`` and ``skirmish.bots.policy`` read them through ``Module.bots``).

The terms, for the side whose heroes may capture (``capture_value``: the chance to pass the
capture test times what the capture adds to the score, less the failed test's wounded(+1)):

- ``capture_near``: for each hero that could capture now, its best capture;
- ``capture_far``: for each such hero, its best capture within a move and Reach;
- ``exit_near``: for each captive bogey being dragged, the mission's exit points, discounted by
  the dragger's distance to the exit edge;
- ``captive_risk`` (negative weight): for each captive the side holds, its chance to escape at
  its next activation (a 10+, or only a 12 while a hero of the side is engaged with it) times
  what its escape would take off the side's score.

Captives count neither as able to fight nor as targets (``sidelined``: they are held, not fought).

The engine imports no bot code: the functions that price take ``kit``, the bots' evaluation
(``skirmish.bots.evaluate``: ``WORTH_ALIVE``, ``WORTH_STRESS``), as their last argument.
"""

from __future__ import annotations

from functools import lru_cache, partial

from skirmish.engine.model import Option, State, Unit
from skirmish.engine.rules.capture import conditions as cond
from skirmish.engine.rules.capture import dice
from skirmish.engine.rules.registry import BotHooks

# the weights of its terms, in victory points per unit (see the docstring)
CAPTURE_NEAR = 0.7
CAPTURE_FAR = 0.25
EXIT_NEAR = 0.5
CAPTIVE_RISK = -0.5
_NONE = (0.0, 0.0, 0.0, 0.0)  # its terms in a game without the module


@lru_cache(maxsize=256)
def d12_pass_odds(dice_: int, difficulty: int) -> float:
    """The chance that ``dice_`` d12 reach D(``difficulty``) at least once (one success needs only
    the total to reach it), exactly, by convolution."""
    dist = {0: 1.0}
    for _ in range(dice_):
        nxt: dict[int, float] = {}
        for total, p in dist.items():
            for face in range(1, 13):
                nxt[total + face] = nxt.get(total + face, 0.0) + p / 12
        dist = nxt
    return sum(p for total, p in dist.items() if total >= difficulty)


def capture_gain(state: State, target: Unit, kit) -> float:
    """What capturing ``target`` adds to its captors' victory points (the ``points`` hook)."""
    rules = cond.rules_of(state)
    if target.kind == "bogey":
        return float(rules.captive_points)
    return rules.character_points + (0.0 if target.incapacitated else target.points * (1 + kit.WORTH_ALIVE))


def capture_value(state: State, hero: Unit, target: Unit, kit) -> float:
    """Expected victory points of ``hero`` trying to capture ``target``: the chance to pass the
    interact test times the gain, less the failed test's wounded(+1) (Stress worth)."""
    p = d12_pass_odds(dice.acuity(hero), cond.capture_difficulty(target))
    cost = hero.points * kit.WORTH_STRESS * cond.wound_step(hero) / (hero.stress_max or 1)
    return p * capture_gain(state, target, kit) - (1 - p) * cost


def _targets(state: State, side: str) -> list[Unit]:
    """The enemies of ``side`` that a hero could capture once engaged with them."""
    return [t for t in state.units.values() if t.side != side and not t.dead and not t.captured
            and (cond.down(t) or cond.stunned(t) or (t.kind == "hero" and cond.wounded(t) >= 3))]


def _escape_chance(state: State, u: Unit) -> float:
    """A captive's chance to escape at its next activation."""
    if u.kind == "bogey":
        face = cond.ENGAGED_ESCAPE_FACE if cond.guard_of(state, u) else cond.ESCAPE_FACE
        return 1 - ((face - 1) / 12) ** cond.ESCAPE_DICE.get(u.tier, 1)
    return d12_pass_odds(dice.mobility(u), cond.ESCAPE_DIFFICULTY)


# -- its terms of the evaluation

def terms(state: State, side: str, active: list, kit) -> tuple[float, ...]:
    """``capture_near``, ``capture_far``, ``exit_near`` and ``captive_risk`` of ``side`` (see the
    module docstring)."""
    if "capture" not in state.modules:
        return _NONE
    b = state.board
    reach, medium = b.reach, b.medium
    near = far = exit_near = 0.0
    heroes = [u for u in state.units.values() if u.side == side and cond.may_capture(state, u)]
    if heroes:
        targets = _targets(state, side)
        for h in heroes:
            best_near = best_far = 0.0
            for t in targets:
                d = max(abs(h.x - t.x), abs(h.y - t.y))
                if d <= reach + medium:
                    v = capture_value(state, h, t, kit)
                    if d <= reach:
                        best_near = max(best_near, v)
                    else:
                        best_far = max(best_far, v)
            near += best_near
            far += best_far
    rules = cond.rules_of(state)
    if rules.exit_points and rules.exit:
        for h in state.units.values():
            if h.side == side and h.dragging and not h.incapacitated:
                c = state.units[h.dragging]
                if c.kind == "bogey" and c.captured and not c.dead:
                    d = {"north": h.y, "south": b.height - 1 - h.y, "west": h.x, "east": b.width - 1 - h.x}[rules.exit]
                    exit_near += rules.exit_points / (1 + d / medium)
    return near, far, exit_near, _risk(state, side, rules)


def _risk(state: State, side: str, rules) -> float:
    risk = 0.0
    for c in state.units.values():
        if c.side != side and c.captured and not c.dead and not c.incapacitated:
            worth = c.points + (rules.captive_points if c.kind == "bogey" else rules.character_points)
            chance = _escape_chance(state, c)
            if c.kind != "bogey" and cond.guard_of(state, c) is not None:
                chance *= chance * 0.5  # two successes needed
            risk += chance * worth
    return risk


# -- its options in a unit's turn

def _capture(state: State, unit: Unit, o: Option, kit) -> float:
    return capture_value(state, unit, state.units[o[1]], kit)


def _free(state: State, unit: Unit, o: Option, kit) -> float:
    captive = state.units[o[1]]
    p = d12_pass_odds(dice.acuity(unit), cond.FREE_DIFFICULTY)
    return p * (cond.rules_of(state).character_points
                + (0.0 if captive.incapacitated else captive.points * (1 + kit.WORTH_ALIVE)))


def _escape(state: State, unit: Unit, o: Option, kit) -> float:
    p = d12_pass_odds(dice.mobility(unit), cond.ESCAPE_DIFFICULTY)
    if cond.guard_of(state, unit) is not None:
        p *= p * 0.5  # two successes needed: at least twice the dice total, roughly
    return p * (cond.rules_of(state).character_points + unit.points * (1 + kit.WORTH_ALIVE))


def _drag(state: State, unit: Unit, o: Option, kit) -> float:
    rules = cond.rules_of(state)
    return 0.15 + (0.3 * rules.exit_points if rules.exit else 0.0)


def _exit(state: State, unit: Unit, o: Option, kit) -> float:
    return cond.rules_of(state).exit_points + 0.5


def _bonus(state: State, unit: Unit, o: Option, kit) -> float:
    return 0.05  # a free extra Minor Action other than Movement (``free_moves`` prices that)


def _bonus_move(o: Option) -> tuple[int, int] | None:
    return (o[2], o[3]) if o[1] == "move" else None


def activation(state: State, u: Unit, kit) -> float | None:
    """Activating a captive is worth its chance to escape times what the escape takes off its
    captors' score."""
    if not u.captured:
        return None
    rules = cond.rules_of(state)
    bonus = rules.captive_points if u.kind == "bogey" else rules.character_points
    return _escape_chance(state, u) * (bonus + u.points)


# -- a moving unit's cell: down targets to capture, the exit to drag a captive to

def positions(state: State, unit: Unit, task_left: bool, kit) -> list:
    if "capture" not in state.modules:
        return []
    out = []
    if task_left and cond.may_capture(state, unit):
        targets = [(t, capture_value(state, unit, t, kit)) for t in _targets(state, unit.side)]
        if targets:
            out.append(partial(_near_capture, targets, state.board.reach))
    rules = cond.rules_of(state)
    if unit.dragging and rules.exit and rules.exit_points:
        out.append(partial(_toward_exit, state.board, rules.exit, rules.exit_points))
    return out


def _near_capture(targets: list, reach: int, x: int, y: int) -> float:
    best = 0.0
    for t, v in targets:
        if max(abs(x - t.x), abs(y - t.y)) <= reach and v > best:
            best = v
    return CAPTURE_NEAR * best


def _toward_exit(b, edge: str, points: int, x: int, y: int) -> float:
    d = {"north": y, "south": b.height - 1 - y, "west": x, "east": b.width - 1 - x}[edge]
    return EXIT_NEAR * points / (1 + d / b.medium)


HOOKS = BotHooks(
    terms=((("capture_near", "capture_far", "exit_near", "captive_risk"),
            (CAPTURE_NEAR, CAPTURE_FAR, EXIT_NEAR, CAPTIVE_RISK), terms),),
    option_values={"capture": _capture, "free": _free, "escape": _escape, "drag": _drag, "exit": _exit,
                   "bonus": _bonus},
    minor_actions=frozenset({"drag", "exit"}),
    free_moves={"bonus": _bonus_move},
    sidelined=lambda u: u.captured,
    activation=activation,
    positions=positions,
    procedure_kinds=frozenset({"d12_reroll"}),  # its rolls held open for a re-roll (the morale module on)
)

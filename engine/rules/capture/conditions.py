"""seed 000's states read off the one condition model (RULES-BRIEF "Conditions").

- a bogey is **down** while an Injury incapacitates it (and it is not dead);
- a character is **stunned** while it has a non-lethal Injury;
- **wounded(n)** is read off the Stress track: n = floor(4 x Stress lost / max Stress), so
  wounded(4) is exactly 0 Stress; "becomes wounded(+1)" loses the Stress that completes the next
  quarter, exactly one step (docs/rules.md: RULES-BRIEF's ceil, fixed by issue 12);
- **captured** (``Unit.captured``) stacks on top of them.

"Engaged" is Reach (RULES-BRIEF "Board": adjacent cells).
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.model import State, Unit
from skirmish.engine.rules.capture.fields import CaptureRules
from skirmish.engine.rules.capture.dice import fxm
from skirmish.engine.versions import CURRENT, V0_2

DEFAULT_RULES = CaptureRules()

BOGEY_DIFFICULTY = 16  # "D(16) for bogeys"
FREE_DIFFICULTY = 13  # "an interact (D(13)) test"
ESCAPE_DIFFICULTY = 16  # "an escape (D(16)) test"
ESCAPE_DICE = {"grunt": 1, "elite": 2, "boss": 3}  # "1 for a Grunt, 2 for an Elite or 3 for a Boss"
ESCAPE_FACE = 10  # "If any of the dice is a 10+, the bogey has escaped"
ENGAGED_ESCAPE_FACE = 12  # "engaged with a character will escape only if any of the dice is a 12"
XP_FOR_REMOVAL = 1  # "worth +1 XP to the hero removing them"


def rules_of(state: State) -> CaptureRules:
    return state.capture or DEFAULT_RULES


def down(u: Unit) -> bool:
    return u.kind == "bogey" and bool(u.injury) and not u.dead


def stunned(u: Unit) -> bool:
    return u.kind == "hero" and u.injury == "nonlethal" and not u.dead


def wounded(u: Unit, rules: int = CURRENT) -> int:
    """n of wounded(n): the whole quarters of the Stress track lost, floor(4 x lost / max), so
    wounded(4) is exactly 0 Stress (issue 12: RULES-BRIEF's ceil made Stress 2 of 11 wounded(4))."""
    if u.stress_max <= 0:
        return 4
    lost = u.stress_max - u.stress
    if rules < V0_2:  # engine 0.1.0: RULES-BRIEF's ceil
        return -(-4 * lost // u.stress_max)
    return 4 * lost // u.stress_max


def wound_step(u: Unit, rules: int = CURRENT) -> int:
    """The Stress "becomes wounded(+1)" costs now: the least that completes the next quarter,
    ceil((n + 1) x max / 4) - lost, so it is exactly one step whenever max Stress is 4 or more
    (from full Stress: ceil(max / 4), as RULES-BRIEF says); 0 at 0 Stress (none is left: the
    step is the Injury of seed 001's 7C). Below 4 max Stress some steps hold no Stress of their
    own and the next one that does is reached. (Engine 0.1.0: ceil(max Stress / 4), at least 1.)"""
    if rules < V0_2:
        return max(1, -(-u.stress_max // 4))
    if u.stress <= 0 or u.stress_max <= 0:
        return 0
    lost = u.stress_max - u.stress
    n = wounded(u)
    while True:
        n += 1
        need = -(-n * u.stress_max // 4) - lost
        if need >= 1:
            return need


def engaged(state: State, a: Unit, b: Unit) -> bool:
    return geo.distance(a.x, a.y, b.x, b.y) <= state.board.reach


def able(u: Unit) -> bool:
    """Able to act on a captive: not taken out, not a captive itself."""
    return not u.incapacitated and not u.captured


def may_capture(state: State, hero: Unit) -> bool:
    """Capturing is for heroes ("a hero engaged with them") of the mission's captor side(s)."""
    captor = rules_of(state).captor
    return hero.kind == "hero" and able(hero) and captor in ("both", hero.side)


def capturable(state: State, hero: Unit, target: Unit) -> bool:
    """seed 000: "A bogey in the down state or an enemy character who is stunned, wounded(3) or
    wounded(4) can be placed into the captured state by a hero engaged with them." """
    if target.side == hero.side or target.dead or target.captured or not engaged(state, hero, target):
        return False
    if target.kind == "bogey":
        return down(target)
    return stunned(target) or wounded(target, state.rules_version) >= 3


def capture_difficulty(target: Unit) -> int:
    """"D(16) for bogeys or D(target's FxM) for an enemy character"."""
    return BOGEY_DIFFICULTY if target.kind == "bogey" else fxm(target)


def guard_of(state: State, captive: Unit) -> Unit | None:
    """The enemy character the captive is engaged with, if any: the one dragging it first, then
    the first by id (a down or captured enemy holds nobody)."""
    for u in state.units.values():
        if u.dragging == captive.id and u.side != captive.side and u.kind == "hero" and able(u) \
                and engaged(state, u, captive):
            return u
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.side != captive.side and u.kind == "hero" and able(u) and engaged(state, u, captive):
            return u
    return None


def dragger_of(state: State, captive: Unit) -> Unit | None:
    for u in state.units.values():
        if u.dragging == captive.id:
            return u
    return None


def on_exit(state: State, u: Unit) -> bool:
    """Whether ``u`` stands on the mission's exit edge."""
    edge = rules_of(state).exit
    b = state.board
    return (edge == "north" and u.y == 0) or (edge == "south" and u.y == b.height - 1) \
        or (edge == "west" and u.x == 0) or (edge == "east" and u.x == b.width - 1)

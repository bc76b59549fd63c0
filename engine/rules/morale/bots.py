"""The morale module's bot hooks (seed 004): its terms of the bots' evaluation, the static worth of
its options and of its decisions (``skirmish.bots.evaluate`` and ``skirmish.bots.policy`` read them through
``Module.bots``).

The engine imports no bot code: the functions that price options and decisions take ``kit``, the
bots' evaluation (``skirmish.bots.evaluate``: ``best_attack``, ``WIN``), as an argument.
"""

from __future__ import annotations

from skirmish.engine.model import TaskFrame
from skirmish.engine.rules.morale import courage
from skirmish.engine.rules.registry import BotHooks

TOKEN = 0.15  # a Command Token, in victory points (the weight of the "tokens" term)


def tokens_term(state, side: str, active: list, kit) -> float:
    """Command Tokens."""
    return state.tokens[side]


def pilots_term(state, side: str, active: list, kit) -> float:
    """For each unit able to fight with a pilot, its points times its pilot's Endurance fraction (0
    while Unconscious), less half its points with a Fear Token."""
    pilots = 0.0
    for u in active:
        if u.endurance_max:
            pilots += u.points * ((0.0 if u.unconscious else u.endurance / u.endurance_max) - (0.5 if u.fear else 0.0))
    return pilots


# -- its options in a unit's turn: Command Tokens and standing down

def _rest(state, unit, o, kit) -> float:
    tired = unit.endurance_max - unit.endurance if unit.endurance_max else 0
    return 0.1 * tired * unit.points / (unit.endurance_max or 1) - kit.best_attack(state, unit)


def _boost(state, unit, o, kit) -> float:
    return -TOKEN


def _counter(state, unit, o, kit) -> float:
    return 0.6 * kit.best_attack(state, state.units[o[1]]) - TOKEN


# -- its decisions

def roll_stakes(kit) -> dict[str, float]:
    return {"endurance": 0.3, "wake": 0.5, "fear": 0.4, "fear_end": 0.3, "courage": kit.WIN / 3,
            # the capture module's rolls, re-rollable with the morale module on (issue 12)
            "capture": 0.5, "free": 0.4, "escape": 0.4, "bogey_escape": 0.4}


def _reroll(state, d, kit) -> list[float]:
    """A Task re-roll is worth a share of the acting unit's best attack (the window is only
    offered when the roll went against the deciding side)."""
    f = _task_frame_under(state)
    stake = 0.5 * kit.best_attack(state, state.units[f.unit]) + 0.1 if f is not None else 0.1
    return [0.0 if o[0] == "keep" else stake - TOKEN for o in d.options]


def _task_frame_under(state) -> TaskFrame | None:
    f = state.stack[-2] if len(state.stack) > 1 else None
    return f if isinstance(f, TaskFrame) else None


def _test_reroll(state, d, kit) -> list[float]:
    f = state.stack[-1] if state.stack else None
    test = getattr(f, "test", "")
    if test == "courage" and f.side == d.side and courage.can_ignore(state, d.side):
        return [0.0 if o[0] == "keep" else -TOKEN for o in d.options]  # a token ignores it for sure
    stake = roll_stakes(kit).get(test, 0.2)
    return [0.0 if o[0] == "keep" else 0.4 * stake - TOKEN for o in d.options]


def _initiative_reroll(state, d, kit) -> list[float]:
    """Acting first is worth about a tenth of a victory point (the static policy's "first")."""
    return [0.0 if o[0] == "keep" else 0.2 - TOKEN for o in d.options]


def _courage_failed(state, d, kit) -> list[float]:
    return [kit.WIN - TOKEN if o[0] == "ignore" else -kit.WIN for o in d.options]


HOOKS = BotHooks(
    terms=(("tokens", TOKEN, tokens_term), ("pilots", 0.4, pilots_term)),
    option_values={"rest": _rest, "boost": _boost, "counter": _counter},
    scorers={"reroll": _reroll, "test_reroll": _test_reroll, "initiative_reroll": _initiative_reroll,
             "courage_failed": _courage_failed,
             "d12_reroll": _test_reroll},  # the capture module's token re-roll: a D12Frame's ``test`` names the roll as a MoraleTestFrame's does
    procedure_kinds=frozenset({"test_reroll", "reroll", "courage_failed"}),
)

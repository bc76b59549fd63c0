"""The ``challenges`` rules module: seed 002 (*Armageddon Empires*, p.28), as RULES-BRIEF maps it.

Dice challenges with Defender's Prerogative (``procedure``), fate, tactic cards in a hidden hand
per side (``cards``, ``hidden``), special operations -- assassination, sabotage, threshold
challenges that create cards, stealth, detection and the capture/kill challenge -- paid for in
Action Points (``operations``), facilities on the board, and their mission data (``mission``).
A mission turns it on with ``[mission] modules = ["challenges"]``; ``docs/rules.md`` maps every
sentence of the seed onto this code.
"""

from __future__ import annotations

from skirmish.engine.model import SIDES, State
from skirmish.engine.rules.challenges import bots, cards, events, hidden, narrate, operations, procedure, render
from skirmish.engine.rules.challenges.events import ActionPointsChanged, SaltDrawn
from skirmish.engine.rules.challenges.frames import ChallengeFrame
from skirmish.engine.rules.challenges.sampler import sample_hands
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.registry import Module
from skirmish.engine.rules.salt import draw_salt


def on_game_start(ctx: Context) -> None:
    # 8 d65536: 128 secret bits (skirmish.engine.rules.salt; issue 12 raised it from 4 d65536, 64 bits)
    salt = draw_salt(ctx, hidden.SALT)
    ctx.emit(SaltDrawn(salt=salt))
    cards.deal(ctx)


def on_round_start(ctx: Context) -> None:
    """Each side's Action Points are set to the mission's per-round allowance (adapted: seed 002's
    empire-wide Action Points as a side's pool per round); from round 2 each side draws."""
    s = ctx.state
    for side in SIDES:
        delta = s.challenges.action_points - s.action_points[side]
        if delta:
            ctx.emit(ActionPointsChanged(side=side, delta=delta, reason="round"))
    if s.round > 1:
        for side in SIDES:
            cards.draw(ctx, side, s.challenges.draw)


def points(state: State) -> dict[str, int]:
    """A destroyed facility is worth its points to the side that destroyed it (its enemy)."""
    pts = {side: 0 for side in SIDES}
    for f in state.facilities.values():
        if f.destroyed:
            pts["b" if f.side == "a" else "a"] += f.points
    return pts


def _accept(decision):
    return ("accept",)


MODULE = Module(
    name="challenges", seed="002",
    summary="dice challenges with Defender's Prerogative, fate, tactic cards, assassination, sabotage",
    acts=operations.ACTS,
    turn_options=operations.turn_options,
    can_target=operations.can_target,
    on_game_start=on_game_start,
    on_round_start=on_round_start,
    answers={kind: procedure.answer for kind in procedure.KINDS},
    defaults={kind: _accept for kind in procedure.KINDS},  # a time-out accepts
    frame_steps={ChallengeFrame: procedure.step},
    points=points,
    events=events.EVENTS,
    redactions=hidden.REDACTIONS,
    secrets=hidden.secrets,
    samplers=(sample_hands,),
    narration=narrate.NARRATION,
    rolls_narration=narrate.ROLLS,
    roll_lines=narrate.LINES,
    render=render.SHOWN,
    bots=bots.HOOKS,
)

"""The capture module (seed 000, *Horizon Wars: Zero Dark* "Rule of the Month - Capture").

Heroes capture down bogeys and stunned or badly wounded enemy characters with d12 tests against
D(n) (``dice``); captives may be dragged, taken off the table by the mission's exit, freed by
friends, or escape (``actions``). seed 000's states map onto the core's Stress and Injuries as
RULES-BRIEF "Conditions" says (``conditions``). A mission switches it on with
``[mission] modules = ["capture"]`` and sets it up in ``[capture]`` (docs/missions.md);
``docs/rules.md`` maps every sentence of the seed to the code here.
"""

from __future__ import annotations

from skirmish.engine.rules.capture import actions, bots, dice, events, narrate, render
from skirmish.engine.rules.capture.frames import D12Frame
from skirmish.engine.rules.registry import Module

MODULE = Module(
    name="capture",
    seed="000",
    summary="capture bogeys and characters, drag them off, free them, escape (d12 tests against D(n))",
    acts={
        "capture": actions.act_capture,
        "free": actions.act_free,
        "escape": actions.act_escape,
        "drag": actions.act_drag,
        "exit": actions.act_exit,
        "bonus": actions.act_bonus,
    },
    turn_options=actions.turn_options,
    on_turn_start=actions.turn_started,
    on_end_phase=actions.end_phase,
    after_move=actions.follow,
    can_target=actions.can_target,
    can_move=actions.can_move,
    can_threaten=actions.can_threaten,
    answers={"d12_reroll": dice.answer_reroll},
    defaults={"d12_reroll": lambda d: ("keep",)},
    frame_steps={D12Frame: lambda ctx, f: dice.frame_step(ctx, f, actions.OUTCOMES)},
    points=actions.points,
    events=events.EVENTS,
    narration=narrate.NARRATION,
    rolls_narration=narrate.ROLLS,
    render=render.SHOWN,
    bots=bots.HOOKS,
)

"""The core rules (seed 001): a ``Module`` like any other, plus the services modules call.

Its decision kinds (each documented in docs/protocol.md), what the server plays for a seat whose
clock runs out, its procedure frames, the option kinds of the "act" decision it handles itself,
and ``CoreServices``: end the turn, a unit moved, end the game, the points, the Team Command
Value and the initiative, which modules reach through ``ctx.rules.core``.
"""

from __future__ import annotations

from skirmish.engine.rules.core import actions, attack, flow, procedure
from skirmish.engine.rules.registry import CoreServices, Module

ANSWERS = {
    "first": flow.answer_first,
    "activate": flow.answer_activate,
    "act": flow.answer_act,
    "keep_initiative": flow.answer_keep_initiative,
    "ready": flow.answer_ready,
    "directed": actions.answer_directed,
    "buy_dice": procedure.answer_buy_dice,
    "aim": procedure.answer_aim,
    "bystander": attack.answer_bystander,
    "melee_won": attack.answer_melee_won,
    "avoid_injury": attack.answer_avoid_injury,
    "recover_stress": actions.answer_spend,
    "sprint": actions.answer_spend,
}

DEFAULTS = {
    "first": lambda d: ("first", d.side),
    "act": lambda d: ("end",),
    "keep_initiative": lambda d: ("pass",),
    "ready": lambda d: ("hold",),
    "directed": lambda d: ("none",),
    "buy_dice": lambda d: ("buy", 0),
    "aim": lambda d: ("keep",),
    "bystander": lambda d: ("threat",),
    "melee_won": lambda d: d.options[0],  # ("damage",), or a counter-blow's ("damage", 0)
    "avoid_injury": lambda d: ("accept",),
    "recover_stress": lambda d: d.options[-1],
    "sprint": lambda d: ("stay",),
}

SERVICES = CoreServices(
    advance=flow.advance,
    end_turn=flow.end_turn,
    unit_moved=flow.after_move,
    end_game=flow.end_game,
    points=flow.points,
    team_command_value=flow.team_command_value,
    roll_initiative=flow.roll_initiative,
    initiative_winner=flow.initiative_winner,
    initiative_won=flow.initiative_won,
)

MODULE = Module(
    name="core", seed="001",
    summary="the core: initiative, activations, Minor Actions, Tasks, attacks, Injuries, victory points",
    answers=ANSWERS,
    defaults=DEFAULTS,
    frame_steps=flow.FRAME_STEPS,
    option_kinds=("end", *actions.MINOR_NAMES, "attack", "recover", "sprint", "first_aid", "create_advantage",
                  "other", "guard", "ready", "assist", "direct"),
    core=SERVICES,
)

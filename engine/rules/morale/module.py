"""The ``morale`` rules module: seed 004, *M.S. Wars* "Rules: Extras" (RULES-BRIEF "Modules").

Endurance tests and Unconscious pilots (``pilots``), Command Tokens (``tokens``), the seed's
rolls and the token re-roll windows (``rolls``), Courage Tests (``courage``), Morale Tests and
Fear (``fear``). Initiative (d10 + TCV) and action counters are the core's
(``skirmish.engine.rules.core.flow``). Every sentence of the seed is mapped in ``docs/rules.md``.
"""

from __future__ import annotations

from skirmish.engine.model import State, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale import bots, courage, events, fear, narrate, pilots, render, rolls, tokens
from skirmish.engine.rules.morale.frames import InitiativeFrame, MoraleTestFrame, RerollFrame
from skirmish.engine.rules.registry import Module


def _turn_options(state: State, unit: Unit, opts: list) -> list:
    return fear.filter_options(state, unit, opts) + pilots.rest_options(state, unit) + tokens.turn_options(state, unit)


_RESOLVE = {**rolls.RESOLVE, **courage.RESOLVE}


def _test_step(ctx: Context, f: MoraleTestFrame) -> None:
    rolls.test_step(ctx, f, _RESOLVE)


def _on_idle(ctx: Context) -> None:
    tokens.check_commander(ctx)
    fear.take_due_tests(ctx)
    if not ctx.state.stack:
        courage.end_if_retreated(ctx)


def _on_end_phase(ctx: Context) -> None:
    pilots.end_phase(ctx)
    courage.end_phase_tests(ctx)  # pushed first: run after the Fear tests
    fear.end_phase_tests(ctx)


MODULE = Module(
    name="morale",
    seed="004",
    summary="Endurance and Unconscious pilots, Command Tokens, Courage Tests, Morale Tests and Fear",
    acts={"rest": pilots.act_rest, "boost": tokens.act_boost, "counter": tokens.act_counter},
    turn_options=_turn_options,
    can_activate=pilots.can_activate,
    on_game_start=tokens.start,
    on_round_start=pilots.on_round_start,
    on_end_phase=_on_end_phase,
    answers={"test_reroll": rolls.answer_test_reroll, "reroll": rolls.answer_reroll,
             "initiative_reroll": rolls.answer_initiative_reroll,
             "courage_failed": courage.answer_courage_failed},
    defaults={"test_reroll": lambda d: ("keep",), "reroll": lambda d: ("keep",),
              "initiative_reroll": lambda d: ("keep",), "courage_failed": lambda d: ("ignore",)},
    frame_steps={MoraleTestFrame: _test_step, RerollFrame: rolls.reroll_step,
                 InitiativeFrame: rolls.initiative_step},
    on_idle=_on_idle,
    after_move=fear.after_move,
    on_hit=pilots.on_hit,
    on_task_rolled=rolls.on_task_rolled,
    on_initiative_rolled=rolls.on_initiative_rolled,
    command_bonus=tokens.command_bonus,
    movement_bonus=lambda state, unit: unit.move_bonus,
    attack_difficulty=pilots.attack_difficulty,
    can_act=pilots.can_act,
    can_move=fear.can_move,
    can_reroll=tokens.can_pay,
    pay_reroll=tokens.pay,
    events=events.EVENTS,
    narration=narrate.NARRATION,
    rolls_narration=narrate.ROLLS,
    render=render.SHOWN,
    bots=bots.HOOKS,
)

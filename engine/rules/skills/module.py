"""The ``skills`` rules module: seed 003, *Infinity* N3 Special Skills pp. 80-89 (RULES-BRIEF "Modules").

Its base (issue 14): the skills a profile carries and seed 003's attributes (``catalog``,
``attributes``, ``mission``), the Normal and Face to Face Rolls (``rolls``) and the deployment
phase (``deploy``). Each skill adds, in its own file of this folder, what it needs to the tables
below (``OUTCOMES``: what a settled roll of a purpose does; ``DEPLOYMENT``: where a unit may be
placed and what follows a placement) and its hooks to ``MODULE``. docs/rules.md, seed 003, maps
the seed to the code. A rule added after the module's first release (engine 0.2.0) is wrapped in
``since`` (``since.on_state``, ``since.on_ctx``, ``since.passing``): a 0.2.0 game re-runs without it.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Callable

from skirmish.engine.events import GameCreated
from skirmish.engine.model import Option
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.registry import Module
from skirmish.engine.rules.skills import bots, comms, deploy, events, marksmanship, narrate, paramedic, regeneration, render, rolls
from skirmish.engine.rules.skills import dogged, infiltrate, metachemistry
from skirmish.engine.rules.skills import command, guts
from skirmish.engine.rules.skills import reactions, terrain
from skirmish.engine.rules.skills import manned, specialists
from skirmish.engine.rules.skills import since
from skirmish.engine.rules.skills import private, secrecy
from skirmish.engine.rules.skills import camouflage, hidden_deployment
from skirmish.engine.rules.skills.hd_parts import HiddenFrame
from skirmish.engine.rules.skills import discover, imp_regain, impersonation, markers
from skirmish.engine.rules.skills.frames import ReactionFrame, RegainFrame, SkillRollFrame

# roll purpose -> (ctx, frame, rolls.Result) -> None: what a settled roll does
OUTCOMES: MappingProxyType[str, Callable] = MappingProxyType({
    regeneration.PURPOSE: regeneration.outcome,
    **comms.OUTCOMES,
    infiltrate.PURPOSE: infiltrate.outcome,
    **guts.OUTCOMES,
    command.RESET: command.reset_outcome,
    reactions.PURPOSE: reactions.outcome,
    impersonation.PURPOSE: impersonation.outcome,
    discover.PURPOSE: discover.outcome,
    "hack": since.either(manned.hack_outcome, comms.OUTCOMES["hack"]),  # after comms': a Total Control may eject a Pilot
    "sat_lock": camouflage.sat_lock_outcome,  # comms', after Discovering a Camouflage marker
})

# what the skills add to the deployment phase
DEPLOYMENT = deploy.Extensions(cells=(since.passing(infiltrate.cells), since.passing(infiltrate.mechanized_cells),
                                      since.passing(impersonation.cells)), after=(
    since.on_ctx(infiltrate.after),
    since.on_ctx(terrain.after_deploy),
    since.on_ctx(impersonation.after),
), options=(since.passing(impersonation.deploy_options),))


def _roll_step(ctx: Context, f: SkillRollFrame) -> None:
    rolls.step(ctx, f, OUTCOMES)


def _on_idle(ctx: Context) -> None:
    if private.on_idle(ctx):  # a Lieutenant's choice, nomination or reveal (only with candidates)
        return
    if hidden_deployment.on_idle(ctx):  # a private placement in Hidden Deployment (round 0)
        return
    if since.on_ctx(impersonation.on_idle, False)(ctx):  # a marker in Retreat! revealed, a figure's facing
        return
    marksmanship.on_idle(ctx)
    if not since.on_ctx(metachemistry.on_idle, False)(ctx):  # a MetaChemistry roll asked: the next placement waits
        deploy.on_idle(ctx, DEPLOYMENT)
    for idle in ON_IDLE:
        if ctx.state.pending is None:
            idle(ctx)


# what the skills do whenever nothing else is going on, in order: (ctx) -> None
ON_IDLE = (since.on_ctx(guts.on_idle), since.on_ctx(command.on_idle), since.on_ctx(manned.on_idle))


def _turn_options(state, unit, options: list) -> list:
    for extend in TURN_OPTIONS:
        options = extend(state, unit, options)
    return options


# what the skills add to a unit's "act" options, in order: (state, unit, options) -> options
TURN_OPTIONS = (marksmanship.turn_options, regeneration.turn_options, paramedic.turn_options,
                comms.turn_options,
                since.passing(metachemistry.turn_options),
                since.passing(command.turn_options),
                since.passing(manned.turn_options),
                since.passing(specialists.turn_options),
                since.passing(camouflage.turn_options),
                since.passing(discover.turn_options),
                since.passing(impersonation.turn_options))  # last: it wraps the others' options of a marker


def _can_activate(state, unit) -> bool:
    return deploy.can_activate(state, unit) and comms.can_activate(state, unit) \
        and _command_can_activate(state, unit) and _manned_can_activate(state, unit) \
        and camouflage.can_activate(state, unit)


_command_can_activate = since.on_state(command.can_activate, True)
_manned_can_activate = since.on_state(manned.can_activate, True)
_manned_can_act = since.on_state(manned.can_act, True)


def _acts_incapacitated(state, unit) -> bool:
    return any(can(state, unit) for can in ACTS_INCAPACITATED)


# what lets an incapacitated unit be activated: (state, unit) -> bool
ACTS_INCAPACITATED = (regeneration.acts_incapacitated,
                      since.on_state(manned.acts_incapacitated, False))


def _on_end_phase(ctx: Context) -> None:
    for end in END_PHASE:
        end(ctx)


# what the skills do in the End Phase, in order: (ctx) -> None
END_PHASE = (comms.on_end_phase,
             since.on_ctx(dogged.on_end_phase),  # a Dogged unit dies before Retreat! counts the losses
             since.on_ctx(command.end_phase),)


def _answer_deploy(ctx: Context, option: Option) -> None:
    if not impersonation.answer_deploy(ctx, option, DEPLOYMENT):
        deploy.answer(ctx, option, DEPLOYMENT)


MODULE = Module(
    name="skills",
    seed="003",
    summary="Special Skills: the d20 Normal and Face to Face Rolls, a deployment phase, the skills' base",
    on_game_start=deploy.start,
    on_idle=_on_idle,
    can_activate=_can_activate,
    on_end_phase=_on_end_phase,
    can_target=lambda state, unit, target: deploy.can_target(state, unit, target) and camouflage.can_target(state, unit, target),  # noqa: E501
    on_table=deploy.on_table,
    turn_options=_turn_options,
    acts={"aimed_shot": marksmanship.act_aimed_shot, "regenerate": regeneration.act_regenerate,
          "medikit": paramedic.act_medikit, "hack": comms.act, "observe": comms.act, "sat_lock": comms.act,
          "withdraw": command.act_withdraw, "dismount": manned.act_dismount},
    on_task_resolved=paramedic.on_task_resolved,
    acts_incapacitated=_acts_incapacitated,
    can_act=lambda state, unit: _manned_can_act(state, unit) and camouflage.can_act(state, unit),
    on_task_rolled=marksmanship.on_task_rolled,
    attack_dice=marksmanship.attack_dice,
    weapon_difficulty=marksmanship.weapon_difficulty,
    hit_effects=marksmanship.hit_effects,
    answers={"deploy": _answer_deploy, "skill_reroll": rolls.answer_reroll,
             "redeploy": infiltrate.answer_redeploy, "metachemistry": metachemistry.answer,
             "guts": guts.answer,
             "react": reactions.answer_react, "dodge_move": reactions.answer_dodge_move, "terrain": terrain.answer},
    defaults={"deploy": lambda d: d.options[0], "skill_reroll": lambda d: ("keep",),
              "redeploy": lambda d: d.options[0], "metachemistry": lambda d: ("roll",),
              "guts": lambda d: d.options[0],
              "react": lambda d: ("none",), "dodge_move": lambda d: ("stay",), "terrain": lambda d: d.options[0]},
    on_hit=since.on_ctx(guts.on_hit),
    can_retreat=since.on_state(command.can_retreat, True),
    breaks_away=since.on_state(command.breaks_away, True),
    frame_steps={SkillRollFrame: _roll_step,
                 ReactionFrame: reactions.step},
    on_injury=since.on_ctx(dogged.on_injury),
    movement_bonus=since.on_state(metachemistry.movement_bonus, 0),
    attack_difficulty=since.on_state(metachemistry.attack_difficulty, 0),
    gait=since.on_state(terrain.gait),
    on_attack_declared=since.on_ctx(reactions.on_attack_declared),
    after_move=since.on_ctx(reactions.after_move),
    events=events.EVENTS,
    narration=narrate.NARRATION,
    rolls_narration=narrate.ROLLS,
    render=render.SHOWN,
    bots=bots.HOOKS,
)


def _on_game_start(ctx: Context) -> None:
    secrecy.on_game_start(ctx)
    impersonation.on_game_start(ctx)  # the markers, drawn from the salt (only with impersonators that deploy)
    deploy.start(ctx)


def _secrets(state, viewer: str):
    yield from private.secrets(state, viewer)
    yield from hidden_deployment.secrets(state, viewer)
    yield from camouflage.secrets(state, viewer)
    yield from secrecy.secrets(state, viewer)
    yield from markers.secrets(state, viewer)


def _redactions() -> dict:
    """The redactions of what the skills module hides (only in a game that hides: ``secrecy.hides``)."""
    out = {}
    for table in (private.REDACTIONS, secrecy.REDACTIONS, hidden_deployment.REDACTIONS,
                  {GameCreated: camouflage.game_created}, markers.redactions()):
        for etype, redact in table.items():
            have = out.get(etype)
            out[etype] = redact if have is None else _both(have, redact)
    return out


def _both(first, second):
    def both(state, e, viewer):
        seen = first(state, e, viewer)
        return None if seen is None else second(state, seen, viewer)
    return both


# the Lieutenant as Private Information and the secrecy salt (issue 15: private.py, secrecy.py)
MODULE = dataclasses.replace(
    MODULE, on_game_start=_on_game_start,
    answers={**MODULE.answers, private.KIND: private.answer},
    defaults={**MODULE.defaults, private.KIND: lambda d: d.options[0]},
    redactions=_redactions(), secrets=_secrets, samplers=(private.sample, markers.sample), hides=secrecy.hides,
    roll_lines=narrate.LINES)


def _after_move(ctx: Context, mover: str) -> None:
    reactions.after_move(ctx, mover)
    hidden_deployment.after_move(ctx, mover)


def _on_attack_declared(ctx: Context, frame) -> None:
    reactions.on_attack_declared(ctx, frame)
    hidden_deployment.on_attack_declared(ctx, frame)


# Hidden Deployment (issue 15: hidden_deployment.py, hd_parts.py): a private placement, a reveal window
# on each enemy Order (its frame on top of a reaction window: answered first)
MODULE = dataclasses.replace(
    MODULE,
    answers={**MODULE.answers, hidden_deployment.PLACE: hidden_deployment.answer_place,
             hidden_deployment.REVEAL: hidden_deployment.answer_reveal},
    defaults={**MODULE.defaults, hidden_deployment.PLACE: lambda d: d.options[0],
              hidden_deployment.REVEAL: lambda d: hidden_deployment.STAY},
    frame_steps={**MODULE.frame_steps, HiddenFrame: hidden_deployment.step},
    after_move=since.on_ctx(_after_move), on_attack_declared=since.on_ctx(_on_attack_declared),
    samplers=(*MODULE.samplers, hidden_deployment.sample))


def _can_target(state, unit, target) -> bool:
    return deploy.can_target(state, unit, target) and impersonation.can_target(state, unit, target)


def _on_hit(ctx: Context, victim, damage: int) -> None:
    guts.on_hit(ctx, victim, damage)
    impersonation.on_hit(ctx, victim, damage)


def _attack_difficulty(state, attacker, target) -> int:
    return metachemistry.attack_difficulty(state, attacker, target) + impersonation.attack_difficulty(state, attacker, target)


# Impersonation and Discover (issue 15: impersonation.py, discover.py, markers.py)
MODULE = dataclasses.replace(
    MODULE, can_target=_can_target, can_oppose=since.on_state(impersonation.can_target, True),
    no_stop=since.on_state(impersonation.no_stop, None),
    can_threaten=since.on_state(impersonation.can_threaten, True),
    on_hit=since.on_ctx(_on_hit),
    attack_difficulty=since.on_state(_attack_difficulty, 0),
    acts={**MODULE.acts, "reveal": impersonation.act_reveal, "impersonate": imp_regain.act,
          "discover": discover.act},
    answers={**MODULE.answers, "react": discover.answer_react, "imp_redeploy": impersonation.answer_redeploy,
             "imp_facing": impersonation.answer_facing},
    defaults={**MODULE.defaults, "imp_redeploy": lambda d: d.options[0], "imp_facing": lambda d: d.options[0]},
    option_kinds=(*MODULE.option_kinds, "imp_redeploy", "face"),
    frame_steps={**MODULE.frame_steps, RegainFrame: imp_regain.step},  # against Hidden Deployment
)

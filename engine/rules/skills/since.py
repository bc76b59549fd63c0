"""The skills module's rules that came with engine 0.3.0, kept out of games played under 0.2.0.

The skills module (seed 003) first shipped under engine 0.2.0: the d20 rolls, the deployment
phase, the combat skills. Everything it gained since (Guts Rolls, the reactions, Infiltrate,
Mechanized Deployment, MetaChemistry, V: Dogged, the Lieutenant's Orders, Retreat!, Heavyweight and
Multiterrain gaits) is a rule of 0.3.0 (``skirmish.engine.versions.V0_3``): ``module.py`` wraps
each of its hooks and table entries in one of these, so that a game recorded by 0.2.0 re-runs
exactly as it was played (docs/decisions.md "Old games verify forever").

Each wrapper calls the rule under 0.3.0 rules or later, and otherwise gives the neutral answer:
what the module answered before the rule existed.
"""

from __future__ import annotations

import functools
from typing import Callable

from skirmish.engine.versions import V0_3, since


def on_state(rule: Callable, neutral=None) -> Callable:
    """``rule(state, *args)``, or ``neutral`` in an older game (a veto's True, a bonus's 0, no gait)."""
    @functools.wraps(rule)
    def gated(state, *args):
        return rule(state, *args) if since(state, V0_3) else neutral
    return gated


def on_ctx(rule: Callable, neutral=None) -> Callable:
    """``rule(ctx, *args)``, or ``neutral`` (nothing done) in an older game."""
    @functools.wraps(rule)
    def gated(ctx, *args):
        return rule(ctx, *args) if since(ctx.state, V0_3) else neutral
    return gated


def passing(rule: Callable) -> Callable:
    """``rule(state, unit, value) -> value`` (turn options, deployment cells), or ``value``
    unchanged in an older game."""
    @functools.wraps(rule)
    def gated(state, unit, value):
        return rule(state, unit, value) if since(state, V0_3) else value
    return gated


def either(rule: Callable, old: Callable) -> Callable:
    """``rule(ctx, *args)``, or ``old(ctx, *args)`` (what the module did before) in an older game:
    for a rule that replaces an older one in a table (a roll purpose's outcome)."""
    @functools.wraps(rule)
    def gated(ctx, *args):
        return (rule if since(ctx.state, V0_3) else old)(ctx, *args)
    return gated

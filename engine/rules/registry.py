"""Rules modules: one per seed beyond the core, each switchable per mission (RULES-BRIEF "Modules").

A module is a package under ``engine/rules/`` that builds one ``Module`` and ``register``s it when
imported (``engine.rules.builtin`` imports them all). A mission names the modules it wants in
``[mission] modules``; the names land in ``GameCreated.modules`` and ``State.modules``, and the
core consults only the modules a game has on, through the hooks below, so a game without a
module plays exactly as if the module did not exist.

Hooks (each optional; each runs with the game's working ``Context`` or a read-only state):

- ``turn_options(state, unit, options) -> options``: the "act" decision's options after the
  core's: a module adds its own actions (an option whose first item names an action in
  ``acts``) or removes core ones (a captured unit has no Task).
- ``acts``: option name -> ``handler(ctx, unit, option)`` for the options the module adds.
- ``can_activate(state, unit) -> bool``: False keeps a ready unit from being offered.
- ``on_game_start(ctx)``, ``on_round_start(ctx)``, ``on_turn_start(ctx, unit)``,
  ``on_end_phase(ctx)``: run at those moments, in the order the mission lists the modules.
- ``answers`` / ``defaults``: decision kind -> answer / time-out default, like the core's.
- ``frame_steps``: frame type -> step, for the procedures the module puts on ``State.stack``.
- ``after_move(ctx, unit_id)``: a unit has just moved (Movement, Sprint, fending off), before
  the core looks for Ready reactions (added with the capture module: a dragged captive follows).
- ``can_target(state, unit, target) -> bool``: False keeps ``target`` from being offered as a
  target of ``unit``'s attacks (in its turn, a Ready reaction or a Direct), e.g. stealth.
- ``points(state) -> {side: points}``: victory points the module adds to the core's
  (``engine.rules.core.flow.points``), e.g. for destroyed facilities or captives.

Events, frames and unit fields of a module live in ``engine.events``, ``engine.model`` and
``engine.evolve`` in a section named after the module, so the log stays one closed, typed union.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    from engine.model import Decision, Option, State, Unit
    from engine.rules.context import Context


@dataclass(frozen=True)
class Module:
    name: str
    seed: str  # the seed file it implements, e.g. "000"
    summary: str
    acts: Mapping[str, Callable[["Context", "Unit", "Option"], None]] = field(default_factory=dict)
    turn_options: Callable[["State", "Unit", list], list] | None = None
    can_activate: Callable[["State", "Unit"], bool] | None = None
    on_game_start: Callable[["Context"], None] | None = None
    on_round_start: Callable[["Context"], None] | None = None
    on_turn_start: Callable[["Context", "Unit"], None] | None = None
    on_end_phase: Callable[["Context"], None] | None = None
    answers: Mapping[str, Callable[["Context", "Option"], None]] = field(default_factory=dict)
    defaults: Mapping[str, Callable[["Decision"], "Option"]] = field(default_factory=dict)
    frame_steps: Mapping[type, Callable] = field(default_factory=dict)
    after_move: Callable[["Context", str], None] | None = None
    points: Callable[["State"], Mapping[str, int]] | None = None
    can_target: Callable[["State", "Unit", "Unit"], bool] | None = None


MODULES: dict[str, Module] = {}
# Merged tables of every registered module; decision kinds, acts and frame types are unique.
ANSWERS: dict[str, Callable] = {}
DEFAULTS: dict[str, Callable] = {}
FRAME_STEPS: dict[type, Callable] = {}
ACTS: dict[str, Callable] = {}


def register(module: Module) -> Module:
    if module.name in MODULES:
        raise ValueError(f"rules module {module.name!r} registered twice")
    for table, extra in ((ANSWERS, module.answers), (DEFAULTS, module.defaults),
                         (FRAME_STEPS, module.frame_steps), (ACTS, module.acts)):
        clash = set(table) & set(extra)
        if clash:
            raise ValueError(f"rules module {module.name!r} reuses {sorted(map(str, clash))}")
        table.update(extra)
    MODULES[module.name] = module
    return module


def active(state: "State") -> tuple[Module, ...]:
    """The modules this game has on, in the mission's order."""
    return tuple(MODULES[name] for name in state.modules)


def known_modules() -> frozenset[str]:
    import engine.rules.builtin  # noqa: F401  (registers every bundled module)

    return frozenset(MODULES)

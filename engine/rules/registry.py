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
  the core looks for Ready reactions (a dragged captive follows; an enemy two Size Classes
  bigger coming within 10" is noted for a Fear test).
- ``can_target(state, unit, target) -> bool``: False keeps ``target`` from being offered as a
  target of ``unit``'s attacks (in its turn, a Ready reaction or a Direct), e.g. stealth.
- ``points(state) -> {side: points}``: victory points the module adds to the core's
  (``engine.rules.core.flow.points``), e.g. for destroyed facilities or captives.

Added with the morale module (seed 004), each called from one place in the core:

- ``on_idle(ctx)``: ``flow.advance``, whenever no procedure is in progress and nobody has to
  decide, before the core checks the sides; a module emits or pushes a frame only when it has
  something to do (it is called again at once if it did).
- ``on_hit(ctx, victim, damage)``: ``attack._damage``, after a successful attack's damage
  (``damage`` after Resistance, 0 if none) was dealt, before its Injuries are resolved.
- ``on_task_rolled(ctx, frame)``: ``tasks._roll``, after a Task's dice (and an Opposed
  defender's) were rolled, before they are counted.
- ``on_initiative_rolled(ctx, rolls) -> bool``: ``flow._start_round``, after the initiative rolls
  (side -> (nonce, d10, TCV)); returning True holds the initiative open: the module then calls
  ``flow.initiative_won`` itself.
- ``command_bonus(state, side) -> int``: added to the Team Command Value (``flow.team_command_value``).
- ``movement_bonus(state, unit) -> int``: added to the Movement Minor Action's cells.
- ``attack_difficulty(state, attacker, target) -> int``: added to an attack's Difficulty.

Added with issue 12's rules audit (each a veto: False from any active module forbids):

- ``can_act(state, unit) -> bool``: False when the unit "cannot make any actions" (seed 004's
  Unconscious pilot): it still rolls an Opposed defence, but winning one neither strikes back
  nor fends off (``attack._resolve_melee``), and no commander Directs it
  (``actions.task_options``).
- ``can_move(state, unit) -> bool``: False when the unit may not move itself (seed 004's Fear
  Token). Every way a unit moves asks it: Movement and Sprint (``actions``), fending off
  (``attack.fend_off_cells``), a bonus Movement (capture), the Movement token and the
  Breakaway Move of a retreat (morale). ``tests/engine/rules/test_movement_paths.py`` holds
  every emitter of ``UnitMoved`` to that.

And two for seed 004's Command Token re-roll of "one of yours or your opponent's dice rolls,
which is not damage", so that another module's rolls can be re-rolled with the morale module on
(the capture module's d12 tests, the challenges module's pools):

- ``can_reroll(state, side) -> bool``: True from any active module lets ``side`` re-roll
  (``offers``): it has a Command Token to spend.
- ``pay_reroll(ctx, side, reason)``: spend it (``call``).

Events, frames and unit fields of a module live in ``engine.events``, ``engine.model`` and
``engine.evolve`` in a section named after the module, so the log stays one closed, typed union.
A field a module adds to ``Unit`` or ``State`` needs a default: the state hash leaves every field
added after the first release out while it holds its default (``engine.codec.state_hash``), so a
game that leaves it there hashes as before the field existed (older logs' checkpoints still verify).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping

from engine.versions import V0_2

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
    # added with the morale module (seed 004); see the docstring
    on_idle: Callable[["Context"], None] | None = None
    on_hit: Callable[["Context", "Unit", int], None] | None = None
    on_task_rolled: Callable[["Context", object], None] | None = None
    on_initiative_rolled: Callable[["Context", dict], bool] | None = None
    command_bonus: Callable[["State", str], int] | None = None
    movement_bonus: Callable[["State", "Unit"], int] | None = None
    attack_difficulty: Callable[["State", "Unit", "Unit"], int] | None = None
    # added with issue 12 (vetoes; see the docstring)
    can_act: Callable[["State", "Unit"], bool] | None = None
    can_move: Callable[["State", "Unit"], bool] | None = None
    can_reroll: Callable[["State", str], bool] | None = None
    pay_reroll: Callable[["Context", str, str], None] | None = None


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


def bonus(state: "State", hook: str, *args) -> int:
    """The sum of a number hook (``command_bonus``, ``movement_bonus``, ``attack_difficulty``)
    over the modules this game has on; 0 without any."""
    total = 0
    for module in active(state):
        fn = getattr(module, hook)
        if fn is not None:
            total += fn(state, *args)
    return total


def allows(state: "State", hook: str, *args) -> bool:
    """A veto hook (``can_act``, ``can_move``): True unless an active module says False. The
    rules of engine 0.1.0 had no vetoes (``engine.versions``)."""
    if state.rules_version < V0_2:
        return True
    for module in active(state):
        fn = getattr(module, hook)
        if fn is not None and not fn(state, *args):
            return False
    return True


def offers(state: "State", hook: str, *args) -> bool:
    """An offer hook (``can_reroll``): True if an active module says True. The rules of engine
    0.1.0 offered no re-roll of another module's rolls (``engine.versions``)."""
    if state.rules_version < V0_2:
        return False
    for module in active(state):
        fn = getattr(module, hook)
        if fn is not None and fn(state, *args):
            return True
    return False


def call(ctx: "Context", hook: str, *args) -> None:
    """Run an event hook (``on_game_start``, ``after_move``, ``on_hit``, ...) of every active module,
    in the mission's order."""
    for module in active(ctx.state):
        fn = getattr(module, hook)
        if fn is not None:
            fn(ctx, *args)


def known_modules() -> frozenset[str]:
    import engine.rules.builtin  # noqa: F401  (registers every bundled module)

    return frozenset(MODULES)

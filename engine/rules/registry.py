"""Rules modules: one per seed beyond the core, each switchable per mission (RULES-BRIEF "Modules").

A module is a package under ``engine/rules/`` whose ``MODULE`` is a ``Module``: plain data, and
importing the package registers nothing. ``skirmish.engine.rules.bundled.BUNDLED`` names each bundled
module's package (adding a module is its folder plus one line there); the core (seed 001, ``skirmish.engine.rules.core``) is a
``Module`` too. A mission names the modules it wants in ``[mission] modules``; the names land in
``GameCreated.modules`` and ``State.modules``. A game's ``RuleSet`` is built once from the core and
those modules (``rules_for``; ``rules_of(state)``), checked for clashes (two modules claiming one
decision kind, option kind, frame type or event name raise ``RulesClash``), frozen, and carried
in the ``Context`` the rules run in (``ctx.rules``); the core consults only the modules a game has
on, through the hooks (``skirmish.engine.rules.hooks``), so a game without a module plays exactly as if the module did not
exist. What a module needs of the core (end the turn, a unit moved, end the game, the points, the
Team Command Value, the initiative) it asks through ``ctx.rules.core`` (``CoreServices``).

The ``Module`` type and every hook it may fill are documented in ``skirmish.engine.rules.hooks``;
this file merges a game's modules into its ``RuleSet`` and keeps the ``Catalog`` of modules.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from skirmish.engine import board as geo
from skirmish.engine.errors import RulesClash
from skirmish.engine.rules.bundled import BUNDLED, CORE, _part_of
from skirmish.engine.rules.hooks import HOOKS, ROLLS, WHOLE, BotHooks, CoreServices, Hit, Module, Rendered, Secret, Shown
from skirmish.engine.versions import V0_2

if TYPE_CHECKING:
    from skirmish.engine.model import State
    from skirmish.engine.rules.hooks import Context

# the parts of a module, re-exported: the modules and their readers name them through the registry
__all__ = ["BUNDLED", "CATALOG", "HOOKS", "ROLLS", "WHOLE", "BotHooks", "Catalog", "CoreServices", "Hit", "Module",
           "RuleSet", "Rendered", "Secret", "Shown", "allows", "bonus", "known_modules", "offers", "reachable", "rules_for", "rules_of"]


def _claim(what: str, owners: dict, names, module: str) -> None:
    for name in names:
        if name in owners:
            raise RulesClash(f"rules modules {owners[name]!r} and {module!r} both claim the {what} {name!r}")
        owners[name] = module


def _chain(first, second):
    def both(state, event, viewer):
        seen = first(state, event, viewer)
        return None if seen is None else second(state, seen, viewer)

    return both


def _rendered(shown: list[Shown]) -> Rendered:
    """The modules' ``Shown``, in their order, as one ``Rendered``."""
    return Rendered(
        unit_flags=tuple(s.unit_flags for s in shown if s.unit_flags), labels=tuple(s.label for s in shown if s.label),
        titles=MappingProxyType({k: t for s in shown for k, t in s.titles.items()}),
        pools=tuple(s.pools for s in shown if s.pools), status=tuple(s.status for s in shown if s.status),
        places=tuple(s.places for s in shown if s.places),
        procedures=MappingProxyType({t: fn for s in shown for t, fn in s.procedures.items()}),
        carriers=MappingProxyType({k: words for s in shown for k, words in s.carriers.items()}))


def _bot_hooks(hooks: list[BotHooks]) -> BotHooks:
    """The modules' ``BotHooks`` as one: tables merged, functions joined (``_joined``)."""
    return BotHooks(
        terms=tuple(t for h in hooks for t in h.terms),
        option_values=MappingProxyType({k: fn for h in hooks for k, fn in h.option_values.items()}),
        scorers=MappingProxyType({k: fn for h in hooks for k, fn in h.scorers.items()}),
        procedure_kinds=frozenset(k for h in hooks for k in h.procedure_kinds),
        minor_actions=frozenset(k for h in hooks for k in h.minor_actions),
        free_moves=MappingProxyType({k: fn for h in hooks for k, fn in h.free_moves.items()}),
        sidelined=_joined([h.sidelined for h in hooks if h.sidelined], _any),
        activation=_joined([h.activation for h in hooks if h.activation], _first),
        positions=_joined([h.positions for h in hooks if h.positions], _all))


def _joined(fns: list, join):
    """One function for the modules' ``fns`` (None for none, the function itself for one)."""
    return None if not fns else fns[0] if len(fns) == 1 else join(tuple(fns))


def _any(fns):
    return lambda *args: any(fn(*args) for fn in fns)


def _first(fns):
    def first(*args):
        for fn in fns:
            found = fn(*args)
            if found is not None:
                return found
        return None

    return first


def _all(fns):
    return lambda *args: [found for fn in fns for found in fn(*args)]


class RuleSet:
    """The rules of one game: the core and the modules it has on, merged once and frozen.

    ``answers``, ``defaults``, ``frame_steps`` and ``acts`` are the merged tables (the core's
    first); ``hooks[name]`` is the tuple of that hook's functions over the game's modules, in the
    mission's order; ``core`` the core's services; ``modules`` the modules (not the core)."""

    __slots__ = ("names", "modules", "core", "answers", "defaults", "frame_steps", "acts", "hooks",
                 "redactions", "secrets", "samplers", "events", "narration", "rolls_narration", "roll_lines", "render",
                 "bots")

    def __init__(self, core: Module, modules: tuple[Module, ...]):
        if core.core is None:
            raise RulesClash(f"the core module {core.name!r} has no core services")
        seen: dict[str, str] = {}
        _claim("module name", seen, [core.name], core.name)
        kinds: dict[str, str] = {}
        options: dict[str, str] = {}
        frames: dict[str, str] = {}
        events: dict[str, str] = {}
        answers, defaults, steps, acts, redactions, narration, rolls, lines = {}, {}, {}, {}, {}, {}, {}, {}
        for m in (core, *modules):
            if m is not core:
                _claim("module name", seen, [m.name], m.name)
                if m.core is not None:
                    raise RulesClash(f"rules module {m.name!r} offers core services: only the core does")
            _claim("decision kind", kinds, [*m.answers], m.name)
            stray = set(m.defaults) - set(m.answers)
            if stray:
                raise RulesClash(f"rules module {m.name!r} has defaults for decision kinds it does not answer: {sorted(stray)}")
            _claim("option kind", options, [*m.acts, *m.option_kinds], m.name)
            _claim("procedure frame", frames, [t.__name__ for t in m.frame_steps], m.name)
            _claim("event", events, [t.__name__ for t in m.events], m.name)
            _claim("narration of", narration, list(m.narration), m.name)
            _claim("narration of the rolls", rolls, list(m.rolls_narration), m.name)
            _claim("narration of the roll", lines, list(m.roll_lines), m.name)
            answers.update(m.answers)
            defaults.update(m.defaults)
            steps.update(m.frame_steps)
            acts.update(m.acts)
            for etype, redact in m.redactions.items():
                have = redactions.get(etype)
                redactions[etype] = redact if have is None else _chain(have, redact)
        set_ = object.__setattr__
        set_(self, "names", tuple(m.name for m in modules))
        set_(self, "modules", tuple(modules))
        set_(self, "core", core.core)
        set_(self, "answers", MappingProxyType(answers))
        set_(self, "defaults", MappingProxyType(defaults))
        set_(self, "frame_steps", MappingProxyType(steps))
        set_(self, "acts", MappingProxyType(acts))
        set_(self, "redactions", MappingProxyType(redactions))
        set_(self, "events", frozenset(events))
        set_(self, "render", _rendered([m.render for m in modules]))
        set_(self, "bots", _bot_hooks([m.bots for m in modules]))
        set_(self, "narration", MappingProxyType({t: fn for m in modules for t, fn in m.narration.items()}))
        set_(self, "rolls_narration", MappingProxyType({h: fn for m in modules for h, fn in m.rolls_narration.items()}))
        set_(self, "roll_lines", MappingProxyType({p: fn for m in modules for p, fn in m.roll_lines.items()}))
        set_(self, "samplers", tuple(s for m in modules for s in m.samplers))
        set_(self, "secrets", tuple(m.secrets for m in modules if m.secrets is not None))
        set_(self, "hooks", MappingProxyType(
            {h: tuple(fn for m in modules if (fn := getattr(m, h)) is not None) for h in HOOKS}))

    def __setattr__(self, name, value):
        raise AttributeError(f"a RuleSet is frozen: cannot set {name!r}")

    def __repr__(self) -> str:
        return f"RuleSet({', '.join(self.names) or 'core only'})"

    def secrets_of(self, state: "State", viewer: str) -> list[Secret]:
        """What ``viewer`` may not know in ``state``, by every module of the game (``Module.secrets``)."""
        return [s for fn in self.secrets for s in fn(state, viewer)]

    def call(self, ctx: "Context", hook: str, *args) -> None:
        """Run an event hook (``on_game_start``, ``after_move``, ``on_hit``, ...) of every module,
        in the mission's order."""
        for fn in self.hooks[hook]:
            fn(ctx, *args)

    def bonus(self, state: "State", hook: str, *args) -> int:
        """The sum of a number hook (``command_bonus``, ``movement_bonus``, ``attack_difficulty``)
        over the modules; 0 without any."""
        total = 0
        for fn in self.hooks[hook]:
            total += fn(state, *args)
        return total

    def first(self, hook: str, *args):
        """The first module's answer to a question hook (``hit_effects``) that is not None; None
        when no module answers."""
        for fn in self.hooks[hook]:
            found = fn(*args)
            if found is not None:
                return found
        return None

    def allows(self, state: "State", hook: str, *args) -> bool:
        """A veto hook (``can_act``, ``can_move``, ``on_table``): True unless a module says False. The rules of
        engine 0.1.0 had no vetoes (``skirmish.engine.versions``)."""
        if state.rules_version < V0_2:
            return True
        return all(fn(state, *args) for fn in self.hooks[hook])

    def offers(self, state: "State", hook: str, *args) -> bool:
        """An offer hook (``can_reroll``): True if a module says True. The rules of engine 0.1.0
        offered no re-roll of another module's rolls (``skirmish.engine.versions``)."""
        if state.rules_version < V0_2:
            return False
        return any(fn(state, *args) for fn in self.hooks[hook])


class Catalog:
    """The modules a game may name: name -> package (its ``MODULE``) or ``Module``, and the core.

    Each ``RuleSet`` is built once per tuple of names, on first use, and kept."""

    def __init__(self, modules: Mapping[str, "str | Module"], core: "str | Module" = CORE):
        self._entries = dict(modules)
        self._core = core
        self._loaded: dict[str, Module] = {}
        self._built: dict[tuple[str, ...], RuleSet] = {}

    def names(self) -> frozenset[str]:
        return frozenset(self._entries)

    def with_modules(self, *modules: Module) -> "Catalog":
        """This catalog plus ``modules`` (tests add a probe module this way)."""
        return Catalog({**self._entries, **{m.name: m for m in modules}}, self._core)

    def module(self, name: str) -> Module:
        found = self._loaded.get(name)
        if found is None:
            if name not in self._entries:
                raise KeyError(f"unknown rules module {name!r}; known: {', '.join(sorted(self._entries))}")
            found = self._loaded[name] = _load(self._entries[name], name)
        return found

    def rules(self, names: tuple[str, ...] = ()) -> RuleSet:
        found = self._built.get(names)
        if found is None:
            core = self._core if isinstance(self._core, Module) else _load(self._core, "core")
            found = self._built[tuple(names)] = RuleSet(core, tuple(self.module(n) for n in names))
        return found

    def all(self) -> RuleSet:
        """Every module of the catalog at once (what the clients narrate, a decision's default is
        looked up in; a game's views use its own rule set, ``rules_of``)."""
        return self.rules(tuple(self._entries))


def _load(entry: "str | Module", name: str) -> Module:
    """A package's ``MODULE`` (in its ``module.py``, else its ``__init__.py``; imported by name,
    as a plugin, when a game first needs it), or the ``Module`` itself."""
    if isinstance(entry, Module):
        return entry
    module = getattr(importlib.import_module(_part_of(entry, "module") or entry), "MODULE", None)
    if not isinstance(module, Module) or module.name != name:
        raise RulesClash(f"{entry}.MODULE is not the Module {name!r}")
    return module


CATALOG = Catalog(BUNDLED)


def rules_for(names: tuple[str, ...]) -> RuleSet:
    """The rule set of a game with these modules on (built once, then kept)."""
    return CATALOG.rules(names)


def rules_of(state: "State") -> RuleSet:
    """The rule set of the game ``state`` is a state of."""
    return CATALOG.rules(state.modules)


def known_modules() -> frozenset[str]:
    return CATALOG.names()


# Shorthands of the RuleSet's methods for rules that hold a state rather than a context.
def bonus(state: "State", hook: str, *args) -> int:
    return CATALOG.rules(state.modules).bonus(state, hook, *args)


def allows(state: "State", hook: str, *args) -> bool:
    return CATALOG.rules(state.modules).allows(state, hook, *args)


def offers(state: "State", hook: str, *args) -> bool:
    return CATALOG.rules(state.modules).offers(state, hook, *args)


def reachable(state: "State", unit, budget: int, occupied: set, start=None) -> dict:
    """The cells ``unit`` can reach from ``start`` (its cell) for ``budget`` movement, with their
    cost (``skirmish.engine.board.reachable``), in the unit's own ``gait`` if a module gives it one,
    less the cells a module's ``no_stop`` forbids to end a movement in."""
    start = (unit.x, unit.y) if start is None else start
    if not state.modules:
        return geo.reachable(state.board, start, budget, occupied)
    rules = CATALOG.rules(state.modules)
    gait = rules.first("gait", state, unit)
    if gait is None:
        cells = geo.reachable(state.board, start, budget, occupied)
    else:
        cells = geo.reachable_gait(state.board, start, budget, occupied, gait)
    for no_stop in rules.hooks["no_stop"]:  # cells a module forbids to end a movement in
        barred = no_stop(state, unit)
        if barred:
            cells = {c: cost for c, cost in cells.items() if c not in barred}
    return cells

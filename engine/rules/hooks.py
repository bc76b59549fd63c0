"""What a rules module is (``skirmish.engine.rules.registry`` builds the rule sets from them): the
``Module`` type, every hook it may fill, and the parts it gives the core, the view, the clients
and the bots (``CoreServices``, ``Secret``, ``Hit``, ``Shown``, ``BotHooks``).

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
  (``skirmish.engine.rules.core.flow.points``), e.g. for destroyed facilities or captives.

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

Added with issue 13, so that the core names no module's field (a veto, like ``can_act``):

- ``can_threaten(state, unit) -> bool``: False when the unit, though not taken out, is no threat
  to the enemies in its Reach (seed 000's captive): a ranged attack next to it takes no +1
  Difficulty (``attack.enemy_in_reach``).

Added with the skills module (seed 003), for a unit that is in the game but not yet on the
table (not yet deployed):

- ``on_table(state, unit) -> bool``: a veto: False while ``unit`` is not on the table, so the
  clients' text views (``skirmish.client.render.board``) do not draw it. (A module keeping such a unit
  from acting or being attacked says so with ``can_activate`` and ``can_target``.)

Added with the skills module's combat skills (issue 14), for what an attack's weapon does:

- ``attack_dice(state, frame) -> int``: free d20 added to an attack's Task (``procedure._roll``;
  the Task still rolls at most ``tasks.DICE_MAX``), e.g. a weapon's Burst.
- ``weapon_difficulty(state, frame) -> int``: added to an attack's Difficulty, for a module that
  needs the attack's frame (its weapon, its declaration), e.g. a MOD of cover to ranged attacks.
- ``hit_effects(ctx, frame, winner, victim, weapon) -> Hit | None``: how a successful attack's
  damage is dealt (``attack._damage``; the first module's ``Hit`` counts, none: the core's), e.g.
  special ammunition; ``ctx`` lets the module say why in an event.
- ``acts_incapacitated(state, unit) -> bool``: an offer: True from a module lets an incapacitated
  (not dead) unit be activated (``flow.ready_units``); its "act" options are then ``("end",)``
  and the modules' ``turn_options`` only, e.g. an Entire Order usable in a Null state.
- ``on_task_resolved(ctx, frame, result)``: ``procedure._resolve``, after a Task's own resolution
  (its frame may have ended), e.g. what a module's equipment adds to a passed First Aid.

Added with the skills module's Deployment Skills (issue 14), for a unit that does not fall:

- ``on_injury(ctx, victim, lethal, result) -> bool | None``: ``attack._suffer`` and the challenges
  module's ``procedure.wound``, before an attack's Injury (or a challenge's wound) is suffered (``result`` the condition it would leave: "nonlethal", "lethal", "dead");
  the first module that returns True has dealt with it by its own events and the core emits no
  ``InjurySuffered``, e.g. V: Dogged, which keeps a unit in play instead of Unconscious.

Added with the skills module's command skills (issue 14: Retreat! mapped onto seed 004's Courage
Tests when both modules are on), each a veto asked by the morale module (``courage.py``):

- ``can_retreat(state, side) -> bool``: False keeps ``side`` from taking a Courage Test (and so
  from retreating), e.g. an Inspiring Leadership Lieutenant on the table.
- ``breaks_away(state, unit) -> bool``: False keeps ``unit`` from the Breakaway Move of its side's
  retreat, e.g. a Religious Troop, "unaffected by the Retreat! rules".

Added with the skills module's reactions and movement skills (issue 14, seed 003):

- ``gait(state, unit) -> board.Gait | None``: how ``unit`` moves where it differs from the
  board's rule (the first module's answer counts; none: the board's), e.g. Multiterrain's terrain
  at cost 1, Heavyweight's gates. Every way of moving asks it through ``registry.reachable``.
- ``no_stop(state, unit) -> set of (x, y) | None`` (issue 15): cells where ``unit`` may not end a
  movement (Impersonation: in base contact with a marker). ``registry.reachable`` leaves them out,
  so every way of moving (Movement, Sprint, a Dodge's move, Engage) keeps to it.
- ``on_attack_declared(ctx, frame)``: ``attack.declare``, after an attack's ``TaskFrame`` was
  started, before anything is rolled: a module may push a frame on it (a reaction window: the
  target's Dodge) or end it.

Added with issue 15 (Impersonation markers, which "enemies perceive ... as an ally"):

- ``can_oppose(state, unit, enemy) -> bool``: a veto: False when ``unit`` perceives ``enemy`` as no
  enemy at all, so that it is offered no Task against it (Create Advantage, in its turn or
  Directed; ``actions.task_options``), e.g. a unit behind an Impersonation marker.

A module is one folder (every bundled module: capture, challenges, morale, skills): its data parts
(events, frames, fields, evolve handlers, mission fields: ``skirmish.engine.rules.bundled``) are
gathered into the shared types -- the log's union, the frames, ``Unit``, ``State``, ``Weapon``,
``GameCreated`` and ``Mission`` (``CREATED``: the game's data it takes from its mission, set up in the
initial state by its ``evolve.initial``), the mission file's ``MissionSpec`` (``TABLES``, parsed by its
``mission.game_data``) and ``ProfileSpec`` -- so the log stays one closed, typed union; its ``Module``
names its events (for the clash check), its redactions and secrets (``skirmish.engine.view``; below), its narration (of
its events, frames and rolls, ``roll_lines`` for a roll told its own way) and text views
(``client``: ``Shown``: flags, labels, titles, pools, status lines, places, the procedure in
progress, and ``carriers``, which label an option that carries another, the capture module's bonus
actions), and its bot hooks (``BotHooks``: evaluation terms, the worth of its options and
decisions, of activating a unit and of a cell for a moving unit, the units it holds out of the
fight) and determinization samplers
(``bots``). A field a module adds to ``Unit`` or ``State`` needs a default: the state hash leaves
every field added after the first release out while it holds its default (``skirmish.engine.codec.state_hash``),
so a game that leaves it there hashes as before the field existed (older logs' checkpoints still verify).

Hidden information (issue 13 item 3; ``skirmish.engine.view``): ``redactions`` maps an event type to
``(state, event, viewer) -> event | None``, the event as ``viewer`` may see it given ``state``, the
full state before the event (for ``GameCreated``, the state it creates); a game's redactions of
one type are those of its modules, chained in the mission's order. What is hidden takes an
explicit redacted form (``skirmish.engine.base.Hidden``) in a field whose type admits it. ``secrets``
is ``(state, viewer) -> iterable of Secret``: what ``viewer`` may not know in ``state``, declared
apart from how it is hidden, so that a test can hold the views to it against the full state
(``tests/engine/test_views_hide_secrets.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, NamedTuple

if TYPE_CHECKING:
    from skirmish.engine.model import Decision, Option, Outcome, State, Unit

Context = Any  # skirmish.engine.rules.context.Context, which imports this file

WHOLE = "whole"  # Secret.value: the whole value at the path is secret
ROLLS = "rolls"  # Secret.path's first item for dice, which no state keeps (see Secret)


class Secret(NamedTuple):
    """Something a viewer may not know in a state (``Module.secrets``), until the game is over.

    ``path`` walks the full state: attribute names, dict keys, list indexes, e.g.
    ``("units", "b1", "x")``, ``("hands", "a")``, ``("salt",)``. A path that starts with ``ROLLS``,
    ``(ROLLS, purpose, unit)``, names the results of every roll of that purpose (and ``unit``) so
    far, in order: no state keeps dice, so whoever checks gathers them from the events.
    ``value`` is ``WHOLE`` (the whole value there is secret: a scalar, or every item of a
    collection), or the tuple of the items of the collection there that are secret (a multiset;
    the others, e.g. a card created in public, are known). ``seen_as`` is where a viewer's own
    state would hold it, where that differs (a unit shown under a handle); ``token``: the value,
    a distinctive string (an id, a name), must appear in no event the viewer receives either."""

    what: str  # for a failing test's message: "side a's hand", "b1's position"
    path: tuple
    value: Any = WHOLE
    seen_as: tuple = ()
    token: bool = False

@dataclass(frozen=True)
class CoreServices:
    """What the core does for the modules, reached through ``ctx.rules.core``."""

    advance: Callable[["Context"], None]  # run the game on to the next decision or its end
    end_turn: Callable[["Context"], None]
    unit_moved: Callable[["Context", str], None]  # after any move: modules' after_move, Ready
    end_game: Callable[["Context", "Outcome"], None]
    points: Callable[["State"], dict]
    team_command_value: Callable[["State", str], int]
    roll_initiative: Callable[["Context"], dict]
    initiative_winner: Callable[[dict], str]
    initiative_won: Callable[["Context", str], None]


class Hit(NamedTuple):
    """How a successful attack's damage is dealt (the ``hit_effects`` hook); the defaults are the
    core's (seed 001 steps 5-7)."""

    rolls: int = 1  # damage rolls, each reduced by the same Resistance (2, 3: two, three hits)
    halve_resistance: bool = False  # the Resistance (cover dice included) halved, rounded up
    repeat: int = 0  # up to this many more damage rolls while the last one got through
    extra_injuries: int = 0  # an attack that causes an Injury causes this many more
    why: str = ""  # what made it so, for the dice rolls' purposes


@dataclass(frozen=True)
class Shown:
    """What a module adds to the clients' text views (``skirmish.client.render``): raw text, which the
    client escapes (``skirmish.client.safe``) line by line, labels whole, before it prints it."""

    unit_flags: Callable[["Unit"], list] | None = None  # a unit's flags, e.g. ["fear", "endurance 3/4"]
    label: Callable | None = None  # (option, state, decision, uname) -> its label, or None if not the module's
    titles: Mapping[str, str] = field(default_factory=dict)  # decision kind -> what it asks
    pools: Callable[["State"], list] | None = None  # the game's pools: [(name, {side: n})]
    status: Callable[["State", str], list] | None = None  # (state, viewing side) -> lines under the pools, e.g. a hand
    places: Callable[["State"], list] | None = None  # lines under the objectives and items, e.g. facilities
    procedures: Mapping[type, Callable] = field(default_factory=dict)  # frame type -> (frame, state, side) -> lines
    carriers: Mapping[str, str] = field(default_factory=dict)  # option kind -> the words before the label of
    #   the option it carries after its kind, e.g. "bonus" -> "bonus action: " for ("bonus", "move", x, y)


@dataclass(frozen=True)
class Rendered:
    """``Shown`` over the modules of a rule set: the flags, labels, pools, status lines and places
    of each, in order, and their titles and procedures."""

    unit_flags: tuple[Callable, ...] = ()
    labels: tuple[Callable, ...] = ()
    titles: Mapping[str, str] = field(default_factory=dict)
    pools: tuple[Callable, ...] = ()
    status: tuple[Callable, ...] = ()
    places: tuple[Callable, ...] = ()
    procedures: Mapping[type, Callable] = field(default_factory=dict)
    carriers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BotHooks:
    """What a module gives the bots (``skirmish.bots.evaluate``, ``skirmish.bots.policy``, ``skirmish.bots.simulate``); the
    functions that price take ``kit``, the bots' evaluation, as their last argument.

    ``terms`` are evaluation terms: ``(name, weight, (state, side, active units, kit) -> value)``,
    or several computed in one pass, ``((name, ...), (weight, ...), fn -> (value, ...))``; the
    evaluation asks them in every game, so a module's terms are 0 in a game without it."""

    terms: tuple = ()
    option_values: Mapping[str, Callable] = field(default_factory=dict)  # option kind -> (state, unit, option, kit) -> worth
    scorers: Mapping[str, Callable] = field(default_factory=dict)  # decision kind -> (state, decision, kit) -> scores
    procedure_kinds: frozenset[str] = frozenset()  # its decisions inside a procedure (a lookahead settles them)
    # added with issue 13 (the capture module's), each asked in every game
    minor_actions: frozenset[str] = frozenset()  # option kinds that are Minor Actions: worth less the Momentum one costs
    free_moves: Mapping[str, Callable] = field(default_factory=dict)  # option kind -> (option) -> the cell it moves
    #   the acting unit to at no cost, priced as a Movement there, or None (then its ``option_values``)
    sidelined: Callable | None = None  # (unit) -> True: out of the fight though not taken out (a captive):
    #   not able to fight, not a target, no enemy in Reach
    activation: Callable | None = None  # (state, unit, kit) -> the worth of activating the unit, or None: the core's
    positions: Callable | None = None  # (state, unit, task left, kit) -> [(x, y) -> worth]: what standing on
    #   a cell adds to a moving unit's score (skirmish.bots.policy.MoveScorer)


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
    can_threaten: Callable[["State", "Unit"], bool] | None = None  # a veto (issue 13; see the docstring)
    # added with the skills module (seed 003; see the docstring)
    on_table: Callable[["State", "Unit"], bool] | None = None
    # added with the skills module's combat skills (issue 14; see the docstring)
    attack_dice: Callable[["State", object], int] | None = None
    weapon_difficulty: Callable[["State", object], int] | None = None
    hit_effects: Callable | None = None
    acts_incapacitated: Callable[["State", "Unit"], bool] | None = None
    on_task_resolved: Callable[["Context", object, object], None] | None = None
    # added with the skills module's Deployment Skills (issue 14; see the docstring)
    on_injury: Callable[["Context", "Unit", bool, str], "bool | None"] | None = None
    # added with the skills module's command skills (issue 14; vetoes, see the docstring)
    can_retreat: Callable[["State", str], bool] | None = None
    breaks_away: Callable[["State", "Unit"], bool] | None = None
    # added with the skills module's reactions and movement skills (issue 14; see the docstring)
    gait: Callable[["State", "Unit"], Any] | None = None
    on_attack_declared: Callable[["Context", object], None] | None = None
    # added with issue 15 (a veto; see the docstring)
    can_oppose: Callable[["State", "Unit", "Unit"], bool] | None = None
    no_stop: Callable[["State", "Unit"], Any] | None = None
    # added with issue 13: what the module owns, for the clash check, the view and the bots
    events: tuple[type, ...] = ()  # the event types it adds to the log's union
    option_kinds: tuple[str, ...] = ()  # option kinds it handles other than through ``acts`` (the core's)
    redactions: Mapping[type, Callable] = field(default_factory=dict)  # event type -> (state, event, viewer) -> event | None
    secrets: Callable[["State", str], Any] | None = None  # (state, viewer) -> iterable of Secret: what viewer may not know
    samplers: tuple[Callable, ...] = ()  # (state, side, rng) -> None: fill in what its redactions hid
    # added with issue 15: (state) -> bool, whether this game hides anything of the module (its mission
    # asked for it); None: whenever the module has redactions or samplers (skirmish.engine.view.hides,
    # skirmish.bots.determinize.hidden)
    hides: Callable[[State], bool] | None = None
    narration: Mapping[type, Callable] = field(default_factory=dict)  # event or frame type -> (it, state, name) -> line | None
    rolls_narration: Mapping[str, Callable] = field(default_factory=dict)  # a roll's purpose head -> (event, rest, results, re-roll) -> text
    roll_lines: Mapping[str, Callable] = field(default_factory=dict)  # a roll's whole purpose -> (event, state, who) -> its line or None
    render: Shown = field(default_factory=Shown)  # what it adds to the clients' text views
    bots: BotHooks = field(default_factory=BotHooks)  # what it gives the bots
    core: CoreServices | None = None  # the core's services (the core module alone has them)


HOOKS = ("turn_options", "can_activate", "on_game_start", "on_round_start", "on_turn_start", "on_end_phase",
         "after_move", "points", "can_target", "on_idle", "on_hit", "on_task_rolled", "on_initiative_rolled",
         "command_bonus", "movement_bonus", "attack_difficulty", "can_act", "can_move", "can_reroll", "pay_reroll",
         "can_threaten", "on_table", "attack_dice", "weapon_difficulty", "hit_effects",
         "acts_incapacitated", "on_task_resolved", "on_injury",
         "can_retreat", "breaks_away", "gait", "on_attack_declared", "can_oppose", "no_stop")

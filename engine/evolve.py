"""``evolve(state, event) -> state``: the only code that changes game state.

One small function per event type. ``evolve`` owns the state it is given and returns it
(updated in place for speed: replaying must reach 300,000 events/s). Whoever needs the old
state keeps a clone (``skirmish.engine.codec.clone_state``). Each function first checks that the event
can follow the state (like eventsourcing's ``_check_sequence``) and raises ``InvalidEvent``
otherwise, so a forged or corrupt log fails loudly instead of producing a wrong game.
"""

from __future__ import annotations

from typing import Callable

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.dice.fair import check_client_seed
from skirmish.engine.errors import InvalidEvent
from skirmish.engine.model import MOMENTUM_MAX, SIDES, State, Turn
from skirmish.engine.rules import registry
from skirmish.engine.rules.bundled import parts
from skirmish.engine.versions import CURRENT as CURRENT_RULES
from skirmish.engine.versions import level as rules_level


def initial_state(created: ev.GameCreated) -> State:
    state = State(
        game_id=created.game_id,
        mission=created.mission,
        board=created.board,
        units={u.id: msgspec.structs.replace(u) for u in created.units},  # events stay immutable
        rounds=created.rounds,
        modules=tuple(created.modules),
        objectives={o.id: msgspec.structs.replace(o) for o in created.objectives},
        items={i.id: msgspec.structs.replace(i) for i in created.items},
        midline_points=created.midline_points,
        dice=created.dice,
        commitment=created.commitment,
        rules_version=rules_level(created.engine_version, CURRENT_RULES),
    )
    for initial in _INITIAL:  # the modules' parts of the initial state (skirmish.engine.rules.bundled.parts)
        initial(state, created)
    state.seq = 1
    return state


def evolve(state: State, event: ev.Event) -> State:
    try:
        handler = _HANDLERS[type(event)]
    except KeyError:
        raise InvalidEvent(f"{type(event).__name__} cannot follow the game's first event") from None
    handler(state, event)
    state.seq += 1
    return state


def replay(events) -> State:
    """Fold a whole log (first event ``GameCreated``) into the state it describes."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, ev.GameCreated):
        raise InvalidEvent(f"a log starts with GameCreated, not {type(first).__name__}")
    state = initial_state(first)
    for event in it:
        evolve(state, event)
    return state


def _unit(state: State, uid: str):
    try:
        return state.units[uid]
    except KeyError:
        raise InvalidEvent(f"no unit {uid!r} in game {state.game_id}") from None


def _client_seed_added(s: State, e: ev.ClientSeedAdded) -> None:
    if s.next_nonce:
        raise InvalidEvent("a client seed cannot be added after the first roll")
    if e.seat in s.client_seeds:
        raise InvalidEvent(f"seat {e.seat!r} already has a client seed")
    try:
        check_client_seed(e.seat, e.seed)
    except (TypeError, ValueError) as exc:
        raise InvalidEvent(f"not a valid client seed: {exc}") from None
    s.client_seeds[e.seat] = e.seed


def _seat_taken(s: State, e: ev.SeatTaken) -> None:
    if e.seat not in SIDES:
        raise InvalidEvent(f"no seat {e.seat!r}")
    if e.seat in s.seats:
        raise InvalidEvent(f"seat {e.seat} is already taken")
    if s.started:
        raise InvalidEvent("seats are taken before the game starts")
    s.seats[e.seat] = e.name


def _game_started(s: State, e: ev.GameStarted) -> None:
    if s.started:
        raise InvalidEvent("the game has already started")
    s.started = True
    s.phase = "end"  # round 0 has "ended": the first round starts next


def _resigned(s: State, e: ev.Resigned) -> None:
    pass  # the GameEnded that follows carries the outcome


def _game_cancelled(s: State, e: ev.GameCancelled) -> None:
    if s.started or s.outcome is not None:
        raise InvalidEvent("only a game that has not started can be cancelled")
    # the GameEnded that follows carries the outcome


def _game_ended(s: State, e: ev.GameEnded) -> None:
    s.outcome = e.outcome
    s.phase = "over"
    s.pending = None
    s.turn = None
    s.stack = []


def _seed_revealed(s: State, e: ev.SeedRevealed) -> None:
    if s.outcome is None:
        raise InvalidEvent("the server seed is revealed only after the game has ended")
    s.revealed_seed = e.server_seed


def _checkpoint(s: State, e: ev.Checkpoint) -> None:
    pass  # verified by skirmish.engine.verify, which hashes the state before applying it


def _dice_rolled(s: State, e: ev.DiceRolled) -> None:
    if e.nonce != s.next_nonce:
        raise InvalidEvent(f"roll nonce {e.nonce} where {s.next_nonce} was next")
    if not isinstance(e.results, Hidden) and any(not 1 <= r <= e.sides for r in e.results):
        raise InvalidEvent(f"roll {e.nonce}: a result outside 1..{e.sides}")  # (a viewer's Hidden: not to check)
    s.next_nonce += 1


def _decision_requested(s: State, e: ev.DecisionRequested) -> None:
    if s.pending is not None:
        raise InvalidEvent(f"decision {e.decision.id} requested while {s.pending.id} is pending")
    if e.decision.id != s.next_decision:
        raise InvalidEvent(f"decision id {e.decision.id} where {s.next_decision} was next")
    s.pending = e.decision
    s.next_decision += 1


def _option_chosen(s: State, e: ev.OptionChosen) -> None:
    p = s.pending
    if p is None or p.id != e.decision_id or p.side != e.side or tuple(e.option) not in p.options:
        raise InvalidEvent(f"option {e.option!r} does not answer the pending decision")
    s.pending = None
    if s.draw_offer and s.draw_offer != e.side:
        s.draw_offer = ""  # the other side played on: the offer lapses


def _draw_offered(s: State, e: ev.DrawOffered) -> None:
    if not s.started or s.outcome is not None or e.side not in SIDES or s.draw_offer == e.side:
        raise InvalidEvent(f"side {e.side!r} cannot offer a draw now")
    s.draw_offer = e.side


def _draw_agreed(s: State, e: ev.DrawAgreed) -> None:
    if not s.draw_offer or s.draw_offer == e.side:
        raise InvalidEvent(f"side {e.side!r} accepts no standing draw offer")
    s.draw_offer = ""  # the GameEnded that follows carries the outcome


def _round_started(s: State, e: ev.RoundStarted) -> None:
    s.round = e.round
    s.phase = "initiative"
    s.kept_initiative = False


def _initiative_won(s: State, e: ev.InitiativeWon) -> None:
    pass  # the winner's choice follows as a decision


def _activation_passed(s: State, e: ev.ActivationPassed) -> None:
    s.to_act = e.side
    s.phase = "activation"
    s.kept_initiative = e.kept


def _acts_incapacitated(s: State, u) -> bool:
    """A module lets this incapacitated unit be activated (the registry's ``acts_incapacitated``)."""
    return not u.dead and bool(s.modules) and registry.offers(s, "acts_incapacitated", u)


def _turn_started(s: State, e: ev.TurnStarted) -> None:
    u = _unit(s, e.unit)
    if s.turn is not None or u.acted or (u.incapacitated and not _acts_incapacitated(s, u)):
        raise InvalidEvent(f"{e.unit} cannot start a turn now")
    s.turn = Turn(unit=e.unit)
    u.acted = True
    u.guarding = u.readied = False  # Guard and Ready last until the unit's next turn
    u.recovered = 0


def _turn_ended(s: State, e: ev.TurnEnded) -> None:
    if s.turn is None or s.turn.unit != e.unit:
        raise InvalidEvent(f"{e.unit} has no turn to end")
    s.turn = None


def _round_ended(s: State, e: ev.RoundEnded) -> None:
    s.phase = "end"
    for u in s.units.values():
        u.acted = u.directed = False


def _minor_action_taken(s: State, e: ev.MinorActionTaken) -> None:
    if s.turn is None or s.turn.unit != e.unit or e.action in s.turn.minors:
        raise InvalidEvent(f"{e.unit} cannot take the minor action {e.action!r} now")
    s.turn.minors.append(e.action)


def _task_attempted(s: State, e: ev.TaskAttempted) -> None:
    if s.turn is None or s.turn.unit != e.unit or s.turn.task:
        raise InvalidEvent(f"{e.unit} cannot attempt a task now")
    s.turn.task = e.task


def _unit_moved(s: State, e: ev.UnitMoved) -> None:
    u = _unit(s, e.unit)
    u.x, u.y = e.x, e.y


def _prone_changed(s: State, e: ev.ProneChanged) -> None:
    _unit(s, e.unit).prone = e.prone


def _pool_changed(s: State, e: ev.PoolChanged) -> None:
    pool = s.momentum if e.pool == "momentum" else s.threat
    value = pool[e.side] + e.delta
    if value < 0 or (e.pool == "momentum" and value > MOMENTUM_MAX):
        raise InvalidEvent(f"{e.pool} of side {e.side} would become {value}")
    pool[e.side] = value


def _procedure_started(s: State, e: ev.ProcedureStarted) -> None:
    s.stack.append(msgspec.structs.replace(e.frame))  # the event stays immutable


def _procedure_updated(s: State, e: ev.ProcedureUpdated) -> None:
    if not s.stack or type(s.stack[-1]) is not type(e.frame):
        raise InvalidEvent(f"no {type(e.frame).__name__} in progress to update")
    s.stack[-1] = msgspec.structs.replace(e.frame)


def _procedure_ended(s: State, e: ev.ProcedureEnded) -> None:
    if not s.stack:
        raise InvalidEvent("no procedure in progress to end")
    s.stack.pop()


def _weapon_drawn(s: State, e: ev.WeaponDrawn) -> None:
    u = _unit(s, e.unit)
    if e.weapon not in u.stowed:
        raise InvalidEvent(f"{e.unit} has no stowed weapon {e.weapon}")
    u.stowed = tuple(i for i in u.stowed if i != e.weapon)


def _item_picked_up(s: State, e: ev.ItemPickedUp) -> None:
    u = _unit(s, e.unit)
    item = s.items.get(e.item)
    if item is None or item.carrier:
        raise InvalidEvent(f"item {e.item!r} cannot be picked up")
    item.carrier = u.id
    if item.weapon is not None:
        u.weapons = u.weapons + (item.weapon,)


def _objective_secured(s: State, e: ev.ObjectiveSecured) -> None:
    obj = s.objectives.get(e.objective)
    if obj is None:
        raise InvalidEvent(f"no objective {e.objective!r}")
    obj.holder = e.side


def _guard_taken(s: State, e: ev.GuardTaken) -> None:
    _unit(s, e.unit).guarding = True


def _readied(s: State, e: ev.Readied) -> None:
    _unit(s, e.unit).readied = True


def _ready_triggered(s: State, e: ev.ReadyTriggered) -> None:
    u = _unit(s, e.unit)
    if not u.readied:
        raise InvalidEvent(f"{e.unit} is not readied")
    u.readied = False


def _assist_given(s: State, e: ev.AssistGiven) -> None:
    _unit(s, e.unit)
    _unit(s, e.ally).assisted_by = e.unit


def _assist_used(s: State, e: ev.AssistUsed) -> None:
    _unit(s, e.ally).assisted_by = ""


def _directed(s: State, e: ev.Directed) -> None:
    _unit(s, e.ally).directed = True


def _advantage_created(s: State, e: ev.AdvantageCreated) -> None:
    _unit(s, e.unit).exposed = True


def _advantage_used(s: State, e: ev.AdvantageUsed) -> None:
    _unit(s, e.unit).exposed = False


def _stabilised(s: State, e: ev.Stabilised) -> None:
    u = _unit(s, e.unit)
    if u.injury != "lethal" or u.dead:
        raise InvalidEvent(f"{e.unit} has no lethal injury to stabilise")
    u.stabilised = True


def _recovered(s: State, e: ev.Recovered) -> None:
    u = _unit(s, e.unit)
    u.recovered = e.resistance
    u.avoid_available = True  # "regain the ability to Avoid an Injury"


def _stress_regained(s: State, e: ev.StressRegained) -> None:
    u = _unit(s, e.unit)
    u.stress = min(u.stress_max, u.stress + e.amount)


def _stress_lost(s: State, e: ev.StressLost) -> None:
    u = _unit(s, e.unit)
    u.stress = max(0, u.stress - e.amount)


def _injury_avoided(s: State, e: ev.InjuryAvoided) -> None:
    u = _unit(s, e.unit)
    if not u.avoid_available:
        raise InvalidEvent(f"{e.unit} has already avoided an Injury this scene")
    u.avoid_available = False


def _complication_suffered(s: State, e: ev.ComplicationSuffered) -> None:
    _unit(s, e.unit)


def _injury_suffered(s: State, e: ev.InjurySuffered) -> None:
    u = _unit(s, e.unit)
    if e.result == "dead":
        u.dead = True
        u.injury = "lethal"
    else:
        u.injury = e.result
    u.stabilised = False


def _unit_died(s: State, e: ev.UnitDied) -> None:
    _unit(s, e.unit).dead = True


_HANDLERS: dict[type, Callable[[State, ev.Event], None]] = {
    ev.ClientSeedAdded: _client_seed_added,
    ev.SeatTaken: _seat_taken,
    ev.GameStarted: _game_started,
    ev.Resigned: _resigned,
    ev.DrawOffered: _draw_offered,
    ev.DrawAgreed: _draw_agreed,
    ev.GameEnded: _game_ended,
    ev.GameCancelled: _game_cancelled,
    ev.SeedRevealed: _seed_revealed,
    ev.Checkpoint: _checkpoint,
    ev.DiceRolled: _dice_rolled,
    ev.DecisionRequested: _decision_requested,
    ev.OptionChosen: _option_chosen,
    ev.RoundStarted: _round_started,
    ev.InitiativeWon: _initiative_won,
    ev.ActivationPassed: _activation_passed,
    ev.TurnStarted: _turn_started,
    ev.TurnEnded: _turn_ended,
    ev.RoundEnded: _round_ended,
    ev.MinorActionTaken: _minor_action_taken,
    ev.TaskAttempted: _task_attempted,
    ev.UnitMoved: _unit_moved,
    ev.ProneChanged: _prone_changed,
    ev.PoolChanged: _pool_changed,
    ev.ProcedureStarted: _procedure_started,
    ev.ProcedureUpdated: _procedure_updated,
    ev.ProcedureEnded: _procedure_ended,
    ev.WeaponDrawn: _weapon_drawn,
    ev.ItemPickedUp: _item_picked_up,
    ev.ObjectiveSecured: _objective_secured,
    ev.GuardTaken: _guard_taken,
    ev.Readied: _readied,
    ev.ReadyTriggered: _ready_triggered,
    ev.AssistGiven: _assist_given,
    ev.AssistUsed: _assist_used,
    ev.Directed: _directed,
    ev.AdvantageCreated: _advantage_created,
    ev.AdvantageUsed: _advantage_used,
    ev.Stabilised: _stabilised,
    ev.Recovered: _recovered,
    ev.StressRegained: _stress_regained,
    ev.StressLost: _stress_lost,
    ev.InjuryAvoided: _injury_avoided,
    ev.ComplicationSuffered: _complication_suffered,
    ev.InjurySuffered: _injury_suffered,
    ev.UnitDied: _unit_died,
}
# the bundled modules' handlers (their evolve.py: skirmish.engine.rules.bundled.parts)
for _part in parts("evolve"):
    _HANDLERS.update(_part.HANDLERS)
# their ``initial(state, created)``: what each sets up of the initial state from GameCreated
_INITIAL = tuple(_part.initial for _part in parts("evolve") if hasattr(_part, "initial"))

"""A readable account of events, one line each, for replays and the terminal client.

Every line is passed through ``skirmish.client.safe.safe``: names and other strings in events come from
players and mission files, and must never reach a terminal as escapes or extra lines. Die rolls
are explained (``explain_roll``): successes, Complications, Momentum, damage, what a re-roll
replaced, worked out with the engine's own rules on the viewer's state.
"""

from __future__ import annotations

from typing import Mapping

from skirmish.client.render import label
from skirmish.client.safe import safe
from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.model import DirectFrame, ReadyFrame, State, TaskFrame
from skirmish.engine.rules import registry
from skirmish.engine.rules.core import procedure, tasks
from skirmish.engine.rules.core.tasks import count_successes


def _name(state: State, uid: str) -> str:
    u = state.units.get(uid)
    if u is not None and isinstance(u.name, Hidden):  # a unit a rules module hides (a marker): its handle only
        return f"a marker [{uid}]"
    return f"{u.name} [{uid}]" if u else uid


def describe(event: ev.Event, state: State) -> str | None:
    """One line for ``event``, read against ``state`` (the state *before* the event), with every
    character that could act on a terminal escaped (``skirmish.client.safe``); None for events that say
    nothing worth a line."""
    try:
        line = _describe(event, state)
    except Exception:  # narration is a courtesy: a view it cannot read never stops a replay
        line = type(event).__name__
    return None if line is None else safe(line)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _task_frame(state: State) -> TaskFrame | None:
    for f in reversed(state.stack):
        if isinstance(f, TaskFrame):
            return f
    return None


def _d20_count(results, target: int, discipline: int, focus: bool, comp_range: int) -> str:
    r = count_successes(tuple(results), target, discipline, focus, 0, comp_range)
    comp = _plural(r.complications, "Complication") if r.complications else "no Complication"
    return f"{_successes(r.successes)}, {comp}"


def task_result(state: State, f: TaskFrame) -> str | None:
    """The outcome of a Task whose dice are final (its frame at step ``resolve``): successes
    (with an ally's assist), the Difficulty, passed or failed, the Momentum, the Complications;
    for an opposed melee, the defender's too."""
    spec_of = procedure.SPECS.get(f.task)
    unit = state.units.get(f.unit)
    if spec_of is None or unit is None:
        return None
    r = procedure.result_of(state, f)
    spec = spec_of(state, f)
    assist = f" (with {f.assist} from an assist)" if f.assist and r.successes else ""
    verdict = (f"passed with {r.momentum} Momentum" if r.passed and r.momentum else
               "passed" if r.passed else "failed")
    comp = f"; {_plural(r.complications, 'Complication')}" if r.complications else ""
    line = (f"  => {_name(state, f.unit)}: {_successes(r.successes)}{assist} against Difficulty "
            f"{max(0, spec.difficulty)}: {verdict}{comp}")
    if f.opposed and f.task == "attack":
        target = state.units.get(f.target)
        if target is not None:
            t = tasks.count_successes(f.opposed, target.stats.daring + target.stats.security,
                                      target.stats.security, False, 1)
            tv = f"passed with {t.momentum} Momentum" if t.passed and t.momentum else (
                "passed" if t.passed else "failed")
            line += f"; the defence: {_successes(t.successes)} against Difficulty 1: {tv}"
    return line


def _successes(n: int) -> str:
    return "1 success" if n == 1 else f"{n} successes"


def explain_roll(event: ev.DiceRolled, state: State) -> str:
    """What a roll means, after its dice: e.g. ``3 successes, no Complication (target 13,
    Difficulty 2)`` for a Task's d20, ``4 damage, 2 Effects`` for Challenge Dice. "" when there is
    nothing to add (or the roll cannot be read against this view)."""
    try:
        return _explain_roll(event, state)
    except Exception:  # an explanation is a courtesy: never let it break the narration
        return ""


def _explain_roll(e: ev.DiceRolled, state: State) -> str:
    purpose, results = e.purpose, tuple(e.results)
    replaced = " (a re-roll)" if e.replaces >= 0 else ""
    head, _, task = purpose.partition(":")
    if purpose == "reroll:defence:attack" or (head in ("task", "assist", "defence", "aim", "reroll") and e.sides == 20):
        f = _task_frame(state)
        if f is None:
            return ""
        spec_of = procedure.SPECS.get(f.task)
        if spec_of is None:
            return ""
        spec = spec_of(state, f)
        unit = state.units.get(e.unit)
        if head == "defence" or purpose.startswith("reroll:defence"):
            target = state.units.get(f.target)
            if target is None:
                return ""
            return (f": {_d20_count(results, e.target, target.stats.security, False, 1)}"
                    f" (Difficulty 1; success at {e.target} or under, two on a 1, Complication on a 20){replaced}")
        if unit is None:
            return ""
        disc = getattr(unit.stats, spec.discipline)
        focus = tasks.has_focus(unit, spec)
        count = _d20_count(results, e.target, disc, focus, spec.complication_range)
        double = f"two at {disc} or under" if focus else "two on a 1"
        comp = f"{21 - spec.complication_range}-20" if spec.complication_range > 1 else "a 20"
        rule = f"success at {e.target} or under, {double}, Complication on {comp}"
        if head == "assist":
            return f": {count} for the assisted Task ({rule})"
        if head == "aim":
            return f": Aim re-rolls one die ({rule})"
        if head == "reroll":
            return f": a Command Token re-rolls the dice: {count} ({rule})"
        return f": {count} (Difficulty {max(0, spec.difficulty)}; {rule})"
    if purpose in ("damage", "cover"):
        total, effects = tasks.challenge_total(results)
        fx = f", {_plural(effects, 'Effect')}" if effects else ""
        what = f"{total} damage" if purpose == "damage" else f"{total} Resistance from cover"
        f = _task_frame(state)
        victim = state.units.get(f.victim) if f is not None else None
        if purpose == "damage" and victim is not None:
            what += f" against {_name(state, victim.id)}'s Resistance {victim.resistance + victim.recovered}"
        return f": {what}{fx} (Challenge Dice: 1 -> 1, 2 -> 2, 3-4 -> 0, 5-6 -> 1 and an Effect)"
    if purpose == "initiative" and results:
        return f": {results[0]} + Team Command Value {e.target} = {results[0] + e.target}{replaced}"
    told = _rolls_narration().get(head)  # a module's rolls
    if told is not None and results:
        return told(e, task, results, replaced)
    return replaced


def _dice_line(e: ev.DiceRolled, state: State, who: str) -> str | None:
    told = registry.CATALOG.all().roll_lines.get(e.purpose)  # a roll a module tells its own way
    if told is not None:
        return told(e, state, who)
    if isinstance(e.results, Hidden):
        return f"  {who}rolls {e.sides}-sided dice, hidden from you ({e.purpose})"
    what = f"{len(e.results)}d{e.sides} {list(e.results)}"
    vs = f" vs {e.target}" if e.target and e.purpose not in ("initiative",) else ""
    return f"  {who}rolls {what}{vs}{explain_roll(e, state)} ({e.purpose}, roll #{e.nonce})"


def _narration() -> Mapping:
    """Event or frame type -> the modules' narration of it (``Module.narration``)."""
    return registry.CATALOG.all().narration


def _rolls_narration() -> Mapping:
    """A roll's purpose (its head, before ":") -> the modules' narration of its dice."""
    return registry.CATALOG.all().rolls_narration


def _describe(event: ev.Event, state: State) -> str | None:
    n = lambda uid: _name(state, uid)  # noqa: E731
    told = _narration().get(type(event)) or _EVENTS.get(type(event))  # a module's event, or the core's
    return told(event, state, n) if told is not None else type(event).__name__


def _game_created(event: ev.GameCreated, state: State, n) -> str:
    return (f"game {event.game_id}: mission {event.mission}, {len(event.units)} units, "
            f"{event.rounds} rounds; dice commitment {event.commitment[:16] or '(local dice)'}…")


def _dice_rolled(event: ev.DiceRolled, state: State, n) -> str | None:
    who = f"{n(event.unit)} " if event.unit in state.units else (f"side {event.unit} " if event.unit else "")
    return _dice_line(event, state, who)


def _option_chosen(event: ev.OptionChosen, state: State, n) -> str:
    tag = " (clock ran out: default)" if event.timeout else ""
    pending = state.pending
    if pending is not None and pending.id == event.decision_id:
        return f"side {event.side} chooses: {label(tuple(event.option), state, pending)}{tag}"
    return f"side {event.side} chooses {' '.join(map(str, event.option))}{tag}"


def _procedure_started(event: ev.ProcedureStarted, state: State, n) -> str | None:
    f = event.frame
    if isinstance(f, TaskFrame) and f.task == "attack":
        a = state.units[f.unit]
        w = a.weapons[f.weapon].name if 0 <= f.weapon < len(a.weapons) else "Unarmed Strike"
        kind = "lethal" if f.lethal else "non-lethal"
        return f"  {n(f.unit)} attacks {n(f.target)} with {w} ({kind})"
    if isinstance(f, TaskFrame):
        on = f" on {n(f.target)}" if f.target in state.units else (f" at {f.target}" if f.target else "")
        return f"  {n(f.unit)} attempts {f.task.replace('_', ' ')}{on}"
    if isinstance(f, DirectFrame):
        return f"  {n(f.commander)} directs {n(f.ally)}"
    if isinstance(f, ReadyFrame):
        return f"  {n(f.mover)} moves into the sights of a readied enemy"
    told = _narration().get(type(f))  # a module's frame
    if told is not None:
        return told(f, state, n)
    return None  # a re-roll's chance or the initiative: their decisions and dice say it


def _procedure_updated(event: ev.ProcedureUpdated, state: State, n) -> str | None:
    f = event.frame
    if isinstance(f, TaskFrame) and f.step == "resolve" and f.rolled:
        try:
            return task_result(state, f)
        except Exception:  # a courtesy, as explain_roll
            return None
    if isinstance(f, TaskFrame) and f.step == "outcome":
        return f"  {n(f.winner)} wins the melee"
    if isinstance(f, TaskFrame) and f.step == "damage" and f.winner:
        return f"  {n(f.winner)} hits {n(f.victim)}"
    return None


def _unit_moved(event: ev.UnitMoved, state: State, n) -> str:
    u = state.units[event.unit]
    return f"  {n(event.unit)} moves ({u.x},{u.y}) -> ({event.x},{event.y})"


def _stress_lost(event: ev.StressLost, state: State, n) -> str:
    u = state.units[event.unit]
    return f"  {n(event.unit)} loses {event.amount} Stress ({u.stress} -> {max(0, u.stress - event.amount)})"


def _game_cancelled(event: ev.GameCancelled, state: State, n) -> str:
    return ("the game expired: nobody joined in time" if event.reason == "expired"
            else f"side {event.seat} cancels the game before anyone joined")


def _game_ended(event: ev.GameEnded, state: State, n) -> str:
    o = event.outcome
    who = f"side {o.winner} wins" if o.winner else "a draw"
    return f"GAME OVER: {who} ({o.reason}); points {o.points}"


def _nothing(event, state: State, n) -> None:
    return None


# The core's events: type -> (event, the state before it, n(unit id)) -> its line, or None.
_EVENTS = {
    ev.GameCreated: _game_created,
    ev.ClientSeedAdded: lambda e, state, n: f"seat {e.seat} adds its client seed {e.seed!r}",
    ev.SeatTaken: lambda e, state, n: f"seat {e.seat} is taken" + (f" by {e.name}" if e.name else ""),
    ev.GameStarted: lambda e, state, n: "the game starts",
    ev.RoundStarted: lambda e, state, n: f"── round {e.round} ──",
    ev.DiceRolled: _dice_rolled,
    ev.InitiativeWon: lambda e, state, n: f"side {e.side} wins the initiative",
    ev.DecisionRequested: _nothing,
    ev.OptionChosen: _option_chosen,
    ev.ActivationPassed: lambda e, state, n: f"the action passes to side {e.side}" + (
        " (kept the initiative)" if e.kept else ""),
    ev.TurnStarted: lambda e, state, n: f"{n(e.unit)} takes a turn",
    ev.TurnEnded: _nothing,
    ev.MinorActionTaken: _nothing,
    ev.TaskAttempted: _nothing,
    ev.UnitMoved: _unit_moved,
    ev.ProneChanged: lambda e, state, n: f"  {n(e.unit)} {'drops prone' if e.prone else 'stands up'}",
    ev.PoolChanged: lambda e, state, n: f"  side {e.side} {e.pool} {e.delta:+d} ({e.reason})",
    ev.ProcedureStarted: _procedure_started,
    ev.ProcedureUpdated: _procedure_updated,
    ev.ProcedureEnded: _nothing,
    ev.WeaponDrawn: lambda e, state, n: f"  {n(e.unit)} draws {state.units[e.unit].weapons[e.weapon].name}",
    ev.ItemPickedUp: lambda e, state, n: f"  {n(e.unit)} picks up {state.items[e.item].name}",
    ev.ObjectiveSecured: lambda e, state, n: (f"  {n(e.unit)} secures {state.objectives[e.objective].name} "
                                              f"for side {e.side}"),
    ev.GuardTaken: lambda e, state, n: f"  {n(e.unit)} takes guard",
    ev.Readied: lambda e, state, n: f"  {n(e.unit)} readies an attack",
    ev.ReadyTriggered: lambda e, state, n: f"  {n(e.unit)} fires from Ready",
    ev.AssistGiven: lambda e, state, n: f"  {n(e.unit)} assists {n(e.ally)}",
    ev.AssistUsed: _nothing,
    ev.Directed: _nothing,
    ev.AdvantageCreated: lambda e, state, n: f"  an advantage is created against {n(e.unit)}",
    ev.AdvantageUsed: _nothing,
    ev.Stabilised: lambda e, state, n: f"  {n(e.unit)} is stabilised",
    ev.Recovered: lambda e, state, n: f"  {n(e.unit)} recovers (+{e.resistance} Resistance, may Avoid an Injury again)",
    ev.StressRegained: lambda e, state, n: f"  {n(e.unit)} regains {e.amount} Stress",
    ev.StressLost: _stress_lost,
    ev.InjuryAvoided: lambda e, state, n: f"  {n(e.unit)} avoids the Injury ({e.by})",
    ev.ComplicationSuffered: lambda e, state, n: f"  {n(e.unit)} suffers a Complication ({e.reason})",
    ev.InjurySuffered: lambda e, state, n: f"  {n(e.unit)} suffers an Injury: now {e.result}",
    ev.UnitDied: lambda e, state, n: f"  {n(e.unit)} dies: {e.reason}",
    ev.RoundEnded: lambda e, state, n: f"end of round {e.round}",
    ev.Checkpoint: _nothing,
    ev.Resigned: lambda e, state, n: f"side {e.side} resigns" + (f" ({e.reason})" if e.reason else ""),
    ev.GameCancelled: _game_cancelled,
    ev.DrawOffered: lambda e, state, n: f"side {e.side} offers a draw (the other side accepts by offering one; playing on declines it)",
    ev.DrawAgreed: lambda e, state, n: f"side {e.side} accepts the draw",
    ev.GameEnded: _game_ended,
    ev.SeedRevealed: lambda e, state, n: f"the server reveals its dice seed {e.server_seed[:16]}…",
}

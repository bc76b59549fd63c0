"""A readable account of events, one line each, for replays and the terminal client."""

from __future__ import annotations

from engine import events as ev
from engine.model import DirectFrame, State, TaskFrame


def _name(state: State, uid: str) -> str:
    u = state.units.get(uid)
    return f"{u.name} [{uid}]" if u else uid


def describe(event: ev.Event, state: State) -> str | None:
    """One line for ``event``, read against ``state`` (the state *before* the event)."""
    n = lambda uid: _name(state, uid)  # noqa: E731
    match event:
        case ev.GameCreated():
            return (f"game {event.game_id}: mission {event.mission}, {len(event.units)} units, "
                    f"{event.rounds} rounds; dice commitment {event.commitment[:16] or '(local dice)'}…")
        case ev.ClientSeedAdded():
            return f"seat {event.seat} adds its client seed {event.seed!r}"
        case ev.SeatTaken():
            return f"seat {event.seat} is taken" + (f" by {event.name}" if event.name else "")
        case ev.GameStarted():
            return "the game starts"
        case ev.RoundStarted():
            return f"── round {event.round} ──"
        case ev.DiceRolled():
            what = f"{len(event.results)}d{event.sides} {list(event.results)}"
            vs = f" vs {event.target}" if event.target else ""
            who = f"{n(event.unit)} " if event.unit in state.units else (f"side {event.unit} " if event.unit else "")
            return f"  {who}rolls {what}{vs} ({event.purpose}, roll #{event.nonce})"
        case ev.InitiativeWon():
            return f"side {event.side} wins the initiative"
        case ev.DecisionRequested():
            return None
        case ev.OptionChosen():
            tag = " (clock ran out: default)" if event.timeout else ""
            return f"side {event.side} chooses {' '.join(map(str, event.option))}{tag}"
        case ev.ActivationPassed():
            return f"the action passes to side {event.side}" + (" (kept the initiative)" if event.kept else "")
        case ev.TurnStarted():
            return f"{n(event.unit)} takes a turn"
        case ev.TurnEnded():
            return None
        case ev.MinorActionTaken():
            return None
        case ev.TaskAttempted():
            return None
        case ev.UnitMoved():
            u = state.units[event.unit]
            return f"  {n(event.unit)} moves ({u.x},{u.y}) -> ({event.x},{event.y})"
        case ev.ProneChanged():
            return f"  {n(event.unit)} {'drops prone' if event.prone else 'stands up'}"
        case ev.PoolChanged():
            return f"  side {event.side} {event.pool} {event.delta:+d} ({event.reason})"
        case ev.ProcedureStarted():
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
            return f"  {n(f.mover)} moves into the sights of a readied enemy"
        case ev.ProcedureUpdated():
            f = event.frame
            if isinstance(f, TaskFrame) and f.step == "outcome":
                return f"  {n(f.winner)} wins the melee"
            if isinstance(f, TaskFrame) and f.step == "damage" and f.winner:
                return f"  {n(f.winner)} hits {n(f.victim)}"
            return None
        case ev.ProcedureEnded():
            return None
        case ev.WeaponDrawn():
            return f"  {n(event.unit)} draws {state.units[event.unit].weapons[event.weapon].name}"
        case ev.ItemPickedUp():
            return f"  {n(event.unit)} picks up {state.items[event.item].name}"
        case ev.ObjectiveSecured():
            return f"  {n(event.unit)} secures {state.objectives[event.objective].name} for side {event.side}"
        case ev.GuardTaken():
            return f"  {n(event.unit)} takes guard"
        case ev.Readied():
            return f"  {n(event.unit)} readies an attack"
        case ev.ReadyTriggered():
            return f"  {n(event.unit)} fires from Ready"
        case ev.AssistGiven():
            return f"  {n(event.unit)} assists {n(event.ally)}"
        case ev.AssistUsed():
            return None
        case ev.Directed():
            return None
        case ev.AdvantageCreated():
            return f"  an advantage is created against {n(event.unit)}"
        case ev.AdvantageUsed():
            return None
        case ev.Stabilised():
            return f"  {n(event.unit)} is stabilised"
        case ev.Recovered():
            return f"  {n(event.unit)} recovers (+{event.resistance} Resistance, may Avoid an Injury again)"
        case ev.StressRegained():
            return f"  {n(event.unit)} regains {event.amount} Stress"
        case ev.StressLost():
            u = state.units[event.unit]
            return f"  {n(event.unit)} loses {event.amount} Stress ({u.stress} -> {max(0, u.stress - event.amount)})"
        case ev.InjuryAvoided():
            return f"  {n(event.unit)} avoids the Injury ({event.by})"
        case ev.ComplicationSuffered():
            return f"  {n(event.unit)} suffers a Complication ({event.reason})"
        case ev.InjurySuffered():
            return f"  {n(event.unit)} suffers an Injury: now {event.result}"
        case ev.UnitDied():
            return f"  {n(event.unit)} dies: {event.reason}"
        case ev.RoundEnded():
            return f"end of round {event.round}"
        case ev.Checkpoint():
            return None
        case ev.Resigned():
            return f"side {event.side} resigns" + (f" ({event.reason})" if event.reason else "")
        case ev.GameCancelled():
            return ("the game expired: nobody joined in time" if event.reason == "expired"
                    else f"side {event.seat} cancels the game before anyone joined")
        case ev.GameEnded():
            o = event.outcome
            who = f"side {o.winner} wins" if o.winner else "a draw"
            return f"GAME OVER: {who} ({o.reason}); points {o.points}"
        case ev.SeedRevealed():
            return f"the server reveals its dice seed {event.server_seed[:16]}…"
        # -- challenges module (seed 002)
        case ev.SaltDrawn():
            return None
        case ev.ActionPointsChanged():
            return f"  side {event.side}: {event.delta:+d} Action Points ({event.reason})"
        case ev.CardDrawn():
            return f"  side {event.side} draws {event.card or 'a card'}"
        case ev.CardPlayed():
            return f"  side {event.side} plays {event.card}"
        case ev.CardCreated():
            return f"  {n(event.unit)} creates the card {event.card}"
        case ev.FateChanged():
            return f"  {n(event.unit)}: {event.delta:+d} fate ({event.reason})"
        case ev.ChallengeResolved():
            return (f"  {event.op}: {n(event.attacker)} {event.attacker_successes} against {event.defender_successes} "
                    f"({event.target}): {event.result}" + (f" {event.amount}" if event.amount else ""))
        case ev.FacilityDamaged():
            return f"  facility {event.facility} takes {event.amount} damage"
        case ev.FacilityDestroyed():
            return f"  facility {event.facility} is destroyed"
        case ev.StealthChanged():
            return f"  {n(event.unit)} {'hides' if event.stealthed else 'is no longer stealthed'}" + (
                f" ({event.reason})" if event.reason else "")
    return type(event).__name__

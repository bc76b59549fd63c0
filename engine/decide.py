"""``decide(state, command, dice) -> list[Event]``: the rules, pure.

Guards run in a fixed order (like boardgame.io's reducer) and raise a typed ``GameError``
before anything is emitted, so a rejected command never touches the game:

1. the command is well formed              -> MalformedCommand
2. the game is not over                    -> GameOver
3. the decision id is the pending one      -> StaleDecision
4. the decision is the commanding side's   -> NotYourDecision
5. the option is one of those offered      -> IllegalOption

Then the rules run forward on a clone of the state until the next decision or the end.
"""

from __future__ import annotations

from skirmish.engine.codec import clone_state
from skirmish.engine.commands import CANCEL_REASONS, Cancel, Choose, Command, OfferDraw, Resign, Start
from skirmish.engine.dice.base import Dice
from skirmish.engine.errors import AlreadyStarted, GameError, GameOver, IllegalOption, MalformedCommand, NotYourDecision, StaleDecision
from skirmish.engine.events import DrawAgreed, DrawOffered, Event, GameCancelled, GameStarted, OptionChosen, Resigned
from skirmish.engine.model import SIDES, Decision, Option, Outcome, State, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context


def default_option(decision: Decision) -> Option:
    pick = registry.CATALOG.all().defaults.get(decision.kind)  # decision kinds are unique in the catalog
    return pick(decision) if pick else decision.options[0]


def decide(state: State, command: Command, dice: Dice) -> list[Event]:
    if isinstance(command, Choose):
        return _choose(state, command, dice)
    if isinstance(command, Start):
        if state.started:
            raise GameError(f"game {state.game_id} has already started")
        ctx = Context(clone_state(state), dice, registry.rules_of(state))
        ctx.emit(GameStarted())
        ctx.rules.call(ctx, "on_game_start")
        ctx.rules.core.advance(ctx)
        return ctx.events
    if isinstance(command, Resign):
        if command.side not in SIDES:
            raise MalformedCommand(f"resign: no side {command.side!r}")
        if not isinstance(command.reason, str):
            raise MalformedCommand(f"resign: the reason is text, not {command.reason!r}")
        if state.outcome is not None:
            raise GameOver(f"game {state.game_id} is over")
        ctx = Context(clone_state(state), dice, registry.rules_of(state))
        ctx.emit(Resigned(side=command.side, reason=command.reason))
        why = f"side {command.side}: {command.reason}" if command.reason else f"side {command.side} resigned"
        ctx.rules.core.end_game(ctx, Outcome(other(command.side), why))
        return ctx.events
    if isinstance(command, Cancel):
        return _cancel(state, command, dice)
    if isinstance(command, OfferDraw):
        return _offer_draw(state, command, dice)
    raise MalformedCommand(f"not a command: {type(command).__name__}")


DRAW_AGREED = "a draw by agreement"


def _offer_draw(state: State, command: OfferDraw, dice: Dice) -> list[Event]:
    """A draw offer, or the acceptance of the other side's (``OfferDraw``)."""
    if command.side not in SIDES:
        raise MalformedCommand(f"offer_draw: no side {command.side!r}")
    if state.outcome is not None:
        raise GameOver(f"game {state.game_id} is over")
    if not state.started:
        raise GameError(f"game {state.game_id} has not started: nothing to draw")
    if state.draw_offer == command.side:
        raise GameError(f"side {command.side} has offered a draw already: the other side accepts it or plays on")
    ctx = Context(clone_state(state), dice, registry.rules_of(state))
    if state.draw_offer == other(command.side):
        ctx.emit(DrawAgreed(side=command.side))
        ctx.rules.core.end_game(ctx, Outcome(None, DRAW_AGREED))
    else:
        ctx.emit(DrawOffered(side=command.side))
    return ctx.events


def cancel_reason(event: GameCancelled) -> str:
    """The outcome's reason for a cancelled game (derived from the event alone, so verify re-derives it)."""
    if event.reason == "expired":
        return "expired: nobody joined in time"
    return f"cancelled by seat {event.seat} before anyone joined" if event.seat else "cancelled before anyone joined"


def _cancel(state: State, command: Cancel, dice: Dice) -> list[Event]:
    if command.reason not in CANCEL_REASONS:
        raise MalformedCommand(f"cancel: the reason is one of {', '.join(CANCEL_REASONS)}, not {command.reason!r}")
    if command.seat not in ("", *SIDES) or (command.reason == "expired") != (command.seat == ""):
        raise MalformedCommand(f"cancel: seat {command.seat!r} does not fit reason {command.reason!r}")
    if state.outcome is not None:
        raise GameOver(f"game {state.game_id} is over: {state.outcome.reason}")
    if state.started:
        raise AlreadyStarted(f"game {state.game_id} has started: resign instead")
    ctx = Context(clone_state(state), dice, registry.rules_of(state))
    event = GameCancelled(reason=command.reason, seat=command.seat)
    ctx.emit(event)
    ctx.rules.core.end_game(ctx, Outcome(None, cancel_reason(event)))
    return ctx.events


def normalise_option(option) -> Option:
    """The canonical form of an option from the wire (a list becomes a tuple), or an error."""
    if not isinstance(option, (list, tuple)) or not option:
        raise MalformedCommand(f"an option is a non-empty array, not {option!r}")
    if not all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in option):
        raise MalformedCommand(f"an option holds only strings and integers: {option!r}")
    return tuple(option)


def _choose(state: State, cmd: Choose, dice: Dice) -> list[Event]:
    if not isinstance(cmd.decision_id, int) or isinstance(cmd.decision_id, bool):
        raise MalformedCommand(f"decision_id must be an integer, not {cmd.decision_id!r}")
    option = normalise_option(cmd.option)
    if state.outcome is not None:
        raise GameOver(f"game {state.game_id} is over: {state.outcome.reason}")
    pending = state.pending
    if pending is None or cmd.decision_id != pending.id:
        now = f"decision {pending.id} is pending" if pending else "no decision is pending"
        raise StaleDecision(f"decision {cmd.decision_id} is not current ({now})")
    if cmd.side != pending.side:
        raise NotYourDecision(f"decision {pending.id} ({pending.kind}) is side {pending.side}'s, not {cmd.side!r}'s")
    if option not in pending.options:
        raise IllegalOption(f"{list(option)!r} is not an option of decision {pending.id} ({pending.kind})")
    ctx = Context(clone_state(state), dice, registry.rules_of(state))
    ctx.emit(OptionChosen(decision_id=pending.id, side=pending.side, option=option, timeout=bool(cmd.timeout)))
    ctx.rules.answers[pending.kind](ctx, option)
    ctx.rules.core.advance(ctx)
    return ctx.events

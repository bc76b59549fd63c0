"""The context rules run in: emitting an event applies it to the working state at once.

``decide`` hands the rules a *clone* of the game state wrapped in a ``Context``. Each rule
emits events through it; ``emit`` applies them with ``evolve`` so the next rule sees their
effect, and records them as the command's result. Dice are rolled only through ``roll``,
which records the roll as a ``DiceRolled`` event with its nonce (DESIGN.md section 3). The
context carries the game's rule set (``rules``): the modules' hooks and the core's services.
"""

from __future__ import annotations

from typing import Iterable

from skirmish.engine.dice.base import Dice
from skirmish.engine.events import DecisionRequested, DiceRolled, Event
from skirmish.engine.evolve import evolve
from skirmish.engine.model import Decision, Option, Side, State
from skirmish.engine.rules.registry import RuleSet, rules_of


class Context:
    __slots__ = ("state", "dice", "events", "rules")

    def __init__(self, state: State, dice: Dice, rules: RuleSet | None = None):
        self.state = state
        self.dice = dice
        self.rules = rules_of(state) if rules is None else rules  # the game's rule set (skirmish.engine.rules.registry)
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        evolve(self.state, event)
        self.events.append(event)

    def roll(self, sides: int, count: int, purpose: str, unit: str = "", target: int = 0,
             replaces: int = -1) -> tuple[int, ...]:
        nonce = self.state.next_nonce
        results = tuple(self.dice.roll(nonce, sides, count))
        self.emit(DiceRolled(nonce=nonce, sides=sides, results=results, purpose=purpose, unit=unit,
                             target=target, replaces=replaces))
        return results

    def ask(self, side: Side, kind: str, options: Iterable[Option], unit: str = "") -> None:
        opts = tuple(options)
        if not opts:
            raise AssertionError(f"decision {kind!r} for side {side} with no options")
        self.emit(DecisionRequested(Decision(self.state.next_decision, side, kind, opts, unit)))

"""An in-process match: two bots play a mission, every event goes to the store.

Each bot sees only its side's view: the runner reduces, per side, the events as
``engine.view`` shows them to that side, and hands the bot that view state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from bots.base import Bot
from engine.commands import Choose, Start
from engine.events import Event, GameCreated
from engine.evolve import evolve, initial_state
from engine.mission import Mission, game_created
from engine.model import Outcome, State
from engine.view import view
from server.game import LiveGame, seed_from_int
from server.store import EventStore


@dataclass
class MatchResult:
    game_id: str
    outcome: Outcome
    events: int
    decisions: int


class SideView:
    """A side's own reduction of the events it is shown."""

    def __init__(self, side: str, first: GameCreated):
        self.side = side
        self.state: State = initial_state(first)

    def apply(self, events: list[Event]) -> None:
        for e in events:
            seen = view(e, self.side)
            if seen is not None:
                evolve(self.state, seen)


async def play_match(store: EventStore, mission: Mission, bots: dict[str, Bot], *, seed: int | None = None,
                     game_id: str | None = None,
                     on_events: Callable[[list[Event]], None] | None = None) -> MatchResult:
    game = await LiveGame.create(store, mission, game_id=game_id,
                                 server_seed=seed_from_int(seed) if seed is not None else None)
    first = game_created(game.game_id, mission, "fair", game.dice.commitment)
    views = {side: SideView(side, first) for side in bots}
    for side, bot in bots.items():
        bot.new_game(side)
    events = await game.submit(Start())
    decisions = 0
    while True:
        for v in views.values():
            v.apply(events)
        if on_events:
            on_events(events)
        state = game.state
        if state.outcome is not None:
            break
        pending = state.pending
        side_view = views[pending.side].state
        option = bots[pending.side].choose(side_view, side_view.pending)
        events = await game.submit(Choose(pending.id, option, pending.side))
        decisions += 1
    return MatchResult(game.game_id, game.state.outcome, game.state.seq, decisions)

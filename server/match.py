"""An in-process match: two bots play a mission, every event goes to the store.

Each bot sees only its side's view: the runner reduces, per side, the events as
``skirmish.engine.view`` shows them to that side (the live game shows each event in the state
before it: ``Submitted.views``; ``GameCreated`` in the state it creates), and hands the bot
that view state.

A bot wrapped in :class:`~skirmish.server.tournament.guard.GuardedBot` (``skirmish match`` and every
tournament game wrap theirs) that crashes, answers an option it was not offered or runs out of
time raises :class:`~skirmish.server.tournament.guard.Forfeit`; an answer the engine refuses is an
illegal answer of the side that gave it. Either way the game is ended by a resignation of that
side (``Resign(side, reason="forfeit (KIND)")``, outcome reason ``side X: forfeit (KIND)``), so
it is stored whole and verifies, and :attr:`MatchResult.forfeit` says what happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from skirmish.bots.base import Bot
from skirmish.engine.commands import Choose, Resign, Start
from skirmish.engine.errors import GameError
from skirmish.engine.events import Event, GameCreated
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import Mission, game_created
from skirmish.engine.model import Outcome, State
from skirmish.engine.view import view
from skirmish.server.game import LiveGame, Submitted, seed_from_int
from skirmish.server.store import EventStore
from skirmish.server.tournament.guard import Forfeit


@dataclass
class MatchResult:
    game_id: str
    outcome: Outcome
    events: int
    decisions: int
    forfeit: Forfeit | None = None  # the side that forfeited, why, its traceback and log


class SideView:
    """A side's own reduction of the events it is shown."""

    def __init__(self, side: str, first: GameCreated):
        self.side = side
        self.state: State = initial_state(view(None, first, side))

    def apply(self, sub: Submitted) -> None:
        shown = sub.views or (None,) * len(sub.events)
        for i, e in enumerate(sub.events):
            seen = e if shown[i] is None else shown[i][self.side]
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
    sub = await game.run(Start())
    decisions = 0
    forfeit: Forfeit | None = None
    while True:
        for v in views.values():
            v.apply(sub)
        if on_events:
            on_events(sub.events)
        state = game.state
        if state.outcome is not None:
            break
        pending = state.pending
        side_view = views[pending.side].state
        try:
            option = bots[pending.side].choose(side_view, side_view.pending)
            sub = await game.run(Choose(pending.id, option, pending.side))
        except (Forfeit, GameError) as exc:
            if isinstance(exc, Forfeit):
                forfeit = exc
            else:  # the engine refused an answer the guard let through: the answering side's fault
                log = getattr(bots[pending.side], "log", None)
                forfeit = Forfeit(pending.side, "illegal", f"the engine refused the answer: {exc}", "",
                                  log.text() if log is not None else "")
            sub = await game.run(forfeit_command(forfeit))
            continue
        decisions += 1
    return MatchResult(game.game_id, game.state.outcome, game.state.seq, decisions, forfeit)


def forfeit_command(forfeit: Forfeit) -> Resign:
    """The resignation that ends a game a bot forfeited (the reason says which way)."""
    return Resign(forfeit.side, reason=f"forfeit ({forfeit.kind})")

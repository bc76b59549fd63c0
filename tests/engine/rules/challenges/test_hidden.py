"""Hidden hands (DESIGN.md section 5): over many random playouts of the bundled mission, no
event or decision that side a, side b or a spectator receives before the game ends shows a card
in another side's hand or deck, nor the rolls that drew them, nor the salt that keeps the
Checkpoint hashes from being searched; after the end the full log is open and verifies."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from skirmish.bots import make_bot
from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.codec import decode_event, state_hash
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.engine.view import view, viewed
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore

from tests.engine.rules.challenges.hidden_check import leaks, view_knows_nothing_hidden

GAMES = 40
VIEWERS = ("a", "b", "spectator")


def _games(mission_id: str, games: int):
    mission = missions.load(mission_id)

    async def run():
        store = MemoryStore()
        out = []
        for seed in range(games):
            bots = {"a": make_bot("random", 5 * seed), "b": make_bot("random", 5 * seed + 1)}
            result = await play_match(store, mission, bots, seed=1000 + seed)
            out.append((result.game_id, await store.read(result.game_id)))
        return out

    return asyncio.run(run())


@pytest.fixture(scope="module")
def logs():
    return _games("knives", GAMES)


def test_no_viewer_receives_another_sides_cards_before_the_end(logs):
    played = drawn = hidden_options = 0
    for game_id, stored in logs:
        events = [decode_event(s.data) for s in stored]
        truth = initial_state(events[0])
        views = {v: initial_state(view(truth, events[0], v)) for v in VIEWERS}
        over = False
        for seq, e in enumerate(events[1:], start=2):
            shown = {v: view(truth, e, v) for v in VIEWERS}  # in the state before the event
            evolve(truth, e)
            over = over or isinstance(e, ev.GameEnded)
            if over:
                break
            drawn += isinstance(e, cev.CardDrawn)
            played += isinstance(e, cev.CardPlayed)
            for v in VIEWERS:
                seen = shown[v]
                assert not leaks(seen, v), (game_id, seq, v, leaks(seen, v))
                hidden_options += isinstance(seen, ev.DecisionRequested) and ("card", Hidden("card")) in seen.decision.options
                evolve(views[v], seen)
                assert not view_knows_nothing_hidden(views[v], v), (game_id, seq, view_knows_nothing_hidden(views[v], v))
                if isinstance(e, ev.Checkpoint):
                    # even given the true hands and decks, the view cannot reproduce the hash: the salt
                    guess = msgspec.structs.replace(truth, salt=())
                    assert state_hash(guess) != e.state_hash
            # each side's own view of its own cards is the truth
            for side in ("a", "b"):
                assert views[side].hands[side] == truth.hands[side]
                assert views[side].decks[side] == truth.decks[side]
            assert all(len(views[v].hands[s]) == len(truth.hands[s]) for v in VIEWERS for s in ("a", "b"))
    assert drawn > GAMES * 4 and played > 0 and hidden_options > 0  # the test met what it guards


def test_after_the_end_the_full_log_is_open_and_verifies(logs):
    for game_id, stored in logs:
        report = verify_log(game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
        assert report.ok, (game_id, report.problem, report.bad_seq)
        assert report.finished and report.seed_verified and report.rolls_checked == report.rolls
        events = [decode_event(s.data) for s in stored]
        full = list(viewed(events, "all"))
        assert full == events  # "all" sees every card, every draw and the salt
        assert any(isinstance(e, cev.CardDrawn) and e.card for e in full)
        assert any(isinstance(e, cev.SaltDrawn) and e.salt for e in full)

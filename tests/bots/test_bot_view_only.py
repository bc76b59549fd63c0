"""The search bot works from its own view alone (DESIGN.md sections 5 and 7).

Every state its search builds comes from ``skirmish.bots.determinize.determinize`` applied to the view
handed to ``choose``; with a (fake) redaction hiding something from side b, that hidden value
never reaches any state b's search encodes, steps, scores or evaluates -- while side a, who
may see it, does meet it (so the test can tell).
"""

from __future__ import annotations

import random

import msgspec
import pytest

import skirmish.bots.mcts as mcts_module
from skirmish.bots import determinize as det
from skirmish.bots.mcts import MctsBot
from skirmish.bots.simulate import encode
from skirmish.engine.base import Hidden
from skirmish.engine.codec import state_hash
from skirmish.engine.events import GameCreated
from skirmish.engine.rules import registry

from tests.bots.bot_helpers import SideViews

HIDDEN = Hidden("card")  # a card of the other side's hand or deck, in a view

SECRET = "Agent SECRET-7f3a"


class Recorder:
    """Wraps every function through which ``skirmish.bots.mcts`` builds or reads a state."""

    NAMES = ("determinize", "decode", "encode", "step", "reward", "option_scores", "best_option")

    def __init__(self, monkeypatch):
        self.blobs: list[bytes] = []
        self.roots: list[tuple[object, str, str]] = []  # (input object, input hash, output hash)
        for name in self.NAMES:
            monkeypatch.setattr(mcts_module, name, self._wrap(name, getattr(mcts_module, name)))

    def _wrap(self, name, fn):
        def wrapper(*args, **kwargs):
            for a in args:
                self._see(a)
            out = fn(*args, **kwargs)
            self._see(out)
            if name == "determinize":
                self.roots.append((args[0], state_hash(args[0]), state_hash(out)))
            return out

        return wrapper

    def _see(self, value) -> None:
        if isinstance(value, bytes):
            self.blobs.append(value)
        elif isinstance(value, msgspec.Struct) and hasattr(value, "units"):
            self.blobs.append(encode(value))

    def met(self, text: str) -> bool:
        needle = text.encode()
        return any(needle in b for b in self.blobs)


def play_with(searcher_side: str, decisions: int, monkeypatch) -> Recorder:
    """A ridge game in which ``searcher_side`` is an MCTS bot, the other side random."""
    recorder = Recorder(monkeypatch)
    sv = SideViews("ridge", 11)
    bot = MctsBot(5, iterations=16)
    bot.new_game(searcher_side)
    rng = random.Random(3)
    asked = 0
    while not sv.over and asked < decisions:
        p = sv.state.pending
        if p.side == searcher_side:
            view = sv.views[p.side]
            before = state_hash(view)
            option = bot.choose(view, view.pending)
            assert state_hash(view) == before, "choose must not change the view it is given"
            assert option in p.options
            asked += 1
        else:
            option = rng.choice(p.options)
        sv.play(option)
    return recorder


def test_every_search_state_is_a_determinization_of_the_view_passed_to_choose(monkeypatch):
    seen_views: list[int] = []
    real_choose = MctsBot.choose

    def choose(self, view, decision):
        seen_views.append(id(view))
        return real_choose(self, view, decision)

    monkeypatch.setattr(MctsBot, "choose", choose)
    recorder = play_with("a", 12, monkeypatch)
    assert recorder.roots, "the search determinized nothing"
    for source, source_hash, out_hash in recorder.roots:
        assert id(source) in seen_views, "a determinization started from something other than the view"
        # the core rules hide nothing: a determinization is exactly the view
        assert out_hash == source_hash


def hide_a1_name(state, event, viewer):
    if viewer in ("a", "all"):
        return event
    units = tuple(msgspec.structs.replace(u, name="(unknown)") if u.id == "a1" else u for u in event.units)
    return msgspec.structs.replace(event, units=units)


def guess_a1_name(state, side, rng):
    if side == "b":
        state.units["a1"].name = f"guess-{rng.randrange(3)}"


@pytest.fixture
def secret_name(monkeypatch):
    """Side a's unit a1 has a secret name that a module's redaction hides from side b, and the
    module's determinization sampler guesses it for side b (the mission has the module on)."""
    import skirmish.server.missions as missions

    real = missions.load

    def load(name):
        m = real(name)
        units = tuple(msgspec.structs.replace(u, name=SECRET) if u.id == "a1" else u for u in m.units)
        return msgspec.structs.replace(m, units=units, modules=(*m.modules, "secret"))

    monkeypatch.setattr(missions, "load", load)
    secret = registry.Module(name="secret", seed="test", summary="a1's secret name",
                             redactions={GameCreated: hide_a1_name}, samplers=(guess_a1_name,))
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(secret))
    yield


def test_a_hidden_value_never_reaches_the_search_of_the_side_it_is_hidden_from(secret_name, monkeypatch):
    recorder = play_with("b", 10, monkeypatch)
    assert recorder.blobs, "the search built no state"
    assert not recorder.met(SECRET), "side b's search met the value hidden from it"
    assert recorder.met("guess-"), "side b's search should play from its sampled determinizations"
    assert all(src_hash != out_hash for _, src_hash, out_hash in recorder.roots)  # the sampler filled it in


def test_the_side_allowed_to_see_it_does_meet_it(secret_name, monkeypatch):
    recorder = play_with("a", 4, monkeypatch)
    assert recorder.met(SECRET)  # so the test above would notice a leak


# -- challenges module (seed 002): the opponent's hidden hand ------------------------------------


def test_in_a_game_with_hidden_hands_the_search_samples_the_opponents_hand_from_the_view(monkeypatch):
    """Side b's search starts from b's view, where a's cards are Hidden (but for cards a created),
    and plays from determinizations whose a-hand and a-deck are a deal of exactly the cards b
    cannot place -- never from a's true hand (which b's view does not hold)."""
    from skirmish.engine.rules.challenges.sampler import unseen

    worlds: list[tuple] = []
    real = mcts_module.determinize

    def determinize(view, side, rng):
        out = real(view, side, rng)
        worlds.append((msgspec.structs.replace(view), out))
        return out

    monkeypatch.setattr(mcts_module, "determinize", determinize)
    sv = SideViews("knives", 4)
    bot = MctsBot(5, iterations=12)
    bot.new_game("b")
    rng = random.Random(8)
    truths = []
    while not sv.over and len(truths) < 12:
        p = sv.state.pending
        if p.side == "b":
            truths.append((len(worlds), [*sv.state.hands["a"]]))
            option = bot.choose(sv.views["b"], sv.views["b"].pending)
        else:
            option = rng.choice(p.options)
        sv.play(option)
    assert worlds, "the search determinized nothing"
    differs = 0
    for view, world in worlds:
        assert all(c == HIDDEN or c in view.created["a"] for c in view.hands["a"])  # the view hides a's hand
        assert HIDDEN not in world.hands["a"] and HIDDEN not in world.decks["a"]  # the world fills it in
        assert len(world.hands["a"]) == len(view.hands["a"]) and len(world.decks["a"]) == len(view.decks["a"])
        assert sorted(world.hands["a"] + world.decks["a"]) == sorted(
            [c for c in view.hands["a"] if c != HIDDEN] + unseen(view, "a"))
        assert world.decks["a"] == sorted(world.decks["a"])
        assert world.hands["b"] == view.hands["b"] and world.decks["b"] == view.decks["b"]  # its own: as seen
    for first, true_hand in truths:
        sampled = [sorted(w.hands["a"]) for _, w in worlds[first:first + 12]]
        differs += any(h != sorted(true_hand) for h in sampled)
    assert differs, "every sampled hand was the true one: the sampler is not sampling"


def test_the_card_sampler_serves_only_games_with_the_challenges_module_on():
    """A game without hidden information is searched from one copy of the view, and the search
    keeps its tree between decisions, even though a module with hidden hands is registered."""
    from skirmish.engine.rules.challenges.sampler import sample_hands

    assert sample_hands in registry.rules_for(("challenges",)).samplers and not registry.rules_for(()).samplers
    assert det.hidden(SideViews("knives", 1).views["b"])
    sv = SideViews("ridge", 3)
    assert not det.hidden(sv.views["a"])
    bot = MctsBot(2, iterations=300)
    bot.new_game("a")
    reused = []
    while not sv.over and len(reused) < 12:
        p = sv.state.pending
        if p.side == "a":
            option = bot.choose(sv.views["a"], sv.views["a"].pending)
            reused.append(bot.reused)
        else:
            option = p.options[0]
        sv.play(option)
    assert any(reused), "the search never carried its tree over to the next decision"

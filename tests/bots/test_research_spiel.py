"""The research API's OpenSpiel game (skirmish.bots.research.spiel), registered with pyspiel."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.bots.research_helpers import need

pyspiel = need("pyspiel", "openspiel")

from skirmish.bots.research.actions import ActionTable  # noqa: E402
from skirmish.bots.research.match import Match  # noqa: E402
from skirmish.server import missions  # noqa: E402
from skirmish.server.research import register_openspiel  # noqa: E402

# one mission per rules module: the core alone, skills, morale, capture, challenges
BY_MODULE = ["ridge", "cabal", "foundry", "snatch", "knives"]


@pytest.fixture(scope="module", autouse=True)
def registered():
    register_openspiel()
    register_openspiel()  # a second call is harmless


def load(mission_id: str, seed: int = 0):
    return pyspiel.load_game("python_skirmish", {"mission": mission_id, "seed": seed})


@pytest.mark.parametrize("mission_id", BY_MODULE)
def test_openspiels_own_random_simulation_test_passes(mission_id):
    """OpenSpiel's C++ checks of a game (legal actions and their mask, clones, observations,
    information states, returns) over a random game."""
    pyspiel.random_sim_test(load(mission_id, 7), num_sims=1, serialize=False, verbose=False)


def test_the_game_is_registered_with_its_parameters():
    assert "python_skirmish" in pyspiel.registered_names()
    game = load("cabal", 3)
    assert game.num_distinct_actions() == ActionTable(missions.load("cabal")).n
    assert game.num_players() == 2
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert game.get_parameters() == {"mission": "cabal", "seed": 3}
    with pytest.raises(Exception, match="no mission"):
        load("atlantis")


def test_a_game_follows_the_engine_and_a_clone_is_independent():
    """Legal actions are the pending decision's options; the same seed and actions give the same
    game as the engine's Match; a clone plays on alone; the returns are +1/-1 or 0/0."""
    game = load("ridge", 5)
    table = ActionTable(missions.load("ridge"))
    state, match, rng = game.new_initial_state(), Match(missions.load("ridge"), 5), random.Random(1)
    clone = None
    while not state.is_terminal():
        player = state.current_player()
        side = "ab"[player]
        assert side == match.to_move
        legal = state.legal_actions()
        assert legal == table.legal(match.decision(side).options)
        assert state.legal_actions(1 - player) == []
        action = rng.choice(legal)
        if clone is None and match.decisions == 40:
            clone = state.clone()
        state.apply_action(action)
        match.play(table.decode(action))
        assert [r.results for r in state.rolls()] == [r.results for r in match.rolls]
    assert match.over and state.returns() == [match.result("a"), match.result("b")]
    assert sum(state.returns()) == 0
    assert not clone.is_terminal() and clone.history() == state.history()[:40]
    with pytest.raises(Exception, match="not an option"):
        clone.apply_action(next(a for a in range(table.n) if a not in clone.legal_actions()))


def _after_lieutenants(b_pick: int):
    state = load("cabal", 4).new_initial_state()
    while state.legal_actions() and "lieutenant" in state.action_to_string(state.legal_actions()[0]):
        legal = state.legal_actions()
        state.apply_action(legal[0] if state.current_player() == 0 else legal[b_pick])
    return state


def test_information_states_hide_the_other_players_private_lieutenant():
    one, two = _after_lieutenants(0), _after_lieutenants(1)
    assert one.information_state_string(0) == two.information_state_string(0)
    assert one.information_state_tensor(0) == two.information_state_tensor(0)
    assert one.information_state_string(1) != two.information_state_string(1)
    assert np.any(np.array(one.information_state_tensor(1)) != np.array(two.information_state_tensor(1)))
    assert "Hidden" in one.information_state_string(0)


def test_chance_is_sampled_inside_the_engine():
    state = load("ridge").new_initial_state()
    assert not state.is_chance_node()
    with pytest.raises(Exception, match="no chance nodes"):
        state.chance_outcomes()

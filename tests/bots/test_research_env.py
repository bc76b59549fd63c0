"""The research API's PettingZoo environment (skirmish.bots.research.aec, docs/research.md)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.bots.research_helpers import need

need("pettingzoo", "research")

from pettingzoo.test import api_test  # noqa: E402

from skirmish.bots.research import IllegalAction, Match, Observer, SkirmishEnv  # noqa: E402
from skirmish.server import missions  # noqa: E402
from skirmish.server.research import make_env, mission_ids  # noqa: E402

MISSIONS = sorted(missions.bundled())


# api_test's advice that does not apply: the structured form is a Dict by design, and the agents
# are named after the sides ("a", "b") as everywhere in skirmish
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:We recommend agents to be named")
@pytest.mark.parametrize("flat", [False, True], ids=["dict", "flat"])
@pytest.mark.parametrize("mission_id", MISSIONS)
def test_pettingzoo_api_test_passes(mission_id, flat):
    env = make_env(mission_id, flat=flat, vp_shaping=0.05)
    api_test(env, num_cycles=1000)  # a whole game: it ends well before 1000 cycles


def play(env: SkirmishEnv, seed: int, pick_seed: int):
    """A random game; returns the (agent, observation, reward) of each turn and the final rewards."""
    env.reset(seed=seed)
    rng = random.Random(pick_seed)
    trace, total = [], {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        trace.append((agent, obs, reward))
        if term or trunc:
            env.step(None)
            continue
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
    return trace, total


def test_a_seed_replays_the_same_game_and_another_seed_does_not():
    env = make_env("ridge", flat=True)
    one, two, other = play(env, 5, 1), play(env, 5, 1), play(env, 6, 1)
    assert len(one[0]) == len(two[0])
    for (a1, o1, r1), (a2, o2, r2) in zip(one[0], two[0]):
        assert a1 == a2 and r1 == r2
        assert np.array_equal(o1["observation"], o2["observation"])
    assert len(other[0]) != len(one[0]) or any(
        not np.array_equal(x[1]["observation"], y[1]["observation"]) for x, y in zip(one[0], other[0]))


@pytest.mark.parametrize("mission_id", ["ridge", "snatch", "foundry"])
def test_rewards_come_at_the_end_and_sum_to_zero(mission_id):
    env = make_env(mission_id)
    trace, total = play(env, 11, 2)
    outcome = env.match.outcome
    assert outcome is not None
    expected = {a: 0.0 if outcome.winner is None else (1.0 if outcome.winner == a else -1.0) for a in "ab"}
    assert total == expected
    assert all(r == 0 for _, _, r in trace[:-2])  # only the last two turns (one per agent) carry rewards


def test_victory_point_shaping_adds_the_change_of_the_lead():
    """The shaped rewards telescope: each side gets w times its final lead in victory points
    (as its own view counts them) on top of the result."""
    w = 0.25
    env = make_env("outpost", vp_shaping=w)
    shaped_sum = 0.0
    for seed in range(3):
        _, total = play(env, seed, seed)
        final = {a: env.match.points(a) for a in "ab"}
        for a, b in (("a", "b"), ("b", "a")):
            lead = final[a][a] - final[a][b]
            assert total[a] == pytest.approx(env.match.result(a) + w * lead)
            shaped_sum += abs(lead)
    assert shaped_sum > 0  # some game ended with a lead, so the shaping was exercised


def test_an_illegal_action_is_refused_and_changes_nothing():
    env = make_env("ridge")
    env.reset(seed=1)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = env.match.decisions
    with pytest.raises(IllegalAction):
        env.step(illegal)
    assert env.match.decisions == before and env.agent_selection == agent
    other = "b" if agent == "a" else "a"
    assert not env.observe(other)["action_mask"].any()  # not its decision: nothing is legal


def test_the_mask_is_the_pending_decision_of_the_agent_to_act():
    env = make_env("knives")
    env.reset(seed=3)
    rng = random.Random(0)
    for _ in range(150):
        agent = env.agent_selection
        d = env.match.decision(agent)
        mask = env.observe(agent)["action_mask"]
        assert [env.table.decode(i) for i in np.flatnonzero(mask)] == sorted(d.options, key=env.table.encode)
        env.step(rng.choice(np.flatnonzero(mask)))


def lieutenant_game(b_pick: int) -> Match:
    """cabal (the skills module's private Lieutenant), seed 4: side a picks its first candidate,
    side b its candidate number ``b_pick``; then the game stops at a's first deployment."""
    match = Match(missions.load("cabal"), 4)
    picks = {"a": 0, "b": b_pick}
    while match.decision(match.to_move).kind == "lieutenant":
        d = match.decision(match.to_move)
        match.play(d.options[picks[d.side]])
    assert match.to_move == "a" and match.decision("a").kind == "deploy"
    return match


def test_observations_come_from_the_agents_own_view_never_the_true_state():
    """Two cabal games that differ only in side b's hidden Lieutenant: side a's observations
    (both forms) and mask are the same, side b's are not, and the true states differ where a's
    view hides it (an observation of the true state would tell the two apart)."""
    mission = missions.load("cabal")
    observer = Observer(mission)
    one, two = lieutenant_game(0), lieutenant_game(1)
    assert one._state.lieutenants["b"] != two._state.lieutenants["b"]
    for flat in (False, True):
        obs_a = [observer.observe(m.views["a"], "a", flat) for m in (one, two)]
        obs_b = [observer.observe(m.views["b"], "b", flat) for m in (one, two)]
        true_a = [observer.observe(m._state, "a", flat) for m in (one, two)]
        if flat:
            assert np.array_equal(*obs_a)
            assert not np.array_equal(*obs_b)
            assert not np.array_equal(*true_a)
        else:
            assert all(np.array_equal(obs_a[0][k], obs_a[1][k]) for k in obs_a[0])
            assert not np.array_equal(obs_b[0]["units"], obs_b[1]["units"])
            assert not np.array_equal(true_a[0]["units"], true_a[1]["units"])
    env = make_env("cabal")
    masks = []
    for m in (one, two):
        env.reset(seed=4)
        env.match = m
        masks.append(env.observe("a"))
    assert np.array_equal(masks[0]["action_mask"], masks[1]["action_mask"])
    assert all(np.array_equal(masks[0]["observation"][k], masks[1]["observation"][k]) for k in masks[0]["observation"])


def test_mission_ids_are_the_bundled_missions():
    assert mission_ids() == list(missions.bundled())


def test_render_draws_the_board_from_the_acting_agents_view():
    env = make_env("ridge", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    board = env.mission.board
    rows = text.splitlines()
    assert len(rows) == board.height + 1 and all(len(r) == board.width for r in rows[:-1])
    side = env.agent_selection
    placed = [u for u in env.match.views[side].units.values() if isinstance(u.x, int)]
    for u in placed:
        assert rows[u.y][u.x] == (u.side.upper() if u.side == side else u.side)
    assert rows[-1] == f"round {env.match.views[side].round}, {side} to act"

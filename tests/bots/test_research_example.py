"""docs/examples/train_policy.py still runs: a few training games, then its report (a smoke test:
the figures it measures are in docs/research.md, not checked here)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.bots.research_helpers import need

need("pettingzoo", "research")

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "train_policy.py"


def _load():
    spec = importlib.util.spec_from_file_location("train_policy_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_trains_on_a_few_games_and_reports_both_win_rates():
    example = _load()
    lines = []
    out = example.train("ridge", episodes=6, eval_games=4, lr=0.05, seed=1, out=lines.append)
    assert sum(out["before"]) == sum(out["after"]) == 4
    assert np.any(out["theta"] != 0)  # the games taught it something, right or wrong
    assert lines[0].startswith("before (ridge, 4 games") and lines[1].startswith("after 6 training games")
    assert "95% CI" in lines[0] and "95% CI" in lines[1]


def test_the_features_match_the_options():
    example = _load()
    from skirmish.server.research import make_env

    env = make_env("ridge")
    env.reset(seed=2)
    features = example.Features(env)
    obs = env.observe(env.agent_selection)
    actions = np.flatnonzero(obs["action_mask"])
    phi = features(obs["observation"], actions)
    heads = [env.table.decode(a)[0] for a in actions]
    assert phi.shape == (len(actions), features.size)
    assert [features.heads[i] for i in phi[:, :len(features.heads)].argmax(axis=1)] == heads
    assert abs(example.wilson(0, 10)[0]) < 1e-12 and 0.5 < example.wilson(10, 10)[0] < 1


def test_the_example_runs_as_a_script(tmp_path):
    done = subprocess.run([sys.executable, str(EXAMPLE), "--episodes", "2", "--eval", "2"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "before (ridge, 2 games" in done.stdout and "after 2 training games" in done.stdout

"""Train a small policy against the ``random`` bot with the research API (docs/research.md).

A linear softmax policy over the legal actions of each decision, trained with REINFORCE (numpy
only). An action's features come from the mission's action table and the agent's structured
observation (its own view):

- which option it is: one-hot of the option's name (``move``, ``attack``, ``end``, ...);
- for an option that moves the acting unit to (x, y): how many cells closer that brings it to
  the nearest enemy it can see, and to the nearest objective its side does not hold;
- for an attack: its lethal flag.

The learner plays both sides in turn against ``random`` (uniform among the legal actions, as
``skirmish.bots.random_bot`` plays), with the terminal reward (+1 win, -1 loss, 0 draw). It prints
the win rate against ``random`` before and after training, each over the same evaluation seeds,
with a 95% Wilson interval.

    python docs/examples/train_policy.py --mission ridge --episodes 600 --eval 200
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np

from skirmish.bots.research import SkirmishEnv
from skirmish.bots.research.observe import UNIT_FEATURES
from skirmish.server.research import make_env

SEEN, MINE, X, Y = (UNIT_FEATURES.index(k) for k in ("seen", "mine", "x", "y"))
ACTING, SUBJECT, DEAD, INJURED = (UNIT_FEATURES.index(k) for k in ("acting", "subject", "dead", "injured"))
MOVES = {"move", "sprint", "dodge_move", "fend", "dismount", "deploy"}


class Features:
    """phi(observation, action) for every action of a mission's table."""

    def __init__(self, env: SkirmishEnv):
        self.table = env.table
        self.heads = sorted({o[0] for o in self.table.options})
        self.head_of = np.array([self.heads.index(o[0]) for o in self.table.options])
        self.size = len(self.heads) + 3

    def __call__(self, obs: dict, actions: np.ndarray) -> np.ndarray:
        units, objectives = obs["units"], obs["objectives"]
        phi = np.zeros((len(actions), self.size))
        phi[np.arange(len(actions)), self.head_of[actions]] = 1.0
        me = next((u for u in units if u[SUBJECT] or u[ACTING]), None)
        alive = units[(units[:, SEEN] == 1) & (units[:, DEAD] == 0) & (units[:, INJURED] == 0)]
        enemies = alive[alive[:, MINE] == 0][:, [X, Y]]
        targets = objectives[objectives[:, 3] == 0][:, :2] if objectives.any() else np.zeros((0, 2))
        h = len(self.heads)
        for i, a in enumerate(actions):
            option = self.table.options[a]
            if option[0] in MOVES and len(option) == 3 and me is not None and me[SEEN]:
                here, there = np.array(me[[X, Y]]), np.array(option[1:3], float)
                phi[i, h] = _closer(here, there, enemies)
                phi[i, h + 1] = _closer(here, there, targets)
            elif option[0] == "attack":
                phi[i, h + 2] = option[3]
        return phi


def _closer(here, there, points) -> float:
    """How many cells nearer (Chebyshev) ``there`` is than ``here`` to the nearest of ``points``."""
    if len(points) == 0:
        return 0.0
    dist = lambda p: np.abs(points - p).max(axis=1).min()  # noqa: E731
    return float(dist(here) - dist(there))


class Policy:
    def __init__(self, features: Features, seed: int):
        self.features = features
        self.theta = np.zeros(features.size)
        self.rng = np.random.default_rng(seed)

    def probabilities(self, obs: dict, actions: np.ndarray):
        phi = self.features(obs["observation"], actions)
        logits = phi @ self.theta
        p = np.exp(logits - logits.max())
        return phi, p / p.sum()

    def act(self, obs: dict, actions: np.ndarray, greedy: bool = False):
        phi, p = self.probabilities(obs, actions)
        i = int(np.argmax(p)) if greedy else int(self.rng.choice(len(actions), p=p))
        return actions[i], phi[i] - p @ phi  # the action and the gradient of its log-probability


def play(env: SkirmishEnv, policy: Policy, side: str, seed: int, rng: random.Random, learn: bool = True):
    """One game: ``policy`` plays ``side``, uniform random plays the other. Returns the learner's
    result (+1, 0, -1) and the gradients of the log-probabilities of its choices."""
    env.reset(seed=seed)
    grads, result = [], 0.0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if agent == side:
            result += reward
        if term or trunc:
            env.step(None)
            continue
        actions = np.flatnonzero(obs["action_mask"])
        if agent == side and len(actions) > 1:
            action, grad = policy.act(obs, actions)
            if learn:
                grads.append(grad)
        else:
            action = actions[rng.randrange(len(actions))] if len(actions) > 1 else actions[0]
        env.step(action)
    return result, grads


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def evaluate(env, policy, games: int, seed: int) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``policy`` against random over ``games`` games, sides alternating."""
    rng, tally = random.Random(seed), [0, 0, 0]
    for g in range(games):
        result, _ = play(env, policy, "ab"[g % 2], seed + g, rng, learn=False)
        tally[0 if result > 0 else 1 if result == 0 else 2] += 1
    return tuple(tally)


def report(label: str, tally) -> str:
    wins, draws, losses = tally
    n = wins + draws + losses
    lo, hi = wilson(wins, n)
    return f"{label}: won {wins}/{n} = {wins / n:.1%} (95% CI {lo:.1%}-{hi:.1%}), drew {draws}, lost {losses}"


def train(mission: str, episodes: int, eval_games: int, lr: float, seed: int, out=print) -> dict:
    env = make_env(mission)
    policy = Policy(Features(env), seed)
    start = time.perf_counter()
    before = evaluate(env, policy, eval_games, 10_000_000)
    out(report(f"before ({mission}, {eval_games} games, theta = 0: uniform over the legal actions)", before))
    rng, baseline = random.Random(seed), 0.0
    for ep in range(episodes):
        result, grads = play(env, policy, "ab"[ep % 2], seed + ep, rng)
        if grads:
            policy.theta += lr * (result - baseline) * np.sum(grads, axis=0) / math.sqrt(len(grads))
        baseline += 0.05 * (result - baseline)
    after = evaluate(env, policy, eval_games, 10_000_000)
    out(report(f"after {episodes} training games", after))
    out(f"({time.perf_counter() - start:.0f} s; the weights of the largest features: "
        + ", ".join(f"{name} {w:+.2f}" for name, w in _largest(policy)) + ")")
    return {"before": before, "after": after, "theta": policy.theta}


def _largest(policy: Policy, k: int = 6):
    names = policy.features.heads + ["closer to an enemy", "closer to an objective", "lethal attack"]
    order = np.argsort(-np.abs(policy.theta))[:k]
    return [(names[i], policy.theta[i]) for i in order]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mission", default="ridge")
    ap.add_argument("--episodes", type=int, default=600)
    ap.add_argument("--eval", type=int, default=200, help="evaluation games before and after")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    return train(args.mission, args.episodes, args.eval, args.lr, args.seed)


if __name__ == "__main__":
    main()

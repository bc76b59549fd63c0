"""A PettingZoo AEC environment for one mission: ``SkirmishEnv(mission)``.

Agents are the sides, ``"a"`` and ``"b"``; the agent to act is the side whose decision is pending
(a side often answers several decisions in a row: its turn, then the dice it buys, ...). An
action is an index into the mission's ``ActionTable`` (``Discrete(table.n)``); the observation is
``{"observation": ..., "action_mask": int8 array}``, where ``observation`` is the structured dict
(or, with ``flat=True``, the flat vector) that ``Observer`` builds from the agent's own view and
the mask marks the options of the agent's pending decision (all zeros when none is its).
``infos[agent]`` holds the mask too, and the decision's kind.

Rewards: +1 to the winner and -1 to the loser when the game ends, 0 each for a draw. With
``vp_shaping=w`` (> 0) each agent also gets ``w`` times the change of its lead in victory points
(its points minus the opponent's, as its own view counts them) after every action. The dice are
the engine's, seeded by ``reset(seed=...)`` (the same seed and actions replay the same game; with
no seed, the next one of a sequence drawn from the last seed given).
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from skirmish.bots.research.actions import ActionTable
from skirmish.bots.research.match import Match
from skirmish.bots.research.observe import Observer
from skirmish.engine.mission import Mission
from skirmish.engine.model import SIDES, other


class IllegalAction(ValueError):
    """An action that is not one of the pending decision's options."""


class SkirmishEnv(AECEnv):
    metadata = {"name": "skirmish_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, mission: Mission, flat: bool = False, vp_shaping: float = 0.0,
                 render_mode: str | None = None):
        super().__init__()
        self.mission = mission
        self.flat = flat
        self.vp_shaping = float(vp_shaping)
        self.render_mode = render_mode
        self.table = ActionTable(mission)
        self.observer = Observer(mission)
        self.possible_agents = list(SIDES)
        n = self.table.n
        self._action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({"observation": self.observer.space(flat),
                                                    "action_mask": spaces.Box(0, 1, (n,), np.int8)})
                                    for a in self.possible_agents}
        self._seeds = random.Random()
        self.match: Match | None = None
        self._masks: dict[str, np.ndarray] = {}  # each agent's last mask, for the decision in _mask_key
        self._mask_key: dict[str, tuple] = {}

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = int(seed)
        else:
            game_seed = self._seeds.getrandbits(63)
        self.match = Match(self.mission, game_seed)
        self._masks.clear()
        self._mask_key.clear()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._lead = {a: self._vp_lead(a) for a in self.agents}
        self.agent_selection = self.match.to_move
        self._update_infos()

    def _vp_lead(self, side: str) -> int:
        pts = self.match.points(side)
        return pts[side] - pts[other(side)]

    def mask(self, agent: str) -> np.ndarray:
        """1 for each action of ``agent``'s pending decision (seen in its own view), else 0."""
        key = (id(self.match), self.match.decisions if self.match is not None else -1, agent)
        if self._mask_key.get(agent) != key:
            m = np.zeros(self.table.n, np.int8)
            d = self.match.decision(agent) if self.match is not None else None
            if d is not None:
                m[self.table.legal(d.options)] = 1
            self._mask_key[agent], self._masks[agent] = key, m
        return self._masks[agent].copy()

    def _update_infos(self) -> None:
        for a in self.agents:
            d = self.match.decision(a)
            self.infos[a] = {"action_mask": self.mask(a), "kind": d.kind if d else ""}

    def observe(self, agent: str):
        view = self.match.views[agent]
        return {"observation": self.observer.observe(view, agent, self.flat), "action_mask": self.mask(agent)}

    def option(self, agent: str, action) -> tuple:
        """The option ``action`` stands for, checked against ``agent``'s pending decision."""
        d = self.match.decision(agent)
        option = self.table.decode(int(action))
        if d is None or option not in d.options:
            kind = d.kind if d else "no decision"
            raise IllegalAction(f"action {int(action)} {option!r} is not an option of {agent}'s {kind}")
        return option

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        option = self.option(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self.match.play(option)
        self.rewards = {a: 0.0 for a in self.agents}
        if self.vp_shaping:
            for a in self.agents:
                lead = self._vp_lead(a)
                self.rewards[a] += self.vp_shaping * (lead - self._lead[a])
                self._lead[a] = lead
        if self.match.over:
            for a in self.agents:
                self.rewards[a] += self.match.result(a)
                self.terminations[a] = True
        else:
            self.agent_selection = self.match.to_move
        self._update_infos()
        self._accumulate_rewards()

    def render(self):
        """The board as text, from the own view of the agent to act (its units in capitals)."""
        if self.match is None:
            return ""
        side = self.agent_selection or "a"
        v = self.match.views[side]
        rows = [list(v.board.cells[y * v.board.width:(y + 1) * v.board.width]) for y in range(v.board.height)]
        for u in v.units.values():
            if isinstance(u.x, int) and isinstance(u.y, int) and not u.incapacitated:
                rows[u.y][u.x] = u.side.upper() if u.side == side else u.side
        text = "\n".join("".join(r) for r in rows) + f"\nround {v.round}, {side} to act\n"
        return text

    def close(self) -> None:
        pass


def env(mission: Mission, **kwargs) -> SkirmishEnv:
    """The environment of ``mission`` (``SkirmishEnv``'s keywords: flat, vp_shaping, render_mode)."""
    return SkirmishEnv(mission, **kwargs)

"""An OpenSpiel game of a mission, registered with OpenSpiel's ``pyspiel`` as ``python_skirmish``.

``register(missions)`` registers the game once (parameters ``mission``, a name of ``missions``, and
``seed``, the dice's seed); ``pyspiel.load_game("python_skirmish", {"mission": "ridge"})`` then
loads it like any OpenSpiel game (``skirmish.server.research.register_openspiel`` registers the
bundled missions). Players: 0 is side ``a``, 1 is side ``b``.

- Actions: the mission's ``ActionTable`` (the PettingZoo environment's numbering);
  ``legal_actions(player)`` are its pending decision's options, seen in its own view.
- Chance: sampled inside the engine (``ChanceMode.SAMPLED_STOCHASTIC``): a transition rolls what
  the rules roll, with the engine's ``LocalDice`` seeded by the ``seed`` parameter, and
  ``rolls()`` gives the rolls of the last action as the engine logged them (``DiceRolled``).
  There are no chance nodes: the engine rolls in the middle of its procedures, not at
  decisions, so ``chance_outcomes()`` is only ever asked of a chance node, which never comes.
- Information state: a player's view (``skirmish.engine.view``), the state it folded from the
  events it was shown: ``information_state_string`` is that view as canonical JSON,
  ``information_state_tensor`` the flat observation of it (``Observer``). It is Markov (what the
  rules and the player know now), not a perfect-recall history of every event seen.
- Returns: +1 / -1 to the winner / loser, 0 each for a draw (terminal rewards only).
"""

from __future__ import annotations

import copy
from typing import Mapping

import msgspec
import numpy as np
import pyspiel

from skirmish.bots.research.actions import ActionTable
from skirmish.bots.research.match import Match
from skirmish.bots.research.observe import Observer
from skirmish.engine.mission import Mission

NAME = "python_skirmish"
SIDES = ("a", "b")
MAX_GAME_LENGTH = 20000  # decisions: far more than any bundled game takes (a few hundred)
_json = msgspec.json.Encoder(order="deterministic")


def game_type(default_mission: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=NAME, long_name="Python skirmish",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"mission": default_mission, "seed": 0})


def register(missions: Mapping[str, Mission], default: str | None = None) -> None:
    """Register ``python_skirmish`` with pyspiel for ``missions`` (once per process)."""
    if NAME in pyspiel.registered_names():
        return
    table = dict(missions)
    default = default or next(iter(table))

    class Game(SkirmishGame):
        def __init__(self, params=None):
            params = dict(params or {})
            name = params.get("mission", default)
            if name not in table:
                raise ValueError(f"python_skirmish: no mission {name!r}; one of {', '.join(table)}")
            super().__init__(table[name], int(params.get("seed", 0)), params)

    Game.__name__ = Game.__qualname__ = "SkirmishSpielGame"
    pyspiel.register_game(game_type(default), Game)


class SkirmishGame(pyspiel.Game):
    """The game of one mission with dice seeded by ``seed``."""

    def __init__(self, mission: Mission, seed: int = 0, params: dict | None = None):
        self.mission = mission
        self.seed = seed
        self.table = ActionTable(mission)
        self.observer_layout = Observer(mission)
        info = pyspiel.GameInfo(num_distinct_actions=self.table.n, max_chance_outcomes=0, num_players=2,
                                min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(game_type(mission.id), info, {"mission": mission.id, "seed": seed} | dict(params or {}))

    def new_initial_state(self):
        return SkirmishState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return SkirmishObserver(self, params)


class SkirmishState(pyspiel.State):
    """A game in progress. Its one Python attribute is ``match`` (pyspiel's ``clone`` deep-copies
    each attribute of the state onto a new initial state; the game is ``get_game()``)."""

    def __init__(self, game: SkirmishGame):
        super().__init__(game)
        self.match = Match(game.mission, game.seed)

    @property
    def table(self) -> ActionTable:
        return self.get_game().table

    def current_player(self):
        if self.match.over:
            return pyspiel.PlayerId.TERMINAL
        return SIDES.index(self.match.to_move)

    def _legal_actions(self, player):
        d = self.match.decision(SIDES[player])
        return self.table.legal(d.options) if d is not None else []

    def _apply_action(self, action):
        side = self.match.to_move
        option = self.table.decode(action)
        d = self.match.decision(side)
        if d is None or option not in d.options:
            raise ValueError(f"action {action} {option!r} is not an option of {side}'s decision")
        self.match.play(option)

    def _action_to_string(self, player, action):
        return " ".join(str(x) for x in self.table.decode(action))

    def chance_outcomes(self):
        raise pyspiel.SpielError("python_skirmish samples chance inside the engine: it has no chance nodes")

    def rolls(self):
        """The dice the last action rolled, as the engine logged them (``DiceRolled`` events)."""
        return list(self.match.rolls)

    def is_terminal(self):
        return self.match.over

    def returns(self):
        return [self.match.result(s) for s in SIDES]

    def __str__(self):
        o = self.match.outcome
        return f"{self.match.mission.id} seed {self.match.seed}: " + (
            f"over ({o.reason})" if o else f"decision {self.match.decisions}, {self.match.to_move} to move")


class SkirmishObserver:
    """OpenSpiel's PyObserver: ``tensor`` (the flat observation) and ``dict`` (its named parts)."""

    def __init__(self, game: SkirmishGame, params=None):
        if params:
            raise ValueError(f"python_skirmish takes no observation parameters, not {params}")
        self.layout = game.observer_layout
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = {}
        at = 0
        for key, shape in self.layout.shapes.items():
            size = int(np.prod(shape))
            self.dict[key] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state: SkirmishState, player: int):
        side = SIDES[player]
        self.tensor[:] = self.layout.observe(state.match.views[side], side, flat=True)

    def string_from(self, state: SkirmishState, player: int):
        return _json.encode(state.match.views[SIDES[player]]).decode()

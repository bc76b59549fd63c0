"""The research API: skirmish missions as environments for learning agents (docs/research.md).

- ``SkirmishEnv`` / ``env`` (``aec``): a PettingZoo AEC environment of one mission;
- ``ActionTable`` (``actions``): the mission's fixed action numbering, decoded to engine options;
- ``Observer`` (``observe``): observations from an agent's own view, structured or flat;
- ``Match`` (``match``): the engine driver under both (the true state, each side's view, the dice);
- ``spiel``: an OpenSpiel-style game (and its registration with OpenSpiel's ``pyspiel``).

It needs the optional extra ``research`` (numpy, gymnasium, pettingzoo; OpenSpiel is optional
on top). It takes a ``Mission`` (engine data): ``skirmish.server.research`` loads bundled
missions by name, since the bots layer may not import the server (tests/test_layers.py).
"""

from __future__ import annotations

from skirmish.bots.research.actions import ActionTable, UnknownOption
from skirmish.bots.research.aec import IllegalAction, SkirmishEnv, env
from skirmish.bots.research.match import Match
from skirmish.bots.research.observe import Observer

__all__ = ["ActionTable", "IllegalAction", "Match", "Observer", "SkirmishEnv", "UnknownOption", "env"]

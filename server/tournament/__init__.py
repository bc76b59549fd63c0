"""Tournaments: many bots, many games, ratings and a report (DESIGN.md section 7).

- :mod:`.config`: the tournament's settings (TOML file and/or flags), checked, and the
  fingerprint that decides whether an output directory may be resumed;
- :mod:`.schedule`: round robin, Swiss and gauntlet pairings; every pairing is played as
  *mirrored pairs* (the same mission and bot seeds twice, sides swapped; each game its own dice);
- :mod:`.guard`: the guard around ``Bot.choose`` that turns a crash, an illegal answer or a
  time-out into a forfeit;
- :mod:`.worker`: one game, played in a worker process into a ``MemoryStore`` (or through a
  real server with ``--server``);
- :mod:`.raypool`: with ``--ray``, the games as Ray tasks (a local Ray or a cluster) that hand
  each game back to the parent, in place of the worker processes;
- :mod:`.db`: ``DIR/games.sqlite``: the event store's own schema plus the tournament's tables;
  a game and its result are committed in ONE transaction, so an interrupted tournament resumes
  without replaying or half-keeping any game;
- :mod:`.standings`: openskill ratings (Plackett-Luce, mu - 3 sigma), W/D/L/F, win rates;
- :mod:`.report`: the terminal table, ``results.json``, ``games.csv``, ``standings.csv``,
  ``report.md``;
- :mod:`.uncertainty`: mu and sigma over the games, each pair's rating difference with its 95%
  interval, ``ratings.svg``;
- :mod:`.leaderboard`: ``skirmish leaderboard``: a leaderboard across tournaments in its own store;
- :mod:`.run`: the loop that ties them together (worker pool or Ray, progress, recording).
"""

from __future__ import annotations

from .config import Entrant, TournamentConfig, TournamentError, load_config
from .run import run_tournament

__all__ = ["Entrant", "TournamentConfig", "TournamentError", "load_config", "run_tournament"]

"""The research API's environments for missions by name (docs/research.md).

``skirmish.bots.research`` builds environments from a ``Mission`` (engine data): the bots layer may
import only the engine and the protocol (tests/test_layers.py), and the bundled missions live here,
in ``skirmish.server.missions``. This module joins the two:

    from skirmish.server.research import make_env
    env = make_env("ridge", flat=True)          # a PettingZoo AEC environment

and registers the OpenSpiel game of every bundled mission (``register_openspiel``).
"""

from __future__ import annotations

from skirmish.bots.research.aec import SkirmishEnv
from skirmish.server import missions


def make_env(mission: str, **kwargs) -> SkirmishEnv:
    """The PettingZoo environment of a bundled mission (by id) or a mission file (by path);
    ``kwargs``: ``SkirmishEnv``'s (flat, vp_shaping, render_mode)."""
    return SkirmishEnv(missions.load(mission), **kwargs)


def mission_ids() -> list[str]:
    """The bundled missions' ids."""
    return list(missions.bundled())


def register_openspiel(default: str = "ridge") -> None:
    """Register ``python_skirmish`` with OpenSpiel for the bundled missions (needs the extra
    ``openspiel``); then ``pyspiel.load_game("python_skirmish", {"mission": "cabal", "seed": 7})``."""
    from skirmish.bots.research import spiel  # pyspiel: only where OpenSpiel is installed

    spiel.register(missions.bundled(), default)

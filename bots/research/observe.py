"""Observations for learning agents, built only from the agent's own view.

``Observer.observe(view, side)`` reads nothing but ``view``: the state ``side`` folded from the
events the engine showed it (``skirmish.engine.view``; ``skirmish.bots.research.match.Match.views``).
What a rules module hides from ``side`` is a ``Hidden`` there (an enemy's private Lieutenant, a
unit's position) and counts as unknown here. It gives a structured form (a dict of arrays, a
``gymnasium.spaces.Dict``) or one flat float32 vector (a ``Box``): the same numbers, laid end to end
in ``STRUCTURE``'s order. Every number is clipped to [-1, ``HIGH``]. Documented in docs/research.md.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from skirmish.engine.base import Hidden
from skirmish.engine.mission import Mission
from skirmish.engine.model import State, other
from skirmish.engine.rules.core.flow import points
from skirmish.engine.rules.registry import rules_for

HIGH = 1000.0
UNIT_FEATURES = ("seen", "mine", "x", "y", "stress", "stress_max", "resistance", "points", "commander", "prone",
                 "injured", "lethal", "dead", "acted", "guarding", "readied", "exposed", "acting", "subject",
                 "lieutenant")
OBJECTIVE_FEATURES = ("x", "y", "points", "mine", "theirs")
ITEM_FEATURES = ("x", "y", "lying", "mine", "theirs")
GLOBAL_FEATURES = ("round", "rounds", "activation", "to_act_mine", "kept_initiative", "momentum_mine",
                   "momentum_theirs", "threat_mine", "threat_theirs", "points_mine", "points_theirs", "my_decision")
STRUCTURE = ("board", "units", "objectives", "items", "globals", "decision")


def _known(value) -> bool:
    return not isinstance(value, Hidden)


class Observer:
    """The observation layout of one mission (fixed: the mission's units, objectives, items, board)."""

    def __init__(self, mission: Mission):
        self.units = tuple(u.id for u in mission.units)
        self.objectives = tuple(o.id for o in mission.objectives)
        self.items = tuple(i.id for i in mission.items)
        self.terrain = tuple(sorted(set(mission.board.cells)))  # terrain code = index in this
        self.kinds = tuple(sorted(rules_for(mission.modules).answers))  # decision kinds, one-hot
        b = mission.board
        self.shapes = {
            "board": (b.height, b.width),
            "units": (len(self.units), len(UNIT_FEATURES)),
            "objectives": (max(1, len(self.objectives)), len(OBJECTIVE_FEATURES)),
            "items": (max(1, len(self.items)), len(ITEM_FEATURES)),
            "globals": (len(GLOBAL_FEATURES),),
            "decision": (len(self.kinds),),
        }
        self.size = sum(int(np.prod(s)) for s in self.shapes.values())

    def space(self, flat: bool):
        """The gymnasium space of ``observe(..., flat)``."""
        if flat:
            return spaces.Box(-1.0, HIGH, (self.size,), np.float32)
        out = {}
        for key in STRUCTURE:
            if key == "board":
                out[key] = spaces.Box(0, len(self.terrain) - 1, self.shapes[key], np.int8)
            else:
                out[key] = spaces.Box(-1.0, HIGH, self.shapes[key], np.float32)
        return spaces.Dict(out)

    def observe(self, view: State, side: str, flat: bool = False):
        """``side``'s observation of its own ``view`` (a dict of arrays, or one vector with ``flat``)."""
        out = {"board": self._board(view), "units": self._units(view, side),
               "objectives": self._objectives(view, side), "items": self._items(view, side),
               "globals": self._globals(view, side), "decision": self._decision(view, side)}
        for key in STRUCTURE[1:]:
            np.clip(out[key], -1.0, HIGH, out=out[key])
        if flat:
            return np.concatenate([out[k].ravel().astype(np.float32) for k in STRUCTURE])
        return out

    def _board(self, view: State) -> np.ndarray:
        b = view.board
        codes = np.array([self.terrain.index(c) if c in self.terrain else 0 for c in b.cells], np.int8)
        return codes.reshape(b.height, b.width)

    def _units(self, view: State, side: str) -> np.ndarray:
        arr = np.zeros(self.shapes["units"], np.float32)
        acting = view.turn.unit if view.turn is not None else ""
        subject = view.pending.unit if view.pending is not None and view.pending.side == side else ""
        lieutenants = {v for v in getattr(view, "lieutenants", {}).values() if _known(v)}
        for i, uid in enumerate(self.units):
            u = view.units.get(uid)
            if u is None:
                arr[i, 1] = -1  # not in the view at all
                continue
            seen = _known(u.x) and _known(u.y)
            arr[i] = (seen, u.side == side, u.x if seen else -1, u.y if seen else -1, u.stress, u.stress_max,
                      u.resistance, u.points, u.commander, u.prone, u.injury != "", u.injury == "lethal",
                      u.dead, u.acted, u.guarding, u.readied, u.exposed, uid == acting, uid == subject,
                      uid in lieutenants)
        return arr

    def _objectives(self, view: State, side: str) -> np.ndarray:
        arr = np.zeros(self.shapes["objectives"], np.float32)
        for i, oid in enumerate(self.objectives):
            o = view.objectives[oid]
            arr[i] = (o.x, o.y, o.points, o.holder == side, o.holder == other(side))
        return arr

    def _items(self, view: State, side: str) -> np.ndarray:
        arr = np.zeros(self.shapes["items"], np.float32)
        for i, iid in enumerate(self.items):
            it = view.items[iid]
            carrier = view.units.get(it.carrier) if it.carrier else None
            arr[i] = (it.x, it.y, carrier is None, carrier is not None and carrier.side == side,
                      carrier is not None and carrier.side != side)
        return arr

    def _globals(self, view: State, side: str) -> np.ndarray:
        pts = points(view)
        p = view.pending
        return np.array((view.round, view.rounds, view.phase == "activation", view.to_act == side,
                         view.kept_initiative, view.momentum.get(side, 0), view.momentum.get(other(side), 0),
                         view.threat.get(side, 0), view.threat.get(other(side), 0), pts[side], pts[other(side)],
                         p is not None and p.side == side), np.float32)

    def _decision(self, view: State, side: str) -> np.ndarray:
        arr = np.zeros(self.shapes["decision"], np.float32)
        p = view.pending
        if p is not None and p.side == side and p.kind in self.kinds:
            arr[self.kinds.index(p.kind)] = 1
        return arr

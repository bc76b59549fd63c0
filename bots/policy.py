"""A cheap, static score for every option of a decision: no simulation, only the state.

``option_scores(state, decision)`` estimates, in the victory points of ``skirmish.bots.evaluate``, how
much each option gains the deciding side. It is the built-in bots' fast knowledge:

- the search's prior over a node's options and its rollout policy (``skirmish.bots.mcts``);
- the prefilter that picks which options ``greedy`` simulates when there are many.

Attacks are worth their ``attack_value`` (lethal ones less the Threat they cost); a move or a
sprint is worth the change in the moving unit's share of the evaluation (its best attack from
the new cell, the enemies' best attacks on it there, objectives and the mid-line within reach,
the approach term); the other options get small hand-set values (securing an objective is worth
its points, twice when it is taken from the enemy; avoiding an Injury beats suffering it).
"""

from __future__ import annotations

from functools import partial

from skirmish.bots import evaluate as ev
from skirmish.engine import board as geo
from skirmish.engine.model import Decision, Option, State, TaskFrame, Unit, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.core import procedure, tasks


# What the bundled modules give the bots (Module.bots): their options' and decisions' worth, the
# worth of activating a unit and of a cell for a moving unit.
_MODULES = registry.CATALOG.all().bots


def _priced(fn, state: State, decision: Decision) -> list[float]:
    return fn(state, decision, ev)


def option_scores(state: State, decision: Decision) -> list[float]:
    """A score per option of ``decision`` (in its order), for the deciding side."""
    kind = decision.kind
    fn = _SCORERS.get(kind)
    if fn is None:
        return [0.0] * len(decision.options)
    return fn(state, decision)


def best_option(state: State, decision: Decision) -> Option:
    """The option with the highest static score (the first of equals)."""
    scores = option_scores(state, decision)
    best = max(range(len(scores)), key=scores.__getitem__)
    return decision.options[best]


# -- the acting unit's options ----------------------------------------------------------------------


class MoveScorer:
    """The change in ``unit``'s share of the evaluation if it stood on another cell."""

    def __init__(self, state: State, unit: Unit, task_left: bool):
        self.state, self.unit = state, unit
        self.info = ev.board_info(state.board)
        b = state.board
        self.reach, self.medium = b.reach, b.medium
        self.side = unit.side
        self.fire_w = ev.FIRE_NOW if task_left else ev.FIRE_LATER
        self.enemies = [t for t in state.units.values() if t.side != unit.side and not t.incapacitated]
        self.friends = [t for t in state.units.values()
                        if t.side == unit.side and not t.incapacitated and t.id != unit.id]
        self.weapons = ev.drawn_weapons(unit)
        self._off: dict = {}
        self._def: dict = {}
        # each enemy's best attack on the moving unit's allies (unchanged by the move)
        self.other_best = {}
        for e in self.enemies:
            best = 0.0
            for f in self.friends:
                best = max(best, self._pair(e, f, (e.x, e.y), (f.x, f.y)))
            self.other_best[e.id] = (best, ev.fire_weight(state, e), ev.drawn_weapons(e))
        info = self.info
        self._foes = [(e, info.row(e.x, e.y), info.cover[e.y * info.width + e.x], self.other_best[e.id],
                       any(max(abs(e.x - f.x), abs(e.y - f.y)) <= self.reach for f in self.friends))
                      for e in self.enemies]
        self.objectives = [o for o in state.objectives.values() if o.holder != unit.side]
        self.held_near = {o.id for o in self.objectives
                          if any(geo.distance(f.x, f.y, o.x, o.y) <= self.reach for f in self.friends)}
        # what the modules add to a cell (Module.bots.positions), e.g. a capture within Reach
        self.extras = _MODULES.positions(state, unit, task_left, ev) if _MODULES.positions else ()
        self.here = self.cell_score(unit.x, unit.y)

    def _pair(self, a: Unit, t: Unit, at, to) -> float:
        """Best attack of ``a`` standing at ``at`` on ``t`` standing at ``to`` (0: none viable)."""
        d = max(abs(at[0] - to[0]), abs(at[1] - to[1]))
        b = self.state.board
        best = 0.0
        los = None
        for _, w in ev.drawn_weapons(a):
            if w.kind == "melee":
                if d <= self.reach:
                    best = max(best, ev.melee_value(self.state, a, w, t, geo.in_cover(b, *at), geo.in_cover(b, *to)))
            else:
                if los is None:
                    los = self.info.los(at[0], at[1], to[0], to[1])
                if los:
                    near = 1 if d <= self.reach else int(any(
                        max(abs(at[0] - e.x), abs(at[1] - e.y)) <= self.reach
                        for e in self.state.units.values() if e.side != a.side and not e.incapacitated and e is not t))
                    best = max(best, ev.ranged_value(self.state, a, w, t, geo.range_band(b, at[0], at[1], to[0], to[1]),
                                                     near, geo.in_cover(b, *to)))
        return best

    def _band(self, d: int) -> str:
        b = self.state.board
        if d <= b.reach:
            return "reach"
        if d <= b.close:
            return "close"
        if d <= b.medium:
            return "medium"
        return "long" if d <= b.long else "extreme"

    def cell_score(self, x: int, y: int) -> float:
        """The unit's share of the evaluation if it stood on (x, y): its best attack from there
        less what the enemies' best attacks on it gain (``_exchange``), the approach term, the
        objectives and the mid-line within reach, and what the modules add (``extras``)."""
        state, unit, reach = self.state, self.unit, self.reach
        offense, defense = self._exchange(x, y)
        score = self.fire_w * offense - defense
        if offense <= 0 and self.enemies:
            score += ev.REMOTE * min([max(abs(x - e.x), abs(y - e.y)) for e in self.enemies])
        for o in self.objectives:
            if o.id in self.held_near:
                continue
            d = max(abs(x - o.x), abs(y - o.y))
            if d <= reach:
                score += ev.OBJECTIVE_NEAR * o.points
            elif d <= reach + self.medium:
                score += ev.OBJECTIVE_FAR * o.points
        if state.midline_points and geo.half(state.board, x, y) == other(unit.side):
            score += state.midline_points
        for extra in self.extras:
            score += extra(x, y)
        return score

    def _exchange(self, x: int, y: int) -> tuple[float, float]:
        """(offense, defense) on (x, y): the unit's best attack from there, and the weighted gain
        of each enemy's best attack on it there over that enemy's best on the unit's allies."""
        state, unit, reach = self.state, self.unit, self.reach
        info = self.info
        idx = y * info.width + x
        cover = info.cover[idx]
        near = 0
        for e in self.enemies:
            if max(abs(x - e.x), abs(y - e.y)) <= reach:
                near = 1
                break
        off, dfn = self._off, self._def
        offense = 0.0
        defense = 0.0
        for e, row, e_cover, (other_best, weight, e_weapons), e_near_friend in self._foes:
            d = max(abs(x - e.x), abs(y - e.y))
            los = row[idx]
            band = self._band(d) if los else ""
            # offense: the unit's best attack on e from (x, y)
            for i, w in self.weapons:
                if w.kind == "melee":
                    if d > reach:
                        continue
                    key = (e.id, i, "melee", cover)
                    v = off.get(key)
                    if v is None:
                        v = off[key] = ev.melee_value(state, unit, w, e, cover, e_cover)
                elif los:
                    key = (e.id, i, band, near)
                    v = off.get(key)
                    if v is None:
                        v = off[key] = ev.ranged_value(state, unit, w, e, band, near, e_cover)
                else:
                    continue
                if v > offense:
                    offense = v
            # defense: what e's best attack becomes with the unit standing at (x, y)
            on_me = 0.0
            for i, w in e_weapons:
                if w.kind == "melee":
                    if d > reach:
                        continue
                    key = (e.id, i, "melee", cover)
                    v = dfn.get(key)
                    if v is None:
                        v = dfn[key] = ev.melee_value(state, e, w, unit, e_cover, cover)
                elif los:
                    e_near = 1 if d <= reach or e_near_friend else 0
                    key = (e.id, i, band, e_near, cover)
                    v = dfn.get(key)
                    if v is None:
                        v = dfn[key] = ev.ranged_value(state, e, w, unit, band, e_near, cover)
                else:
                    continue
                if v > on_me:
                    on_me = v
            if on_me > other_best:
                defense += weight * (on_me - other_best)
        return offense, defense

    def delta(self, x: int, y: int) -> float:
        return self.cell_score(x, y) - self.here


def threat_cost(state: State, side: str, amount: int, spent: bool) -> float:
    """What ``amount`` Threat costs ``side``: spent from its own pool (``spent``), or handed to
    the opponent (a hero's way of paying). Handing it over is cheap against heroes, who cannot
    spend it, and dear when it lets the opponent's Notable NPCs Avoid Injuries again."""
    if spent:
        return amount * ev.THREAT
    foe = other(side)
    bogeys = [u for u in state.units.values() if u.side == foe and u.kind != "hero" and not u.incapacitated]
    if not bogeys:
        return 0.01 * amount
    cost = amount * ev.THREAT
    before = state.threat[foe]
    if before < 2 <= before + amount:
        for u in bogeys:
            if u.tier != "grunt" and u.avoid_available:
                cost += (ev.WORTH_AVOID + 0.3) * u.points
    return cost


def _lethal_cost(state: State, unit: Unit) -> float:
    # a hero's lethal attack hands the opponent a Threat; a bogey's spends one of its own
    return threat_cost(state, unit.side, 1, unit.kind != "hero") + 0.01


def _objective_swing(state: State, side: str, oid: str) -> float:
    o = state.objectives[oid]
    if o.holder == side:
        return 0.0
    return o.points * (2.0 if o.holder else 1.0)


def _act(state: State, d: Decision) -> list[float]:
    unit = state.units[d.unit]
    side = unit.side
    turn = state.turn
    task_left = d.kind == "directed" or (turn is not None and not turn.task)
    scorer: MoveScorer | None = None
    units = state.units
    best_now = None
    out: list[float] = []
    minor_cost = len(turn.minors) * ev.MOMENTUM if turn is not None and d.kind == "act" else 0.0
    for o in d.options:
        k = o[0]
        if k == "end" or k == "none":
            v = 0.0
        elif k == "attack":
            t = units[o[1]]
            if t.incapacitated:
                v = -0.05
            else:
                v = ev.attack_value(state, unit, ev.drawn_weapon(unit, o[2]), t) - (_lethal_cost(state, unit) if o[3] else 0.0)
        elif k == "move":
            if scorer is None:
                scorer = MoveScorer(state, unit, task_left)
            v = scorer.delta(o[1], o[2]) - minor_cost
        elif k == "interact":
            v = _objective_swing(state, side, o[1]) - minor_cost
        elif k == "other":
            obj = state.objectives[o[1]]
            p, _ = ev.task_odds(getattr(unit.stats, obj.attribute) + getattr(unit.stats, obj.discipline),
                                getattr(unit.stats, obj.discipline), obj.name in unit.focuses, obj.difficulty)
            v = p * _objective_swing(state, side, o[1])
        elif k in ("aim", "prepare"):
            if best_now is None:
                best_now = ev.best_attack(state, unit)
            v = (0.2 if k == "aim" else 0.25) * best_now - minor_cost
        elif k in ("draw", "pickup"):
            v = 0.1 - minor_cost
        elif k == "direct":
            v = 1.1 * ev.best_attack(state, units[o[1]])
        elif k == "recover":
            missing = (unit.stress_max - unit.stress) / (unit.stress_max or 1)
            v = 0.3 * unit.points * (ev.WORTH_STRESS * missing + (0 if unit.avoid_available else ev.WORTH_AVOID))
        elif k in _MODULES.free_moves and (cell := _MODULES.free_moves[k](o)) is not None:
            if scorer is None:
                scorer = MoveScorer(state, unit, task_left)
            v = scorer.delta(*cell)
        elif k in ("guard", "ready"):
            v = 0.02
        elif k in ("assist", "create_advantage"):
            v = 0.03
        elif k == "stand":
            v = 0.01 - minor_cost
        elif k == "prone":
            v = -0.02 - minor_cost
        elif k in _MODULES.option_values:  # the modules' options (Module.bots)
            v = _MODULES.option_values[k](state, unit, o, ev)
            if k in _MODULES.minor_actions:
                v -= minor_cost
        else:  # sprint, first_aid (no points either way)
            v = 0.0
        out.append(v)
    return out


def _activate(state: State, d: Decision) -> list[float]:
    out = []
    for o in d.options:
        u = state.units[o[1]]
        v = _MODULES.activation(state, u, ev) if _MODULES.activation else None  # e.g. a captive's escape
        if v is not None:
            out.append(v)
            continue
        v = ev.best_attack(state, u)
        for obj in state.objectives.values():
            if obj.holder != u.side and geo.distance(u.x, u.y, obj.x, obj.y) <= state.board.reach + state.board.medium:
                v += 0.3 * obj.points
        out.append(v)
    return out


def _first(state: State, d: Decision) -> list[float]:
    return [0.1 if o[1] == d.side else 0.0 for o in d.options]


def _keep(state: State, d: Decision) -> list[float]:
    ready = [u for u in state.units.values() if u.side == d.side and not u.acted and not u.incapacitated]
    best = max((ev.best_attack(state, u) for u in ready), default=0.0)
    return [0.0 if o[0] == "pass" else 0.5 * best - 2 * ev.MOMENTUM for o in d.options]


def _task_frame(state: State) -> TaskFrame | None:
    f = state.stack[-1] if state.stack else None
    return f if isinstance(f, TaskFrame) else None


def _buy(state: State, d: Decision) -> list[float]:
    f = _task_frame(state)
    out = []
    if f is None or f.task != "attack":
        return [0.0 if o[1] == 0 else -0.1 * o[1] for o in d.options]
    unit, target = state.units[f.unit], state.units[f.target]
    spec = procedure.SPECS["attack"](state, f)
    tn = tasks.target_number(unit, spec)
    disc = getattr(unit.stats, spec.discipline)
    focus = tasks.has_focus(unit, spec)
    base = ev.attack_value(state, unit, ev.drawn_weapon(unit, f.weapon), target)
    p2, _ = ev.task_odds(tn, disc, focus, spec.difficulty, 2)
    prepared = tasks.is_prepared(state, f)
    for o in d.options:
        n = o[1]
        if n == 0:
            out.append(0.0)
            continue
        pn, _ = ev.task_odds(tn, disc, focus, spec.difficulty, 2 + n)
        gain = base * (pn / p2 - 1.0) if p2 > 0 else base
        cost = tasks.dice_cost(n, prepared)
        if o[2] == "momentum":
            price = cost * ev.MOMENTUM
        else:
            price = threat_cost(state, unit.side, cost, unit.kind != "hero")
        out.append(gain - price)
    return out


def _aim(state: State, d: Decision) -> list[float]:
    f = _task_frame(state)
    if f is None:
        return [0.0] * len(d.options)
    unit = state.units[f.unit]
    tn = tasks.target_number(unit, procedure.SPECS[f.task](state, f))
    return [0.0 if o[0] == "keep" else (0.1 if f.rolled[o[1]] > tn else -0.1) for o in d.options]


def _avoid(state: State, d: Decision) -> list[float]:
    unit = state.units[d.unit]
    whole = unit.points * (1 + ev.WORTH_ALIVE)
    out = []
    for o in d.options:
        if o[0] == "accept":
            out.append(-whole)
        elif o[1] == "momentum":
            out.append(-2 * ev.MOMENTUM - ev.WORTH_AVOID * unit.points)
        else:  # a Complication (2 Threat to the opponent) or 2 Threat of our own
            out.append(-threat_cost(state, unit.side, 2, o[1] == "threat") - ev.WORTH_AVOID * unit.points)
    return out


def _melee_won(state: State, d: Decision) -> list[float]:
    return [0.5 if o[0] == "damage" else 0.0 for o in d.options]


def _bystander(state: State, d: Decision) -> list[float]:
    out = []
    for o in d.options:
        if o[0] == "threat":
            out.append(2 * ev.THREAT)
        else:
            u = state.units[o[1]]
            out.append((0.5 if u.side != d.side else -0.5) * u.points)
    return out


def _ready(state: State, d: Decision) -> list[float]:
    out = []
    mover = state.units[d.unit]
    for o in d.options:
        if o[0] == "hold":
            out.append(0.0)
        else:
            shooter = state.units[o[1]]
            v = ev.attack_value(state, shooter, ev.drawn_weapon(shooter, o[2]), mover)
            out.append(v - (_lethal_cost(state, shooter) if o[3] else 0.0))
    return out


def _recover_stress(state: State, d: Decision) -> list[float]:
    unit = state.units[d.unit]
    smax = unit.stress_max or 1
    return [unit.points * ev.WORTH_STRESS * min(2 * o[1], unit.stress_max - unit.stress) / smax - o[1] * ev.MOMENTUM
            for o in d.options]


def _sprint(state: State, d: Decision) -> list[float]:
    unit = state.units[d.unit]
    scorer = MoveScorer(state, unit, False)
    occupied = {(u.x, u.y) for u in state.units.values() if not u.dead and u.id != unit.id}
    costs = None
    out = []
    for o in d.options:
        if o[0] == "stay":
            out.append(0.0)
            continue
        if costs is None:
            costs = registry.reachable(state, unit, state.board.close * 7, occupied)
        extra = max(0, -(-costs.get((o[1], o[2]), 0) // state.board.close) - 1)
        out.append(scorer.delta(o[1], o[2]) - extra * ev.MOMENTUM)
    return out


_SCORERS = {
    "act": _act,
    "directed": _act,
    "activate": _activate,
    "first": _first,
    "keep_initiative": _keep,
    "buy_dice": _buy,
    "aim": _aim,
    "avoid_injury": _avoid,
    "melee_won": _melee_won,
    "bystander": _bystander,
    "ready": _ready,
    "recover_stress": _recover_stress,
    "sprint": _sprint,
    # the modules' decisions (Module.bots.scorers), priced with the bots' evaluation
    **{kind: partial(_priced, fn) for kind, fn in _MODULES.scorers.items()},
}

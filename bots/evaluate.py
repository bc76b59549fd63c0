"""The evaluation the built-in bots share: how good a state is for one side.

``evaluate(state, side)`` is a score in victory points (positive: ``side`` is ahead); ``reward``
squashes it into [0, 1] (a logistic curve, ``SCALE`` points to 0.73) for the search. Every term
reads only the state it is given, which for a bot is always its own view (or a determinization
of it, ``skirmish.bots.determinize``).

The score is linear: for each term, ``side``'s sum minus the opponent's, times the term's
weight in ``WEIGHTS`` (victory points per unit of the term):

- ``points``: victory points now (``skirmish.engine.rules.core.flow.points``: enemy units taken out,
  objectives held, units standing in the enemy half) -- what decides the game at the round
  limit;
- ``alive``, ``stress``, ``avoid``: for each unit still able to fight, its points, its points
  times its Stress fraction, and its points if it can still Avoid an Injury (a hero always can,
  once; a Notable NPC while its side has 2 Threat) -- so a unit taken out costs its side the
  points the enemy scores *and* what it was worth alive;
- ``momentum``, ``threat`` (Threat only for a side with bogeys, which can spend it);
- ``fire_now``, ``fire_soon``, ``fire_later``: for each unit, the expected value of its best
  attack from where it stands now (``attack_value``: the chance to pass the Task times the
  expected loss of the target's *worth* -- its points, plus ``WORTH_ALIVE``, ``WORTH_STRESS``
  times its Stress fraction and ``WORTH_AVOID`` if it can Avoid an Injury -- over the damage
  distribution, Injuries and Avoid Injury included), summed separately for the unit acting now
  with its Task still to come, the units yet to act this round, and those that have acted. A
  side's firepower against the opponent's is the positional term: it rewards line of fire,
  cover (cover dice cut the enemy's expected damage) and staying out of the enemy's sights;
- ``remote``: for each unit with nothing to attack, the distance to the nearest enemy (the
  weight is negative: such a unit is pulled towards the fight);
- ``objective_near``, ``objective_far``: the points of objectives the side does not hold with one
  of its units in Reach of them, or within a move and Reach;
- the modules' terms (``Module.bots.terms``), last, in the catalog's order: the capture module's
  captures within reach, captives dragged to the exit and captives that may escape
  (``skirmish.engine.rules.capture.bots``), the morale module's Command Tokens and its pilots'
  Endurance and Fear (``skirmish.engine.rules.morale.bots``) -- a pilot knocked out or frightened
  is a unit that cannot act.

A unit a module holds out of the fight (``Module.bots.sidelined``: the capture module's
captives) counts neither as able to fight nor as a target nor as an enemy in Reach.

A won game scores ``WIN``, a draw 0. The probabilities are exact (2d20 successes, Challenge
Dice) and cached; so are lines of fire (``BoardInfo``) and each unit's best attack.
"""

from __future__ import annotations

import math
import itertools
import sys
from functools import lru_cache

from skirmish.engine import board as geo
from skirmish.engine.model import SIDES, UNARMED, Board, State, Unit, Weapon
from skirmish.engine.rules import registry
from skirmish.engine.rules.core.flow import points

# What the bundled modules give the evaluation (skirmish.engine.rules.registry.BotHooks), all of them:
# their terms, in the catalog's order (each 0 in a game without its module), and the units they hold
# out of the fight.
_MODULES = registry.CATALOG.all().bots
_MODULE_TERMS = tuple((fn, isinstance(name, tuple)) for name, _, fn in _MODULES.terms)
_sidelined = _MODULES.sidelined or (lambda u: False)
_KIT = sys.modules[__name__]  # what the modules' terms are given to price with


def _named(terms) -> list[tuple[str, float]]:
    """The (name, weight) of each term of the modules' ``terms`` (several to an entry, or one)."""
    return [pair for name, weight, _ in terms
            for pair in (zip(name, weight) if isinstance(name, tuple) else ((name, weight),))]


# Victory points per unit of each term (side's sum minus the opponent's); see the docstring.

WEIGHTS: dict[str, float] = {
    "points": 1.0,
    "alive": 0.6,
    "stress": 0.6,
    "avoid": 0.25,
    "momentum": 0.1,
    "threat": 0.08,
    "fire_now": 0.9,
    "fire_soon": 0.6,
    "fire_later": 0.3,
    "remote": -0.02,
    "objective_near": 0.35,
    "objective_far": 0.15,
    # the modules' terms (Module.bots.terms: the capture module's capture_near, capture_far, exit_near,
    # captive_risk; the morale module's tokens, pilots), 0 in games without them
    **dict(_named(_MODULES.terms)),
}
SCALE = 3.0  # victory points that move the reward from 0.5 to about 0.73
WIN = 30.0  # a won game, in victory points

# The worth of a unit, in victory points: what an attack that takes it out (or wounds it) is
# worth to the attacker. It measures firepower (``attack_value``) and prices options (skirmish.bots.policy).
WORTH_ALIVE = 0.6  # per point of a unit able to fight, on top of the points its loss gives away
WORTH_STRESS = 0.6  # per point of a unit, times its Stress fraction
WORTH_AVOID = 0.25  # per point of a unit that can still Avoid an Injury
MOMENTUM = 0.1  # a Momentum, in victory points (for pricing options)
THREAT = 0.08  # a Threat, for a side that can spend it

# The same weights per victory point, for scoring a unit's position (skirmish.bots.policy.MoveScorer).
_PER_POINT = WEIGHTS["points"]
FIRE_NOW = WEIGHTS["fire_now"] / _PER_POINT
FIRE_SOON = WEIGHTS["fire_soon"] / _PER_POINT
FIRE_LATER = WEIGHTS["fire_later"] / _PER_POINT
REMOTE = WEIGHTS["remote"] / _PER_POINT
OBJECTIVE_NEAR = WEIGHTS["objective_near"] / _PER_POINT
OBJECTIVE_FAR = WEIGHTS["objective_far"] / _PER_POINT

CHALLENGE = ((0, 2 / 6), (1, 3 / 6), (2, 1 / 6))  # a Challenge Die's total: 3-4 -> 0; 1, 5, 6 -> 1; 2 -> 2
COVER_DICE = 2  # skirmish.engine.rules.core.attack.COVER_DICE
RANGE_DIFFICULTY = {"reach": 0, "close": 0, "medium": 0, "long": 1, "extreme": 2}


# -- exact distributions --------------------------------------------------------------------


@lru_cache(maxsize=4096)
def task_odds(target: int, discipline: int, focus: bool, difficulty: int, dice: int = 2) -> tuple[float, tuple]:
    """(chance to pass, ((momentum, probability), ...)) of a Task roll; the probabilities of the
    Momentum values are joint (they add up to the chance to pass)."""
    two = 1 if not focus else max(1, min(discipline, 20))
    one = max(0, min(target, 20) - two)
    per_die = ((2, two / 20), (1, one / 20), (0, (20 - two - one) / 20))
    dist = {0: 1.0}
    for _ in range(dice):
        nxt: dict[int, float] = {}
        for s, p in dist.items():
            for add, q in per_die:
                if q:
                    nxt[s + add] = nxt.get(s + add, 0.0) + p * q
        dist = nxt
    difficulty = max(0, difficulty)
    passed = {s - difficulty: p for s, p in dist.items() if s >= difficulty}
    total = sum(passed.values())
    return total, tuple(sorted(passed.items()))


@lru_cache(maxsize=1024)
def challenge_dist(dice: int) -> tuple[tuple[int, float], ...]:
    dist = {0: 1.0}
    for _ in range(dice):
        nxt: dict[int, float] = {}
        for s, p in dist.items():
            for add, q in CHALLENGE:
                nxt[s + add] = nxt.get(s + add, 0.0) + p * q
        dist = nxt
    return tuple(sorted(dist.items()))


@lru_cache(maxsize=4096)
def damage_dist(dice: int, resistance: int, cover: bool) -> tuple[tuple[int, float], ...]:
    """Damage after Resistance (static, plus cover dice when in cover): ((damage, p), ...)."""
    out: dict[int, float] = {}
    covers = challenge_dist(COVER_DICE) if cover else ((0, 1.0),)
    for total, p in challenge_dist(max(1, dice)):
        for c, q in covers:
            d = max(0, total - resistance - c)
            out[d] = out.get(d, 0.0) + p * q
    return tuple(sorted(out.items()))


@lru_cache(maxsize=8192)
def _melee_odds(a_target: int, a_disc: int, a_focus: bool, a_diff: int, d_target: int, d_disc: int) -> tuple[float, float]:
    """(attacker wins, defender wins) of an Opposed melee Task (ties in Momentum: the attacker)."""
    pa, ma = task_odds(a_target, a_disc, a_focus, a_diff)
    pd, md = task_odds(d_target, d_disc, False, 1)
    attacker = pa * (1 - pd)
    for m1, p1 in ma:
        for m2, p2 in md:
            if m1 >= m2:
                attacker += p1 * p2
    defender = pd - sum(p1 * p2 for m1, p1 in ma for m2, p2 in md if m1 >= m2)
    return attacker, max(0.0, defender)


# -- the worth of units -------------------------------------------------------------------------


def can_avoid(state: State, unit: Unit) -> bool:
    """Whether ``unit`` could Avoid its next Injury (skirmish.engine.rules.core.attack.avoid_options)."""
    if not unit.avoid_available:
        return False
    if unit.kind == "hero":
        return True  # a hero can always take a Complication
    return unit.tier != "grunt" and state.threat[unit.side] >= 2


def alive_worth(unit: Unit, avoid: bool) -> float:
    """What a unit able to fight is worth beyond the points its loss would give away."""
    frac = unit.stress / unit.stress_max if unit.stress_max else 0.0
    return unit.points * (WORTH_ALIVE + WORTH_STRESS * frac + (WORTH_AVOID if avoid else 0.0))


def expected_loss(state: State, victim: Unit, dist: tuple[tuple[int, float], ...]) -> float:
    """Expected worth ``victim``'s side loses to one hit with damage distribution ``dist``."""
    return _expected_loss(victim.points, victim.stress, victim.stress_max, can_avoid(state, victim), dist)


@lru_cache(maxsize=16384)
def _expected_loss(pts: int, stress: int, stress_max: int, avoid: bool, dist) -> float:
    smax = stress_max or 1
    whole = pts * (1 + WORTH_ALIVE + WORTH_STRESS * stress / smax + (WORTH_AVOID if avoid else 0.0))
    loss = 0.0
    for d, p in dist:
        if d <= 0:
            continue
        left = max(0, stress - d)
        injuries = (d >= 5) + (stress > 0 and left == 0) + (stress == 0)
        if injuries and avoid:
            injuries -= 1
            if injuries:
                loss += p * whole
            else:
                loss += p * pts * (WORTH_STRESS * (stress - left) / smax + WORTH_AVOID)
        elif injuries:
            loss += p * whole
        else:
            loss += p * pts * WORTH_STRESS * (stress - left) / smax
    return loss


# -- attacks --------------------------------------------------------------------------------------


def drawn_weapons(unit: Unit) -> list[tuple[int, Weapon]]:
    weapons = [(i, w) for i, w in enumerate(unit.weapons) if i not in unit.stowed]
    if not any(w.kind == "melee" for _, w in weapons):
        weapons.append((-1, UNARMED))
    return weapons


def drawn_weapon(unit: Unit, index: int) -> Weapon:
    """The weapon an attack option names (-1: an Unarmed Strike)."""
    return unit.weapons[index] if 0 <= index < len(unit.weapons) else UNARMED


def best_melee(unit: Unit) -> Weapon:
    best = UNARMED
    for i, w in enumerate(unit.weapons):
        if w.kind == "melee" and w.damage > best.damage and i not in unit.stowed:
            best = w
    return best


def attack_value(state: State, attacker: Unit, weapon: Weapon, target: Unit,
                 at: tuple[int, int] | None = None, to: tuple[int, int] | None = None) -> float:
    """Expected worth the target's side loses (less what the attacker's loses, in melee) if
    ``attacker`` attacks ``target`` with ``weapon``, the attacker standing at ``at`` and the
    target at ``to`` (default: where they are). Viability (Reach, line of fire) is the caller's
    business."""
    ax, ay = at if at is not None else (attacker.x, attacker.y)
    tx, ty = to if to is not None else (target.x, target.y)
    b = state.board
    if weapon.kind == "melee":
        return melee_value(state, attacker, weapon, target, geo.in_cover(b, ax, ay), geo.in_cover(b, tx, ty))
    band = geo.range_band(b, ax, ay, tx, ty)
    near = 0
    reach = b.reach
    for e in state.units.values():
        if e.side != attacker.side and not e.incapacitated and not _sidelined(e):  # as attack.enemy_in_reach
            ex, ey = (tx, ty) if e is target else (e.x, e.y)
            if max(abs(ax - ex), abs(ay - ey)) <= reach:
                near = 1
                break
    return ranged_value(state, attacker, weapon, target, band, near, geo.in_cover(b, tx, ty))


def ranged_value(state: State, attacker: Unit, weapon: Weapon, target: Unit, band: str, near: int,
                 cover: bool) -> float:
    """``attack_value`` of a ranged attack at range ``band``, ``near``: an enemy in the
    attacker's Reach (+1 Difficulty), ``cover``: the target stands in cover."""
    prone = 1 if target.prone and band not in ("reach", "close") else 0
    difficulty = 2 + near + RANGE_DIFFICULTY[band] + prone + target.guarding - target.exposed
    s = attacker.stats
    p, _ = task_odds(s.control + s.security, s.security, weapon.name in attacker.focuses, difficulty)
    hit = damage_dist(weapon.damage + s.security, target.resistance + target.recovered, cover)
    return p * _expected_loss(target.points, target.stress, target.stress_max, can_avoid(state, target), hit)


def melee_value(state: State, attacker: Unit, weapon: Weapon, target: Unit, a_cover: bool, t_cover: bool) -> float:
    """``attack_value`` of a melee attack (Opposed: the target may win and strike back)."""
    s, t = attacker.stats, target.stats
    win, lose = _melee_odds(s.daring + s.security, s.security, weapon.name in attacker.focuses,
                            1 + target.guarding - target.exposed, t.daring + t.security, t.security)
    hit = damage_dist(weapon.damage + s.security, target.resistance + target.recovered, t_cover)
    value = win * _expected_loss(target.points, target.stress, target.stress_max, can_avoid(state, target), hit)
    if lose:
        back = best_melee(target)
        dist = damage_dist(back.damage + t.security, attacker.resistance + attacker.recovered, a_cover)
        value -= lose * _expected_loss(attacker.points, attacker.stress, attacker.stress_max,
                                       can_avoid(state, attacker), dist)
    return value


class BoardInfo:
    """Per board, computed lazily and kept: line of fire from each cell to every other, cover."""

    def __init__(self, board: Board):
        self.board = board
        self.width = board.width
        self.cover = tuple(t in geo.COVER for t in board.cells)
        self._rows: dict[int, bytes] = {}
        self.serial = 0  # a number for this board in cache keys

    def row(self, x: int, y: int) -> bytes:
        """Line of fire from (x, y) to every cell, row-major (1: clear). Line of fire is
        symmetric (skirmish.engine.board.line_cells), so this is also every cell's line to (x, y)."""
        i = y * self.width + x
        row = self._rows.get(i)
        if row is None:
            b = self.board
            row = self._rows[i] = bytes(geo.line_of_fire(b, x, y, cx, cy)
                                        for cy in range(b.height) for cx in range(b.width))
        return row

    def los(self, ax: int, ay: int, bx: int, by: int) -> bool:
        return bool(self.row(ax, ay)[by * self.width + bx])


_boards: dict[Board, BoardInfo] = {}
_serials = itertools.count(1)


def board_info(board: Board) -> BoardInfo:
    info = _boards.get(board)
    if info is None:
        if len(_boards) > 64:
            _boards.clear()
            _fire_cache.clear()
        info = _boards[board] = BoardInfo(board)
        info.serial = next(_serials)
    return info


def best_attack(state: State, unit: Unit, at: tuple[int, int] | None = None, info: BoardInfo | None = None) -> float:
    """The expected value of ``unit``'s best attack on an enemy able to fight, from ``at``."""
    info = info or board_info(state.board)
    b = state.board
    x, y = at if at is not None else (unit.x, unit.y)
    reach = b.reach
    enemies = [t for t in state.units.values() if t.side != unit.side and not t.incapacitated and not _sidelined(t)]
    near = 0
    for t in enemies:
        if max(abs(x - t.x), abs(y - t.y)) <= reach:
            near = 1
            break
    weapons = drawn_weapons(unit)
    idx = y * info.width + x
    a_cover = info.cover[idx]
    best = 0.0
    for t in enemies:
        d = max(abs(x - t.x), abs(y - t.y))
        t_cover = info.cover[t.y * info.width + t.x]
        los = None
        for _, w in weapons:
            if w.kind == "melee":
                if d > reach:
                    continue
                v = melee_value(state, unit, w, t, a_cover, t_cover)
            else:
                if los is None:
                    los = info.row(t.x, t.y)[idx]  # line of fire is symmetric
                if not los:
                    continue
                v = ranged_value(state, unit, w, t, geo.range_band(b, x, y, t.x, t.y), near, t_cover)
            if v > best:
                best = v
    return best


def fire_weight(state: State, unit: Unit) -> float:
    """The weight of ``unit``'s firepower, per victory point (``FIRE_NOW``, ``_SOON``, ``_LATER``)."""
    turn = state.turn
    if turn is not None and turn.unit == unit.id:
        return FIRE_NOW if not turn.task else FIRE_LATER
    return FIRE_SOON if not unit.acted else FIRE_LATER


# -- the evaluation -------------------------------------------------------------------------------


# Each unit's best attack, by the board, the units' signatures and who can Avoid Injuries. The
# keys hold only numbers and strings, so the garbage collector untracks them: a cache of tuples
# holding structs would be walked by every full collection (100 ms and more, mid-search).
_fire_cache: dict[tuple, float] = {}
_FIRE_CACHE_SIZE = 100_000
_profiles: dict[tuple, int] = {}  # a unit's unchanging numbers -> a small number for cache keys


def _signature(u: Unit) -> tuple:
    """Everything about a unit that its attacks, or attacks on it, depend on."""
    profile = (u.stats, u.weapons, u.focuses, u.stress_max, u.points, u.resistance, u.kind, u.tier)
    pid = _profiles.get(profile)
    if pid is None:
        if len(_profiles) > 4096:
            _profiles.clear()
            _fire_cache.clear()
        pid = _profiles[profile] = len(_profiles)
    return (u.id, pid, u.x, u.y, u.stress, u.injury, u.dead, u.avoid_available, u.guarding, u.exposed,
            u.prone, u.recovered, u.stowed)  # (of a unit able to fight: none the modules hold out of it)


TERMS = tuple(WEIGHTS)
_WEIGHTS = tuple(WEIGHTS.values())


def terms(state: State) -> dict[str, dict[str, float]]:
    """Each side's sum of every term of ``WEIGHTS`` (see the module docstring)."""
    sums = _sums(state)
    return {s: dict(zip(TERMS, sums[s])) for s in SIDES}


def _sums(state: State) -> dict[str, list[float]]:
    # one pass, in the order of WEIGHTS: points, alive, stress, avoid, momentum, threat,
    # fire_now, fire_soon, fire_later, remote, objective_near, objective_far, the modules' terms
    pts = points(state)
    info = board_info(state.board)
    b = state.board
    reach, medium = b.reach, b.medium
    active: dict[str, list[Unit]] = {"a": [], "b": []}
    for u in state.units.values():
        if not (u.dead or u.injury or _sidelined(u)):
            active[u.side].append(u)
    threat = state.threat
    avoid_key = (threat["a"] >= 2, threat["b"] >= 2)
    sigs = {s: tuple([_signature(u) for u in active[s]]) for s in SIDES}
    cache = _fire_cache
    if len(cache) > _FIRE_CACHE_SIZE:
        cache.clear()
    turn = state.turn
    acting = turn.unit if turn is not None and not turn.task else ""
    out = {}
    for s in SIDES:
        foe = "b" if s == "a" else "a"
        foes = active[foe]
        foe_sigs = sigs[foe]
        alive = stress = avoid = now = soon = later = remote = 0.0
        bogeys = False
        side_threat = threat[s] >= 2
        for u, sig in zip(active[s], sigs[s]):
            p = u.points
            alive += p
            if u.stress_max:
                stress += p * u.stress / u.stress_max
            if u.kind != "hero":
                bogeys = True
                if u.avoid_available and u.tier != "grunt" and side_threat:
                    avoid += p
            elif u.avoid_available:
                avoid += p
            key = (info.serial, sig, foe_sigs, avoid_key)
            fire = cache.get(key)
            if fire is None:
                fire = cache[key] = best_attack(state, u, info=info)
            if fire > 0:
                if u.id == acting:
                    now += fire
                elif not u.acted:
                    soon += fire
                else:
                    later += fire
            elif foes:
                ux, uy = u.x, u.y
                remote += min([max(abs(ux - e.x), abs(uy - e.y)) for e in foes])
        row = out[s] = [pts[s], alive, stress, avoid, state.momentum[s], threat[s] if bogeys else 0.0,
                        now, soon, later, remote, 0.0, 0.0]
        for term, several in _MODULE_TERMS:
            if several:
                row.extend(term(state, s, active[s], _KIT))
            else:
                row.append(term(state, s, active[s], _KIT))
    for o in state.objectives.values():
        for s in SIDES:
            if o.holder == s or not active[s]:
                continue
            d = min([max(abs(u.x - o.x), abs(u.y - o.y)) for u in active[s]])
            if d <= reach:
                out[s][10] += o.points
            elif d <= reach + medium:
                out[s][11] += o.points
    return out


def evaluate(state: State, side: str) -> float:
    """How good ``state`` is for ``side``, in victory points (see the module docstring)."""
    if state.outcome is not None:
        w = state.outcome.winner
        return 0.0 if w is None else (WIN if w == side else -WIN)
    sums = _sums(state)
    mine, theirs = sums[side], sums["b" if side == "a" else "a"]
    return sum([w * (m - t) for w, m, t in zip(_WEIGHTS, mine, theirs)])


def reward(state: State, side: str) -> float:
    """``side``'s chance to win as the evaluation sees it: 1 a win, 0 a loss, 0.5 a draw."""
    if state.outcome is not None:
        w = state.outcome.winner
        return 0.5 if w is None else (1.0 if w == side else 0.0)
    x = evaluate(state, side) / SCALE
    if x > 30:
        return 1.0
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))

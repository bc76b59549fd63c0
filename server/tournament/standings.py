"""Standings from game records: openskill ratings, W/D/L/F, win rates by side and by mission.

**Ratings**: openskill's Plackett-Luce model, every entrant starting at its default rating
(mu 25, sigma 25/3), updated once per game in game-index order (so the same games always
give the same ratings, whatever order the workers finished them in). A draw is a tie; a
forfeit is a loss for the forfeiting side. Entrants are ranked by the *ordinal*
``mu - 3 * sigma`` (a conservative estimate: the entrant is very likely at least that good),
then by score, then by entry order.

**Counts**: W, D, L and F per entrant, where F (forfeits: crash, illegal answer, time-out) is
counted apart from L (ordinary losses); the opponent of a forfeiter scores a win. *Win %* is
``(W + D/2) / games``: draws count half, forfeits count as games lost.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .config import Entrant


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    draws: int = 0

    def add(self, result: str) -> None:
        self.games += 1
        if result == "win":
            self.wins += 1
        elif result == "draw":
            self.draws += 1

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    @property
    def rate(self) -> float | None:
        """Win rate in 0..1, draws counting half; None without games."""
        return self.score / self.games if self.games else None


@dataclass
class Line:
    """One entrant's standing."""

    name: str
    bot: str
    order: int  # entry order
    mu: float = 25.0
    sigma: float = 25 / 3
    wins: int = 0
    draws: int = 0
    losses: int = 0  # ordinary losses (forfeits apart)
    forfeits: int = 0
    rank: int = 0
    by_side: dict[str, Tally] = field(default_factory=lambda: {"a": Tally(), "b": Tally()})
    by_mission: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses + self.forfeits

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float | None:
        return self.score / self.games if self.games else None


@dataclass
class Standings:
    lines: list[Line]  # ranked, best first
    matrix: dict[tuple[str, str], Tally]  # (row, column): the row entrant's games against the column's
    sides: dict[str, int]  # over all games: side a wins, side b wins, draws ("a", "b", "draw")
    missions: dict[str, dict[str, int]]  # mission -> {"a": wins, "b": wins, "draw": n}
    forfeits: list[dict]  # the records of forfeited games, in game order
    games: int

    def line(self, name: str) -> Line:
        return next(line for line in self.lines if line.name == name)


def result_for(record: dict, side: str) -> str:
    if record["outcome"] == "draw":
        return "draw"
    return "win" if record["outcome"] == side else "loss"


def compute(entrants: list[Entrant], records: list[dict]) -> Standings:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {e.name: model.rating(name=e.name) for e in entrants}
    lines = {e.name: Line(e.name, e.bot, i) for i, e in enumerate(entrants)}
    matrix: dict[tuple[str, str], Tally] = defaultdict(Tally)
    sides = {"a": 0, "b": 0, "draw": 0}
    missions: dict[str, dict[str, int]] = {}
    forfeits = []
    records = sorted(records, key=lambda r: r["index"])
    for rec in records:
        a, b = rec["sides"]["a"], rec["sides"]["b"]
        outcome = rec["outcome"]
        sides[outcome] += 1
        missions.setdefault(rec["mission"], {"a": 0, "b": 0, "draw": 0})[outcome] += 1
        ranks = [1, 1] if outcome == "draw" else ([1, 2] if outcome == "a" else [2, 1])
        [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        ratings[a], ratings[b] = ra, rb
        forfeit = rec.get("forfeit")
        if forfeit:
            forfeits.append(rec)
        for side, me, them in (("a", a, b), ("b", b, a)):
            line = lines[me]
            result = result_for(rec, side)
            if result == "win":
                line.wins += 1
            elif result == "draw":
                line.draws += 1
            elif forfeit and forfeit["side"] == side:
                line.forfeits += 1
            else:
                line.losses += 1
            line.by_side[side].add(result)
            line.by_mission[rec["mission"]].add(result)
            matrix[(me, them)].add(result)
    for name, r in ratings.items():
        lines[name].mu, lines[name].sigma = r.mu, r.sigma
    ranked = sorted(lines.values(), key=lambda ln: (-round(ln.ordinal, 9), -ln.score, ln.order))
    for i, line in enumerate(ranked, start=1):
        line.rank = i
    return Standings(ranked, dict(matrix), sides, missions, forfeits, len(records))


def scores(entrants: list[Entrant], records: list[dict]) -> dict[str, float]:
    """Each entrant's score (wins + draws / 2) over ``records`` (Swiss pairing)."""
    out = {e.name: 0.0 for e in entrants}
    for rec in records:
        for side in ("a", "b"):
            result = result_for(rec, side)
            out[rec["sides"][side]] += 1.0 if result == "win" else 0.5 if result == "draw" else 0.0
    return out

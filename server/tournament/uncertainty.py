"""Ratings with their uncertainty: mu and sigma over the games, a difference with an interval for
each pair of entrants, and a plot of the ratings over the games (``ratings.svg``).

**The model**: openskill's Plackett-Luce, as ``standings`` rates (every entrant from mu 25,
sigma 25/3, updated game by game in game order). Each rating is a normal belief about the
entrant's skill: mean ``mu``, standard deviation ``sigma``.

**A pair's difference**: ``d = mu_x - mu_y``. Taking the two beliefs as independent normals (as
the model keeps them), the difference of skills is normal with mean ``d`` and standard deviation
``s = sqrt(sigma_x^2 + sigma_y^2)``: the 95% interval is ``d +- 1.96 s``, and the probability that
x's skill exceeds y's is ``Phi(d / s)``. An interval that excludes 0 says the games separate the
two entrants; one that holds 0 says they do not (yet). This is the model's own uncertainty, not a
bootstrap: it is exact for the model, cheap, and the same figures whatever order the workers ran.

**The plot** is a hand-built SVG (no plotting library: the page, the figures and the test need
nothing but the standard library): each entrant's mu after every game as a line (one point per
game, the start first), inside a band of mu +- sigma; each entrant's group carries its final mu
and sigma as ``data-`` attributes, so that a test (or a reader) can check the picture against
the numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563", "#db2777")


def _ranks(outcome: str) -> list[int]:
    return [1, 1] if outcome == "draw" else ([1, 2] if outcome == "a" else [2, 1])


def rating_history(names: list[str], records: list[dict]) -> list[dict[str, tuple[float, float]]]:
    """Every entrant's (mu, sigma) before the first game and after each game, in game order
    (``records`` sorted by their ``index``): ``len(records) + 1`` snapshots."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    history = [{n: (r.mu, r.sigma) for n, r in ratings.items()}]
    for rec in sorted(records, key=lambda r: r["index"]):
        a, b = rec["sides"]["a"], rec["sides"]["b"]
        [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=_ranks(rec["outcome"]))
        ratings[a], ratings[b] = ra, rb
        history.append({n: (r.mu, r.sigma) for n, r in ratings.items()})
    return history


@dataclass(frozen=True)
class PairDifference:
    """``first``'s rating minus ``second``'s: ``diff`` (mu difference), its standard deviation
    ``sd``, the 95% interval ``low..high`` and P(first's skill > second's)."""

    first: str
    second: str
    diff: float
    sd: float
    low: float
    high: float
    p_better: float

    @property
    def separated(self) -> bool:
        """The 95% interval excludes 0."""
        return self.low > 0 or self.high < 0

    def as_dict(self) -> dict:
        return {"first": self.first, "second": self.second, "diff": round(self.diff, 4), "sd": round(self.sd, 4),
                "low": round(self.low, 4), "high": round(self.high, 4), "p_better": round(self.p_better, 4),
                "separated": self.separated}


def pair_difference(first: str, mu_x: float, sigma_x: float, second: str, mu_y: float,
                    sigma_y: float) -> PairDifference:
    d = mu_x - mu_y
    sd = math.sqrt(sigma_x ** 2 + sigma_y ** 2)
    p = 0.5 * (1 + math.erf(d / (sd * math.sqrt(2)))) if sd > 0 else (1.0 if d > 0 else 0.0 if d < 0 else 0.5)
    return PairDifference(first, second, d, sd, d - Z95 * sd, d + Z95 * sd, p)


def pair_differences(ranked: list[tuple[str, float, float]]) -> list[PairDifference]:
    """Every pair of the ``ranked`` entrants (name, mu, sigma; best first), the better-ranked first."""
    return [pair_difference(x, mx, sx, y, my, sy)
            for i, (x, mx, sx) in enumerate(ranked) for (y, my, sy) in ranked[i + 1:]]


def pairs_markdown(pairs: list[PairDifference]) -> list[str]:
    """The pairs as a report.md section."""
    lines = ["", "## Rating differences", "",
             "For each pair, the first entrant's mu minus the second's, with a 95% interval "
             "d +- 1.96 sqrt(sigma_1^2 + sigma_2^2) (the two ratings as independent normal beliefs, as the "
             "model keeps them) and P(first better) = Phi(d / sqrt(sigma_1^2 + sigma_2^2)). An interval "
             "that excludes 0 (\"yes\") separates the two entrants.", ""]
    if not pairs:
        return lines + ["(one entrant: no pairs)"]
    lines += ["| first | second | mu difference | 95% interval | P(first better) | separated |",
              "| :--- | :--- | ---: | ---: | ---: | :---: |"]
    for p in pairs:
        lines.append(f"| `{p.first}` | `{p.second}` | {p.diff:+.2f} | [{p.low:+.2f}, {p.high:+.2f}] | "
                     f"{100 * p.p_better:.1f}% | {'yes' if p.separated else 'no'} |")
    return lines


def ratings_svg(history: list[dict[str, tuple[float, float]]], names: list[str],
                title: str = "ratings over the games: mu, and the band mu +- sigma") -> str:
    """The plot: a standalone SVG document (an XML declaration, then ``<svg>``)."""
    w, h, left, right, top, bottom = 760, 360, 48, 150, 28, 34
    games = len(history) - 1
    lows = [mu - s for snap in history for mu, s in snap.values()] or [0.0]
    highs = [mu + s for snap in history for mu, s in snap.values()] or [1.0]
    lo, hi = math.floor(min(lows) / 5) * 5, math.ceil(max(highs) / 5) * 5
    hi = hi if hi > lo else lo + 5

    def x(i: int) -> float:
        return left + (w - left - right) * (i / games if games else 0.0)

    def y(v: float) -> float:
        return top + (h - top - bottom) * (hi - v) / (hi - lo)

    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="11" role="img" aria-label="{escape(title)}" '
           f'data-games="{games}">',
           f'<title>{escape(title)}</title>', f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
           f'<text x="{left}" y="16" font-size="13">{escape(title)}</text>']
    step = 5 if hi - lo <= 50 else 10
    for v in range(int(lo), int(hi) + 1, step):
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{w - right}" y2="{y(v):.1f}" stroke="#e5e7eb"/>'
                   f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    out.append(f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="#6b7280"/>')
    out.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 8}" text-anchor="middle">games played '
               f'(0 to {games})</text>')
    for k, name in enumerate(names):
        color = PALETTE[k % len(PALETTE)]
        series = [snap[name] for snap in history]
        upper = " ".join(f"{x(i):.1f},{y(mu + s):.1f}" for i, (mu, s) in enumerate(series))
        lower = " ".join(f"{x(i):.1f},{y(mu - s):.1f}" for i, (mu, s) in reversed(list(enumerate(series))))
        line = " ".join(f"{x(i):.1f},{y(mu):.1f}" for i, (mu, _) in enumerate(series))
        mu, s = series[-1]
        out.append(f'<g class="entrant" data-entrant="{escape(name)}" data-mu="{mu:.4f}" data-sigma="{s:.4f}">')
        out.append(f'<polygon class="band" points="{upper} {lower}" fill="{color}" fill-opacity="0.12"/>')
        out.append(f'<polyline class="mu" points="{line}" fill="none" stroke="{color}" stroke-width="1.6"/>')
        ly = top + 14 + 16 * k
        out.append(f'<line x1="{w - right + 10}" y1="{ly - 4}" x2="{w - right + 26}" y2="{ly - 4}" '
                   f'stroke="{color}" stroke-width="3"/><text x="{w - right + 30}" y="{ly}">'
                   f'{escape(name)} {mu:.1f} ± {s:.1f}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"

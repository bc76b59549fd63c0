"""``report.html``: the tournament's report as one self-contained page (inline CSS and SVG, no
script, nothing loaded from anywhere), made from the very document written as ``results.json``:

- the standings;
- a win-rate heat map (row entrant against column entrant, draws half);
- the ratings (openskill ordinal, mu - 3 sigma) after every game, plotted over the games;
- games by side and by mission;
- every game, linked to its replay in the web client (``/#/replay/ID`` on the server that holds
  it: ``--server``'s, or ``skirmish serve --db OUT/games.sqlite`` for a tournament played in process).

Figures carry ``data-`` attributes (entrant, rate, rating) so a test can check them against
``results.json``.
"""

from __future__ import annotations

from html import escape

PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563", "#db2777")


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def ratings_over_games(doc: dict) -> dict[str, list[float]]:
    """Each entrant's ordinal after each game in game order (the start first), as ``standings`` rates."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    names = [s["entrant"] for s in doc["standings"]]
    ratings = {n: model.rating(name=n) for n in names}
    series = {n: [ratings[n].ordinal()] for n in names}
    for rec in sorted(doc["games"], key=lambda r: r["index"]):
        a, b = rec["sides"]["a"], rec["sides"]["b"]
        outcome = rec["outcome"]
        ranks = [1, 1] if outcome == "draw" else ([1, 2] if outcome == "a" else [2, 1])
        [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        ratings[a], ratings[b] = ra, rb
        for n in names:
            series[n].append(ratings[n].ordinal())
    return series


def win_matrix(doc: dict) -> dict[tuple[str, str], tuple[float, int]]:
    """(row, column) -> (row's win rate against column, games), draws counting half."""
    tally: dict[tuple[str, str], list[float]] = {}
    for rec in doc["games"]:
        for side, other in (("a", "b"), ("b", "a")):
            me, them = rec["sides"][side], rec["sides"][other]
            score = 0.5 if rec["outcome"] == "draw" else (1.0 if rec["outcome"] == side else 0.0)
            t = tally.setdefault((me, them), [0.0, 0])
            t[0] += score
            t[1] += 1
    return {k: (s / n, n) for k, (s, n) in tally.items()}


def _heat(rate: float) -> str:
    """Red (0) through white (0.5) to blue (1)."""
    if rate >= 0.5:
        k = (rate - 0.5) * 2
        return f"rgb({int(255 - 218 * k)},{int(255 - 156 * k)},{int(255 - 20 * k)})"
    k = (0.5 - rate) * 2
    return f"rgb({int(255 - 35 * k)},{int(255 - 217 * k)},{int(255 - 217 * k)})"


def heat_map(doc: dict) -> str:
    names = [s["entrant"] for s in doc["standings"]]
    m = win_matrix(doc)
    cell, left, top = 64, 120, 90
    size_w, size_h = left + cell * len(names) + 10, top + cell * len(names) + 10
    parts = [f'<svg class="heat" viewBox="0 0 {size_w} {size_h}" width="{size_w}" role="img" '
             f'aria-label="win rate of each row entrant against each column entrant">']
    for j, col in enumerate(names):
        x = left + j * cell + cell / 2
        parts.append(f'<text x="{x}" y="{top - 8}" transform="rotate(-35 {x} {top - 8})">{escape(col)}</text>')
    for i, row in enumerate(names):
        y = top + i * cell
        parts.append(f'<text x="{left - 6}" y="{y + cell / 2 + 4}" text-anchor="end">{escape(row)}</text>')
        for j, col in enumerate(names):
            x = left + j * cell
            if row == col:
                parts.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="#e5e7eb"/>')
                continue
            rate, n = m.get((row, col), (None, 0))
            fill = "#f3f4f6" if rate is None else _heat(rate)
            parts.append(f'<g class="hm" data-row="{escape(row)}" data-col="{escape(col)}" '
                         f'data-rate="{"" if rate is None else f"{rate:.6f}"}" data-games="{n}">'
                         f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#fff"/>'
                         f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" text-anchor="middle">{_pct(rate)}</text>'
                         f'<title>{escape(row)} vs {escape(col)}: {_pct(rate)} of {n} games</title></g>')
    parts.append("</svg>")
    return "".join(parts)


def ratings_chart(doc: dict) -> str:
    series = ratings_over_games(doc)
    n = max((len(v) for v in series.values()), default=1)
    values = [x for v in series.values() for x in v] or [0.0]
    lo, hi = min(values), max(values)
    hi = hi if hi > lo else lo + 1
    w, h, pad, right = 760, 300, 40, 120

    def pt(i: int, v: float) -> str:
        return f"{pad + (w - pad - right) * i / max(1, n - 1):.1f},{h - pad - (h - 2 * pad) * (v - lo) / (hi - lo):.1f}"
    parts = [f'<svg class="ratings" viewBox="0 0 {w} {h}" width="{w}" role="img" '
             f'aria-label="ratings (mu - 3 sigma) after each game">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - right}" y2="{h - pad}" stroke="#999"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#999"/>',
             f'<text x="{pad}" y="{pad - 8}">{hi:.1f}</text><text x="{pad}" y="{h - pad + 16}">{lo:.1f}</text>',
             f'<text x="{w - right}" y="{h - pad + 16}" text-anchor="end">game {n - 1}</text>']
    for k, (name, v) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        points = " ".join(pt(i, x) for i, x in enumerate(v))
        parts.append(f'<polyline class="series" data-entrant="{escape(name)}" data-final="{v[-1]:.6f}" '
                     f'fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        parts.append(f'<text x="{w - right + 6}" y="{h - pad - (h - 2 * pad) * (v[-1] - lo) / (hi - lo) + 4:.1f}" '
                     f'fill="{colour}" font-size="11">{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(head: list[str], rows: list[list[str]], cls: str = "") -> str:
    out = [f'<table class="{cls}"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    return "".join(out) + "</tbody></table>"


def render(doc: dict, replay_base: str = "http://127.0.0.1:8765", serve_hint: str = "") -> str:
    c = doc["config"]
    e = escape
    standings = _table(
        ["rank", "entrant", "bot", "rating", "mu", "sigma", "W", "D", "L", "F", "games", "win %"],
        [[str(s["rank"]), f'<b data-entrant="{e(s["entrant"])}" data-rating="{s["rating"]}">{e(s["entrant"])}</b>',
          e(s["bot"]), f'{s["rating"]:.2f}', f'{s["mu"]:.2f}', f'{s["sigma"]:.2f}', str(s["wins"]), str(s["draws"]),
          str(s["losses"]), str(s["forfeits"]), str(s["games"]), _pct(s["win_rate"])] for s in doc["standings"]],
        "standings")
    total = max(1, doc["games_total"])
    sides = doc["sides"]
    by_side = _table(["entrant", "as side a", "games", "as side b", "games"],
                     [[e(s["entrant"]), _pct(s["by_side"]["a"]["win_rate"]), str(s["by_side"]["a"]["games"]),
                       _pct(s["by_side"]["b"]["win_rate"]), str(s["by_side"]["b"]["games"])] for s in doc["standings"]])
    missions = _table(["mission", "games", "side a won", "side b won", "draws"],
                      [[e(m), str(sum(v.values())), str(v["a"]), str(v["b"]), str(v["draw"])]
                       for m, v in doc["missions"].items()], "missions")
    games = _table(["#", "game", "mission", "side a", "side b", "result", "reason", "events"],
                   [[str(r["index"]), f'<a class="game" href="{e(replay_base)}/#/replay/{e(r["id"])}">{e(r["id"])}</a>',
                     e(r["mission"]), e(r["sides"]["a"]), e(r["sides"]["b"]),
                     "draw" if r["outcome"] == "draw" else f'{e(r["sides"][r["outcome"]])} ({r["outcome"]}) won',
                     e(r["reason"]), "" if r.get("events") is None else str(r["events"])]
                    for r in sorted(doc["games"], key=lambda r: r["index"])])
    title = f"Tournament: {e(str(c.get('format', '')))}, {len(doc['standings'])} entrants"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 1000px; padding: 0 1rem; color: #1d232a; }}
table {{ border-collapse: collapse; margin: .5rem 0 1.5rem; }} th, td {{ padding: .25rem .6rem; border-bottom: 1px solid #ddd; text-align: right; }}
th:nth-child(-n+2), td:nth-child(-n+2) {{ text-align: left; }} svg {{ max-width: 100%; height: auto; }}
svg text {{ font-size: 12px; }} .note {{ color: #5b6570; }}
</style></head><body>
<h1>{title}</h1>
<p class="note">Missions: {e(", ".join(doc.get("missions", {})))} · {doc["games_total"]} games · seed {e(str(c.get("seed", "")))}.
Rating = openskill mu − 3 sigma, updated game by game; win % counts draws half.</p>
<h2>Standings</h2>{standings}
<h2>Win-rate heat map</h2><p class="note">The row entrant's win rate against the column entrant.</p>{heat_map(doc)}
<h2>Ratings over the games</h2>{ratings_chart(doc)}
<h2>Games by side</h2><p>Side a won {sides["a"]} ({_pct(sides["a"] / total)}), side b {sides["b"]}
({_pct(sides["b"] / total)}), {sides["draw"]} draws.</p>{by_side}
<h2>Games by mission</h2>{missions}
<h2>Games</h2><p class="note">Each game links to its replay in the web client{e(serve_hint)}.</p>{games}
</body></html>
"""

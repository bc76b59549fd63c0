"""Ratings with uncertainty (server/tournament/uncertainty.py): each pair's rating difference with
its interval, the ratings plot, and the leaderboard across tournaments (leaderboard.py)."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

import pytest

from skirmish.server.tournament import uncertainty
from skirmish.server.tournament.leaderboard import Leaderboard

SVG = "{http://www.w3.org/2000/svg}"


def test_a_pair_difference_is_the_mu_difference_with_its_normal_interval():
    p = uncertainty.pair_difference("x", 30.0, 3.0, "y", 22.0, 4.0)
    assert p.diff == pytest.approx(8.0) and p.sd == pytest.approx(5.0)
    assert (p.low, p.high) == (pytest.approx(8 - 1.959964 * 5, abs=1e-5), pytest.approx(8 + 1.959964 * 5, abs=1e-5))
    assert p.low < p.diff < p.high and p.separated is False  # -1.8 .. 17.8 holds 0
    assert p.p_better == pytest.approx(0.5 * (1 + math.erf(8 / 5 / math.sqrt(2))))
    assert 0.94 < p.p_better < 0.95
    q = uncertainty.pair_difference("x", 40.0, 2.0, "y", 20.0, 2.0)
    assert q.separated and q.low > 0 and q.p_better > 0.999
    mirror = uncertainty.pair_difference("y", 22.0, 4.0, "x", 30.0, 3.0)
    assert mirror.diff == -p.diff and mirror.low == pytest.approx(-p.high) and mirror.p_better == pytest.approx(1 - p.p_better)


def test_the_history_ends_at_the_standings_ratings():
    records = [{"index": i, "sides": {"a": a, "b": b}, "outcome": o}
               for i, (a, b, o) in enumerate([("x", "y", "a"), ("y", "x", "b"), ("x", "y", "draw"), ("y", "x", "a")])]
    history = uncertainty.rating_history(["x", "y"], list(reversed(records)))  # sorted by index inside
    assert len(history) == 5 and history[0] == {"x": (25.0, 25 / 3), "y": (25.0, 25 / 3)}
    assert history[1]["x"][0] > 25 > history[1]["y"][0]  # x won the first game
    assert all(h["x"][1] < p["x"][1] for p, h in zip(history, history[1:]))  # every game narrows sigma


def _tournament(cli, out, seed, bots="random,greedy"):
    code, stdout, err = cli("tournament", "--bots", bots, "--mission", "ridge", "--games", "4", "--seed", seed,
                            "--workers", "1", "--out", out, "--quiet")
    assert code == 0, err
    return json.loads((out / "results.json").read_text())


def _plot(path):
    root = ET.parse(path).getroot()  # well-formed XML, an SVG document
    assert root.tag == f"{SVG}svg"
    groups = {g.get("data-entrant"): g for g in root.iter(f"{SVG}g") if g.get("class") == "entrant"}
    return root, groups


def test_the_report_gives_each_pair_an_interval_and_plots_the_ratings(cli, tmp_path):
    out = tmp_path / "t"
    doc = _tournament(cli, out, 5, "random,greedy,r2=random")
    standings = {s["entrant"]: s for s in doc["standings"]}
    pairs = doc["rating_pairs"]
    assert len(pairs) == 3  # every pair once
    ranked = [s["entrant"] for s in doc["standings"]]
    for p in pairs:
        first, second = standings[p["first"]], standings[p["second"]]
        assert ranked.index(p["first"]) < ranked.index(p["second"])  # the better-ranked first
        assert p["diff"] == pytest.approx(first["mu"] - second["mu"], abs=1e-3)
        half = 1.96 * math.sqrt(first["sigma"] ** 2 + second["sigma"] ** 2)
        assert p["low"] == pytest.approx(p["diff"] - half, abs=1e-2) and p["high"] == pytest.approx(p["diff"] + half, abs=1e-2)
        assert p["low"] < p["diff"] < p["high"]
        assert p["separated"] == (p["low"] > 0 or p["high"] < 0)
    md = (out / "report.md").read_text()
    assert "## Rating differences" in md and f"| `{pairs[0]['first']}` | `{pairs[0]['second']}` | {pairs[0]['diff']:+.2f} |" in md

    root, groups = _plot(out / "ratings.svg")
    assert set(groups) == set(standings) and root.get("data-games") == str(len(doc["games"]))
    for name, g in groups.items():
        assert float(g.get("data-mu")) == pytest.approx(standings[name]["mu"], abs=1e-3)
        assert float(g.get("data-sigma")) == pytest.approx(standings[name]["sigma"], abs=1e-3)
        [line] = [e for e in g if e.get("class") == "mu"]
        assert len(line.get("points").split()) == len(doc["games"]) + 1  # the start, then every game
        [band] = [e for e in g if e.get("class") == "band"]
        assert len(band.get("points").split()) == 2 * (len(doc["games"]) + 1)


def test_the_leaderboard_aggregates_two_tournaments(cli, tmp_path):
    t1, t2, board = tmp_path / "t1", tmp_path / "t2", tmp_path / "board.sqlite"
    d1 = _tournament(cli, t1, 1)
    d2 = _tournament(cli, t2, 2, "random,greedy,mcts:5")
    code, out, err = cli("leaderboard", "--store", board, "add", t1, t2)
    assert code == 0, err
    assert out.count("added tournament") == 2
    code, out, err = cli("leaderboard", "--store", board, "add", t1)  # again: replaced, not counted twice
    assert code == 0 and "replaced tournament" in out, err

    code, out, err = cli("leaderboard", "--store", board, "--json", "--plot", tmp_path / "lb.svg")
    assert code == 0, err
    lb = json.loads(out)
    assert lb["tournaments"] == 2 and lb["games"] == len(d1["games"]) + len(d2["games"])
    rows = {r["entrant"]: r for r in lb["standings"]}
    assert set(rows) == {"random", "greedy", "mcts:5"}
    assert rows["random"]["tournaments"] == rows["greedy"]["tournaments"] == 2 and rows["mcts:5"]["tournaments"] == 1
    for name in ("random", "greedy"):  # W/D/L/F summed over both tournaments
        both = [next(s for s in d["standings"] if s["entrant"] == name) for d in (d1, d2)]
        for key in ("games", "wins", "draws", "losses", "forfeits"):
            assert rows[name][key] == sum(s[key] for s in both)
    assert rows["mcts:5"]["games"] == next(s for s in d2["standings"] if s["entrant"] == "mcts:5")["games"]
    ratings = [r["rating"] for r in lb["standings"]]
    assert ratings == sorted(ratings, reverse=True)  # ranked by mu - 3 sigma
    for r in lb["standings"]:
        assert r["rating"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-3)
    # the ratings are one rating run over both tournaments' games, in order: tournament 1 then 2
    with Leaderboard(board) as store:
        games = [rec for _, rec in store.records()]
    assert [g["id"] for g in games] == [g["id"] for g in d1["games"]] + [g["id"] for g in d2["games"]]
    final = uncertainty.rating_history(list(rows), [{**g, "index": i} for i, g in enumerate(games)])[-1]
    for name, (mu, sigma) in final.items():
        assert rows[name]["mu"] == pytest.approx(mu, abs=1e-3) and rows[name]["sigma"] == pytest.approx(sigma, abs=1e-3)
    assert len(lb["rating_pairs"]) == 3 and all(p["low"] < p["diff"] < p["high"] for p in lb["rating_pairs"])
    _, groups = _plot(tmp_path / "lb.svg")
    assert set(groups) == set(rows)

    code, text, err = cli("leaderboard", "--store", board)
    assert code == 0 and re.search(r"leaderboard: 2 tournaments, \d+ games", text) and "greedy" in text, err


def test_the_leaderboard_refuses_what_is_not_a_tournament(cli, tmp_path):
    code, _, err = cli("leaderboard", "--store", tmp_path / "b.sqlite", "add", tmp_path / "nothing")
    assert code == 2 and "no tournament there" in err
    code, _, err = cli("leaderboard", "--store", tmp_path / "b.sqlite", "add")
    assert code == 2 and "add takes" in err

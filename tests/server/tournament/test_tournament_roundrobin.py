"""A 4-entrant round robin through ``skirmish tournament``: every game recorded, stored and
verifiable; mirrored pairs; standings that add up; the report files."""

from __future__ import annotations

import csv
import json
from collections import Counter
from itertools import combinations

import pytest

ENTRANTS = ["random", "random", "lister=tournament_testbots:ListAnswer", "first=tournament_testbots:FirstOption"]
NAMES = ["random", "random-2", "lister", "first"]
GAMES = 4


@pytest.fixture(scope="module")
def tourney(tmp_path_factory):
    """Played once for the module (in process, through skirmish.server.cli.main)."""
    from skirmish.server import cli as skirmish

    out = tmp_path_factory.mktemp("rr") / "out"
    code = skirmish.main(["tournament", "--bots", ",".join(ENTRANTS), "--mission", "ridge,outpost",
                          "--games", str(GAMES), "--seed", "11", "--workers", "2", "--out", str(out)])
    assert code == 0
    return out


def test_every_game_is_listed(tourney, tt):
    doc = tt.results(tourney)
    pairings = len(list(combinations(NAMES, 2)))
    assert doc["games_total"] == len(doc["games"]) == pairings * GAMES == 24
    assert [g["index"] for g in doc["games"]] == list(range(24))
    assert len({g["id"] for g in doc["games"]}) == 24
    assert Counter(frozenset(g["pairing"]) for g in doc["games"]) == {
        frozenset(p): GAMES for p in combinations(NAMES, 2)}
    for g in doc["games"]:
        for key in ("id", "seed", "pairing", "sides", "bots", "outcome", "winner", "reason", "forfeit", "error",
                    "events", "duration"):
            assert key in g
        assert g["forfeit"] is None and g["events"] > 10
    with open(tourney / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["game_id"] for r in rows] == [g["id"] for g in doc["games"]]


def test_games_are_played_as_mirrored_pairs(tourney, tt):
    games = tt.results(tourney)["games"]
    by_pairing: dict[tuple, list[dict]] = {}
    for g in games:
        by_pairing.setdefault(tuple(g["pairing"]), []).append(g)
    seeds = set()
    for pairing, gs in by_pairing.items():
        gs.sort(key=lambda g: g["game_in_pairing"])
        assert [g["game_in_pairing"] for g in gs] == list(range(GAMES))
        for k in range(GAMES // 2):
            first, second = gs[2 * k], gs[2 * k + 1]
            assert first["seed"] == second["seed"]
            assert first["mission"] == second["mission"]
            assert first["sides"] == {"a": pairing[0], "b": pairing[1]}
            assert second["sides"] == {"a": pairing[1], "b": pairing[0]}
            # each entrant's bot seed follows the entrant, not the side
            assert first["bot_seeds"]["a"] == second["bot_seeds"]["b"]
            seeds.add(first["seed"])
        assert {g["mission"] for g in gs} == {"ridge", "outpost"}  # the pairs cycle through the missions
    assert len(seeds) == len(games) // 2  # a fresh seed per pair


def test_standings_add_up(tourney, tt):
    doc = tt.results(tourney)
    games = doc["games"]
    rows = {s["entrant"]: s for s in doc["standings"]}
    assert set(rows) == set(NAMES)
    decisive = sum(1 for g in games if g["outcome"] != "draw")
    draws = len(games) - decisive
    assert sum(r["wins"] for r in rows.values()) == decisive
    assert sum(r["losses"] + r["forfeits"] for r in rows.values()) == decisive
    assert sum(r["draws"] for r in rows.values()) == 2 * draws
    for name, r in rows.items():
        assert r["games"] == r["wins"] + r["draws"] + r["losses"] + r["forfeits"] == 3 * GAMES
        assert r["by_side"]["a"]["games"] == r["by_side"]["b"]["games"] == 3 * GAMES // 2
        assert sum(m["games"] for m in r["by_mission"].values()) == 3 * GAMES
        assert r["rating"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-3)
        wins = sum(1 for g in games if g["winner"] == name)
        assert wins == r["wins"]
    assert [r["rank"] for r in doc["standings"]] == [1, 2, 3, 4]
    ratings = [r["rating"] for r in doc["standings"]]
    assert ratings == sorted(ratings, reverse=True)
    assert doc["sides"]["a"] + doc["sides"]["b"] + doc["sides"]["draw"] == len(games)
    with open(tourney / "standings.csv", newline="") as f:
        assert [r["entrant"] for r in csv.DictReader(f)] == [r["entrant"] for r in doc["standings"]]


def test_ratings_follow_the_game_order(tourney, tt):
    """Replaying the records through openskill in game-index order gives the reported ratings."""
    from openskill.models import PlackettLuce

    doc = tt.results(tourney)
    model = PlackettLuce()
    r = {n: model.rating() for n in NAMES}
    for g in doc["games"]:
        a, b = g["sides"]["a"], g["sides"]["b"]
        ranks = {"a": [1, 2], "b": [2, 1], "draw": [1, 1]}[g["outcome"]]
        [[r[a]], [r[b]]] = model.rate([[r[a]], [r[b]]], ranks=ranks)
    for s in doc["standings"]:
        assert s["mu"] == pytest.approx(r[s["entrant"]].mu, abs=1e-3)
        assert s["rating"] == pytest.approx(r[s["entrant"]].ordinal(), abs=1e-3)


def test_a_sample_of_games_verifies(tourney, tt, cli):
    games = tt.results(tourney)["games"]
    db = tourney / "games.sqlite"
    for g in games[::5]:
        code, out, err = cli("verify", g["id"], "--db", db)
        assert code == 0, out + err
        assert "OK" in out
        assert len(tt.event_rows(db, g["id"])) == g["events"]


def test_report_has_every_section(tourney, tt):
    text = (tourney / "report.md").read_text()
    for heading in ("## Standings", "## Win-rate matrix", "## Win rates by side", "## Win rates by mission",
                    "## Forfeits", "## How to verify a game"):
        assert heading in text
    first = tt.results(tourney)["games"][0]["id"]
    assert f"skirmish verify {first} --db {tourney / 'games.sqlite'}" in text
    for name in NAMES:
        assert f"**{name}**" in text  # a matrix row
    games = text.split("## Games", 1)[1].split("## How to verify", 1)[0]
    rows = [line for line in games.splitlines() if line.startswith("| ") and "`" in line]
    results = tt.results(tourney)["games"]
    assert len(rows) == len(results)  # every game, once, in schedule order
    for row, game in zip(rows, results):
        assert f"`{game['id']}`" in row and game["mission"] in row
        assert (f"`{game['winner']}`" if game["winner"] else "draw") in row


def test_the_terminal_table_and_a_rerun_that_plays_nothing(tourney, cli):
    code, out, err = cli("tournament", "--bots", ",".join(ENTRANTS), "--mission", "ridge,outpost",
                         "--games", GAMES, "--out", tourney, "--workers", 1)  # no --seed: the recorded one
    assert code == 0, err
    assert "resuming: 24 already recorded, 0 to play" in err
    header = out.splitlines()[0].split()
    assert header[:4] == ["rank", "entrant", "rating", "mu"]
    assert {"W", "D", "L", "F", "win"} <= set(header)
    body = out.splitlines()[2:6]
    assert sorted(line.split()[1] for line in body) == sorted(NAMES)
    assert "24 games (0 played now, 24 resumed)" in out


def test_same_seed_same_games(tmp_path, cli, tt):
    """The schedule and the dice follow the seed: two runs give the same games, event for event."""
    runs = []
    for name in ("one", "two"):
        out = tmp_path / name
        code, _, err = cli("tournament", "--bots", "random,first=tournament_testbots:FirstOption", "--games", 2,
                           "--seed", 5, "--workers", 2, "--out", out, "--quiet")
        assert code == 0, err
        runs.append(tt.results(out)["games"])
    strip = [[{k: v for k, v in g.items() if k not in ("duration", "think")} for g in run] for run in runs]
    assert strip[0] == strip[1]
    for g in runs[0]:
        assert [d for _, d, _ in tt.event_rows(tmp_path / "one" / "games.sqlite", g["id"])] == \
               [d for _, d, _ in tt.event_rows(tmp_path / "two" / "games.sqlite", g["id"])]
    assert json.loads((tmp_path / "one" / "results.json").read_text())["config"]["seed"] == 5

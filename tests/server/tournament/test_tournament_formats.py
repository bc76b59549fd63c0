"""Swiss and gauntlet; the config (TOML and flags) and its errors."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from skirmish.server.tournament.schedule import swiss_pairings


def met(*pairs):
    return Counter(frozenset(p) for p in pairs)


# -- Swiss pairing ---------------------------------------------------------------------------


def test_swiss_pairs_neighbours_in_the_standings():
    assert swiss_pairings(list("ABCD"), met(), set()) == ([("A", "B"), ("C", "D")], None)


def test_swiss_avoids_a_rematch_with_the_next_best_opponent():
    assert swiss_pairings(list("ABCD"), met("AB"), set()) == ([("A", "C"), ("B", "D")], None)


def test_swiss_backs_up_when_the_greedy_choice_strands_someone():
    # greedy A-C would leave B-D, who have met: the search pairs A-D and B-C instead
    assert swiss_pairings(list("ABCD"), met("AB", "BD"), set()) == ([("A", "D"), ("B", "C")], None)


def test_swiss_allows_rematches_only_when_unavoidable():
    everyone = met(*combinations("ABCD", 2))
    pairs, bye = swiss_pairings(list("ABCD"), everyone, set())
    assert bye is None and sorted(x for p in pairs for x in p) == list("ABCD")
    # only A-B have not met: one rematch is unavoidable, and one is all there is
    all_but_ab = met(*[p for p in combinations("ABCD", 2) if p != ("A", "B")])
    assert swiss_pairings(list("ABCD"), all_but_ab, set()) == ([("A", "B"), ("C", "D")], None)
    # among six, the one rematch-free pairing is found however far down it lies
    free = [("A", "F"), ("B", "E"), ("C", "D")]
    played = met(*[p for p in combinations("ABCDEF", 2) if p not in free])
    assert sorted(swiss_pairings(list("ABCDEF"), played, set())[0]) == free


def test_swiss_gives_the_bye_to_the_lowest_without_one():
    pairs, bye = swiss_pairings(list("ABCDE"), met(), set())
    assert bye == "E" and pairs == [("A", "B"), ("C", "D")]
    pairs, bye = swiss_pairings(list("ABCDE"), met(), {"E"})
    assert bye == "D" and pairs == [("A", "B"), ("C", "E")]


def test_a_swiss_tournament_pairs_by_score_without_rematches(tmp_path, cli, tt):
    out = tmp_path / "swiss"
    names = ["random", "random-2", "random-3", "random-4", "random-5"]
    code, text, err = cli("tournament", "--bots", "random,random,random,random,random", "--format", "swiss",
                          "--rounds", 3, "--games", 2, "--seed", 4, "--workers", 2, "--out", out, "--quiet")
    assert code == 0, err
    doc = tt.results(out)
    games = doc["games"]
    assert len(games) == 3 * 2 * 2  # rounds x pairings per round (5 // 2) x games
    rounds = doc["rounds"]
    assert [r["round"] for r in rounds] == [0, 1, 2]
    pairings = [frozenset(p) for r in rounds for p in r["pairings"]]
    assert len(pairings) == len(set(pairings)) == 6  # no rematches
    byes = [r["bye"] for r in rounds]
    assert len(set(byes)) == 3 and set(byes) <= set(names)
    for r in rounds:
        playing = [n for p in r["pairings"] for n in p]
        assert sorted(playing + [r["bye"]]) == sorted(names)
        assert {frozenset(g["pairing"]) for g in games if g["round"] == r["round"]} == \
               {frozenset(p) for p in r["pairings"]}
    # round 1 is paired by the scores after round 0 (the bye counting as a drawn round)
    score = Counter()
    for g in games:
        if g["round"] == 0:
            for side in "ab":
                score[g["sides"][side]] += 1 if g["outcome"] == side else 0.5 if g["outcome"] == "draw" else 0
    score[rounds[0]["bye"]] += 1
    top = max(score.values())
    leaders = [n for n in names if score[n] == top]
    if len(leaders) == 1 and leaders[0] != rounds[1]["bye"]:
        assert leaders[0] in rounds[1]["pairings"][0]
    code, _, err = cli("verify", games[-1]["id"], "--db", out / "games.sqlite")
    assert code == 0, err


# -- gauntlet ----------------------------------------------------------------------------------


def test_a_gauntlet_pairs_the_champion_with_each_other_entrant(tmp_path, cli, tt):
    out = tmp_path / "g"
    code, _, err = cli("tournament", "--bots", "random,random,lister=tournament_testbots:ListAnswer",
                       "--format", "gauntlet", "--champion", "first=tournament_testbots:FirstOption",
                       "--games", 2, "--seed", 1, "--workers", 2, "--out", out, "--quiet")
    assert code == 0, err
    games = tt.results(out)["games"]
    assert Counter(tuple(g["pairing"]) for g in games) == {
        ("first", "random"): 2, ("first", "random-2"): 2, ("first", "lister"): 2}
    rows = {s["entrant"]: s["games"] for s in tt.results(out)["standings"]}
    assert rows == {"first": 6, "random": 2, "random-2": 2, "lister": 2}


# -- config ------------------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["--bots", ""], "no entrants"),
    (["--bots", "random"], "at least two entrants"),
    (["--bots", "random,nosuch"], "unknown bot strategy 'nosuch'"),
    (["--bots", "random,tournament_testbots:NotABot"], "not a subclass of skirmish.bots.base.Bot"),
    (["--bots", "random,nowhere.module:Bot"], "cannot load bot"),
    (["--bots", "x=random,x=random"], "two entrants are named 'x'"),
    (["--bots", "random,random", "--mission", "atlantis"], "no such mission"),
    (["--bots", "random,random", "--mission", "ridge,ridge"], "listed twice"),
    (["--bots", "random,random", "--games", "0"], "games must be at least 1"),
    (["--bots", "random,random", "--workers", "0"], "workers must be at least 1"),
    (["--bots", "random,random", "--decision-timeout-ms", "-5"], "decision-timeout-ms must be at least 0"),
    (["--bots", "random,random", "--rounds", "2"], "rounds applies to the swiss format only"),
    (["--bots", "random,random", "--format", "swiss", "--rounds", "0"], "rounds must be at least 1"),
    (["--bots", "random,random", "--champion", "random"], "champion applies to the gauntlet format only"),
    (["--bots", "random,random", "--format", "gauntlet"], "needs a champion"),
    (["--bots", "random,random", "--server", "http://localhost"], "ws:// or wss:// URL"),
    (["--bots", "random,random", "--server", "ws://localhost:1", "--mission", "my.toml"], "mission ids"),
])
def test_clear_errors(tmp_path, cli, args, message):
    code, out, err = cli("tournament", *args, "--out", tmp_path / "out")
    assert code == 2
    assert message in err, err
    assert err.startswith("skirmish tournament: ")
    assert not (tmp_path / "out").exists()


def test_bad_numbers_are_refused_by_the_parser(tmp_path, cli):
    with pytest.raises(SystemExit) as info:
        cli("tournament", "--bots", "random,random", "--games", "many", "--out", tmp_path)
    assert info.value.code == 2


def test_a_toml_config_with_flags_on_top(tmp_path, cli, tt):
    cfg = tmp_path / "t.toml"
    cfg.write_text('bots = ["random", "first=tournament_testbots:FirstOption"]\n'
                   'mission = "outpost"\ngames = 3\nseed = 9\nout = "res"\nworkers = 2\n'
                   'decision-timeout-ms = 2000\n')
    code, out, err = cli("tournament", "--config", cfg, "--quiet", "--seed", 10)
    assert code == 0, err
    assert "--games 3 is odd" in err and "4 games (2 pairs) are played per pairing" in err
    doc = tt.results(tmp_path / "res")  # relative to the config file
    assert doc["config"]["seed"] == 10 and doc["config"]["games"] == 4
    assert doc["config"]["decision_timeout_ms"] == 2000
    assert len(doc["games"]) == 4 and {g["mission"] for g in doc["games"]} == {"outpost"}


def test_unknown_toml_key(tmp_path, cli):
    cfg = tmp_path / "t.toml"
    cfg.write_text('bots = "random,random"\nplayers = 3\n')
    code, _, err = cli("tournament", "--config", cfg)
    assert code == 2 and "unknown key 'players'" in err and "decision-timeout-ms" in err


def test_a_different_config_is_not_resumed(tmp_path, cli):
    out = tmp_path / "out"
    code, _, err = cli("tournament", "--bots", "random,random", "--seed", 1, "--out", out, "--quiet")
    assert code == 0, err
    code, _, err = cli("tournament", "--bots", "random,random", "--seed", 1, "--games", 4, "--out", out)
    assert code == 2
    assert "different config" in err and "games: 2 there, 4 now" in err
    code, _, err = cli("tournament", "--bots", "random,random", "--seed", 2, "--out", out)
    assert code == 2 and "seed: 1 there, 2 now" in err


def test_an_ordinary_store_is_not_taken_for_a_tournament(tmp_path, cli):
    out = tmp_path / "out"
    code, _, err = cli("match", "--seed", 1, "--db", out / "games.sqlite")
    assert code == 0, err
    code, _, err = cli("tournament", "--bots", "random,random", "--out", out)
    assert code == 2 and "not from a tournament" in err

"""``skirmish tournament --ray``: the games as Ray tasks on a local Ray (one for this module, see
``local_ray`` in conftest.py), returned to the parent, which alone writes OUT. The same seed gives
the same stored games and results with 1 or 2 Ray workers as with worker processes; forfeits,
their errors and the bots' logs come back from the Ray workers."""

from __future__ import annotations

import json
import sys

import pytest

from skirmish.server.tournament import TournamentError, load_config
from test_tournament_server import server  # noqa: F401  (the fixture: `skirmish serve` in a subprocess)

BOTS = "random,first=tournament_testbots:FirstOption,random"
TIMEOUT_MS = 400


def run(cli, out, *extra, bots=BOTS, fmt="round-robin", seed=5):
    code, text, err = cli("tournament", "--bots", bots, "--format", fmt, "--games", 4, "--seed", seed,
                          "--out", out, *extra)
    assert code == 0, text + err
    return text, err


@pytest.mark.parametrize("fmt", ["round-robin", "swiss"])
def test_ray_with_1_and_2_workers_stores_what_worker_processes_store(local_ray, tmp_path, cli, tt, fmt):
    runs = {}
    for name, extra in {"processes-2": ("--workers", 2), "ray-1": ("--workers", 1, "--ray"),
                        "ray-2": ("--workers", 2, "--ray")}.items():
        _, err = run(cli, tmp_path / name, *extra, fmt=fmt)
        if name.startswith("ray"):
            assert "as Ray tasks on the running Ray (2 CPUs)" in err, err
            assert f"{extra[1]} game(s) at once" in err
        runs[name] = tt.stored(tmp_path / name / "games.sqlite")
    reference = runs.pop("processes-2")
    assert reference["records"] and len(reference["events"]) == len(reference["records"])
    for name, got in runs.items():
        assert got["records"] == reference["records"], name
        assert got["games"] == reference["games"], name
        assert got["events"] == reference["events"], name
    strip = {name: [{k: v for k, v in g.items() if k not in ("duration", "think")} for g in tt.results(
        tmp_path / name)["games"]] for name in ("processes-2", "ray-1", "ray-2")}
    assert strip["ray-1"] == strip["processes-2"] == strip["ray-2"]
    standings = {name: tt.results(tmp_path / name)["standings"] for name in ("processes-2", "ray-1", "ray-2")}
    assert standings["ray-1"] == standings["processes-2"] == standings["ray-2"]


def test_ray_games_are_mirrored_pairs_and_verify(local_ray, tmp_path, cli, tt):
    out = tmp_path / "out"
    text, _ = run(cli, out, "--workers", 2, "--ray")
    games = tt.results(out)["games"]
    assert len(games) == 3 * 4  # 3 pairings, 4 games each
    for first, second in zip(games[::2], games[1::2]):
        assert first["pair"] == second["pair"] and not first["mirrored"] and second["mirrored"]
        assert first["seed"] == second["seed"] and first["mission"] == second["mission"]
        assert first["sides"] == {"a": second["sides"]["b"], "b": second["sides"]["a"]}
        assert first["bot_seeds"] == {"a": second["bot_seeds"]["b"], "b": second["bot_seeds"]["a"]}
        assert first["dice_seed"] != second["dice_seed"]
    assert "12 games (12 played now, 0 resumed)" in text
    for g in (games[0], games[-1]):
        code, said, err = cli("verify", g["id"], "--db", out / "games.sqlite")
        assert code == 0, said + err


def test_forfeits_and_the_bots_logs_come_back_from_ray_workers(local_ray, tmp_path, cli, tt):
    out = tmp_path / "out"
    bots = ("random,crash=tournament_testbots:Crasher,illegal=tournament_testbots:Illegal,"
            "slow=tournament_testbots:Slow,broken=tournament_testbots:BrokenConstructor")
    run(cli, out, "--workers", 2, "--ray", "--decision-timeout-ms", TIMEOUT_MS, bots=bots, seed=3)
    doc = tt.results(out)
    by = {}
    for g in doc["games"]:
        if g["forfeit"]:
            by.setdefault(g["forfeit"]["entrant"], []).append(g)
    assert {name: {g["forfeit"]["kind"] for g in gs} for name, gs in by.items()} == {
        "crash": {"crash"}, "illegal": {"illegal"}, "slow": {"timeout"}, "broken": {"crash"}}
    crash = by["crash"][0]["forfeit"]
    assert "RuntimeError: the crasher bot gives up" in crash["error"] and "misbehave" in crash["traceback"]
    assert "crasher: about to fail" in crash["log"]  # what the bot printed in its Ray worker
    assert "OSError: no model file" in by["broken"][0]["error"]
    # Slow sleeps 5 s per decision: the guard interrupted it at the limit in the Ray worker too
    assert all(g["think"][g["forfeit"]["side"]] < 2.0 for g in by["slow"]), [g["think"] for g in by["slow"]]
    rows = {s["entrant"]: s for s in doc["standings"]}
    assert rows["random"]["forfeits"] == 0 and rows["crash"]["forfeits"] == len(by["crash"])
    for g in by["illegal"][:1] + by["slow"][:1]:
        code, said, err = cli("verify", g["id"], "--db", out / "games.sqlite")
        assert code == 0, said + err


def test_a_tournament_started_on_processes_resumes_on_ray(local_ray, tmp_path, cli, tt):
    out = tmp_path / "out"
    run(cli, out, "--workers", 2)
    first = tt.stored(out / "games.sqlite")
    text, err = run(cli, out, "--workers", 2, "--ray")
    assert "12 games (0 played now, 12 resumed)" in text
    assert tt.stored(out / "games.sqlite") == first


def test_without_ray_installed_the_error_says_how_to_install_it(tmp_path, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    code, text, err = cli("tournament", "--bots", "random,random", "--games", 2, "--ray", "--out", tmp_path / "o")
    assert code != 0
    assert "--ray needs Ray" in err and "pip install 'skirmish[ray]'" in err, err
    assert not (tmp_path / "o" / "results.json").exists()


@pytest.mark.parametrize("value, expected", [(None, None), (False, None), (True, ""), ("local", ""), ("", ""),
                                             (" ray://head:10001 ", "ray://head:10001"), ("auto", "auto")])
def test_the_ray_setting(value, expected):
    config = load_config(None, {"bots": "random,random", "ray": value})
    assert config.ray == expected
    assert "ray" not in config.fingerprint()  # where the games run is not what makes them


def test_the_ray_setting_in_a_toml_file_and_its_errors(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('bots = "random,random"\nray = true\n')
    config = load_config(path)
    assert config.ray == "" and config.workers_auto
    path.write_text('bots = "random,random"\nray = 3\nworkers = 2\n')
    with pytest.raises(TournamentError, match="ray must be true, false or a Ray address"):
        load_config(path)


@pytest.mark.parametrize("mode", ["processes", "ray"])
def test_a_worker_that_dies_stops_the_tournament_and_keeps_the_games_recorded(request, tmp_path, cli, tt, mode):
    if mode == "ray":
        request.getfixturevalue("local_ray")
    out = tmp_path / "out"
    extra = ["--ray"] if mode == "ray" else []
    code, text, err = cli("tournament", "--bots", "random,random,exit=tournament_testbots:Exiter", "--games", 2,
                          "--seed", 2, "--workers", 1, "--out", out, *extra)
    assert code != 0
    assert "a worker process died while playing game" in err and "rerun the same command to resume" in err, err
    kept = tt.recorded(out / "games.sqlite")
    assert kept and all("exit" not in json.loads(rec)["sides"].values() for _, rec, _ in kept.values())
    assert set(tt.stored(out / "games.sqlite")["events"]) == {gid for gid, _, _ in kept.values()}


def test_an_address_nothing_answers_on_is_refused_at_once(tt):
    import socket

    tt.need_ray()
    from skirmish.server.tournament.raypool import init_ray

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(TournamentError, match=f"nothing answers at {address}"):
            init_ray(address)


def test_ray_tasks_play_through_a_server(local_ray, server, tmp_path, cli, tt):  # noqa: F811
    """``--ray --server URL``: each Ray task plays its game through the server with two networked
    bots; the server keeps the logs, the parent records the server's ids and the results."""
    url, server_db = server
    out = tmp_path / "out"
    code, text, err = cli("tournament", "--ray", "--server", url, "--bots", "random,crash=tournament_testbots:Crasher",
                          "--games", 2, "--seed", 1, "--workers", 2, "--out", out, "--quiet")
    assert code == 0, err
    assert f"as Ray tasks on the running Ray (2 CPUs), through {url}" in err
    games = tt.results(out)["games"]
    assert len(games) == 2 and len({g["id"] for g in games}) == 2 and all(g["server"] == url for g in games)
    assert {g["forfeit"]["entrant"] for g in games} == {"crash"}
    for g in games:
        code, said, err = cli("verify", g["id"], "--db", server_db)
        assert code == 0, said + err

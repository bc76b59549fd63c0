"""Forfeits: a crash, an illegal answer and a time-out each lose the game by forfeit, recorded
apart from ordinary losses with the error; the game is ended with a Resign and verifies."""

from __future__ import annotations

import threading
import time

import pytest

from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameEnded, Resigned
from skirmish.engine.model import Decision
from skirmish.server.tournament.guard import Forfeit, GuardedBot

TIMEOUT_MS = 400  # far above any honest answer here, even on a loaded machine
KINDS = {"crash": "crash", "illegal": "illegal", "slow": "timeout", "swallow": "timeout", "broken": "crash"}


@pytest.fixture(scope="module")
def tourney(tmp_path_factory):
    from skirmish.server import cli as skirmish

    out = tmp_path_factory.mktemp("ff") / "out"
    bots = ["random", "crash=tournament_testbots:Crasher", "illegal=tournament_testbots:Illegal",
            "slow=tournament_testbots:Slow", "swallow=tournament_testbots:SlowButSwallows",
            "broken=tournament_testbots:BrokenConstructor"]
    start = time.monotonic()
    code = skirmish.main(["tournament", "--bots", ",".join(bots), "--games", "2", "--seed", "3", "--workers", "2",
                          "--decision-timeout-ms", str(TIMEOUT_MS), "--out", str(out), "--quiet"])
    assert code == 0
    return out, time.monotonic() - start


def test_each_misbehaving_bot_forfeits_with_its_error(tourney, tt):
    out, _ = tourney
    doc = tt.results(out)
    rows = {s["entrant"]: s for s in doc["standings"]}
    # random never misbehaves: it wins every game against the others, by their forfeit
    assert rows["random"]["wins"] == 10 and rows["random"]["forfeits"] == 0 and rows["random"]["losses"] == 0
    forfeits = [g for g in doc["games"] if g["forfeit"]]
    assert forfeits, "no forfeit recorded"
    for name, kind in KINDS.items():
        theirs = [g for g in forfeits if g["forfeit"]["entrant"] == name]
        assert theirs, f"{name} never forfeited"
        assert {g["forfeit"]["kind"] for g in theirs} == {kind}
        assert rows[name]["forfeits"] == len(theirs)
        assert rows[name]["losses"] == 0  # forfeits are counted apart from ordinary losses
        for g in theirs:
            side = g["forfeit"]["side"]
            assert g["sides"][side] == name
            assert g["winner"] == g["sides"]["b" if side == "a" else "a"]
            assert g["error"] == g["forfeit"]["error"] and g["error"]
    by = {g["forfeit"]["entrant"]: g["forfeit"] for g in forfeits}
    assert "RuntimeError: the crasher bot gives up" in by["crash"]["error"]
    assert "the crasher bot gives up" in by["crash"]["traceback"]
    assert "misbehave" in by["crash"]["traceback"]  # the bot's own frame
    assert "crasher: about to fail" in by["crash"]["log"]  # what the bot printed
    assert "('fly', 99, 99)" in by["illegal"]["error"] and "not one of the" in by["illegal"]["error"]
    assert f"{TIMEOUT_MS} ms" in by["slow"]["error"]
    assert f"{TIMEOUT_MS} ms" in by["swallow"]["error"]
    assert "OSError: no model file" in by["broken"]["error"]


def test_a_bot_that_never_answers_is_stopped_at_the_limit(tourney, tt):
    out, elapsed = tourney
    slow = [g for g in tt.results(out)["games"] if g["forfeit"] and g["forfeit"]["entrant"] == "slow"]
    # Slow sleeps 5 s per decision: each of its games ended soon after the limit instead
    assert all(g["duration"] < 2.0 for g in slow), [g["duration"] for g in slow]
    assert elapsed < 20


def test_forfeited_games_end_with_a_resign_and_verify(tourney, tt, cli):
    out, _ = tourney
    db = out / "games.sqlite"
    forfeits = [g for g in tt.results(out)["games"] if g["forfeit"]]
    for g in forfeits:
        events = [decode_event(d) for _, d, _ in tt.event_rows(db, g["id"])]
        resigned = [e for e in events if isinstance(e, Resigned)]
        assert len(resigned) == 1 and resigned[0].side == g["forfeit"]["side"]
        assert any(isinstance(e, GameEnded) for e in events)
        code, text, err = cli("verify", g["id"], "--db", db)
        assert code == 0, text + err


def test_the_report_lists_the_forfeits(tourney):
    out, _ = tourney
    text = (out / "report.md").read_text()
    section = text.split("## Forfeits", 1)[1].split("## How to verify", 1)[0]
    for name in KINDS:
        assert f"`{name}`" in section
    assert "the crasher bot gives up" in section
    csv_text = (out / "games.csv").read_text()
    assert "timeout" in csv_text and "illegal" in csv_text and "crash" in csv_text


# -- the guard alone ---------------------------------------------------------------------------

DECISION = Decision(id=7, side="a", kind="act", options=(("end",), ("move", 1, 2)))


def guarded(choose, timeout_ms=100):
    from skirmish.bots.base import Bot

    class B(Bot):
        def choose(self, view, decision):
            return choose(decision)

    g = GuardedBot(lambda: B(1), timeout_ms)
    g.new_game("a")
    return g


def test_guard_passes_legal_answers_and_takes_lists_as_tuples():
    assert guarded(lambda d: d.options[1]).choose(None, DECISION) == ("move", 1, 2)
    assert guarded(lambda d: ["move", 1, 2]).choose(None, DECISION) == ("move", 1, 2)


@pytest.mark.parametrize("answer", [("move", 9, 9), None, "end", ("end", "extra")])
def test_guard_refuses_answers_not_offered(answer):
    with pytest.raises(Forfeit) as info:
        guarded(lambda d: answer).choose(None, DECISION)
    assert info.value.kind == "illegal" and info.value.side == "a"


def test_guard_measures_time_where_it_cannot_interrupt():
    """Off the main thread there is no SIGALRM: the wall time of choose decides."""
    caught = []

    def run():
        try:
            guarded(lambda d: time.sleep(0.25) or d.options[0], timeout_ms=50).choose(None, DECISION)
        except Forfeit as f:
            caught.append(f)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert caught and caught[0].kind == "timeout" and "the limit is 50 ms" in caught[0].error


def test_guard_turns_system_exit_into_a_crash():
    def bye(d):
        raise SystemExit(3)

    with pytest.raises(Forfeit) as info:
        guarded(bye).choose(None, DECISION)
    assert info.value.kind == "crash" and "SystemExit" in info.value.error


def test_no_limit_means_no_time_out():
    assert guarded(lambda d: time.sleep(0.05) or d.options[0], timeout_ms=0).choose(None, DECISION) == ("end",)

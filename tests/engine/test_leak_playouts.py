"""1,000 complete random playouts checked for leaks in CI (issue 15: "CI runs at least 1,000";
``bench/bench_leaks.py`` plays 10,000): every mission whose modules declare ``secrets``
(``tests.engine.leaks.hiding_missions``), shortened to one round so that the thousand stay
within a minute (each playout is still a whole game, to its ``GameEnded``), every event checked
for every live viewer. Zero leaks is the only pass."""

from __future__ import annotations

from tests.engine.leaks import check_playouts, hiding_missions, jobs_for

PLAYOUTS = 1000


def test_a_thousand_random_playouts_leak_nothing_that_a_module_declares_secret():
    hiding = hiding_missions()
    assert "knives" in hiding  # the challenges module's hidden hands, at least
    assert "nightfall" in hiding  # every hidden thing of the skills module at once
    tally = check_playouts(jobs_for(hiding, PLAYOUTS, first_seed=1_000_000), rounds=1)
    assert tally.playouts == PLAYOUTS and set(tally.by_mission) == set(hiding)
    assert tally.leaks == [], tally.leaks[:5]
    assert tally.checked > 10 * tally.playouts  # secrets were there to be held to, in every playout

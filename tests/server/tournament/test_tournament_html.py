"""report.html (server/tournament/html.py) from results.json, without a browser (tests/web opens it in one)."""

from __future__ import annotations

import re

import pytest

from skirmish.server.tournament import html


def test_report_html_is_self_contained_and_matches_results_json(cli, tmp_path, tt):
    out = tmp_path / "out"
    code, stdout, err = cli("tournament", "--bots", "random,greedy", "--mission", "ridge", "--games", "2",
                            "--seed", "3", "--workers", "1", "--out", out)
    assert code == 0, err
    assert "also report.html" in stdout
    page = (out / "report.html").read_text()
    doc = tt.results(out)
    assert "<script" not in page and "http://" not in page.replace("http://127.0.0.1:8765/#/replay/", "")
    ratings = dict(re.findall(r'data-entrant="([^"]+)" data-rating="([^"]+)"', page))
    assert {k: float(v) for k, v in ratings.items()} == {s["entrant"]: s["rating"] for s in doc["standings"]}
    finals = dict(re.findall(r'class="series" data-entrant="([^"]+)" data-final="([^"]+)"', page))
    for s in doc["standings"]:
        assert float(finals[s["entrant"]]) == pytest.approx(s["rating"], abs=1e-3)
    for g in doc["games"]:
        assert f'href="http://127.0.0.1:8765/#/replay/{g["id"]}"' in page
    m = html.win_matrix(doc)
    assert m[("greedy", "random")][1] == 2 and m[("greedy", "random")][0] + m[("random", "greedy")][0] == pytest.approx(1)

"""``skirmish tournament``'s report.html, opened in a real browser: its figures match results.json."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest



@pytest.fixture(scope="module")
def tourney(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "out"
    done = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "tournament", "--bots", "random,random,greedy",
                           "--mission", "ridge", "--games", "2", "--seed", "5", "--workers", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)  # (a subprocess: Playwright holds this thread's loop)
    assert done.returncode == 0, done.stderr
    return out


def test_the_report_opens_and_its_figures_match_results_json(browser, tourney, artefacts):
    doc = json.loads((tourney / "results.json").read_text())
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((tourney / "report.html").as_uri())
    assert page.title().startswith("Tournament:")
    # standings: every entrant with its rating
    shown = {b.get_attribute("data-entrant"): float(b.get_attribute("data-rating"))
             for b in page.locator("table.standings b[data-entrant]").all()}
    assert shown == {s["entrant"]: s["rating"] for s in doc["standings"]}
    # the ratings plotted over the games end where the standings do
    finals = {p.get_attribute("data-entrant"): float(p.get_attribute("data-final"))
              for p in page.locator("svg.ratings polyline.series").all()}
    assert finals.keys() == shown.keys()
    for name, rating in shown.items():
        assert finals[name] == pytest.approx(rating, abs=1e-3)
    # the heat map: each pair's win rate over the games of results.json
    cells = page.locator("svg.heat g.hm").all()
    assert len(cells) == len(shown) * (len(shown) - 1)
    for cell in cells:
        row, col = cell.get_attribute("data-row"), cell.get_attribute("data-col")
        games = [g for g in doc["games"] if {g["sides"]["a"], g["sides"]["b"]} == {row, col}]
        score = sum(0.5 if g["outcome"] == "draw" else float(g["sides"][g["outcome"]] == row) for g in games)
        assert int(cell.get_attribute("data-games")) == len(games)
        assert float(cell.get_attribute("data-rate")) == pytest.approx(score / len(games))
    # games by mission, and every game linked to its replay
    assert page.locator("table.missions td").first.text_content() == "ridge"
    links = page.locator("a.game").all()
    assert sorted(a.text_content() for a in links) == sorted(g["id"] for g in doc["games"])
    assert all(a.get_attribute("href").endswith(f"/#/replay/{a.text_content()}") for a in links)
    assert not errors and all(u.startswith("file://") for u in requests)  # self-contained
    page.screenshot(path=str(artefacts / "tournament-report.png"), full_page=True)
    page.close()

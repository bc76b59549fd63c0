"""A replay file of a game this server does not hold, dropped on the verify page (issue 16 point 4):
verified in the browser, then "watch it on the board" sends it to the server (``replay_frames``),
which verifies it and folds it into the replay viewer's frames; the slider and the views then show
the engine's own states, as for a stored game."""

from __future__ import annotations

from skirmish.engine.codec import decode_event
from skirmish.server.replayfile import read_file
from tests.web.conftest import Server
from tests.web.test_web_browser import TIMEOUT, bot_game, engine_states, engine_units, get, page_units


def test_a_dropped_file_the_server_does_not_hold_opens_on_the_board(browser, web_server, tmp_path):
    elsewhere = Server(tmp_path)  # another server, with its own store, plays the game
    try:
        gid = bot_game(elsewhere, "ridge")
        data = get(f"{elsewhere.http}/api/games/{gid}/replay.skr")
    finally:
        elsewhere.stop()
    events = [decode_event(d) for d in read_file(data).events]
    n = len(events)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(f"{web_server.http}/#/verify")
    page.locator("input[type=file]").set_input_files({"name": "elsewhere.skr", "mimeType": "application/octet-stream",
                                                      "buffer": data})
    verdict = page.wait_for_selector("[data-verdict]", timeout=TIMEOUT)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    page.get_by_role("button", name="watch it on the board").click()
    page.wait_for_selector("[data-source=file][data-viewer=all] svg.board .unit", timeout=TIMEOUT)
    assert page.locator("input.slider").get_attribute("max") == str(n)

    chosen = [1, n // 3, n // 2, n]
    for viewer in ("all", "a"):
        if viewer != "all":
            page.get_by_label("whose view").select_option(viewer)
            page.wait_for_selector(f"[data-source=file][data-viewer={viewer}] svg.board .unit", timeout=TIMEOUT)
        want = engine_states(events, viewer, chosen + [n // 2 + 1])
        for seq in chosen:
            page.locator("input.slider").evaluate("(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", seq)
            assert page.locator("svg.board").get_attribute("data-seq") == str(seq)
            shown, engine = page_units(page), engine_units(want[seq])
            assert set(shown) == set(engine), (viewer, seq)
            for uid, (x, y, _) in engine.items():
                assert shown[uid][:2] == (x, y), (viewer, seq, uid)
        page.locator("input.slider").evaluate("(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", n // 2)
        page.get_by_role("button", name="next event").click()
        assert page.locator("svg.board").get_attribute("data-seq") == str(n // 2 + 1)
        assert set(page_units(page)) == set(engine_units(want[n // 2 + 1]))
    # the server kept nothing of it
    assert b"no game" in get_status(f"{web_server.http}/api/games/{gid}")
    page.close()


def get_status(url: str) -> bytes:
    import urllib.error

    try:
        return get(url)
    except urllib.error.HTTPError as exc:
        assert exc.code == 404
        return exc.read()

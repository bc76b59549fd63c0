"""A draw offered and accepted in the browser (issue 16: "resign and draw"): two people share a
link; one offers a draw, the other's page says so and its button accepts it; both pages end
drawn, and the stored game verifies."""

from __future__ import annotations

import urllib.request

from skirmish.server.replayfile import read_file, verify_file

TIMEOUT = 30_000


def test_a_draw_offered_then_accepted_ends_the_game_drawn(browser, web_server):
    alice = browser.new_context().new_page()
    bob = browser.new_context().new_page()
    errors: list[str] = []
    for p in (alice, bob):
        p.on("pageerror", lambda e: errors.append(str(e)))
    alice.goto(web_server.http + "/")
    alice.locator("[data-mission='ridge'] button", has_text="Play a person").click()
    alice.wait_for_selector(".waiting", timeout=TIMEOUT)
    gid = alice.url.split("#/game/")[1]
    bob.goto(alice.locator(".waiting code").text_content())
    bob.get_by_role("button", name="Take the free seat").click()
    bob.wait_for_function("() => document.querySelector('.sub')?.textContent === 'you play side b'", timeout=TIMEOUT)
    alice.wait_for_function("() => !document.querySelector('.waiting')", timeout=TIMEOUT)
    alice.get_by_role("button", name="Offer a draw").click()
    alice.wait_for_selector(".draw-offer[data-offer='a']", timeout=TIMEOUT)
    assert "You offered a draw" in alice.locator(".draw-offer").text_content()
    assert alice.locator("button.draw").is_disabled()  # (offered once: the other side answers)
    bob.wait_for_selector(".draw-offer[data-offer='a']", timeout=TIMEOUT)
    assert "Side a offers a draw" in bob.locator(".draw-offer").text_content()
    assert bob.locator(".log").text_content().count("side a offers a draw") == 1  # narrated
    bob.get_by_role("button", name="Accept the draw").click()
    for page in (alice, bob):
        page.wait_for_selector(".over", timeout=TIMEOUT)
        assert "a draw (a draw by agreement)" in page.locator(".over").text_content()
    assert not errors, errors
    with urllib.request.urlopen(f"{web_server.http}/api/games/{gid}/replay.skr", timeout=30) as r:
        assert verify_file(read_file(r.read())).ok

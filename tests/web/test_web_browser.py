"""The web client in a real browser (headless Chromium, Playwright): a whole game played by
clicking against a bot the server hosts, a reload that resumes, a second browser spectating,
the replay viewer against the engine's own states from each side's view, in-browser verify on
a real and on tampered files, the page's weight, a phone-sized screen and the keyboard."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import random
import urllib.request

import msgspec
import pytest

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.view import viewed
from skirmish.server.replayfile import read_file, verify_file

TIMEOUT = 30_000  # ms, for any one thing to appear


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read()


def bot_game(server, mission: str) -> str:
    """Two random bots play ``mission`` on the server; its game id."""
    async def play():
        loop = asyncio.get_running_loop()
        seated = loop.create_future()
        a = asyncio.create_task(run_bot(server.ws, make_bot("random", 3), mission=mission, seat="a",
                                        on_seated=seated.set_result))
        seat = await seated
        await asyncio.gather(a, run_bot(server.ws, make_bot("random", 4), game_id=seat.game_id, codec="json"))
        return seat.game_id
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # (Playwright's sync API holds this thread's loop)
        return pool.submit(asyncio.run, play()).result()


def my_turn(page, last: str) -> str:
    """Wait for the game to end or for a new decision of ours; its id ("" at the end)."""
    try:
        page.wait_for_function(
            "last => document.querySelector('.over') || ((document.querySelector('.decision') || {}).dataset || {}).id"
            " && document.querySelector('.decision').dataset.id !== last", arg=last, timeout=TIMEOUT)
    except Exception as exc:  # say what the page shows
        raise AssertionError(f"no new decision after {last}: status {page.locator('#status').text_content()!r}; "
                             f"info {page.locator('.info').text_content()!r}; "
                             f"decision {page.locator('.decision').inner_html()[:1500]}") from exc
    if page.locator(".over").count():
        return ""
    return page.locator(".decision").get_attribute("data-id")


def click_something(page, rng: random.Random, n: int) -> None:
    """Answer the decision on the page as a person would: a highlighted cell, a marked unit, or a
    button; every third one with the keyboard alone (focus, then Enter)."""
    reach, targets = page.locator("svg.board .reach"), page.locator("svg.board .unit.target")
    buttons = page.locator(".decision > .buttons button")
    choice = None
    if reach.count() and rng.random() < 0.4:
        choice = reach.nth(rng.randrange(reach.count()))
    elif targets.count() and (rng.random() < 0.6 or not buttons.count()):
        choice = targets.nth(rng.randrange(targets.count()))
    elif buttons.count():
        labels = buttons.all_text_contents()
        ends = [i for i, t in enumerate(labels) if t.startswith("end the turn")]
        choice = buttons.nth(ends[0] if ends and rng.random() < 0.5 else rng.randrange(buttons.count()))
    else:
        choice = reach.nth(rng.randrange(reach.count()))
    if n % 3 == 0:
        choice.focus()
        page.keyboard.press("Enter")
    else:
        choice.click()
    more = page.locator(".decision .targets button")  # a unit with several options: pick one
    if more.count():
        more.nth(rng.randrange(more.count())).click()


def test_a_whole_game_against_a_hosted_bot_with_a_reload_and_a_spectator(browser, web_server, artefacts):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(web_server.http + "/")
    page.wait_for_selector(".mission[data-mission='ridge']", timeout=TIMEOUT)
    assert page.locator(".minimap").count() >= 5  # every mission with its small map
    page.screenshot(path=str(artefacts / "lobby.png"), full_page=True)
    page.locator("[data-mission='ridge'] button", has_text="Play the bot").click()
    page.wait_for_url("**/#/game/*", timeout=TIMEOUT)
    gid = page.url.split("#/game/")[1]
    page.wait_for_selector("svg.board .unit", timeout=TIMEOUT)
    assert page.locator(".sub").text_content() == "you play side a"
    assert page.locator("svg.board .unit").count() == 8 and page.locator(".legend-item").count() >= 4

    spectator = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # a phone
    spectator.goto(f"{web_server.http}/#/game/{gid}")
    spectator.wait_for_selector("svg.board .unit", timeout=TIMEOUT)
    assert "watching" in spectator.locator(".sub").text_content()
    assert spectator.evaluate("document.documentElement.scrollWidth") <= 390 + 1  # fits a phone's width
    seen_before = int(spectator.locator(".log li").last.get_attribute("data-seq") or 0)

    rng, last, n, reloaded, dropped = random.Random(16), "", 0, False, False
    while True:
        last = my_turn(page, last)
        if not last:
            break
        n += 1
        if n == 12 and not reloaded:  # a reload mid-game resumes the seat from localStorage
            page.screenshot(path=str(artefacts / "game.png"), full_page=True)
            page.reload()
            page.wait_for_selector(".decision[data-id]", timeout=TIMEOUT)
            assert page.locator(".sub").text_content() == "you play side a"
            assert page.locator(".decision").get_attribute("data-id") == last  # the same decision, still ours
            assert page.locator(".log li").count() > 5
            reloaded = True
        if n == 24:  # a dropped connection: the page reconnects and resumes the seat by itself
            page.evaluate("window.skirmish.wire.ws.close()")
            page.wait_for_function("() => { const w = window.skirmish.wire; return w.ws.readyState === 1 && "
                                   "w.following.size > 0; }", timeout=TIMEOUT)
            page.wait_for_selector(f".decision[data-id='{last}'] button, .decision[data-id='{last}'] h3", timeout=TIMEOUT)
            dropped = True
        click_something(page, rng, n)
        assert n < 1500, "the game does not end"
    assert reloaded and dropped and not errors, errors
    over = page.locator(".over").text_content()
    assert "Game over" in over and "Head hash" in over

    # the spectator watched it live, to the same end
    spectator.wait_for_selector(".over", timeout=TIMEOUT)
    assert int(spectator.locator(".log li").last.get_attribute("data-seq")) > seen_before
    spectator.screenshot(path=str(artefacts / "spectator-phone.png"), full_page=True)
    assert spectator.locator(".decision button").count() == 0  # a spectator has nothing to decide

    summary = json.loads(get(f"{web_server.http}/api/games/{gid}"))
    assert summary["over"] and summary["seats"]["b"] == "house random"
    rf = read_file(get(f"{web_server.http}/api/games/{gid}/replay.skr"))
    assert verify_file(rf).ok  # the stored game verifies (chain, seed, dice, every rule)
    assert summary["head_hash"] in over
    context.close()


def engine_states(events, viewer: str, seqs: list[int]) -> dict[int, dict]:
    state, out = None, {}
    for seq, seen in enumerate(viewed(events, viewer), start=1):
        if state is None:
            state = initial_state(seen)
        elif seen is not None:
            evolve(state, seen)
        if seq in seqs:
            out[seq] = json.loads(msgspec.json.encode(state))
    return out


def page_units(page) -> dict[str, tuple]:
    return {g.get_attribute("data-unit"): (int(g.get_attribute("data-x")), int(g.get_attribute("data-y")),
                                            g.get_attribute("data-states"))
            for g in page.locator("svg.board .unit").all()}


def engine_units(state) -> dict[str, tuple]:
    out = {}
    for u in state["units"].values():
        if u.get("removed") or not isinstance(u["x"], int):  # off the table, or hidden from this view
            continue
        flags = []
        if u["injury"]:
            flags.append("lethal injury" if u["injury"] == "lethal" else "injured")
        out[u["id"]] = (u["x"], u["y"], flags)
    return out


@pytest.fixture(scope="module")
def knives_game(web_server):
    gid = bot_game(web_server, "knives")  # hidden tactic hands: what a side may not see
    data = get(f"{web_server.http}/api/games/{gid}/replay.skr")
    return gid, data, [decode_event(d) for d in read_file(data).events]


@pytest.mark.parametrize("viewer", ["a", "b", "all"])
def test_the_replay_viewer_shows_the_engines_state_from_each_view(browser, web_server, knives_game, viewer, artefacts):
    gid, data, events = knives_game
    n = len(events)
    chosen = [1, 6, n // 3, n // 2, (3 * n) // 4, n]
    want = engine_states(events, viewer, chosen + [n // 2 + 1])
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(f"{web_server.http}/#/replay/{gid}?as={viewer}")
    page.wait_for_selector("svg.board .unit", timeout=TIMEOUT)
    hidden_seen = False
    for seq in chosen:
        page.locator("input.slider").evaluate("(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", seq)
        assert page.locator("svg.board").get_attribute("data-seq") == str(seq)
        shown, engine = page_units(page), engine_units(want[seq])
        assert set(shown) == set(engine), seq
        for uid, (x, y, flags) in engine.items():
            assert shown[uid][:2] == (x, y), (seq, uid)
            for flag in flags:
                assert flag in shown[uid][2].split(","), (seq, uid, flag)
            assert ("dead" in shown[uid][2].split(",")) == want[seq]["units"][uid]["dead"], (seq, uid)
        round_text = page.locator(".info").text_content()
        if want[seq]["started"] and not want[seq]["outcome"]:
            assert f"Round {want[seq]['round']} of" in round_text
        hands = page.locator(".pools").text_content()
        if viewer in ("a", "b") and want[seq].get("hands"):
            other = "b" if viewer == "a" else "a"
            # the other side's hand: the page says how many cards, never which (where the engine hides some)
            hidden_seen |= any(c == "" or not isinstance(c, str) for c in want[seq]["hands"][other])
            assert f"side {other}'s hand{len(want[seq]['hands'][other])} cards" in hands
    assert hidden_seen or viewer == "all"  # (knives hides each side's draws from the other)
    # stepping by event
    page.locator("input.slider").evaluate("(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", n // 2)
    page.get_by_role("button", name="next event").click()
    assert page.locator("svg.board").get_attribute("data-seq") == str(n // 2 + 1)
    assert set(page_units(page)) == set(engine_units(want[n // 2 + 1]))
    if viewer == "all":
        page.screenshot(path=str(artefacts / "replay.png"), full_page=True)
    page.close()


def rechained(data: bytes, k: int, change) -> tuple[bytes, int]:
    """The replay file with event ``k`` changed by ``change`` (on its decoded map) and the chain
    (hashes and head) recomputed: a consistent forgery only the dice can expose."""
    header, events, hashes = msgspec.msgpack.decode(data)
    ev = msgspec.msgpack.decode(events[k - 1])
    change(ev)
    events[k - 1] = msgspec.msgpack.encode(ev)
    h = bytes(32)
    gid = header["game_id"].encode()
    for i, e in enumerate(events, start=1):
        h = hashlib.sha256(h + gid + b"\0" + i.to_bytes(8, "big") + e).digest()
        hashes[i - 1] = h
    header["head_hash"] = h.hex()
    return msgspec.msgpack.encode([header, events, hashes]), k


def test_verify_in_the_browser(browser, web_server, knives_game):
    gid, data, events = knives_game
    page = browser.new_page()
    page.goto(f"{web_server.http}/#/replay/{gid}?as=all")
    page.wait_for_selector("svg.board .unit", timeout=TIMEOUT)
    page.get_by_role("button", name="Verify in this browser").click()
    verdict = page.wait_for_selector("[data-verdict]", timeout=TIMEOUT)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    rolls = sum(type(e).__name__ == "DiceRolled" for e in events)
    assert f"all {rolls} rolls recomputed" in page.locator(".verify-out").text_content()

    # the docs' own examples (docs/replay-format.md), computed by the page's code
    dice = page.evaluate("""async () => {
        const m = await import('/static/verify.js');
        const key = await m.hmacKey(Uint8Array.from({length: 32}, (_, i) => i));
        return [await m.rollDice(key, 'a=alice,b=bob', 0, 20, 10), await m.rollDice(key, '', 0, 6, 5),
                await m.rollDice(key, 'a=alice', 7, 300, 3)];
    }""")
    assert dice == [[2, 6, 18, 3, 16, 1, 16, 9, 16, 11], [1, 6, 5, 3, 3], [16, 53, 46]]

    page.goto(f"{web_server.http}/#/verify")
    dice_seqs = [i for i, e in enumerate(events, start=1) if type(e).__name__ == "DiceRolled" and e.results]
    k_flip = len(events) // 2
    header, raw_events, hashes = msgspec.msgpack.decode(data)
    raw_events[k_flip - 1] = raw_events[k_flip - 1][:-1] + bytes([raw_events[k_flip - 1][-1] ^ 0x01])
    flipped = msgspec.msgpack.encode([header, raw_events, hashes])  # one bit of event k_flip, chain left as it was
    forged, k_forged = rechained(data, dice_seqs[len(dice_seqs) // 3],
                                 lambda ev: ev.__setitem__("results", [r % ev["sides"] + 1 for r in ev["results"]]))
    for name, payload, bad in (("good.skr", data, None), ("flipped.skr", bytes(flipped), k_flip),
                               ("forged.skr", forged, k_forged)):
        page.evaluate("document.querySelector('.verify-out').replaceChildren()")
        page.locator("input[type=file]").set_input_files({"name": name, "mimeType": "application/octet-stream",
                                                          "buffer": payload})
        page.wait_for_selector("[data-verdict]", timeout=TIMEOUT)
        v = page.locator("[data-verdict]")
        if bad is None:
            assert v.get_attribute("data-verdict") == "ok", v.text_content()
            page.wait_for_selector(f"a[href='#/replay/{gid}']", timeout=TIMEOUT)  # this server holds it
        else:
            assert v.get_attribute("data-verdict") == "failed", (name, v.text_content())
            assert v.get_attribute("data-bad-seq") == str(bad), (name, v.text_content())
            assert f"FAILED at event {bad}" in v.text_content()
    page.close()


def test_first_load_is_light_and_local(browser, web_server):
    page = browser.new_page()
    sizes, hosts = [], set()

    def seen(response):
        hosts.add(response.url.split("/")[2])
        try:
            sizes.append(len(response.body()))
        except Exception:  # noqa: BLE001 - a WebSocket upgrade has no body
            pass
    page.on("response", seen)
    page.goto(web_server.http + "/")
    page.wait_for_selector(".mission", timeout=TIMEOUT)
    assert sum(sizes) < 300_000, sizes
    assert hosts == {web_server.http.split("/")[2]}  # nothing from another host
    page.close()


def test_two_people_share_a_link_and_one_resigns(browser, web_server):
    alice = browser.new_context().new_page()
    bob = browser.new_context().new_page()
    alice.goto(web_server.http + "/")
    alice.locator("[data-mission='ridge'] button", has_text="Play a person").click()
    alice.wait_for_selector(".waiting", timeout=TIMEOUT)
    link = alice.locator(".waiting code").text_content()
    assert link.startswith(web_server.http + "/#/game/")
    bob.goto(link)  # the link a person shares
    bob.get_by_role("button", name="Take the free seat").click()
    bob.wait_for_function("() => document.querySelector('.sub')?.textContent === 'you play side b'", timeout=TIMEOUT)
    alice.wait_for_function("() => !document.querySelector('.waiting')", timeout=TIMEOUT)  # the game started
    for page in (alice, bob):
        page.wait_for_selector(".info", timeout=TIMEOUT)
        assert "Round 1 of 6" in page.locator(".info").text_content()
    alice.on("dialog", lambda d: d.accept())  # "Resign this game?"
    alice.get_by_role("button", name="Resign").click()
    for page in (alice, bob):
        page.wait_for_selector(".over", timeout=TIMEOUT)
        assert "side b wins" in page.locator(".over").text_content()

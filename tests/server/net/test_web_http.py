"""The web client's HTTP side (skirmish.server.web, .webapi), with real HTTP requests against a
real server: the page and its assets, the JSON API, content types, caching, CSP, traversal."""

from __future__ import annotations

import asyncio
import http.client
import json
import sys

import msgspec

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.client.connection import connect
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.codec import decode_event
from skirmish.engine.view import viewed
from skirmish.server.replayfile import read_file, verify_file


def fetch(port: int, path: str, headers: dict | None = None):
    """A raw GET (the path is sent as given: no client-side normalising of ``..``)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


async def get(port, path, headers=None):
    return await asyncio.to_thread(fetch, port, path, headers)


async def play_game(srv, mission="ridge"):
    loop = asyncio.get_running_loop()
    seated = loop.create_future()
    a = asyncio.create_task(run_bot(srv.url, make_bot("random", 1), mission=mission, seat="a",
                                    on_seated=seated.set_result))
    seat = await seated
    b = asyncio.create_task(run_bot(srv.url, make_bot("random", 2), game_id=seat.game_id))
    await asyncio.gather(a, b)
    return seat


async def test_page_assets_and_headers(server):
    status, h, body = await get(server.port, "/")
    assert status == 200 and h["content-type"] == "text/html; charset=utf-8"
    assert b"<script" in body and b"http://" not in body and b"https://" not in body
    csp = h["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert h["x-content-type-options"] == "nosniff" and h["cache-control"] == "no-cache"
    status2, h2, _ = await get(server.port, "/", {"If-None-Match": h["etag"]})
    assert status2 == 304
    for name, kind in (("app.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8")):
        status, h, body = await get(server.port, f"/static/{name}")
        assert status == 200 and h["content-type"] == kind and body
        assert "content-security-policy" in h


async def test_no_path_traversal(server):
    for path in ("/static/../app.py", "/static/..%2fapp.py", "/static/%2e%2e/web.py", "/static/../../pyproject.toml",
                 "/static/", "/static/.hidden", "/../server/app.py", "/static/webui/index.html", "/etc/passwd",
                 "/static/..\\web.py", "/api/../web.py"):
        status, h, body = await get(server.port, path)
        assert status == 404, path
        assert b"import" not in body and "content-security-policy" in h


async def test_websocket_still_served_on_the_same_port(server):
    async with connect(server.url, codec="json") as c:
        missions = await c.list_missions()
    assert {x.id for x in missions} >= {"ridge", "knives"}


async def test_missions_api(server):
    status, h, body = await get(server.port, "/api/missions")
    assert status == 200 and h["content-type"].startswith("application/json")
    missions = {x["id"]: x for x in json.loads(body)}
    ridge = missions["ridge"]
    assert len(ridge["cells"]) == ridge["width"] * ridge["height"] == 12 * 9
    assert ridge["objectives"] and ridge["sides"]["a"]


async def test_games_summary_replay_and_views(server):
    seat = await play_game(server)
    gid = seat.game_id
    status, _, body = await get(server.port, "/api/games?status=finished&limit=5")
    page = json.loads(body)
    assert status == 200 and page["total"] == 1 and page["games"][0]["game_id"] == gid
    assert json.loads((await get(server.port, "/api/games?status=live"))[2])["total"] == 0
    assert (await get(server.port, "/api/games?status=nope"))[0] == 400
    assert (await get(server.port, "/api/games?limit=x"))[0] == 400

    status, _, body = await get(server.port, f"/api/games/{gid}")
    summary = json.loads(body)
    assert status == 200 and summary["over"] and summary["status"] == "finished"
    assert len(summary["head_hash"]) == 64 and summary["outcome"]["reason"]

    status, h, data = await get(server.port, f"/api/games/{gid}/replay.skr")
    assert status == 200 and h["content-type"] == "application/octet-stream"
    assert "max-age" in h["cache-control"] and "attachment" in h["content-disposition"]
    rf = read_file(data)
    assert verify_file(rf).ok and rf.header.head_hash == summary["head_hash"]

    # the replay viewer's frames from side b's view: folding them gives the engine's state there
    status, _, body = await get(server.port, f"/api/games/{gid}/frames?as=b")
    frames = json.loads(body)
    assert status == 200 and len(frames["steps"]) == rf.header.events
    state = frames["first"]
    events = [decode_event(d) for d in rf.events]
    seen_b = list(viewed(events, "b"))
    engine = initial_state(seen_b[0])
    for step, seen in zip(frames["steps"][1:], seen_b[1:]):
        change = step.get("change", {})
        state.update(change.get("set", {}))
        for key, entries in change.get("sub", {}).items():
            state[key].update(entries)
        if seen is not None:
            evolve(engine, seen)
    want = json.loads(msgspec.json.encode(engine))
    for key in ("units", "objectives", "round", "outcome", "momentum", "threat"):
        assert state[key] == want[key], key

    status, _, body = await get(server.port, f"/api/games/{gid}/view?as=all&after=0")
    v = json.loads(body)
    assert status == 200 and v["over"] and v["log"] and v["state"]["outcome"]["winner"] == summary["outcome"]["winner"]


async def test_views_need_the_seats_token_while_the_game_runs(server):
    async with connect(server.url, codec="json") as c:
        seat = await c.create_game("ridge", seat="a")
        gid = seat.game_id
        assert (await get(server.port, f"/api/games/{gid}/view?as=a"))[0] == 403
        assert (await get(server.port, f"/api/games/{gid}/view?as=a", {"X-Skirmish-Token": "wrong"}))[0] == 403
        status, h, body = await get(server.port, f"/api/games/{gid}/view?as=a", {"X-Skirmish-Token": seat.token})
        assert status == 200 and h["cache-control"] == "no-store"
        assert json.loads(body)["state"]["game_id"] == gid
        assert (await get(server.port, f"/api/games/{gid}/view?as=spectator"))[0] == 200
        assert (await get(server.port, f"/api/games/{gid}/view?as=all"))[0] == 403
        assert (await get(server.port, f"/api/games/{gid}/view?as=zz"))[0] == 400
        assert (await get(server.port, f"/api/games/{gid}/replay.skr"))[0] == 409
        assert (await get(server.port, f"/api/games/{gid}/frames"))[0] == 409
        # no house bots on this server
        assert (await get(server.port, f"/api/games/{gid}/house-bot?bot=random", {"X-Skirmish-Token": seat.token}))[0] == 404
    assert (await get(server.port, "/api/games/g-nope"))[0] == 404
    assert (await get(server.port, "/api/nothing"))[0] == 404


async def test_a_house_bot_joins_and_plays(make_server):
    async with make_server(house_bots="random", move_ms=20000) as srv:
        status, _, body = await get(srv.port, "/api/bots")
        assert json.loads(body)["bots"] == ["random"]
        async with connect(srv.url, codec="json") as c:
            seat = await c.create_game("ridge", seat="a")
            gid = seat.game_id
            assert (await get(srv.port, f"/api/games/{gid}/house-bot?bot=random"))[0] == 403
            assert (await get(srv.port, f"/api/games/{gid}/house-bot?bot=mcts",
                              {"X-Skirmish-Token": seat.token}))[0] == 400
            status, _, body = await get(srv.port, f"/api/games/{gid}/house-bot?bot=random",
                                        {"X-Skirmish-Token": seat.token})
            assert status == 200, body
            async with asyncio.timeout(60):
                async for _ in c.updates(gid):
                    if c.game(gid).state and c.game(gid).state.started:
                        break
            assert c.game(gid).state.seats["b"] == "house random"
            assert srv.house.running  # a subprocess, outside the server's event loop
            assert (await get(srv.port, f"/api/games/{gid}/house-bot?bot=random",
                              {"X-Skirmish-Token": seat.token}))[0] == 409


async def test_the_server_lists_its_tournaments_and_serves_their_reports(make_server, tmp_path):
    out = tmp_path / "cup"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "skirmish.server.cli", "tournament", "--bots", "random,greedy", "--mission", "ridge",
        "--games", "2", "--seed", "2", "--workers", "1", "--out", str(out),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await proc.communicate()
    assert proc.returncode == 0, err
    async with make_server(tournaments=f"{out},{tmp_path / 'nothing-here'}") as srv:
        status, _, body = await get(srv.port, "/api/tournaments")
        listed = {t["name"]: t for t in json.loads(body)["tournaments"]}
        assert status == 200 and listed["cup"]["ready"] and listed["cup"]["games"] == 2
        assert listed["cup"]["report"] == "/tournaments/cup/report.html" and not listed["nothing-here"]["ready"]
        status, h, body = await get(srv.port, "/tournaments/cup/report.html")
        assert status == 200 and h["content-type"] == "text/html; charset=utf-8"
        assert h["content-security-policy"].startswith("default-src 'none'; style-src 'unsafe-inline'")
        assert b'href="/#/replay/' in body and b"<script" not in body
        for path in ("/tournaments/cup/results.json", "/tournaments/cup/../cup/report.html", "/tournaments/x/report.html",
                     "/tournaments/nothing-here/report.html", "/tournaments/cup/games.sqlite"):
            assert (await get(srv.port, path))[0] == 404, path


async def test_a_seats_view_names_its_own_cards_and_hides_the_others(server):
    async with connect(server.url, codec="json") as a, connect(server.url, codec="json") as b:
        sa = await a.create_game("knives", seat="a")
        await b.join(sa.game_id)
        gid = sa.game_id
        async with asyncio.timeout(30):
            while True:
                v = json.loads((await get(server.port, f"/api/games/{gid}/view?as=a", {"X-Skirmish-Token": sa.token}))[2])
                if v["state"]["hands"]["a"]:
                    break
                await asyncio.sleep(0.05)
        mine = v["state"]["hands"]["a"]
        assert all(isinstance(c, str) and c for c in mine)
        hand_line = next(n for n in v["notes"] if n.startswith("your hand"))  # the module's words, as in a terminal
        assert all(f"{c} (" in hand_line for c in mine)  # each card with what it does
        theirs = v["state"]["hands"]["b"]
        assert theirs and all(c == "" or not isinstance(c, str) for c in theirs)  # the engine's redaction

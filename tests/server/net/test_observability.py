"""``/healthz``, ``/readyz`` and ``/metrics`` (skirmish.server.metrics) over real HTTP against a real
server: commands played over WebSockets move the counters by exactly what was played."""

from __future__ import annotations

import asyncio
import http.client
import json

from prometheus_client.parser import text_string_to_metric_families

from skirmish.protocol import messages as m
from skirmish.server.store import SQLiteStore

from .helpers import RawClient, play, seated_pair


def fetch(port: int, path: str):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type", ""), r.read()
    finally:
        conn.close()


async def get(port: int, path: str):
    return await asyncio.to_thread(fetch, port, path)


async def scrape(port: int) -> dict[tuple[str, tuple], float]:
    """Every sample of /metrics: {(name, sorted labels): value}."""
    status, kind, body = await get(port, "/metrics")
    assert status == 200 and kind.startswith("text/plain; version=0.0.4"), (status, kind)
    out = {}
    for family in text_string_to_metric_families(body.decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_healthz_and_readyz(server):
    status, kind, body = await get(server.port, "/healthz")
    assert status == 200 and kind.startswith("application/json") and json.loads(body) == {"alive": True}
    status, _, body = await get(server.port, "/readyz")
    assert status == 200 and json.loads(body) == {"ready": True, "failing": {}}


async def test_metrics_count_what_was_played(server):
    before = await scrape(server.port)
    assert value(before, "skirmish_leases_taken_over_total") == 0  # one node: nothing taken over
    assert value(before, "skirmish_connections") == 0 and value(before, "skirmish_games_owned") == 0
    assert ("process_resident_memory_bytes", ()) in before
    assert value(before, "skirmish_ready") == 1
    a, b, sa, _ = await seated_pair(server.url)
    mid = await scrape(server.port)
    assert value(mid, "skirmish_connections") == 2
    assert value(mid, "skirmish_games_owned") == 1 and value(mid, "skirmish_games_live") == 1
    assert value(mid, "skirmish_store_write_seconds_count", op="create") == 1
    assert value(mid, "skirmish_rules_seconds_total") > 0  # the start ran the rules
    # an illegal answer and a command for a game that does not exist: refused, counted by code
    decision = await a.next_of(m.DecisionMsg)
    side = a if decision.decision.side == "a" else b
    bad = await side.call(m.Command(game_id=sa.game_id, decision_id=decision.decision.id, option=["nonsense"]))
    assert isinstance(bad, m.Error), bad
    none = await a.call(m.Command(game_id="g-none", decision_id=1, option=["x"]))
    assert isinstance(none, m.Error) and none.code == "auth.not_seated", none
    a.queue.put_nowait(decision)  # play() answers it from the queue (put back where it was taken)
    acks_a, acks_b = [], []
    results = await asyncio.gather(play(a, sa.game_id, "a", acks=acks_a), play(b, sa.game_id, "b", acks=acks_b))
    assert all(isinstance(r, m.GameOverMsg) for r in results)
    after = await scrape(server.port)
    played = len(acks_a) + len(acks_b)
    assert played > 10
    assert value(after, "skirmish_commands_total", type="choose", outcome="ok", code="") == played
    assert value(after, "skirmish_commands_total", type="choose", outcome="refused", code=bad.code) == 1
    assert value(after, "skirmish_commands_total", type="choose", outcome="refused", code="auth.not_seated") == 1
    assert value(after, "skirmish_command_seconds_count", type="choose") == played
    assert 0 < value(after, "skirmish_command_seconds_sum", type="choose") < played * 5
    assert value(after, "skirmish_command_seconds_bucket", type="choose", le="+Inf") == played
    assert value(after, "skirmish_errors_total", code=bad.code) == 1
    # the rules' time of the commands acked since: within their time from frame to ack
    rules = value(after, "skirmish_rules_seconds_total") - value(mid, "skirmish_rules_seconds_total")
    assert 0 < rules < value(after, "skirmish_command_seconds_sum", type="choose"), rules
    # every acked command appended once; seats, client seeds and the start append too
    appends = value(after, "skirmish_store_write_seconds_count", op="append")
    assert played < appends <= played + 8, (played, appends)
    assert value(after, "skirmish_games_live") == 0  # the game is over
    await a.close()
    await b.close()
    for _ in range(50):
        if value(await scrape(server.port), "skirmish_connections") == 0:
            break
        await asyncio.sleep(0.05)
    assert value(await scrape(server.port), "skirmish_connections") == 0


async def test_rate_limited_frames_are_counted(make_server):
    async with make_server(rate=1, burst=1) as srv:
        c = await RawClient.open(srv.url)  # hello took the one token
        for _ in range(3):
            await c.send(m.Ping())
        for _ in range(3):
            msg = await c.next()
            assert isinstance(msg, m.Error) and msg.code == "protocol.rate_limited", msg
        assert value(await scrape(srv.port), "skirmish_errors_total", code="protocol.rate_limited") == 3
        await c.close()


async def test_two_servers_keep_their_own_metrics(make_server, server):
    async with make_server() as other:
        c = await RawClient.open(server.url)
        await c.call(m.CreateGame(mission="ridge", seat="a", client_seed="alice-seed"))
        assert value(await scrape(server.port), "skirmish_store_write_seconds_count", op="create") == 1
        assert value(await scrape(other.port), "skirmish_store_write_seconds_count", op="create") == 0
        await c.close()


async def test_readyz_503_when_the_store_is_closed(make_server, tmp_path):
    store = await SQLiteStore.open(tmp_path / "games.sqlite")
    async with make_server(store=store) as srv:
        assert (await get(srv.port, "/readyz"))[0] == 200
        await store.close()
        status, kind, body = await get(srv.port, "/readyz")
        assert status == 503 and kind.startswith("application/json")
        reply = json.loads(body)
        assert reply["ready"] is False and "StoreClosed" in reply["failing"]["store"], reply
        assert (await get(srv.port, "/healthz"))[0] == 200  # alive all the same: restart is not the cure
        assert value(await scrape(srv.port), "skirmish_ready") == 0


async def test_readyz_503_when_a_check_hangs_or_fails(server, monkeypatch):
    from skirmish.server import metrics

    monkeypatch.setattr(metrics, "READY_TIMEOUT", 0.2)

    async def hangs():
        await asyncio.sleep(5)

    async def fails():
        raise ConnectionRefusedError("nats://127.0.0.1:4222")

    server.metrics.ready_checks.update(bus=hangs, other=fails)
    status, _, body = await get(server.port, "/readyz")
    reply = json.loads(body)
    assert status == 503 and set(reply["failing"]) == {"bus", "other"}, reply
    assert "within 0.2 s" in reply["failing"]["bus"] and "ConnectionRefusedError" in reply["failing"]["other"]

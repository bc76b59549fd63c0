"""A game nobody joined ends (issue 12, items 9 and 19): its creator cancels it with its seat token
(``cancel``, or ``resign``), or it expires after ``open_game_ttl``; either way the log records it
(``GameCancelled``), reveals the seed and verifies, and everyone following it gets ``game_over``."""

from __future__ import annotations

import asyncio
import subprocess
import sys


from skirmish.engine import events as ev
from skirmish.protocol import messages as m

from .helpers import ROOT, RawClient, ServerProcess, seated_pair, verify_store, viewed


async def ended(store, game_id: str, reason: str, seat: str = ""):
    log = [e for _, e in await viewed(store, game_id, "all")]
    assert [type(e) for e in log[-4:]] == [ev.GameCancelled, ev.Checkpoint, ev.GameEnded, ev.SeedRevealed], log
    assert log[-4] == ev.GameCancelled(reason=reason, seat=seat)
    assert log[-2].outcome.winner is None
    report = await verify_store(store, game_id)
    assert report.ok and report.finished and report.seed_verified, report.summary()
    return log


async def test_the_creator_cancels_with_its_token_from_any_connection(server):
    a = await RawClient.open(server.url, name="alice")
    sa = await a.call(m.CreateGame(mission="ridge", seat="a", client_seed="alice-seed"))
    game = sa.game_id
    spec = await RawClient.open(server.url, name="spec")
    await spec.call(m.Spectate(game_id=game))
    other = await RawClient.open(server.url, name="alice-phone")  # no seat on this connection: the token says
    bad = await other.call(m.CancelGame(game_id=game, token="not-a-token"))
    assert isinstance(bad, m.Error) and bad.code == "auth.bad_token"
    ack = await other.call(m.CancelGame(game_id=game, token=sa.token))
    assert isinstance(ack, m.Ack) and ack.seq == await server.store.last_seq(game)
    for c in (a, spec):
        over = await c.next_of(m.GameOverMsg)
        assert over.outcome.winner is None and over.outcome.reason == "cancelled by seat a before anyone joined"
    await ended(server.store, game, "cancelled", "a")
    again = await other.call(m.CancelGame(game_id=game, token=sa.token))
    assert isinstance(again, m.Error) and again.code == "game.over"
    b = await RawClient.open(server.url, name="bob")
    join = await b.call(m.Join(game_id=game))
    assert isinstance(join, m.Error) and join.code == "lobby.game_full"
    games = {g.game_id: g for g in (await b.call(m.ListGames())).games}
    assert games[game].over


async def test_resigning_a_game_nobody_joined_cancels_it(server):
    a = await RawClient.open(server.url, name="alice")
    sa = await a.call(m.CreateGame(mission="ridge", seat="b"))
    ack = await a.call(m.ResignGame(game_id=sa.game_id, command_id="give-up"))
    assert isinstance(ack, m.Ack)
    await a.next_of(m.GameOverMsg)
    await ended(server.store, sa.game_id, "cancelled", "b")
    retry = await a.call(m.ResignGame(game_id=sa.game_id, command_id="give-up"))  # a retry: the same ack
    assert isinstance(retry, m.Ack) and retry.seq == ack.seq


async def test_a_started_game_cannot_be_cancelled(server):
    a, b, sa, sb = await seated_pair(server.url)
    await a.next_of(m.DecisionMsg)
    head = await server.store.last_seq(sa.game_id)
    reply = await a.call(m.CancelGame(game_id=sa.game_id, token=sa.token))
    assert isinstance(reply, m.Error) and reply.code == "game.started"
    assert await server.store.last_seq(sa.game_id) == head


async def test_open_games_expire_and_games_that_started_do_not(make_server):
    async with make_server(open_game_ttl=1.5) as srv:  # (long enough for seated_pair to join on a busy machine)
        a = await RawClient.open(srv.url, name="alice")
        seated = await a.call(m.CreateGame(mission="knives", seat="a"))
        created = await a.call(m.CreateGame(mission="ridge"))  # no seat at all
        x, y, sx, sy = await seated_pair(srv.url)  # joined: it started, it does not expire
        over = await a.next_of(m.GameOverMsg, timeout=10)
        assert over.game_id == seated.game_id and over.outcome.reason == "expired: nobody joined in time"
        for _ in range(100):
            if (await srv.store.game_info(created.game_id)).last_seq > 1:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.6)  # past the pair's own expiry time: it started, so nothing happens
        await ended(srv.store, seated.game_id, "expired")
        await ended(srv.store, created.game_id, "expired")
        games = {g.game_id: g for g in (await a.call(m.ListGames())).games}
        assert games[seated.game_id].over and games[created.game_id].over and not games[sx.game_id].over
        join = await x.call(m.Join(game_id=created.game_id))
        assert isinstance(join, m.Error) and join.code == "lobby.game_full"


async def test_open_games_left_by_a_restart_expire_on_time(make_server):
    from skirmish.server.store import MemoryStore

    store = MemoryStore()
    async with make_server(store=store) as srv:  # the default: an hour
        a = await RawClient.open(srv.url, name="alice")
        sa = await a.call(m.CreateGame(mission="ridge", seat="a"))
        await asyncio.sleep(0.3)
        assert (await store.game_info(sa.game_id)).last_seq == 2
    async with make_server(store=store, open_game_ttl=0.2) as srv:  # created 0.3 s ago: due already
        for _ in range(50):
            if (await store.game_info(sa.game_id)).last_seq > 2:
                break
            await asyncio.sleep(0.1)
        await ended(store, sa.game_id, "expired")
    async with make_server(store=store, open_game_ttl=0) as srv:  # 0: never
        b = await RawClient.open(srv.url, name="bob")
        sb = await b.call(m.CreateGame(mission="ridge", seat="a"))
        await asyncio.sleep(0.3)
        assert (await store.game_info(sb.game_id)).last_seq == 2


async def test_serve_open_game_ttl_flag(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", ":memory:",
                          "--open-game-ttl", "-1"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "open_game_ttl" in bad.stderr and "Traceback" not in bad.stderr
    db = tmp_path / "games.sqlite"
    server = ServerProcess(db, tmp_path / "server.log", "--open-game-ttl", "0.5")
    try:
        await server.started()
        a = await RawClient.open(server.url, name="alice")
        sa = await a.call(m.CreateGame(mission="ridge", seat="a"))
        over = await a.next_of(m.GameOverMsg, timeout=10)
        assert over.outcome.reason == "expired: nobody joined in time"
        await a.close()
        assert await server.terminate() == 0
    finally:
        server.cleanup()
    verify = subprocess.run([sys.executable, "-m", "skirmish.server.cli", "verify", sa.game_id, "--db", str(db)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and "server seed matches" in verify.stdout, verify.stdout + verify.stderr

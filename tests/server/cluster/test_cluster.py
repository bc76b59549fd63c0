"""Several ``skirmish serve`` nodes on one PostgreSQL store linked by NATS, as real processes
(``conftest.py``): a paused owner is fenced, a killed owner's games are taken over and finish, a
restarted node steals nothing, SIGTERM hands games over; nothing acknowledged is ever lost."""

from __future__ import annotations

import asyncio
import random
import signal
import time
import urllib.request

import pytest

from skirmish.bots.random_bot import RandomBot
from skirmish.bots.runner import run_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.events import OptionChosen
from skirmish.engine.evolve import replay
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.protocol import messages as m

from tests.server.net.helpers import RawClient, play, seated_pair

pytestmark = pytest.mark.postgres


def metric(node, name: str) -> float:
    port = node.url.rsplit(":", 1)[1]
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + " ")
               or line.startswith(name + "{"))


async def until(check, timeout: float = 20.0, what: str = ""):
    deadline = time.monotonic() + timeout
    while True:
        got = await check()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def test_a_paused_owner_that_continues_is_refused_by_the_store(cluster):
    await cluster.start()
    n1 = cluster.node("n1")
    a, b, sa, sb = await seated_pair(n1.url)  # created on n1: n1 owns the game
    game = sa.game_id
    assert (await cluster.owners())[game] == "n1"
    rng = random.Random(7)
    stop = lambda d: d.decision.id >= 8  # noqa: E731
    last = await asyncio.gather(play(a, game, "a", rng=rng, stop=stop), play(b, game, "b", rng=rng, stop=stop))
    pending = last[0].decision
    mover = a if pending.side == "a" else b

    n1.stopped = True
    n1.signal(signal.SIGSTOP)
    # a command reaches the paused node (the kernel holds it) ...
    msg_id = await mover.send(m.Command(game_id=game, decision_id=pending.id, option=pending.options[0],
                                        command_id="while-paused"))
    # ... while its lease expires and another node takes the game over
    owners = await until(lambda: _owner_other_than(cluster, game, "n1"), what="a takeover")
    n1.signal(signal.SIGCONT)
    n1.stopped = False
    # n1 runs the command it holds: its append carries its old epoch, and the store refuses it
    fenced = await until(lambda: _async([r for r in n1.events("append.fenced") if r.get("game") == game]),
                         what="n1's refused append")
    assert fenced[0]["epoch"] == 1
    assert metric(n1, "skirmish_appends_fenced_total") >= 1
    assert metric(cluster.node(owners), "skirmish_leases_taken_over_total") >= 1
    # the client is answered all the same: n1 forwards the command to the new owner
    reply = await until(lambda: _async([x for x in mover.msgs if getattr(x, "id", None) == msg_id]),
                        what="the command's reply")
    assert isinstance(reply[0], m.Ack), reply
    # the log holds that decision once, its chain intact, and the game finishes through n1
    async with await cluster.store() as store:
        stored = await store.read(game)
    chosen = [e for e in (decode_event(s.data) for s in stored) if isinstance(e, OptionChosen)
              and e.decision_id == pending.id]
    assert len(chosen) == 1
    assert verify_log(game, [LoggedEvent(s.seq, s.data, s.hash) for s in stored]).ok
    await asyncio.gather(play(a, game, "a", rng=rng), play(b, game, "b", rng=rng))
    await cluster.verify([game])
    assert (await cluster.owners()).get(game) is None  # over: its lease released for good


async def _owner_other_than(cluster, game: str, node: str):
    owner = (await cluster.owners()).get(game)
    return owner if owner and owner != node else None


async def _async(value):
    return value


class PacedBot(RandomBot):
    """A random bot that thinks ``PACE`` seconds (in a worker thread) before each answer: a game
    then lasts ~20 s whatever the machine's speed, long enough to kill its owner more than once
    (unpaced, a fast machine finished the games before the second kill)."""

    PACE = 0.1

    def choose(self, view, decision):
        time.sleep(self.PACE)
        return super().choose(view, decision)


class Games:
    """``n`` games of paced random bots through the proxy (so each seat lands on some node),
    recording every event each seat was shown and the head hash each was told at the end."""

    def __init__(self, cluster, n: int, seed: int = 0):
        self.cluster = cluster
        self.shown: dict[tuple[str, str], list[tuple[int, object]]] = {}
        self.heads: dict[str, set[str]] = {}
        self.ids: list[str] = []
        self.task = asyncio.gather(*(self._pair(seed * 1000 + i) for i in range(n)))

    def _recorder(self, key):
        def on_update(u):
            if hasattr(u, "event"):
                self.shown.setdefault(key(), []).append((u.seq, u.event))
            elif hasattr(u, "head_hash"):
                self.heads.setdefault(u.game_id, set()).add(u.head_hash)
        return on_update

    async def _pair(self, i: int):
        url = self.cluster.proxy.url
        seated = asyncio.get_running_loop().create_future()
        held = {}

        def on_seated(s):
            held["a"] = s.game_id
            seated.set_result(s)

        a = asyncio.create_task(run_bot(url, PacedBot(seed=i), mission="ridge", on_seated=on_seated,
                                        on_update=self._recorder(lambda: (held["a"], "a")),
                                        think_in_thread=True))
        await asyncio.wait({a, seated}, return_when=asyncio.FIRST_COMPLETED)
        if not seated.done():  # the creating bot failed before it had a seat: its error fails the test now
            await a
            raise AssertionError(f"game {i}: the creating bot ended without a seat")
        s = seated.result()
        self.ids.append(s.game_id)
        b = run_bot(url, PacedBot(seed=10_000 + i), game_id=s.game_id,
                    on_update=self._recorder(lambda: (s.game_id, "b")), think_in_thread=True)
        return await asyncio.gather(a, b)

    async def stalled(self) -> str:
        """Each game not over: where its log is, whom it waits for, the last seq each seat was shown."""
        lines = []
        async with await self.cluster.store() as store:
            for game in self.ids:
                state = replay(decode_event(e.data) for e in await store.read(game))
                if state.outcome is not None:
                    continue
                p = state.pending
                seen = {seat: max((seq for seq, _ in self.shown.get((game, seat), [])), default=0) for seat in "ab"}
                lines.append(f"game {game}: log at seq {state.seq}, waiting for "
                             f"{f'seat {p.side} (decision {p.id}, {p.kind})' if p else 'nobody'}; "
                             f"last seq shown to a: {seen['a']}, to b: {seen['b']}")
        return "\n".join(lines) or "(every game in the store is over: a bot did not stop)"

    async def check(self) -> None:
        """Every game finished and verifies; every event a seat was shown is the stored one at its
        seq (nothing acknowledged was lost or changed); the head hash announced is the log's."""
        done, _ = await asyncio.wait({self.task}, timeout=150)
        if not done:
            self.task.cancel()
            pytest.fail("games did not all end within 150 s:\n" + await self.stalled())
        outcomes = self.task.result()
        assert all(x == y for x, y in outcomes)
        await self.cluster.verify(self.ids)
        async with await self.cluster.store() as store:
            for game in self.ids:
                stored = await store.read(game)
                events = {s.seq: decode_event(s.data) for s in stored}
                for seat in ("a", "b"):
                    shown = self.shown.get((game, seat), [])
                    assert shown, (game, seat)
                    for seq, event in shown:
                        assert type(events[seq]) is type(event), (game, seat, seq)
                assert self.heads[game] == {stored[-1].hash.hex()}, game


async def _kill_owner(cluster, took: list[float]) -> str | None:
    """SIGKILL the node owning the most live games; wait until others own them all; restart it."""
    owners = await cluster.owners()
    if not owners:
        return None
    counts: dict[str, int] = {}
    for node in owners.values():
        counts[node] = counts.get(node, 0) + 1
    victim = max(counts, key=counts.get)
    games = {g for g, n in owners.items() if n == victim}
    cluster.node(victim).kill()
    killed = time.monotonic()

    async def taken():
        now = await cluster.owners()
        async with await cluster.store() as store:
            over = {g for g in games if g not in now and not await _live(store, g)}
        return all(now.get(g) not in (None, victim) or g in over for g in games)

    await until(taken, timeout=30, what=f"{victim}'s games taken over")
    took.append(time.monotonic() - killed)
    await cluster.add(victim)  # restarted under the same name
    return victim


async def _live(store, game: str) -> bool:
    """Whether the game is not over (its log has no GameEnded)."""
    from skirmish.engine.events import GameEnded

    last = await store.read(game, max(1, (await store.last_seq(game)) - 2))
    return not any(isinstance(decode_event(s.data), GameEnded) for s in last)


async def kill_owners(cluster, times: int = 3) -> tuple[list[str], list[float]]:
    """Up to ``times`` rounds, 1.5 s apart, of ``_kill_owner`` while games are live; asserts there
    were at least two. The victims, and each round's seconds until its games were taken over."""
    took: list[float] = []
    killed = []
    for _ in range(times):
        await asyncio.sleep(1.5)
        victim = await _kill_owner(cluster, took)
        if victim is None:
            break
        killed.append(victim)
    assert len(killed) >= 2, "the games ended before two owners could be killed: make them longer"
    return killed, took


async def test_killing_owners_mid_play_loses_no_acknowledged_event_and_every_game_finishes(cluster):
    await cluster.start()
    games = Games(cluster, 6, seed=1)
    killed, took = await kill_owners(cluster)
    await games.check()
    print("killed", killed, "takeover seconds", [round(t, 2) for t in took])
    assert all(t < 15 for t in took), took


async def test_sigterm_hands_the_games_over_and_a_rolling_restart_loses_nothing(cluster):
    await cluster.start()
    games = Games(cluster, 6, seed=2)
    handed = 0
    for name in ("n1", "n2"):  # a rolling restart: one node after the other
        await asyncio.sleep(1.5)
        node = cluster.node(name)
        owned = [g for g, n in (await cluster.owners()).items() if n == name]
        assert await node.terminate() == 0
        done = node.events("cluster.handed_over")
        assert done and done[-1]["games"] >= len(owned) - 1  # (one may end meanwhile)
        handed += done[-1]["games"]
        await cluster.add(name)
    assert handed >= 1
    await games.check()


async def test_a_node_restarted_under_its_name_steals_no_live_game(cluster):
    await cluster.start(("n1", "n2"))
    n1, n2 = cluster.node("n1"), cluster.node("n2")
    a, b, sa, sb = await seated_pair(n2.url)  # n2 owns this game
    x, y, sx, sy = await seated_pair(n1.url)  # n1 owns this one
    rng = random.Random(5)
    stop = lambda d: d.decision.id >= 4  # noqa: E731
    await asyncio.gather(*(play(c, g, s, rng=rng, stop=stop)
                           for c, g, s in ((a, sa.game_id, "a"), (b, sa.game_id, "b"),
                                           (x, sx.game_id, "a"), (y, sx.game_id, "b"))))
    n1.kill()
    await cluster.add("n1")  # at once: n1's lease on its game is still live, by its old life's epoch
    n1 = cluster.node("n1")
    # every seat resumes on the restarted n1: it runs replicas of both games and forwards their
    # commands; n2's live game stays n2's, and n1's old game is taken (by whichever node) only
    # once its old lease expired, with the next epoch (the old one is never used again)
    clients = []
    for game, seat, token in ((sa.game_id, "a", sa.token), (sa.game_id, "b", sb.token),
                              (sx.game_id, "a", sx.token), (sx.game_id, "b", sy.token)):
        c = await RawClient.open(n1.url, name=f"{seat}2")
        assert isinstance(await c.call(m.Resume(game_id=game, token=token, last_seq=0)), m.Seated)
        clients.append((c, game, seat))
    leases = await _leases(cluster)
    assert leases[sa.game_id][:2] == ("n2", 1)
    await asyncio.gather(*(play(c, g, s, rng=rng) for c, g, s in clients))
    leases = await _leases(cluster)
    assert leases[sx.game_id][1] == 2  # taken over once, by the next epoch
    assert leases[sa.game_id][1] == 1  # never moved: n2 kept it all along
    assert sa.game_id not in [r["game"] for r in n1.events("lease.taken")]
    assert {r["epoch"] for r in n1.events("lease.taken") if r["game"] == sx.game_id} <= {1, 2}
    await cluster.verify([sa.game_id, sx.game_id])


async def _leases(cluster) -> dict[str, tuple[str, int, bool]]:
    async with await cluster.store() as s:
        async with s.pool.connection() as conn:
            cur = await conn.execute("SELECT game_id, node, epoch, expires_at > clock_timestamp() FROM leases")
            return {row[0]: tuple(row[1:]) for row in await cur.fetchall()}


async def test_the_lobby_is_the_same_from_every_node_and_a_seat_is_taken_through_any(cluster):
    await cluster.start(("n1", "n2"))
    n1, n2 = cluster.node("n1"), cluster.node("n2")
    c1, c2 = await RawClient.open(n1.url, name="c1"), await RawClient.open(n2.url, name="c2")
    opened = await c1.call(m.CreateGame(mission="ridge", seat="a"))  # open: waits for its second player
    a, b, live, _ = await seated_pair(n2.url)  # live, owned by n2

    async def lobby(c, status=""):
        reply = await c.call(m.ListGames(status=status))
        return sorted((g.game_id, tuple(g.seats), g.started, g.over) for g in reply.games)

    # (the same once the writes in flight land: a seat is replied before the game's start is
    # stored, so the live game may still show as open on both nodes for a moment)
    await until(lambda: _same(lobby, c1, c2, 2), what="the same lobby from both nodes")
    await until(lambda: _same_started(lobby, c1, c2, live.game_id), what="the live game started on both nodes")
    assert [g[0] for g in await lobby(c2, "open")] == [opened.game_id]
    # n2 seats a player in n1's game: the join is forwarded to the owner, n2's replica seats it
    joined = await c2.call(m.Join(game_id=opened.game_id, seat="any"))
    assert isinstance(joined, m.Seated) and joined.seat == "b", joined
    assert (await cluster.owners())[opened.game_id] == "n1"
    assert await until(lambda: _same_started(lobby, c1, c2, opened.game_id), what="the same lobby")
    assert await lobby(c1, "open") == [] == await lobby(c2, "open")
    rng = random.Random(11)
    await asyncio.gather(play(c1, opened.game_id, "a", rng=rng), play(c2, opened.game_id, "b", rng=rng),
                         play(a, live.game_id, "a", rng=rng), play(b, live.game_id, "b", rng=rng))
    await until(lambda: _same(lobby, c1, c2, 2, "finished"), what="the same finished games")
    await cluster.verify([opened.game_id, live.game_id])


async def _same(lobby, c1, c2, n: int, status: str = ""):
    one, two = await lobby(c1, status), await lobby(c2, status)
    return one == two and len(one) == n


async def _same_started(lobby, c1, c2, game_id):
    one, two = await lobby(c1), await lobby(c2)
    return one == two and any(g[0] == game_id and g[2] for g in one)


async def test_a_node_hears_the_events_of_the_games_it_serves_and_no_others(cluster):
    await cluster.start(("n1", "n2"))
    n1, n2 = cluster.node("n1"), cluster.node("n2")
    rng = random.Random(5)
    a, b, sa, _ = await seated_pair(n1.url)  # both seats on n1, its owner: n2 serves nobody of it
    await asyncio.gather(play(a, sa.game_id, "a", rng=rng), play(b, sa.game_id, "b", rng=rng))
    assert metric(n2, "skirmish_events_heard_total") == 0
    c, d, sc, _ = await seated_pair(n1.url)  # ... and a spectator on n2: n2 hears this one
    watcher = await RawClient.open(n2.url, name="watcher")
    assert isinstance(await watcher.call(m.Spectate(game_id=sc.game_id)), m.Watching)
    over, _ = await asyncio.gather(play(c, sc.game_id, "a", rng=rng), play(d, sc.game_id, "b", rng=rng))
    seen = await watcher.next_of(m.GameOverMsg)
    assert seen.head_hash == over.head_hash
    assert metric(n2, "skirmish_events_heard_total") > 0
    assert metric(n1, "skirmish_events_heard_total") == 0  # (nor does a node hear what it published)
    for client in (a, b, c, d, watcher):
        await client.close()

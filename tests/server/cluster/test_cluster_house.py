"""Hosted bots on several nodes (``skirmish.server.cluster.house``), as real processes: games
between a paced client bot (through the proxy) and a hosted random bot it invites; the node owning
the games is SIGKILLed, or every node is restarted by SIGTERM in turn. Every game ends by the
game's own rules (no forfeit, no time-out), verifies, and no seat is ever played by two hosted-bot
processes at once (``/proc`` is sampled all along)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import urllib.request

import pytest

from skirmish.bots.runner import run_bot
from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameEnded, OptionChosen, Resigned, SeatTaken

from skirmish.protocol import messages as m

from tests.server.cluster.conftest import Node
from tests.server.cluster.test_cluster import PacedBot, _async, kill_owners, until
from tests.server.net.helpers import RawClient, play

pytestmark = pytest.mark.postgres


class SlowBot(PacedBot):
    """The client's side thinks 0.2 s a decision (the hosted bot answers at once): a game lasts long
    enough to lose its owner twice."""

    PACE = 0.2


def hosted_bots(games: set[str]) -> dict[str, list[tuple[int, int]]]:
    """game -> the (pid, parent pid) of each live hosted-bot process (``skirmish bot --parent-pid``)
    playing it, from /proc."""
    out: dict[str, list[tuple[int, int]]] = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if b"--parent-pid" in argv and b"--game" in argv and stat[0] != b"Z":
            game = argv[argv.index(b"--game") + 1].decode()
            if game in games:
                out.setdefault(game, []).append((int(pid), int(stat[1])))
    return out


class HostedGames:
    """``n`` games, each created through the proxy by a paced client bot that then invites a hosted
    random bot (``GET /api/games/ID/house-bot``, through the proxy: any node); while they run, the
    hosted-bot processes are sampled every 50 ms."""

    def __init__(self, cluster, n: int, seed: int = 0):
        self.cluster = cluster
        self.ids: set[str] = set()
        self.most: dict[str, int] = {}  # game -> the most hosted-bot processes seen at once
        self.orphans: list[tuple[str, int]] = []  # a bot whose parent is no node
        self.outcomes = asyncio.gather(*(self._game(seed * 1000 + i) for i in range(n)))
        self._sampler = asyncio.create_task(self._sample())

    async def _game(self, i: int):
        url = self.cluster.proxy.url
        seated = asyncio.get_running_loop().create_future()
        play = asyncio.create_task(run_bot(url, SlowBot(seed=i), mission="ridge", on_seated=seated.set_result,
                                           think_in_thread=True))
        s = await seated
        self.ids.add(s.game_id)
        http = "http" + url.removeprefix("ws") + f"/api/games/{s.game_id}/house-bot?bot=random"
        request = urllib.request.Request(http, headers={"X-Skirmish-Token": s.token})
        reply = await asyncio.to_thread(lambda: json.loads(urllib.request.urlopen(request, timeout=20).read()))
        assert reply["joining"], reply
        return await play

    async def joined(self, n: int, timeout: float = 40.0) -> None:
        """Until the ``n`` games' hosted bots have taken their seats (an invited bot that has not
        joined yet when its node dies is not resumed: nothing in the log names it yet)."""
        deadline = time.monotonic() + timeout
        while True:
            if len(self.ids) == n:
                async with await self.cluster.store() as store:
                    seated = [sum(isinstance(decode_event(s.data), SeatTaken) for s in await store.read(g, 1, 16))
                              for g in self.ids]
                if all(k == 2 for k in seated):
                    return
            assert time.monotonic() < deadline, "the hosted bots did not join"
            await asyncio.sleep(0.2)

    async def _sample(self) -> None:
        orphaned: dict[int, float] = {}  # pid -> when first seen with a parent that is no live node
        while True:
            nodes = {n.proc.pid for n in self.cluster.nodes if n.alive}
            seen = await asyncio.to_thread(hosted_bots, set(self.ids))
            now = time.monotonic()
            for game, procs in seen.items():
                self.most[game] = max(self.most.get(game, 0), len(procs))
                for pid, parent in procs:
                    # (the kernel kills a dead node's bot at once, but a sample may catch it between
                    # its parent's death and its own: an orphan still there 0.5 s later is a fault)
                    if parent not in nodes and now - orphaned.setdefault(pid, now) > 0.5:
                        self.orphans.append((game, pid))
            await asyncio.sleep(0.05)

    async def check(self) -> None:
        """Every game ended by its rules and verifies; one hosted bot per game at most, at any time,
        and every one a child of a live node."""
        outcomes = await asyncio.wait_for(self.outcomes, 150)
        self._sampler.cancel()
        await self.cluster.verify(sorted(self.ids))
        async with await self.cluster.store() as store:
            for game in self.ids:
                events = [decode_event(s.data) for s in await store.read(game)]
                assert any(isinstance(e, GameEnded) for e in events), game
                assert not [e for e in events if isinstance(e, Resigned)], (game, "a forfeit or resignation")
                assert not [e for e in events if isinstance(e, OptionChosen) and e.timeout], (game, "a time-out")
        reasons = [o.reason for o in outcomes]
        assert not [r for r in reasons if "forfeit" in r or "resign" in r], reasons
        assert self.most and all(n == 1 for n in self.most.values()), self.most
        assert set(self.most) == self.ids, "a game whose hosted bot was never seen"
        assert not self.orphans, self.orphans


def lives(node) -> list[list[dict]]:
    """The node's JSON log records, one list per life (a restarted node appends to the same log)."""
    out: list[list[dict]] = []
    for line in node.log_lines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("event") == "cluster.joined" or not out:
            out.append([])
        out[-1].append(record)
    return out


def bots_started_without_a_lease(nodes) -> list[tuple[str, int, str]]:
    """(node, life, game) of every hosted bot a node resumed for a game it had not taken the lease of
    in the same life (a restarted node must start none for the games it does not own)."""
    bad = []
    for node in {n.name: n for n in nodes}.values():
        for i, records in enumerate(lives(node)):
            taken = set()
            for r in records:
                if r.get("event") == "lease.taken":
                    taken.add(r["game"])
                elif r.get("event") == "house_bot.start" and r.get("resume") and r["game"] not in taken:
                    bad.append((node.name, i, r["game"]))
    return bad


def resumed(nodes) -> int:
    return sum(1 for n in {n.name: n for n in nodes}.values() for r in n.events("house_bot.start") if r.get("resume"))


async def test_a_killed_owners_hosted_bots_play_on_on_the_node_that_takes_their_games(cluster):
    cluster.extra = ("--house-bots", "random")
    await cluster.start()
    games = HostedGames(cluster, 4, seed=3)
    await games.joined(4)
    killed, took = await kill_owners(cluster)
    started = time.monotonic()
    await games.check()
    print("killed", killed, "takeover seconds", [round(t, 2) for t in took], "bots resumed", resumed(cluster.nodes),
          f"finished {time.monotonic() - started:.1f} s after the last kill")
    assert resumed(cluster.nodes) >= len(killed)  # each victim's games' bots were started again elsewhere
    assert not bots_started_without_a_lease(cluster.nodes)


async def test_a_rolling_restart_moves_the_hosted_bots_with_their_games(cluster):
    cluster.extra = ("--house-bots", "random")
    await cluster.start()
    games = HostedGames(cluster, 4, seed=4)
    await games.joined(4)
    handed = 0
    for name in ("n1", "n2"):  # one node after the other
        await asyncio.sleep(1.5)
        node = cluster.node(name)
        assert await node.terminate() == 0
        records = lives(node)[-1]
        events = [r["event"] for r in records]
        done = [r for r in records if r["event"] == "cluster.handed_over"]
        handed += done[-1]["games"]
        # the node's bots stopped (their processes gone) before it handed any game over
        exits = [i for i, e in enumerate(events) if e == "house_bot.exit"]
        assert all(i < events.index("cluster.handed_over") for i in exits), name
        await cluster.add(name)
    assert handed >= 1
    await games.check()
    print("games handed over", handed, "bots resumed", resumed(cluster.nodes))
    assert resumed(cluster.nodes) >= 1
    assert not bots_started_without_a_lease(cluster.nodes)


async def test_an_invitation_on_another_node_starts_the_bot_on_the_owner_and_its_successor_resumes_it(cluster):
    cluster.extra = ("--house-bots", "random")
    await cluster.start(("n1", "n2"))
    n1, n2 = cluster.node("n1"), cluster.node("n2")
    player = await RawClient.open(n1.url, name="p")
    seated = await player.call(m.CreateGame(mission="ridge", seat="a"))  # n1 owns the game
    game = seated.game_id
    # the invitation reaches n2, which forwards it to n1: the bot is n1's subprocess
    url = n2.url.replace("ws://", "http://") + f"/api/games/{game}/house-bot?bot=random"
    request = urllib.request.Request(url, headers={"X-Skirmish-Token": seated.token})
    reply = await asyncio.to_thread(lambda: json.loads(urllib.request.urlopen(request, timeout=20).read()))
    assert reply == {"game_id": game, "bot": "random", "joining": True}
    await until(lambda: _async([r for r in n1.events("house_bot.start") if r["game"] == game]), what="n1's bot")
    assert not n2.events("house_bot.start")
    rng = random.Random(9)
    await play(player, game, "a", rng=rng, stop=lambda d: d.decision.id >= 6)
    assert len(hosted_bots({game})[game]) == 1
    n1.kill()  # its bot goes with it; n2 takes the game over and starts the bot again there
    await until(lambda: _async(not hosted_bots({game})), what="n1's bot gone")
    again = await RawClient.open(n2.url, name="p2")
    assert isinstance(await again.call(m.Resume(game_id=game, token=seated.token, last_seq=0)), m.Seated)
    resumed = await until(lambda: _async([r for r in n2.events("house_bot.start") if r["game"] == game]),
                          what="n2's bot")
    assert resumed[0]["resume"] is True
    [(pid, parent)] = hosted_bots({game})[game]
    assert parent == n2.proc.pid
    over = await play(again, game, "a", rng=rng)
    assert not over.forfeit and "forfeit" not in over.outcome.reason, over
    await cluster.verify([game])


async def test_a_node_that_does_not_host_the_bot_says_so_when_it_takes_the_game(cluster):
    cluster.extra = ("--house-bots", "random")
    await cluster.start(("n1",))
    plain = Node(cluster, "n2")  # no --house-bots
    plain.stopped = False
    cluster.nodes.append(plain)
    await plain.started(timeout=60)
    n1 = cluster.node("n1")
    player = await RawClient.open(n1.url, name="p")
    seated = await player.call(m.CreateGame(mission="ridge", seat="a"))
    game = seated.game_id
    url = n1.url.replace("ws://", "http://") + f"/api/games/{game}/house-bot?bot=random"
    request = urllib.request.Request(url, headers={"X-Skirmish-Token": seated.token})
    await asyncio.to_thread(lambda: urllib.request.urlopen(request, timeout=20).read())
    await play(player, game, "a", rng=random.Random(2), stop=lambda d: d.decision.id >= 3)
    n1.kill()
    warned = await until(lambda: _async([r for r in plain.events("house_bot.not_hosted") if r["game"] == game]),
                         what="n2's warning")
    assert warned[0]["bot"] == "random" and "does not host bot 'random'" in warned[0]["problem"], warned
    assert not plain.events("house_bot.start") and not hosted_bots({game})

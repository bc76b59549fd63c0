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

"""One connection per seat across the nodes: a seat resumed on another node is let go by the older
connection holding it (told ``auth.not_seated``, as on one node)."""

from __future__ import annotations

import asyncio
import random

import pytest

from skirmish.protocol import messages as m

from tests.server.cluster.test_cluster import _async, until
from tests.server.net.helpers import RawClient, play, seated_pair

pytestmark = pytest.mark.postgres


async def test_a_seat_resumed_on_another_node_is_let_go_by_the_older_connection(cluster):
    await cluster.start(("n1", "n2"))
    n1, n2 = cluster.node("n1"), cluster.node("n2")
    a, b, sa, sb = await seated_pair(n1.url)
    game = sa.game_id
    rng = random.Random(4)
    last = await asyncio.gather(play(a, game, "a", rng=rng, stop=lambda d: d.decision.id >= 4),
                                play(b, game, "b", rng=rng, stop=lambda d: d.decision.id >= 4))
    # seat a resumed on n2 while the first connection, on n1, is still open
    a2 = await RawClient.open(n2.url, name="a2")
    assert isinstance(await a2.call(m.Resume(game_id=game, token=sa.token, last_seq=0)), m.Seated)
    told = await until(lambda: _async([x for x in a.msgs if isinstance(x, m.Error) and x.code == "auth.not_seated"]),
                       what="the older connection told")
    assert "resumed on another connection (node n2)" in told[0].message
    assert [r["conn"] for r in n1.events("seat.resumed_elsewhere") if r["game"] == game]
    # the older connection holds the seat no more; the new one plays it to the end
    pending = last[0].decision
    reply = await a.call(m.Command(game_id=game, decision_id=pending.id, option=pending.options[0],
                                   command_id="old-connection"))
    assert isinstance(reply, m.Error) and reply.code == "auth.not_seated", reply
    assert not [x for x in b.msgs if isinstance(x, m.Error) and x.code == "auth.not_seated"]  # (seat b: untouched)
    if pending.side == "b":  # (b's play stopped on it: b answers it, then plays on)
        assert isinstance(await b.call(m.Command(game_id=game, decision_id=pending.id, option=pending.options[0],
                                                 command_id="b-pending")), m.Ack)
    await asyncio.gather(play(a2, game, "a", rng=rng), play(b, game, "b", rng=rng))
    await cluster.verify([game])
    assert n2.events("seat.resumed_elsewhere") == []  # (the newer connection was never told to let go)

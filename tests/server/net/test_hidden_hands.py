"""Through a real server (challenges module, seed 002): no frame a seat or a spectator receives
before the game ends holds a card of another side's hidden hand, the roll that drew it, or the
salt; afterwards the stored log verifies."""

from __future__ import annotations

import asyncio
import random

from skirmish.engine.events import DecisionRequested, GameEnded
from skirmish.engine.rules.challenges.events import CardDrawn
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK

from tests.engine.rules.challenges.hidden_check import leaks

from .helpers import RawClient, play, seated_pair, verify_store


async def test_no_frame_before_the_end_shows_the_other_sides_cards(server):
    for game in range(2):
        a, b, sa, sb = await seated_pair(server.url, mission="knives", codecs=(MSGPACK, JSON))
        spec = await RawClient.open(server.url, codec=JSON, name="spec")
        await spec.call(m.Spectate(game_id=sa.game_id))
        rng = random.Random(20 + game)
        await asyncio.gather(play(a, sa.game_id, "a", rng=rng), play(b, sa.game_id, "b", rng=rng),
                             spec.next_of(m.GameOverMsg))
        drawn = 0
        for client, viewer in ((a, "a"), (b, "b"), (spec, "spectator")):
            for msg in client.msgs:
                if isinstance(msg, m.EventMsg) and isinstance(msg.event, GameEnded):
                    break
                if isinstance(msg, m.EventMsg):
                    assert not leaks(msg.event, viewer), (viewer, msg)
                    drawn += isinstance(msg.event, CardDrawn) and msg.event.side == viewer and bool(msg.event.card)
                elif isinstance(msg, m.DecisionMsg):
                    assert not leaks(DecisionRequested(decision=msg.decision), viewer), (viewer, msg)
            else:
                raise AssertionError(f"{viewer} never saw the game end")
        assert drawn >= 4  # each seat did see its own cards
        report = await verify_store(server.store, sa.game_id)
        assert report.ok and report.finished and report.seed_verified, report.problem
        for c in (a, b, spec):
            await c.close()

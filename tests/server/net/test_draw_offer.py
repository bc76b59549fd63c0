"""A draw by agreement over the wire (issue 16; docs/protocol.md, offer_draw): a seat offers, the
other seat and a spectator see the ``DrawOffered`` event; the other seat's ``offer_draw`` accepts
it and every connection gets the same ``game_over``, drawn; a retried offer is answered with the
first one's ack; a second offer from the same seat is refused."""

from __future__ import annotations

from skirmish.engine.events import DrawAgreed, DrawOffered
from skirmish.protocol import messages as m

from tests.server.net.helpers import RawClient, seated_pair


async def next_event(c: RawClient, cls):
    while True:
        msg = await c.next_of(m.EventMsg)
        if isinstance(msg.event, cls):
            return msg.event


async def test_an_offer_and_its_acceptance_end_the_game_drawn_for_everyone(server):
    a, b, sa, sb = await seated_pair(server.url)
    spectator = await RawClient.open(server.url)
    await spectator.call(m.Spectate(game_id=sa.game_id))
    ack = await a.call(m.OfferDraw(game_id=sa.game_id, command_id="draw-1"))
    assert isinstance(ack, m.Ack) and ack.seq == await server.store.last_seq(sa.game_id)
    for c in (b, spectator):
        assert await next_event(c, DrawOffered) == DrawOffered(side="a")
    again = await a.call(m.OfferDraw(game_id=sa.game_id, command_id="draw-1"))  # a retry: the same ack
    assert again.seq == ack.seq
    refused = await a.call(m.OfferDraw(game_id=sa.game_id, command_id="draw-2"))  # offered already
    assert isinstance(refused, m.Error) and refused.code.startswith("game."), refused
    await b.call(m.OfferDraw(game_id=sa.game_id, command_id="yes"))
    assert await next_event(spectator, DrawAgreed) == DrawAgreed(side="b")
    overs = [await c.next_of(m.GameOverMsg) for c in (a, b, spectator)]
    assert overs[0] == overs[1] == overs[2]
    assert overs[0].outcome.winner is None and overs[0].outcome.reason == "a draw by agreement"


async def test_a_spectator_cannot_offer_a_draw(server):
    a, b, sa, sb = await seated_pair(server.url)
    spectator = await RawClient.open(server.url)
    await spectator.call(m.Spectate(game_id=sa.game_id))
    refused = await spectator.call(m.OfferDraw(game_id=sa.game_id))
    assert isinstance(refused, m.Error) and refused.code == "auth.not_seated", refused

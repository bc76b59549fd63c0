"""Command ids: a retried command gets the same ack and acts once, even across a restart."""

from __future__ import annotations

import asyncio

from skirmish.engine.codec import decode_event
from skirmish.engine.events import OptionChosen, Resigned
from skirmish.protocol import messages as m
from skirmish.server.store import MemoryStore

from .helpers import RawClient, seated_pair


def mine(first, a, b):
    return (a, b) if first.decision.side == "a" else (b, a)


async def chosen(store, game_id, decision_id):
    return [e for e in (decode_event(s.data) for s in await store.read(game_id))
            if isinstance(e, OptionChosen) and e.decision_id == decision_id]


async def test_the_same_command_id_twice_gives_the_same_ack_and_one_set_of_events(server):
    a, b, sa, sb = await seated_pair(server.url)
    first = await a.next_of(m.DecisionMsg)
    me, other = mine(first, a, b)
    d = first.decision
    cmd = m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id="cmd-1")
    ack1 = await me.call(cmd)
    after_first = await server.store.last_seq(sa.game_id)
    ack2 = await me.call(cmd)
    assert isinstance(ack1, m.Ack) and isinstance(ack2, m.Ack) and ack1.seq == ack2.seq == after_first
    assert await server.store.last_seq(sa.game_id) == after_first
    assert len(await chosen(server.store, sa.game_id, d.id)) == 1
    # each seat has its own command ids: the other seat's "cmd-1" is a new command
    while True:
        nxt = await other.next_of(m.DecisionMsg)
        if nxt.decision.id > d.id:
            break
    actor_of_next = me if nxt.decision.side == ("a" if me is a else "b") else other
    reply = await actor_of_next.call(m.Command(game_id=sa.game_id, decision_id=nxt.decision.id,
                                               option=nxt.decision.options[0], command_id="cmd-1"))
    if actor_of_next is other:
        assert isinstance(reply, m.Ack) and reply.seq > ack1.seq
    else:  # the same seat reusing an id for another command: a typed error, and nothing happens
        assert isinstance(reply, m.Error) and reply.code == "game.command_id_reused", reply
        assert await server.store.last_seq(sa.game_id) == after_first


async def test_two_copies_in_flight_at_once(server):
    a, b, sa, sb = await seated_pair(server.url)
    first = await a.next_of(m.DecisionMsg)
    me, _ = mine(first, a, b)
    d = first.decision

    def cmd():
        return m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id="twice")

    acks = await asyncio.gather(me.call(cmd()), me.call(cmd()))
    assert all(isinstance(x, m.Ack) for x in acks) and acks[0].seq == acks[1].seq
    assert len(await chosen(server.store, sa.game_id, d.id)) == 1


async def test_a_retry_after_a_restart_is_recognised(make_server):
    store = MemoryStore()
    async with make_server(store=store) as srv:
        a, b, sa, sb = await seated_pair(srv.url)
        first = await a.next_of(m.DecisionMsg)
        me, _ = mine(first, a, b)
        seat = "a" if me is a else "b"
        token = sa.token if me is a else sb.token
        d = first.decision
        ack = await me.call(m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id="r-1"))
        resign = await me.call(m.ResignGame(game_id=sa.game_id, command_id="r-2"))
        assert isinstance(resign, m.Ack)
    async with make_server(store=store) as srv:
        c = await RawClient.open(srv.url)
        assert isinstance(await c.call(m.Resume(game_id=sa.game_id, token=token, last_seq=resign.seq)), m.Seated)
        again = await c.call(m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id="r-1"))
        assert again == m.Ack(game_id=sa.game_id, seq=ack.seq, id=again.id)
        again = await c.call(m.ResignGame(game_id=sa.game_id, command_id="r-2"))
        assert again.seq == resign.seq
        fresh = await c.call(m.ResignGame(game_id=sa.game_id, command_id="r-3"))
        assert isinstance(fresh, m.Error) and fresh.code == "game.over"
    events = [decode_event(s.data) for s in await store.read(sa.game_id)]
    assert [e for e in events if isinstance(e, Resigned)] == [Resigned(side=seat)]


class CountingStore(MemoryStore):
    """A memory store that keeps every append it is asked for (stored or refused)."""

    def __init__(self):
        super().__init__()
        self.appends: list[tuple[str, int, list[bytes], str | None]] = []

    async def append(self, game_id, expected_seq, events, command_id=None):
        self.appends.append((game_id, expected_seq, list(events), command_id))
        return await super().append(game_id, expected_seq, events, command_id)


async def test_a_retry_is_looked_up_with_find_command_never_a_probing_append(make_server):
    """A retried command whose decision has moved on is found with the store's ``find_command``;
    the actor never sends the store a fake append to learn what a command id stored."""
    store = CountingStore()
    async with make_server(store=store) as srv:
        a, b, sa, sb = await seated_pair(srv.url)
        first = await a.next_of(m.DecisionMsg)
        me, _ = mine(first, a, b)
        d = first.decision
        cmd = m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id="probe-1")
        ack = await me.call(cmd)
        appends = len(store.appends)
        again = await me.call(cmd)  # decision d is answered: the retry is recognised by its id
        assert isinstance(again, m.Ack) and again.seq == ack.seq
        assert store.appends[appends:] == []
        assert all(events != [b"\xc0"] for _, _, events, _ in store.appends)

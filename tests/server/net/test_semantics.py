"""Protocol semantics over real WebSockets (issue 12, items 17-19): the whole log after the end,
reused command ids, the end-of-backlog marker ``live``, out-of-range seqs, a second ``hello``."""

from __future__ import annotations

import asyncio
import random

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.view import viewed as viewed_log
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK

from .helpers import RawClient, encode_raw, play, seated_pair, viewed


def kinds(c: RawClient, game_id: str) -> list[str]:
    """The message types ``c`` received for ``game_id``, in order (replies, pushes and markers)."""
    return [type(x).__name__ for x in c.msgs if getattr(x, "game_id", None) == game_id]


async def until_live(c: RawClient, game_id: str) -> m.Live:
    while True:
        msg = await c.next_of(m.Live)
        if msg.game_id == game_id:
            return msg


# -- 17: the whole log is open once the game is over --------------------------------------------


async def test_after_the_end_resume_and_spectate_send_the_whole_log(server):
    a, b, sa, sb = await seated_pair(server.url, mission="knives", codecs=(MSGPACK, JSON))
    game = sa.game_id
    rng = random.Random(17)
    # play a while (cards are drawn and played), then a resigns
    await asyncio.gather(play(a, game, "a", rng=rng, stop=lambda d: d.decision.id >= 12),
                         play(b, game, "b", rng=rng, stop=lambda d: d.decision.id >= 12))
    assert isinstance(await a.call(m.ResignGame(game_id=game, command_id="a-resign")), m.Ack)
    await b.next_of(m.GameOverMsg)
    full = await viewed(server.store, game, "all")
    events = [e for _, e in full]
    hidden = [(seq, e) for (seq, e), a_sees, spectator_sees in zip(full, viewed_log(events, "a"),
                                                                            viewed_log(events, "spectator"))
              if a_sees != e or spectator_sees != e]
    assert hidden, "the knives game had hidden information to hide"
    assert any(isinstance(e, cev.CardDrawn) and e.side == "b" and e.card for _, e in hidden)  # b's hand, say
    head = full[-1][0]
    for codec in (MSGPACK, JSON):
        resumed = await RawClient.open(server.url, codec=codec, name="alice-again")
        reply = await resumed.call(m.Resume(game_id=game, token=sa.token, last_seq=0))
        assert isinstance(reply, m.Seated) and reply.seat == "a"
        assert (await until_live(resumed, game)).seq == head
        assert resumed.events(game) == full  # not a's view: the whole log
        watcher = await RawClient.open(server.url, codec=codec, name="late-spectator")
        reply = await watcher.call(m.Spectate(game_id=game))
        assert isinstance(reply, m.Watching) and reply.viewer == "spectator"
        assert (await until_live(watcher, game)).seq == head
        assert watcher.events(game) == full
        assert kinds(watcher, game)[-2:] == ["GameOverMsg", "Live"]
        # from any seq: the rest of the whole log
        part = await RawClient.open(server.url, codec=codec, name="from-the-middle")
        await part.call(m.Spectate(game_id=game, after_seq=hidden[0][0] - 1))
        await until_live(part, game)
        assert part.events(game) == [x for x in full if x[0] >= hidden[0][0]]
        for c in (resumed, watcher, part):
            await c.close()


async def test_before_the_end_resume_and_spectate_stay_redacted(server):
    a, b, sa, sb = await seated_pair(server.url, mission="knives")
    game = sa.game_id
    await a.next_of(m.DecisionMsg)
    again = await RawClient.open(server.url, name="alice-again")
    await again.call(m.Resume(game_id=game, token=sa.token))
    await until_live(again, game)
    assert again.events(game) == await viewed(server.store, game, "a") != await viewed(server.store, game, "all")


# -- 18: a command id reused for another command ------------------------------------------------


async def test_a_command_id_reused_for_another_command_is_refused_and_a_retry_is_not(server):
    a, b, sa, sb = await seated_pair(server.url)
    game = sa.game_id
    first = await a.next_of(m.DecisionMsg)
    me = a if first.decision.side == "a" else b
    seat = first.decision.side
    d = first.decision
    cmd = m.Command(game_id=game, decision_id=d.id, option=d.options[0], command_id="once")
    ack = await me.call(cmd)
    assert isinstance(ack, m.Ack)
    head = await server.store.last_seq(game)
    # the same command again: its old ack (an idempotent retry)
    again = await me.call(m.Command(game_id=game, decision_id=d.id, option=d.options[0], command_id="once"))
    assert isinstance(again, m.Ack) and again.seq == ack.seq
    # the same id with another option for the same (answered) decision, and for a resignation
    for other in (m.Command(game_id=game, decision_id=d.id, option=d.options[1], command_id="once"),
                  m.ResignGame(game_id=game, command_id="once")):
        reply = await me.call(other)
        assert isinstance(reply, m.Error) and reply.code == "game.command_id_reused", reply
        assert "once" in reply.message and f"decision {d.id}" in reply.message
    # the same id on the seat's next decision: refused, and the decision still waits for an answer
    while True:
        nxt = await me.next_of(m.DecisionMsg)
        if nxt.decision.id > d.id and nxt.decision.side == seat:
            break
        if nxt.decision.id > d.id:  # the other seat's turn: answer it
            other = b if me is a else a
            assert isinstance(await other.call(m.Command(game_id=game, decision_id=nxt.decision.id,
                                                         option=nxt.decision.options[0], command_id="o")), m.Ack)
    head = await server.store.last_seq(game)
    reply = await me.call(m.Command(game_id=game, decision_id=nxt.decision.id, option=nxt.decision.options[0],
                                    command_id="once"))
    assert isinstance(reply, m.Error) and reply.code == "game.command_id_reused", reply
    assert await server.store.last_seq(game) == head
    fresh = await me.call(m.Command(game_id=game, decision_id=nxt.decision.id, option=nxt.decision.options[0],
                                    command_id="twice"))
    assert isinstance(fresh, m.Ack) and fresh.seq > head


# -- 19: live, out-of-range seqs, a second hello ---------------------------------------------------


async def test_live_ends_the_backlog_of_seated_watching_and_resume(server):
    a = await RawClient.open(server.url, name="alice")
    sa = await a.call(m.CreateGame(mission="ridge", seat="a"))
    game = sa.game_id
    live = await until_live(a, game)
    assert live.seq == 2 and kinds(a, game) == ["Seated", "EventMsg", "EventMsg", "Live"]
    b = await RawClient.open(server.url, name="bob")
    await b.call(m.Join(game_id=game))
    live = await until_live(b, game)
    head = await server.store.last_seq(game)
    # the backlog, the start and the first decision, then live at the head
    assert live.seq == head and kinds(b, game)[0] == "Seated" and kinds(b, game)[-2:] == ["DecisionMsg", "Live"]
    assert b.events(game) == await viewed(server.store, game, "b")
    spec = await RawClient.open(server.url, name="spec")
    await spec.call(m.Spectate(game_id=game, after_seq=3))
    assert (await until_live(spec, game)).seq == head
    assert kinds(spec, game) == ["Watching", *["EventMsg"] * (head - 3), "DecisionMsg", "Live"]
    again = await RawClient.open(server.url, name="alice-2")
    await again.call(m.Resume(game_id=game, token=sa.token, last_seq=head))  # nothing missed
    assert (await until_live(again, game)).seq == head
    assert kinds(again, game) == ["Seated", "DecisionMsg", "Live"]
    assert a.msgs.count(m.Live(game_id=game, seq=2)) == 1 and sum(isinstance(x, m.Live) for x in a.msgs) == 1


async def test_live_follows_the_updates_of_a_batch_connection(server):
    c = await RawClient.open(server.url, name="batch", hello=False)
    await c.call(m.Hello(protocol=m.PROTOCOL_VERSION, client="batch", batch=True))
    a, b, sa, sb = await seated_pair(server.url)
    await a.next_of(m.DecisionMsg)
    await c.call(m.Spectate(game_id=sa.game_id))
    live = await until_live(c, sa.game_id)
    assert kinds(c, sa.game_id) == ["Watching", "Updates", "Live"]
    assert live.seq == await server.store.last_seq(sa.game_id)


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
async def test_out_of_range_seqs_are_typed_errors_and_change_nothing(server, codec):
    a, b, sa, sb = await seated_pair(server.url)
    await a.next_of(m.DecisionMsg)
    game = sa.game_id
    head = await server.store.last_seq(game)
    c = await RawClient.open(server.url, codec=codec, name="probe")
    huge = [2**63, 2**64 - 1] + ([2**70, -(2**70)] if codec == JSON else [])
    for field, kind, extra in (("last_seq", "resume", {"token": sb.token}), ("after_seq", "spectate", {})):
        for bad, code in [(-1, "protocol.invalid_field"), (head + 1, "lobby.seq_out_of_range"),
                          (2**63 - 1, "lobby.seq_out_of_range"), *[(n, "protocol.invalid_field") for n in huge]]:
            msg_id = 100 + len(c.msgs)
            frame = encode_raw(codec, {"type": kind, "game_id": game, field: bad, "id": msg_id, **extra})
            reply = await c.call_raw(frame, msg_id)
            assert isinstance(reply, m.Error) and reply.code == code, (field, bad, reply)
            assert field in reply.message
        ok = await c.call(m.Spectate(game_id=game, after_seq=head) if kind == "spectate" else
                          m.Resume(game_id=game, token=sb.token, last_seq=head))
        assert not isinstance(ok, m.Error), ok
    assert c.events(game) == []  # no backlog was sent for a refused request
    assert await server.store.last_seq(game) == head


async def test_a_second_hello_is_refused_and_the_first_stands(server):
    c = await RawClient.open(server.url, name="first")  # no batch
    reply = await c.call(m.Hello(protocol=m.PROTOCOL_VERSION, client="second", batch=True))
    assert isinstance(reply, m.Error) and reply.code == "protocol.hello_again"
    reply = await c.call(m.Hello(protocol=2, client="third"))
    assert isinstance(reply, m.Error) and reply.code == "protocol.hello_again"
    sa = await c.call(m.CreateGame(mission="ridge", seat="a"))
    await until_live(c, sa.game_id)
    assert not any(isinstance(x, m.Updates) for x in c.msgs)  # still not batch
    stored = await viewed(server.store, sa.game_id, "all")
    assert stored[1][1] == ev.SeatTaken(seat="a", name="first")


def test_seq_fields_reject_what_msgspec_would_take_as_a_big_int():
    """msgspec decodes a JSON 2**70 as a Python int; the Seq type bounds it at decoding."""
    from skirmish.protocol.codec import codec_for
    from skirmish.protocol.errors import ProtocolError

    for n in (2**70, -1):
        with pytest.raises(ProtocolError) as err:
            codec_for(JSON).decode_client(msgspec.json.encode({"type": "resume", "game_id": "g", "token": "t",
                                                               "last_seq": n}).decode())
        assert err.value.code == "protocol.invalid_field" and "last_seq" in err.value.message

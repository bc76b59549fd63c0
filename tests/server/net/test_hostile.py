"""Hostile input: each gets its documented error, the connection stays usable (where it is not
closed by design), and the game's stored log is byte-identical before and after."""

from __future__ import annotations

import asyncio
import secrets

import msgspec
import pytest
from websockets.exceptions import ConnectionClosed

from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK

from .helpers import RawClient, encode_raw, log_bytes, seated_pair


@pytest.fixture
async def game(server):
    """A started game: (server, a, b, seated a, seated b, the first decision)."""
    a, b, sa, sb = await seated_pair(server.url)
    first = await a.next_of(m.DecisionMsg)
    await b.next_of(m.DecisionMsg)
    return server, a, b, sa, sb, first


class Unchanged:
    """``async with Unchanged(store, game_id)``: the log is byte-identical at the end."""

    def __init__(self, store, game_id):
        self.store, self.game_id = store, game_id

    async def __aenter__(self):
        self.before = await log_bytes(self.store, self.game_id)
        return self

    async def __aexit__(self, *exc):
        await asyncio.sleep(0.05)  # anything the server might (wrongly) still do
        assert await log_bytes(self.store, self.game_id) == self.before


def mine(first, a, b):
    """(the client whose decision is pending, the other client)."""
    return (a, b) if first.decision.side == "a" else (b, a)


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
async def test_garbage_truncated_and_wrong_kind_frames_are_malformed(game, codec):
    server, a, b, sa, sb, first = game
    c = await RawClient.open(server.url, codec=codec)
    good = encode_raw(codec, {"type": "ping", "id": 9})
    if codec == MSGPACK:
        frames = [b"\xff\xfe\x00garbage\x93", good[: len(good) // 2], b"", '{"type": "ping", "id": 1}', b"\xc1"]
    else:
        frames = ["not json at all", good[: len(good) // 2], "", b"\x82\xa4type\xa4ping", "[1, 2, 3]", "{\"id\": 4}"]
    async with Unchanged(server.store, sa.game_id):
        for frame in frames:
            await c.send_raw(frame)
            err = await c.next_of(m.Error)
            assert err.code == "protocol.malformed", (frame, err)
            await c.ping()


async def test_a_json_text_frame_on_the_msgpack_subprotocol(game):
    server, a, b, sa, sb, first = game
    async with Unchanged(server.store, sa.game_id):
        frame = msgspec.json.encode({"type": "command", "game_id": sa.game_id, "decision_id": first.decision.id,
                                     "option": list(first.decision.options[0]), "id": 77}).decode()
        await a.send_raw(frame)
        err = await a.next_of(m.Error)
        assert err.code == "protocol.malformed" and "binary" in err.message
        await a.ping()


async def test_oversized_frames(make_server):
    async with make_server(max_frame=4096, ws_max_size=64 * 1024, replay_max=0) as server:
        a, b, sa, sb = await seated_pair(server.url)
        async with Unchanged(server.store, sa.game_id):
            big = msgspec.msgpack.encode({"type": "ping", "id": 5, "pad": "x" * 5000})
            reply = await a.call_raw(big, 5)
            assert isinstance(reply, m.Error) and reply.code == "protocol.too_large"
            await a.ping()
            # past websockets' own limit the connection is closed with 1009 (message too big)
            await a.send_raw(b"\x00" * (65 * 1024))
            await a.until_closed()
            assert a.ws.close_code == 1009
        await b.ping()


async def test_unknown_type_and_wrong_field_types(game):
    server, a, b, sa, sb, first = game
    me, _ = mine(first, a, b)
    d = first.decision
    cases = [
        ({"type": "frobnicate", "id": 7}, "protocol.unknown_type"),
        ({"type": "command", "game_id": sa.game_id, "decision_id": "x", "option": list(d.options[0]), "id": 8},
         "protocol.invalid_field"),
        ({"type": "command", "game_id": sa.game_id, "decision_id": d.id, "option": [1.5], "id": 9},
         "protocol.invalid_field"),
        ({"type": "command", "game_id": sa.game_id, "decision_id": d.id, "option": "x", "id": 10},
         "protocol.invalid_field"),
        ({"type": "command", "game_id": sa.game_id, "decision_id": d.id, "id": 11}, "protocol.invalid_field"),
        ({"type": "command", "game_id": 5, "decision_id": d.id, "option": ["end"], "id": 12},
         "protocol.invalid_field"),
        ({"type": "command", "game_id": sa.game_id, "decision_id": d.id, "option": [], "id": 13},
         "game.malformed_command"),
        ({"type": "command", "game_id": sa.game_id, "decision_id": d.id, "option": [True], "id": 14},
         "protocol.invalid_field"),
        ({"type": "join", "game_id": ["x"], "id": 15}, "protocol.invalid_field"),
        ({"type": 3, "id": 16}, "protocol.unknown_type"),
    ]
    async with Unchanged(server.store, sa.game_id):
        for raw, code in cases:
            reply = await me.call_raw(encode_raw(MSGPACK, raw), raw["id"])
            assert isinstance(reply, m.Error) and reply.code == code, (raw, reply)
            await me.ping()


async def test_game_rule_violations(game):
    server, a, b, sa, sb, first = game
    me, other = mine(first, a, b)
    d = first.decision
    async with Unchanged(server.store, sa.game_id):
        stale = await me.call(m.Command(game_id=sa.game_id, decision_id=d.id + 5, option=d.options[0]))
        assert stale.code == "game.stale_decision"
        stale = await me.call(m.Command(game_id=sa.game_id, decision_id=d.id - 1, option=d.options[0]))
        assert stale.code == "game.stale_decision"
        illegal = await me.call(m.Command(game_id=sa.game_id, decision_id=d.id, option=("teleport", 99, 99)))
        assert illegal.code == "game.illegal_option"
        not_yours = await other.call(m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0]))
        assert not_yours.code == "game.not_your_decision"
        for c in (me, other):
            await c.ping()


async def test_not_started_and_not_seated(server):
    c = await RawClient.open(server.url)
    seated = await c.call(m.CreateGame(mission="ridge", seat="a"))
    async with Unchanged(server.store, seated.game_id):
        early = await c.call(m.Command(game_id=seated.game_id, decision_id=1, option=("end",)))
        assert early.code == "game.not_started"  # (resigning a game nobody joined cancels it: test_cancel.py)
    a, b, sa, sb = await seated_pair(server.url)
    first = await a.next_of(m.DecisionMsg)
    spectator = await RawClient.open(server.url)
    await spectator.call(m.Spectate(game_id=sa.game_id))
    async with Unchanged(server.store, sa.game_id):
        for who in (spectator, c):  # a spectator; a player of another game
            for msg in (m.Command(game_id=sa.game_id, decision_id=first.decision.id, option=first.decision.options[0]),
                        m.ResignGame(game_id=sa.game_id)):
                reply = await who.call(msg)
                assert isinstance(reply, m.Error) and reply.code == "auth.not_seated", reply
            await who.ping()
        nowhere = await c.call(m.Command(game_id="g-nowhere", decision_id=1, option=("end",)))
        assert nowhere.code == "auth.not_seated"


async def test_bad_tokens(server):
    a, b, sa, sb = await seated_pair(server.url)
    a2, b2, sa2, sb2 = await seated_pair(server.url)
    thief = await RawClient.open(server.url, name="mallory")
    async with Unchanged(server.store, sa.game_id):
        for token in (secrets.token_urlsafe(24), "", sa.token[:-1], sa.token + "x", sa2.token, sb2.token,
                      sa.token.upper() if sa.token.upper() != sa.token else sa.token.lower()):
            reply = await thief.call(m.Resume(game_id=sa.game_id, token=token, last_seq=0))
            assert isinstance(reply, m.Error) and reply.code == "auth.bad_token", (token, reply)
            await thief.ping()
        reply = await thief.call(m.Resume(game_id="g-nothere", token=sa.token))
        assert reply.code == "lobby.no_such_game"
        # still not seated: it cannot command
        d = await a.next_of(m.DecisionMsg)
        reply = await thief.call(m.Command(game_id=sa.game_id, decision_id=d.decision.id, option=d.decision.options[0]))
        assert reply.code == "auth.not_seated"
    assert not [x for x in thief.msgs if isinstance(x, m.EventMsg)]


async def test_a_flood_past_the_rate_limit(make_server):
    async with make_server(rate=20, burst=30) as server:
        a, b, sa, sb = await seated_pair(server.url)
        first = await a.next_of(m.DecisionMsg)
        me, _ = mine(first, a, b)
        async with Unchanged(server.store, sa.game_id):
            n = 150
            stale = m.Command(game_id=sa.game_id, decision_id=first.decision.id + 1, option=("end",))
            for i in range(n):
                msg = m.Ping(id=1000 + i) if i % 2 else m.Command(**{**msgspec.structs.asdict(stale), "id": 1000 + i})
                await me.ws.send(me.codec.encode(msg))
            replies = []
            while len(replies) < n:
                msg = await me.next()
                if getattr(msg, "id", 0) >= 1000:
                    replies.append(msg)
            codes = [r.code if isinstance(r, m.Error) else type(r).__name__ for r in replies]
            assert codes.count("protocol.rate_limited") >= n - 30 - 20 * 2
            assert set(codes) <= {"protocol.rate_limited", "Pong", "game.stale_decision"}
            assert sorted(r.id for r in replies) == list(range(1000, 1000 + n))  # every one answered, by id
            await asyncio.sleep(0.2)
            await me.ping()


async def test_hello_first_then_a_wrong_version_closes(server):
    c = await RawClient.open(server.url, hello=False)
    early = await c.call(m.ListGames())
    assert early.code == "protocol.hello_first"
    early = await c.call(m.Ping())
    assert early.code == "protocol.hello_first"
    wrong = await c.call(m.Hello(protocol=99))
    assert wrong.code == "protocol.version" and wrong.id
    assert await c.until_closed() == []
    assert c.ws.close_code == 1002
    with pytest.raises(ConnectionClosed):
        await c.ws.send(b"")
    # a right hello after a wrong first message is fine
    d = await RawClient.open(server.url, hello=False)
    await d.send_raw(b"\x00")
    assert (await d.next_of(m.Error)).code == "protocol.malformed"
    assert isinstance(await d.call(m.Hello(protocol=m.PROTOCOL_VERSION)), m.Welcome)
    await d.ping()

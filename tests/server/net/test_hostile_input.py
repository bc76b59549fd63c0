"""Hostile input that used to crash a connection or slip into the log (issue 12, items 5-8):
deep nesting, MessagePack strings that are not UTF-8, client strings of any length or character.
Each gets its typed error, the connection stays usable and the game's log is byte-identical."""

from __future__ import annotations

import msgspec
import pytest

from skirmish.engine.codec import decode_event
from skirmish.engine.events import SeatTaken
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MAX_DEPTH, MSGPACK, JsonCodec, MsgpackCodec, json_depth_exceeds, msgpack_depth_exceeds
from skirmish.protocol.errors import ProtocolError

from .helpers import RawClient, encode_raw, seated_pair
from .test_hostile import Unchanged, game, mine  # noqa: F401 (the fixture)


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def deep_frame(codec: str, depth: int, where: str, game_id: str = "g-x", decision_id: int = 1, msg_id: int = 0):
    """A frame nesting ``depth`` arrays (985: about 2 KB): the whole message, or in a field of a
    real message. Written by hand: the encoders themselves refuse such depths."""
    deep_json = "[" * depth + "]" * depth
    deep_msgpack = b"\x91" * (depth - 1) + b"\x90"
    if where == "top":
        return deep_json if codec == JSON else deep_msgpack
    if where == "option":
        body = {"type": "command", "game_id": game_id, "decision_id": decision_id, "option": "@@",
                "command_id": "deep", "id": msg_id}
    elif where == "unknown field":
        body = {"type": "ping", "id": msg_id, "extra": "@@"}
    else:  # a known field of another type
        body = {"type": "hello", "protocol": 1, "client": "@@", "id": msg_id}
    if codec == JSON:
        return msgspec.json.encode(body).decode().replace('"@@"', deep_json)
    return msgspec.msgpack.encode(body).replace(b"\xa2@@", deep_msgpack)


# -- item 5: nesting -------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
@pytest.mark.parametrize("where", ["top", "option", "unknown field", "known field"])
async def test_deep_nesting_is_malformed_and_the_connection_stays(game, codec, where):
    server, a, b, sa, sb, first = game
    me, _ = mine(first, a, b)
    c = await RawClient.open(server.url, codec=codec)
    async with Unchanged(server.store, sa.game_id):
        for depth in (MAX_DEPTH + 1, 985, 5000):
            for who in (me, c):
                frame = deep_frame(codec if who is c else MSGPACK, depth, where, sa.game_id, first.decision.id)
                await who.send_raw(frame)
                err = await who.next_of(m.Error)
                assert err.code == "protocol.malformed", (where, depth, err)
                assert "nested" in err.message
                await who.ping()
    assert server.connections  # nobody was dropped
    for who in (me, c):
        assert who.ws.close_code is None


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
async def test_nesting_up_to_the_limit_is_read(server, codec):
    c = await RawClient.open(server.url, codec=codec)
    frame = encode_raw(codec, {"type": "ping", "id": 41, "extra": nested(MAX_DEPTH - 1)})  # + the map: MAX_DEPTH
    assert isinstance(await c.call_raw(frame, 41), m.Pong)
    # brackets inside strings are not nesting
    frame = encode_raw(codec, {"type": "ping", "id": 42, "extra": "[{" * 500 + '"\\'})
    assert isinstance(await c.call_raw(frame, 42), m.Pong)


def test_depth_measures_agree_with_the_decoder():
    for depth in (1, 2, 5, MAX_DEPTH, MAX_DEPTH + 1, 100):
        value = {"a": [1, "x", {"b": nested(depth)}], "c": b"\xff" * 300, "d": "é" * 200, "e": 2**40, "f": -3.5}
        mp, js = msgspec.msgpack.encode(value), msgspec.json.encode(value).decode()
        for limit in (depth + 1, depth + 2, depth + 3, depth + 4):  # the whole: depth + 3 (map, list, map)
            assert msgpack_depth_exceeds(mp, limit) == (depth + 3 > limit), (depth, limit)
            assert json_depth_exceeds(js, limit) == (depth + 3 > limit), (depth, limit)
    # malformed data is left to the decoder
    assert not msgpack_depth_exceeds(b"\xc1\x91\x91", 1)
    assert not msgpack_depth_exceeds(b"\xdc\xff", 1)


def test_a_server_frame_nested_too_deep_is_malformed_not_a_crash():
    for codec, frame in ((MsgpackCodec(), b"\x91" * 5000 + b"\x90"), (JsonCodec(), "[" * 5000 + "]" * 5000)):
        with pytest.raises(ProtocolError) as info:
            codec.decode_server(frame)
        assert info.value.code == "protocol.malformed"


# -- item 6: MessagePack strings that are not UTF-8 --------------------------------------------------

BAD_UTF8 = [
    bytes.fromhex("82a474797065a470696e67a26964a3fffefd"),  # {"type": "ping", "id": <not UTF-8>}
    msgspec.msgpack.encode({"type": "hello", "protocol": 1, "client": "x", "id": 3}).replace(b"\xa1x", b"\xa2\xc3\x28"),
    msgspec.msgpack.encode({"type": "join", "game_id": "g-1", "id": 4}).replace(b"\xa3g-1", b"\xa3g\xed\xa0"),
    b"\x81\xa4type\xa4pi\xffg",  # the type
]


async def test_invalid_utf8_in_msgpack_strings_is_malformed(game):
    server, a, b, sa, sb, first = game
    async with Unchanged(server.store, sa.game_id):
        for frame in BAD_UTF8:
            await a.send_raw(frame)
            err = await a.next_of(m.Error)
            assert err.code == "protocol.malformed", (frame, err)
            await a.ping()
        c = await RawClient.open(server.url, hello=False)  # before hello too
        await c.send_raw(BAD_UTF8[0])
        assert (await c.next_of(m.Error)).code == "protocol.malformed"
        await c.call(m.Hello(protocol=m.PROTOCOL_VERSION))
        await c.ping()


# -- item 7: client strings are bounded and checked -------------------------------------------------


async def test_a_nul_or_a_huge_command_id_is_refused_naming_the_field(game):
    server, a, b, sa, sb, first = game
    me, _ = mine(first, a, b)
    d = first.decision
    async with Unchanged(server.store, sa.game_id):
        for command_id in ("a\x00b", "x" * 65, "x" * 65_000, "two words", "tab\t", "é"):
            for msg in (m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id=command_id),
                        m.ResignGame(game_id=sa.game_id, command_id=command_id)):
                reply = await me.call(msg)
                assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field", (command_id, reply)
                assert reply.message.startswith("command_id: at most 64 printable ASCII characters"), reply
                await me.ping()
    # the longest good one is taken, and stored
    good = "k" * 64
    ack = await me.call(m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id=good))
    assert isinstance(ack, m.Ack), ack
    again = await me.call(m.Command(game_id=sa.game_id, decision_id=d.id, option=d.options[0], command_id=good))
    assert isinstance(again, m.Ack) and again.seq == ack.seq


BAD_FIELDS = [
    # (message, the field named)
    ({"type": "hello", "protocol": 1, "client": "n" * 65}, "client"),
    ({"type": "create_game", "mission": "ridge\x00"}, "mission"),
    ({"type": "create_game", "mission": "r" * 65}, "mission"),
    ({"type": "create_game", "mission": "ridge", "seat": "c"}, "seat"),
    ({"type": "create_game", "mission": "ridge", "seat": "a", "client_seed": "s" * 65}, "client_seed"),
    ({"type": "create_game", "mission": "ridge", "seat": "a", "client_seed": "a:b"}, "client_seed"),
    ({"type": "create_game", "mission": "ridge", "seat": "a", "client_seed": "a\nb"}, "client_seed"),
    ({"type": "join", "game_id": "g" * 201}, "game_id"),
    ({"type": "join", "game_id": "g-\x00"}, "game_id"),
    ({"type": "join", "game_id": "GAME", "seat": ""}, "seat"),
    ({"type": "join", "game_id": "GAME", "client_seed": "x\u00e9"}, "client_seed"),
    ({"type": "spectate", "game_id": "g-\x1b[2J"}, "game_id"),
    ({"type": "resume", "game_id": "GAME", "token": "t" * 65}, "token"),
    ({"type": "resume", "game_id": "GAME", "token": "to ken"}, "token"),
    ({"type": "command", "game_id": "GAME", "decision_id": 1, "option": ["x" * 65]}, "option"),
    ({"type": "command", "game_id": "GAME", "decision_id": 1, "option": ["a\x00"]}, "option"),
    ({"type": "command", "game_id": "GAME", "decision_id": 1, "option": [1] * 33}, "option"),
    ({"type": "resign", "game_id": "GAME\n"}, "game_id"),
]


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
async def test_every_client_string_is_bounded_and_checked(game, codec):
    server, a, b, sa, sb, first = game
    c = await RawClient.open(server.url, codec=codec, name="checker")
    games_before = len(await server.store.list_games())
    async with Unchanged(server.store, sa.game_id):
        for i, (raw, field) in enumerate(BAD_FIELDS, start=100):
            raw = {k: (sa.game_id if v == "GAME" else v) for k, v in raw.items()}
            reply = await c.call_raw(encode_raw(codec, {**raw, "id": i}), i)
            assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field", (raw, reply)
            assert reply.message.startswith(f"{field}: "), (raw, reply)
            assert f"$.{field}" in reply.message
            await c.ping()
    assert len(await server.store.list_games()) == games_before  # no game was created on the way


async def test_good_strings_at_the_limits_are_taken(server):
    c = await RawClient.open(server.url, name="Zoë 🚀 " + "ñ" * 57)  # 64 characters, not ASCII
    seated = await c.call(m.CreateGame(mission="ridge", seat="any", client_seed="!" + "~" * 62 + " "))
    assert isinstance(seated, m.Seated), seated
    joiner = await RawClient.open(server.url, name="")
    reply = await joiner.call(m.Join(game_id=seated.game_id, client_seed=""))
    assert isinstance(reply, m.Seated), reply
    names = [decode_event(s.data) for s in await server.store.read(seated.game_id)]
    assert [e.name for e in names if isinstance(e, SeatTaken)] == ["Zoë 🚀 " + "ñ" * 57, ""]


# -- item 8: player names ----------------------------------------------------------------------------

FORGERIES = [
    "mallory\n00042  side a resigns",  # a forged line
    "\x1b[2J\x1b[Hyou win",  # ANSI: clear the screen
    "bob\rside b wins",
    "\x9b31m",  # a C1 control sequence introducer
    "alice\u2028forged",  # a line separator
    "\u202eniw b edis",  # right-to-left override
    "del\x7f",
    "nul\x00",
]


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
async def test_names_with_control_characters_are_refused(server, codec):
    for name in FORGERIES:
        c = await RawClient.open(server.url, codec=codec, hello=False)
        reply = await c.call(m.Hello(protocol=m.PROTOCOL_VERSION, client=name))
        assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field", (name, reply)
        assert reply.message.startswith("client: "), reply
        assert not any(ch in reply.message for ch in "\x1b\n\r\x9b\u2028\u202e\x7f\x00")  # not echoed raw
        # the connection stays: a good hello now, and the name is what a seat records
        assert isinstance(await c.call(m.Hello(protocol=m.PROTOCOL_VERSION, client="carol")), m.Welcome)
        seated = await c.call(m.CreateGame(mission="ridge", seat="a"))
        events = [decode_event(s.data) for s in await server.store.read(seated.game_id)]
        assert [e.name for e in events if isinstance(e, SeatTaken)] == ["carol"]
        await c.close()
    # nothing with a control character was stored anywhere
    for info in await server.store.list_games():
        for s in await server.store.read(info.game_id):
            event = decode_event(s.data)
            if isinstance(event, SeatTaken):
                assert event.name == "carol"


async def test_a_seated_pair_with_plain_names_still_plays(server):
    a, b, sa, sb = await seated_pair(server.url)
    assert (await a.next_of(m.DecisionMsg)).game_id == sa.game_id

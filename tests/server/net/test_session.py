"""The server's protocol session without sockets (``skirmish.server.session.ServerSession``, sans I/O).

The hostile input of test_hostile.py, test_hostile_input.py and test_semantics.py fed straight
to a session, a clock value at a time: each frame gets the same typed error under its id, the
session stays usable, and nothing reaches the lobby (no request comes out). The same files keep
a few of these cases through a real server."""

from __future__ import annotations

import msgspec
import pytest

from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MAX_DEPTH, MSGPACK, codec_for
from skirmish.server.session import SERVER_NAME, ServerSession

from .helpers import encode_raw
from .test_hostile_input import BAD_FIELDS, BAD_UTF8, FORGERIES, deep_frame, nested


class Wire:
    """A session and the client's end of it: frames in, what the session said out, decoded."""

    def __init__(self, codec: str = MSGPACK, *, hello: bool = True, now: float = 0.0, **limits):
        limits.setdefault("rate", 1e9)
        limits.setdefault("burst", 10**9)
        self.codec = codec_for(codec)
        self.now = now
        self.session = ServerSession(self.codec, now=now, **limits)
        if hello:
            request, said = self.send(m.Hello(protocol=m.PROTOCOL_VERSION, client="t", id=1))
            assert request is None and said == [m.Welcome(protocol=m.PROTOCOL_VERSION, server=SERVER_NAME, id=1)]

    def raw(self, frame, now: float | None = None):
        """(the request the session lets through or None, the messages it sent back)."""
        request = self.session.receive_frame(frame, self.now if now is None else now)
        return request, [self.codec.decode_server(f) for f in self.session.data_to_send()]

    def send(self, msg, now: float | None = None):
        return self.raw(self.codec.encode(msg), now)

    def refused(self, frame, msg_id: int | None = None) -> m.Error:
        """``frame`` is answered with one error (under ``msg_id`` if given) and passes nothing on;
        a ping still gets its pong after it."""
        request, said = self.raw(frame)
        assert request is None, request
        assert len(said) == 1 and isinstance(said[0], m.Error), said
        if msg_id is not None:
            assert said[0].id == msg_id, said
        assert self.send(m.Ping(id=99)) == (None, [m.Pong(id=99)])
        return said[0]


# -- hello ---------------------------------------------------------------------------------------


def test_hello_first_then_a_wrong_version_asks_to_close_1002():
    w = Wire(hello=False)
    assert w.send(m.ListGames(id=2)) == (None, [m.Error(code="protocol.hello_first", id=2,
                                                        message=f"say hello first (protocol {m.PROTOCOL_VERSION})")])
    request, said = w.send(m.Ping(id=3))
    assert request is None and said[0].code == "protocol.hello_first"
    request, said = w.send(m.Hello(protocol=99, id=4))
    assert request is None and [(e.code, e.id) for e in said] == [("protocol.version", 4)]
    assert w.session.close_request == (1002, "unsupported protocol version")
    assert w.send(m.Ping(id=5)) == (None, [])  # closing: nothing more is read
    # a right hello after a wrong first message is fine
    w = Wire(hello=False)
    request, said = w.raw(b"\x00")
    assert request is None and said[0].code == "protocol.malformed"
    request, said = w.send(m.Hello(protocol=m.PROTOCOL_VERSION, id=6))
    assert isinstance(said[0], m.Welcome) and w.session.hello and w.session.close_request is None


def test_a_second_hello_is_refused_and_the_first_stands():
    w = Wire(hello=False)
    w.send(m.Hello(protocol=m.PROTOCOL_VERSION, client="first" + "x" * 59, id=1))
    for again in (m.Hello(protocol=m.PROTOCOL_VERSION, client="second", batch=True, id=2),
                  m.Hello(protocol=2, client="third", id=3)):
        request, said = w.send(again)
        assert request is None and [(e.code, e.id) for e in said] == [("protocol.hello_again", again.id)]
    assert (w.session.name, w.session.batch, w.session.close_request) == ("first" + "x" * 59, False, None)


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_names_with_control_characters_are_refused(codec):
    for name in FORGERIES:
        w = Wire(codec, hello=False)
        request, said = w.send(m.Hello(protocol=m.PROTOCOL_VERSION, client=name, id=7))
        assert request is None and said[0].code == "protocol.invalid_field" and said[0].message.startswith("client: ")
        assert not any(ch in said[0].message for ch in "\x1b\n\r\x9b\u2028\u202e\x7f\x00")  # not echoed raw
        assert not w.session.hello
        request, said = w.send(m.Hello(protocol=m.PROTOCOL_VERSION, client="carol", id=8))
        assert isinstance(said[0], m.Welcome) and w.session.name == "carol"


# -- frames that are not messages ------------------------------------------------------------------


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_garbage_truncated_and_wrong_kind_frames_are_malformed(codec):
    w = Wire(codec)
    good = encode_raw(codec, {"type": "ping", "id": 9})
    if codec == MSGPACK:
        frames = [b"\xff\xfe\x00garbage\x93", good[: len(good) // 2], b"", '{"type": "ping", "id": 1}', b"\xc1"]
    else:
        frames = ["not json at all", good[: len(good) // 2], "", b"\x82\xa4type\xa4ping", "[1, 2, 3]", "{\"id\": 4}"]
    for frame in frames:
        assert w.refused(frame).code == "protocol.malformed", frame


def test_a_json_text_frame_on_the_msgpack_subprotocol_is_refused_under_its_id():
    w = Wire(MSGPACK)
    frame = msgspec.json.encode({"type": "command", "game_id": "g", "decision_id": 1, "option": ["end"],
                                 "id": 77}).decode()
    err = w.refused(frame, 77)
    assert err.code == "protocol.malformed" and "binary" in err.message


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_oversized_frames_are_too_large_under_their_id(codec):
    w = Wire(codec, max_frame=4096)
    big = encode_raw(codec, {"type": "ping", "id": 5, "pad": "x" * 5000})
    assert w.refused(big, 5).code == "protocol.too_large"
    if codec == JSON:  # counted in bytes, not characters
        wide = encode_raw(codec, {"type": "ping", "id": 6, "pad": "é" * 2100})
        assert len(wide) < 4096 and w.refused(wide, 6).code == "protocol.too_large"
    assert w.send(m.Ping(id=7)) == (None, [m.Pong(id=7)])


def test_unknown_type_and_wrong_field_types():
    w = Wire()
    cases = [
        ({"type": "frobnicate", "id": 7}, "protocol.unknown_type"),
        ({"type": "command", "game_id": "g", "decision_id": "x", "option": ["end"], "id": 8}, "protocol.invalid_field"),
        ({"type": "command", "game_id": "g", "decision_id": 1, "option": [1.5], "id": 9}, "protocol.invalid_field"),
        ({"type": "command", "game_id": "g", "decision_id": 1, "option": "x", "id": 10}, "protocol.invalid_field"),
        ({"type": "command", "game_id": "g", "decision_id": 1, "id": 11}, "protocol.invalid_field"),
        ({"type": "command", "game_id": 5, "decision_id": 1, "option": ["end"], "id": 12}, "protocol.invalid_field"),
        ({"type": "command", "game_id": "g", "decision_id": 1, "option": [True], "id": 14}, "protocol.invalid_field"),
        ({"type": "join", "game_id": ["x"], "id": 15}, "protocol.invalid_field"),
        ({"type": 3, "id": 16}, "protocol.unknown_type"),
    ]
    for raw, code in cases:
        assert w.refused(encode_raw(MSGPACK, raw), raw["id"]).code == code, raw
    # an empty option is well-formed: the game's rules refuse it (game.malformed_command), not the session
    request, said = w.raw(encode_raw(MSGPACK, {"type": "command", "game_id": "g", "decision_id": 1, "option": [],
                                               "id": 13}))
    assert said == [] and request == m.Command(game_id="g", decision_id=1, option=(), id=13)


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
@pytest.mark.parametrize("where", ["top", "option", "unknown field", "known field"])
def test_deep_nesting_is_malformed_and_the_session_stays(codec, where):
    w = Wire(codec)
    for depth in (MAX_DEPTH + 1, 985, 5000):
        err = w.refused(deep_frame(codec, depth, where))
        assert err.code == "protocol.malformed" and "nested" in err.message, (where, depth, err)
    assert w.session.close_request is None


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_nesting_up_to_the_limit_is_read(codec):
    w = Wire(codec)
    assert w.raw(encode_raw(codec, {"type": "ping", "id": 41, "extra": nested(MAX_DEPTH - 1)})) == \
        (None, [m.Pong(id=41)])
    assert w.raw(encode_raw(codec, {"type": "ping", "id": 42, "extra": "[{" * 500 + '"\\'})) == (None, [m.Pong(id=42)])


def test_invalid_utf8_in_msgpack_strings_is_malformed_before_and_after_hello():
    for hello in (True, False):
        w = Wire(hello=hello)
        for frame in BAD_UTF8:
            request, said = w.raw(frame)
            assert request is None and [e.code for e in said] == ["protocol.malformed"], frame


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_every_client_string_is_bounded_and_checked(codec):
    w = Wire(codec)
    for i, (raw, field) in enumerate(BAD_FIELDS, start=100):
        raw = {k: ("g-1" if v == "GAME" else v) for k, v in raw.items()}
        err = w.refused(encode_raw(codec, {**raw, "id": i}), i)
        assert err.code == "protocol.invalid_field" and err.message.startswith(f"{field}: "), (raw, err)
        assert f"$.{field}" in err.message


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
def test_out_of_range_seqs_are_invalid_fields_and_seqs_in_range_pass_on(codec):
    w = Wire(codec)
    huge = [2**63, 2**64 - 1] + ([2**70, -(2**70)] if codec == JSON else [])
    for field, kind, extra in (("last_seq", "resume", {"token": "t"}), ("after_seq", "spectate", {})):
        for i, bad in enumerate([-1, *huge], start=200):
            err = w.refused(encode_raw(codec, {"type": kind, "game_id": "g", field: bad, "id": i, **extra}), i)
            assert err.code == "protocol.invalid_field" and field in err.message, (field, bad, err)
        # past the game's end is the lobby's to say (lobby.seq_out_of_range): the request passes on
        request, said = w.raw(encode_raw(codec, {"type": kind, "game_id": "g", field: 2**63 - 1, "id": 9, **extra}))
        assert said == [] and getattr(request, field) == 2**63 - 1


def test_every_request_comes_out_typed():
    w = Wire()
    for msg in (m.ListMissions(id=2), m.ListGames(status="open", id=3), m.CreateGame(mission="ridge", seat="a", id=4),
                m.Join(game_id="g", id=5), m.Spectate(game_id="g", after_seq=3, id=6),
                m.Resume(game_id="g", token="t", last_seq=1, id=7),
                m.Command(game_id="g", decision_id=1, option=("end",), command_id="c", id=8),
                m.ResignGame(game_id="g", id=9), m.CancelGame(game_id="g", token="t", id=10)):
        assert w.send(msg) == (msg, [])


# -- the rate limit, silence and shutting down: by the clock given --------------------------------


def test_a_flood_past_the_rate_limit_is_answered_by_id_and_refills_with_time():
    w = Wire(rate=20, burst=30)
    replies = []
    for i in range(150):  # all at one instant: the burst, then nothing
        replies += w.send(m.Ping(id=1000 + i) if i % 2 else m.ListGames(id=1000 + i))[1]
    requests = [i for i in range(150) if i % 2 == 0 and i < 29]
    codes = [r.code if isinstance(r, m.Error) else type(r).__name__ for r in replies]
    assert codes.count("protocol.rate_limited") == 150 - 29 and len(requests) == 15  # hello took one token
    assert sorted(r.id for r in replies) == sorted(1000 + i for i in range(150) if i % 2 or i >= 29)
    assert w.send(m.Ping(id=1), now=0.01)[1][0].code == "protocol.rate_limited"
    assert w.send(m.Ping(id=2), now=0.06) == (None, [m.Pong(id=2)])  # a token every 1/20 s


def test_hello_timeout_and_idle_timeout_by_the_clock():
    w = Wire(hello=False, hello_timeout=5.0, idle_timeout=30.0, now=100.0)
    assert w.session.quiet_limit(101.5) == 3.5
    w.send(m.Ping(id=1), now=102.0)  # not a hello: the deadline does not move
    assert w.session.quiet_limit(104.0) == 1.0 and w.session.quiet_limit(200.0) == 0.0
    assert w.session.timed_out(following=True)  # no hello: following nothing anyway
    said = [w.codec.decode_server(f) for f in w.session.data_to_send()]
    assert [e.code for e in said] == ["protocol.hello_timeout"] and w.session.close_request == (1008, "no hello within 5 s")
    w = Wire(hello_timeout=5.0, idle_timeout=30.0)
    assert w.session.quiet_limit(1000.0) == 30.0
    assert not w.session.timed_out(following=True) and w.session.data_to_send() == []  # a player thinking
    assert w.session.timed_out(following=False) and w.session.close_request[0] == 1008
    assert [w.codec.decode_server(f).code for f in w.session.data_to_send()] == ["server.idle_timeout"]
    assert Wire(hello_timeout=0, idle_timeout=0).session.quiet_limit(1e9) is None


def test_while_shutting_down_requests_are_refused_and_pings_answered():
    w = Wire()
    w.session.shutting_down = True
    request, said = w.send(m.ListGames(id=3))
    assert request is None and [(e.code, e.id) for e in said] == [("server.shutting_down", 3)]
    assert w.send(m.Ping(id=4)) == (None, [m.Pong(id=4)])
    fresh = Wire(hello=False)
    fresh.session.shutting_down = True
    assert fresh.send(m.Hello(protocol=1, id=5))[1][0].code == "server.shutting_down"


# -- batching ------------------------------------------------------------------------------------


def test_staged_pushes_come_out_per_game_in_the_order_of_the_parts():
    from skirmish.engine.model import Outcome

    s = Wire().session
    e1, e2 = m.EventItem(seq=1, event=None), m.EventItem(seq=2, event=None)
    over = m.GameOverMsg(game_id="g", outcome=Outcome(winner="a", reason="r"))
    ack, ack2 = m.Ack(game_id="g", seq=2, id=5), m.Ack(game_id="g", seq=3, id=6)
    s.stage_events("g", [e1])
    s.stage("h", e2)  # another game's step, interleaved: staged apart
    s.stage("g", over)
    s.stage("g", e2)  # an event after the end: a second updates
    s.stage("g", ack)
    s.stage("g", ack2)  # a second ack: a third
    assert s.staging("g") and s.staging("h")
    assert s.take_staged("g") == [[[e1], None, over, None], [[e2], None, None, ack], [[], None, None, ack2]]
    assert not s.staging("g") and s.take_staged("g") == []
    assert s.take_staged("h") == [[[e2], None, None, None]]

"""The client's protocol session without sockets (``skirmish.client.session.ClientSession``, sans I/O):
requests and their replies by id, sequence numbers, gaps, duplicates, ``updates`` unpacked, the
view folded, what to resume after a reconnect. Frames as the server encodes them."""

from __future__ import annotations

import msgspec
import pytest

from skirmish.bots import make_bot
from skirmish.client.session import ClientSession, DecisionUpdate, EventUpdate, GameOverUpdate, Reply
from skirmish.engine.codec import decode_event, state_hash
from skirmish.engine.evolve import replay
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK, codec_for
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore

CLOCK = m.Clock(move_ms=1000, reserve_ms=2000, timeouts=0)


async def a_game(seed: int):
    """The whole log of a random game of ridge, and its result (as test_view_state.py plays one)."""
    store = MemoryStore()
    result = await play_match(store, missions.load("ridge"),
                              {"a": make_bot("random", seed), "b": make_bot("random", seed + 1)}, seed=seed)
    return [decode_event(s.data) for s in await store.read(result.game_id)], result


def server_frames(codec, gid: str, events, result, *, batch: bool):
    """The frames a server sends a seat of the game: each step's pushes, one ``updates`` per step
    with ``batch`` (the decision closing each step), else one frame per push."""
    frames, step = [], []
    for seq, e in enumerate(events, start=1):
        step.append(m.EventItem(seq=seq, event=e))
        if type(e).__name__ == "DecisionRequested":
            decision = m.DecisionMsg(game_id=gid, seq=seq, decision=e.decision, clock=CLOCK)
            if batch:
                frames.append(codec.encode(m.Updates(game_id=gid, events=step, decision=decision)))
            else:
                frames += [codec.encode(m.EventMsg(game_id=gid, seq=i.seq, event=i.event)) for i in step]
                frames.append(codec.encode(decision))
            step = []
    over = m.GameOverMsg(game_id=gid, outcome=result.outcome, head_hash="ab")
    if batch:
        frames.append(codec.encode(m.Updates(game_id=gid, events=step, game_over=over)))
    else:
        frames += [codec.encode(m.EventMsg(game_id=gid, seq=i.seq, event=i.event)) for i in step]
        frames.append(codec.encode(over))
    return frames


@pytest.mark.parametrize("codec", [MSGPACK, JSON])
@pytest.mark.parametrize("batch", [True, False])
async def test_a_whole_game_folds_into_the_view_batched_or_not(codec, batch):
    events, result = await a_game(5)
    gid = result.game_id
    server = codec_for(codec)
    s = ClientSession(codec_for(codec), batch=batch)
    s.receive_message(m.Seated(game_id=gid, seat="a", token="tok"))
    got = []
    frames = server_frames(server, gid, events, result, batch=batch)
    for frame in frames:
        got += s.receive_frame(frame)
    for frame in frames:  # everything again, as an overlapping resume would: only duplicates
        got += [u for u in s.receive_frame(frame) if isinstance(u, EventUpdate)]
    g = s.game(gid)
    assert [u.seq for u in got if isinstance(u, EventUpdate)] == list(range(1, len(events) + 1))
    assert g.duplicates == len(events) and g.gaps == [] and g.seqs == list(range(1, len(events) + 1))
    assert state_hash(g.state) == state_hash(replay(events))  # the core rules hide nothing
    assert isinstance(got[-1], GameOverUpdate) and g.outcome == result.outcome and g.head_hash == "ab"
    decisions = [u for u in got if isinstance(u, DecisionUpdate)]
    assert decisions and decisions[-1].decision == g.decision.decision  # (the second pass sent them again)
    assert (g.viewer, g.token) == ("a", "tok")


async def test_gaps_are_recorded_and_the_view_stays_consistent_only_without_them():
    events, result = await a_game(7)
    gid = result.game_id
    s = ClientSession(codec_for(MSGPACK))
    out = []
    for seq, e in enumerate(events[:5], start=1):
        s.receive_event(m.EventMsg(game_id=gid, seq=seq if seq < 4 else seq + 10, event=e), out)
    g = s.game(gid)
    assert g.gaps == [(4, 14)] and g.last_seq == 15 and [u.seq for u in out] == [1, 2, 3, 14, 15]


def test_replies_are_matched_by_id_and_the_rest_are_notices():
    s = ClientSession(codec_for(JSON), name="n" * 80)
    assert s.name == "n" * 64
    hello = s.hello()
    frame = s.request(hello)
    assert msgspec.json.decode(frame)["type"] == "hello" and hello.id in s.pending
    ping = m.Ping()
    s.request(ping)
    assert ping.id == hello.id + 1
    welcome = m.Welcome(protocol=1, server="x", id=hello.id)
    assert s.receive_message(welcome) == [Reply(hello.id, welcome)]
    err = m.Error(code="game.stale_decision", message="late", id=ping.id)
    [reply] = s.receive_message(err)
    assert reply.error == err and s.pending == {}
    stray = m.Error(code="server.shutting_down", message="bye", id=0)
    unknown = m.Error(code="x.y", message="z", id=12345)
    assert s.receive_message(stray) == [] and s.receive_message(unknown) == []
    assert s.notices == [stray, unknown]
    assert s.receive_message(m.Pong(id=777)) == []  # a reply nobody waits for: dropped
    assert s.receive_frame(b"\xc1") == []  # undecodable: dropped (logged)


def test_an_ack_inside_updates_answers_its_command_after_the_pushes():
    s = ClientSession(codec_for(MSGPACK))
    cmd = m.Command(game_id="g", decision_id=3, option=("end",))
    s.request(cmd)
    ack = m.Ack(game_id="g", seq=0, id=cmd.id)
    out = s.receive_message(m.Updates(game_id="g", ack=ack))
    assert out == [Reply(cmd.id, ack)]


def test_a_lost_connection_fails_what_was_pending_and_resumes_what_was_followed():
    s = ClientSession(codec_for(MSGPACK))
    a, b = m.Join(game_id="g1"), m.Spectate(game_id="g2")
    s.request(a)
    s.request(b)
    s.receive_message(m.Seated(game_id="g1", seat="b", token="tok", id=a.id))
    s.receive_message(m.Watching(game_id="g2", viewer="spectator", id=b.id))
    s.request(m.Ping())
    s.game("g1").last_seq, s.game("g2").last_seq = 7, 4
    s.game("g3").viewer = "a"
    s.game("g3").outcome = object()  # over: not resumed
    assert len(s.connection_lost()) == 1 and s.pending == {}
    assert s.resumptions() == [m.Resume(game_id="g1", token="tok", last_seq=7), m.Spectate(game_id="g2", after_seq=4)]
    resume = s.resuming("g9", "t9", 12)
    assert resume == m.Resume(game_id="g9", token="t9", last_seq=12) and s.game("g9").last_seq == 12


async def test_pending_decision_clock_and_answers_follow_the_view():
    events, result = await a_game(9)
    gid = result.game_id
    s = ClientSession(codec_for(MSGPACK))
    s.receive_message(m.Seated(game_id=gid, seat="b", token="t"))
    out = []
    for seq, e in enumerate(events, start=1):
        s.receive_event(m.EventMsg(game_id=gid, seq=seq, event=e), out)
        if type(e).__name__ == "DecisionRequested":
            assert s.pending_decision(gid) == (e.decision, None)
            assert s.game_of(e.decision) == gid
            s.receive_message(m.DecisionMsg(game_id=gid, seq=seq, decision=e.decision,
                                            clock=m.Clock(move_ms=5000, reserve_ms=1000, timeouts=1)), now=50.0)
            assert s.clock_left(gid, now=51.5) == (3500, 1000, 1)
            assert s.clock_left(gid, now=56.0) == (0, 0, 1)
        if type(e).__name__ == "OptionChosen" and not e.timeout:
            decision = next(x.decision for x in events if type(x).__name__ == "DecisionRequested"
                            and x.decision.id == e.decision_id)
            assert s.answered(gid, decision, tuple(e.option)) == seq
            break

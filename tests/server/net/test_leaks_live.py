"""Once through a real server (issue 15, "Hidden information, end to end"): games of missions that
hide something (the challenges module's hands on knives; the skills module's units in Hidden
Deployment on ambush, every hidden thing at once on nightfall; the probe module's unit, hidden under a
handle, on ridge and breach), random players in both seats and a spectator over WebSockets, the
SQLite store. Every raw frame each connection received is checked against the truth folded from
the stored log (``frames_check.py``): each event and decision is exactly its view (nothing more
leaked) and no declared secret shows in any frame or in what the viewer folds. A seat that
reconnects mid-game (``resume`` from seq 0) and a spectator that joins mid-game receive their
view of the backlog, and are checked the same way."""

from __future__ import annotations

import asyncio
import random

import pytest

from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK
from skirmish.server.app import ServerConfig, running_server

from tests.engine.views_probe import LEAKY, PROBE, with_probe

from .frames_check import check_frames
from .helpers import RawClient, play, seated_pair
from .test_semantics import until_live

class Sendable(random.Random):
    """Random choices among the options a client can send back: the probe shows side a some of its
    own options with a ``Hidden`` position in them (engaging the hidden unit), which no command
    can carry (a limitation of the probe, not a leak)."""

    def choice(self, seq):
        plain = [o for o in seq if all(isinstance(x, (int, str)) for x in o)]
        return super().choice(plain or seq)


CASES = [("knives", False), ("ridge", True), ("breach", True), ("ambush", False), ("masquerade", False),
         ("nightfall", False)]


@pytest.mark.parametrize("mission_id, probe", CASES)
async def test_every_frame_a_seat_or_a_spectator_receives_is_its_view_and_hides_every_secret(
        mission_id, probe, tmp_path, monkeypatch):
    if probe:
        with_probe(PROBE, monkeypatch, mission_id)
    async with running_server(ServerConfig(port=0, db=str(tmp_path / "leaks.db"))) as server:
        for game in range(2):
            a, b, sa, _ = await seated_pair(server.url, mission=mission_id, codecs=(MSGPACK, JSON))
            gid = sa.game_id
            spec = await RawClient.open(server.url, codec=JSON, name="spec")
            assert isinstance(await spec.call(m.Spectate(game_id=gid)), m.Watching)
            rng = Sendable(31 + game)
            half = lambda d: d.decision.id >= 40
            stopped = await asyncio.gather(play(a, gid, "a", rng=rng, stop=half), play(b, gid, "b", rng=rng, stop=half))
            # mid-game: seat a reconnects from seq 0, a second spectator joins
            again = await RawClient.open(server.url, name="again-a")
            await again.call(m.Resume(game_id=gid, token=sa.token, last_seq=0))
            await until_live(again, gid)
            late = await RawClient.open(server.url, codec=JSON, name="late-spec")
            await late.call(m.Spectate(game_id=gid))
            await until_live(late, gid)
            for client in (again, b):  # the decision the seats stopped at (until_live read it off again's queue)
                client.queue.put_nowait(stopped[1])
            await asyncio.gather(play(again, gid, "a", rng=rng), play(b, gid, "b", rng=rng),  # seat a plays on from again
                                 spec.next_of(m.GameOverMsg), late.next_of(m.GameOverMsg))
            stored = [s.data for s in await server.store.read(gid)]
            total = 0
            for client, viewer in ((a, "a"), (b, "b"), (spec, "spectator"), (again, "a"), (late, "spectator")):
                problems, checked = check_frames(stored, client.frames, client.codec.decode_server, viewer, gid)
                assert problems == [], (mission_id, client.name, problems[:3])
                total += checked
            assert total > len(stored)  # the frames were there to be checked
            for c in (a, b, spec, again, late):
                await c.close()


async def test_the_frame_check_finds_a_unit_a_redaction_lets_through(tmp_path, monkeypatch):
    with_probe(LEAKY, monkeypatch, "ridge")
    async with running_server(ServerConfig(port=0, db=str(tmp_path / "leaky.db"))) as server:
        a, b, sa, _ = await seated_pair(server.url, mission="ridge")
        rng = Sendable(3)
        await asyncio.gather(play(a, sa.game_id, "a", rng=rng), play(b, sa.game_id, "b", rng=rng))
        stored = [s.data for s in await server.store.read(sa.game_id)]
        problems, _ = check_frames(stored, a.frames, a.codec.decode_server, "a", sa.game_id)
        assert {"which unit is hidden-1", "in a frame"} <= {x for p in problems for x in p[2:4]}, problems[:3]
        assert not check_frames(stored, b.frames, b.codec.decode_server, "b", sa.game_id)[0]
        for c in (a, b):
            await c.close()

"""``replay_frames`` (issue 16 point 4; docs/protocol.md): a replay file this server does not hold,
sent over a real WebSocket in base64, is verified and answered with the replay viewer's frames,
exactly those the HTTP ``/api/games/ID/frames`` gives on the server that holds the game; a tampered
file is a typed error naming the bad event; an oversized one a typed error; nothing is stored."""

from __future__ import annotations

import base64
import json

import msgspec
from websockets.asyncio.client import connect as ws_connect

from skirmish.server.replayfile import read_file
from skirmish.server.replayframes import MAX_FILE
from tests.server.net.test_web_http import get, play_game


async def ask(url: str, message: dict) -> dict:
    async with ws_connect(url, subprotocols=["skirmish.v1.json"], max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "client": "dropper", "id": 1}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps(dict(message, id=2)))
        while True:
            reply = json.loads(await ws.recv())
            if reply.get("id") == 2:
                return reply


def replay_frames(data: bytes, viewer: str) -> dict:
    return {"type": "replay_frames", "file": base64.b64encode(data).decode(), "as": viewer}


async def finished_game(make_server):
    """A finished game's replay file, and its HTTP frames from views a and all, on a server that
    then stops: the server that is sent the file never held the game."""
    async with make_server() as holder:
        gid = (await play_game(holder)).game_id
        status, _, data = await get(holder.port, f"/api/games/{gid}/replay.skr")
        assert status == 200
        frames = {v: json.loads((await get(holder.port, f"/api/games/{gid}/frames?as={v}"))[2]) for v in ("a", "all")}
    return gid, data, frames


async def test_a_file_the_server_does_not_hold_gets_the_http_frames(make_server):
    gid, data, http_frames = await finished_game(make_server)
    async with make_server() as other:
        assert (await get(other.port, f"/api/games/{gid}"))[0] == 404  # not held here
        for viewer in ("a", "all"):
            reply = await ask(other.url, replay_frames(data, viewer))
            assert reply["type"] == "frames", reply
            assert {k: v for k, v in reply.items() if k not in ("type", "id")} == http_frames[viewer]
        assert (await get(other.port, f"/api/games/{gid}"))[0] == 404  # and nothing was stored


async def test_a_tampered_file_is_a_typed_error_naming_the_bad_event(make_server):
    _, data, _ = await finished_game(make_server)
    rf = read_file(data)
    k = len(rf.events) // 2
    bad = bytearray(rf.events[k - 1])
    bad[-1] ^= 1
    events = list(rf.events)
    events[k - 1] = bytes(bad)
    tampered = msgspec.msgpack.encode([rf.header, events, rf.hashes])
    async with make_server() as other:
        reply = await ask(other.url, replay_frames(tampered, "all"))
        assert reply["type"] == "error" and reply["code"] == "replay.bad_file", reply
        assert f"FAILED at event {k}:" in reply["message"]
        reply = await ask(other.url, replay_frames(b"not a replay file", "all"))
        assert reply["code"] == "replay.bad_file" and "not a skirmish replay file" in reply["message"]
        reply = await ask(other.url, {"type": "replay_frames", "file": "%%%", "as": "all"})
        assert reply["code"] == "protocol.invalid_field" and "base64" in reply["message"]
        reply = await ask(other.url, dict(replay_frames(data, "all"), **{"as": "c"}))
        assert reply["code"] == "protocol.invalid_field"
        assert (await ask(other.url, {"type": "ping"}))["type"] == "pong"  # the server goes on


async def test_an_oversized_file_is_a_typed_error(make_server):
    _, data, _ = await finished_game(make_server)
    async with make_server(replay_max=len(data) - 1) as small:
        reply = await ask(small.url, replay_frames(data, "all"))
        assert reply["type"] == "error" and reply["code"] == "replay.too_large", reply
        assert f"at most {len(data) - 1} bytes" in reply["message"]
    async with make_server(replay_max=len(data)) as fits:
        assert (await ask(fits.url, replay_frames(data, "all")))["type"] == "frames"
    async with make_server() as other:  # (2 MiB files: frames to 2.7 MiB pass websockets' limit)
        # a frame past max_frame that is not a replay_frames is refused as before, typed
        reply = await ask(other.url, {"type": "list_games", "pad": "x" * (200 * 1024)})
        assert reply["code"] == "protocol.too_large" and "limit is 65536" in reply["message"], reply
        reply = await ask(other.url, {"type": "replay_frames", "file": "A" * (4 * (MAX_FILE // 3 + 2)), "as": "all"})
        assert reply["code"] == "replay.too_large", reply

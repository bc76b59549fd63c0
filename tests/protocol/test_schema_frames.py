"""Real frames validate against the published schema (issue 18 item 4): one whole game of every
bundled mission (so every rules module's events, and the redacted ones with ``Hidden`` parts) on a real
server over WebSockets, with seat a on MessagePack, seat b on JSON with ``batch`` (``updates``
frames) and a spectator on MessagePack; every frame each of them receives validates as a
``ServerMessage``, every frame they send as a ``ClientMessage``, and every stored event as an
``Event``.

A MessagePack frame is decoded and put in JSON's terms (``skirmish.protocol.schema.json_model``),
as docs/protocol.md, "The JSON Schema", tells a client in another language to do.

Server frames are validated once per *shape*: the type of the value at every path, with the tags
(``type``, ``frame``) and short arrays item by item. Two frames of one shape get the same verdict
because the server messages' schemas constrain nothing else (no lengths, ranges or patterns: only
types, tags and the two-item tuples, which the shape keeps); ``test_server_schemas_constrain_only_
what_a_shape_keeps`` checks that, so the shortcut stays sound. It cuts ~60,000 frames to a few
thousand validations."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json

import msgspec

from skirmish.bots import make_bot
from skirmish.bots.runner import run_bot
from skirmish.client import transport
from skirmish.engine.dice.fair import ProvablyFairDice
from skirmish.engine.rules.bundled import parts
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK
from skirmish.protocol.schema import json_model
from skirmish.server import missions
from skirmish.server.app import ServerConfig, running_server
from skirmish.server.store import MemoryStore

from tests.server.net.helpers import RawClient

from tests.protocol.schema_helpers import published, validator

CONSTRAINTS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern",
               "minLength", "maxLength", "minItems", "maxItems", "const", "enum", "uniqueItems")
SHORT = 3  # arrays up to this long keep each item's shape in order


def shape(value):
    if isinstance(value, dict):
        return ("map", tuple(sorted((k, v if k in ("type", "frame") and isinstance(v, str) else shape(v))
                                    for k, v in value.items())))
    if isinstance(value, list):
        items = [shape(v) for v in value]
        return ("array", tuple(items)) if len(items) <= SHORT else ("array*", frozenset(items))
    return type(value).__name__


class Tap:
    """A client's websocket that keeps every frame through it, either way, with its codec."""

    def __init__(self, ws, frames: list):
        self._ws, self.frames = ws, frames

    def __getattr__(self, name):
        return getattr(self._ws, name)

    async def send(self, frame):
        self.frames.append(("sent", self._ws.subprotocol, frame))
        await self._ws.send(frame)

    def __aiter__(self):
        return self._received()

    async def _received(self):
        async for frame in self._ws:
            self.frames.append(("received", self._ws.subprotocol, frame))
            yield frame


async def play_game(url: str, mission: str, strategy: str, seed: int, frames: list) -> str:
    """One game on the server at ``url``: seat a (MessagePack) and seat b (JSON) are ``strategy`` bots
    on the client library (which asks for ``updates``), two spectators (MessagePack, JSON) take the
    plain pushes. Every frame goes to ``frames``; returns the game's id."""
    seated = asyncio.get_running_loop().create_future()
    a = asyncio.create_task(run_bot(url, make_bot(strategy, seed), mission=mission, seat="a", codec="msgpack",
                                    client_seed=f"a-{seed}", on_seated=lambda s: seated.set_result(s.game_id)))
    game_id = await asyncio.wait_for(seated, 30)
    watchers = [await RawClient.open(url, codec=codec, name=f"spectator-{codec}") for codec in (MSGPACK, JSON)]
    for w in watchers:
        w.ws = Tap(w.ws, frames)  # (its sends; RawClient keeps what it receives)
        assert isinstance(await w.call(m.Spectate(game_id=game_id)), m.Watching)
    b = run_bot(url, make_bot(strategy, seed + 1), game_id=game_id, seat="b", codec="json", client_seed=f"b-{seed}")
    await asyncio.wait_for(asyncio.gather(a, b, *(w.next_of(m.GameOverMsg, 120) for w in watchers)), 300)
    # replies besides the game's pushes: missions, a page of games, an error
    w = watchers[0]
    assert isinstance(await w.call(m.ListMissions()), m.Missions)
    assert isinstance(await w.call(m.ListGames(status="finished")), m.Games)
    assert isinstance(await w.call(m.Command(game_id=game_id, decision_id=1, option=("end",))), m.Error)
    for w in watchers:
        frames += [("received", w.codec.name, f) for f in w.frames]
        await w.close()
    return game_id


def hidden_whats(value, found: set) -> None:
    if isinstance(value, dict):
        if value.get("type") == "Hidden":
            found.add(value.get("what", ""))
        for v in value.values():
            hidden_whats(v, found)
    elif isinstance(value, list):
        for v in value:
            hidden_whats(v, found)


def event_types(value, found: set) -> None:
    if isinstance(value, dict):
        if isinstance(value.get("event"), dict):
            found.add(value["event"].get("type"))
        for v in value.get("events", ()):
            found.add(v["event"]["type"])


class Checked:
    """What the frames held, for the test's assertions."""

    def __init__(self):
        self.server_v, self.client_v, self.event_v = (validator(k) for k in ("ServerMessage", "ClientMessage", "Event"))
        self.shapes: set = set()
        self.events: set[str] = set()
        self.hidden: dict[str, set[str]] = {}
        self.counts = {"server": 0, "client": 0, "stored": 0}

    def frame(self, mission: str, way: str, codec: str, frame) -> None:
        value = json.loads(frame) if codec == JSON else json_model(msgspec.msgpack.decode(frame))
        if way == "sent":
            self.counts["client"] += 1
            errors = list(self.client_v.iter_errors(value))
            assert not errors, (mission, codec, value, errors[0].message[:500])
            return
        self.counts["server"] += 1
        hidden_whats(value, self.hidden.setdefault(mission, set()))
        event_types(value, self.events)
        if self._new(codec, value):
            errors = list(self.server_v.iter_errors(value))
            assert not errors, (mission, codec, value, errors[0].message[:500])

    def stored(self, mission: str, data: bytes) -> None:
        self.counts["stored"] += 1
        value = json_model(msgspec.msgpack.decode(data))
        if self._new("stored", value):
            assert self.event_v.is_valid(value), (mission, value)

    def _new(self, kind: str, value) -> bool:
        key = (kind, shape(value))
        fresh = key not in self.shapes
        self.shapes.add(key)
        return fresh


MODULE_MISSION = {"capture": "snatch"}  # where a module's events need play that seeks them out


async def test_every_frame_of_a_game_of_every_mission_validates(monkeypatch):
    games = itertools.count(1)  # each game's server seed: a failure replays exactly
    monkeypatch.setattr(ProvablyFairDice, "new", classmethod(
        lambda cls, client_seeds=None: cls(hashlib.sha256(b"schema-%d" % next(games)).digest(), client_seeds)))
    config = ServerConfig(port=0, db=":memory:", rate=10_000, burst=10_000, games_burst=100, log_level="warning")
    checked = Checked()

    async def play(mission: str, strategy: str, seed: int) -> None:
        frames: list = []
        with monkeypatch.context() as patch:
            patch.setattr(transport, "ws_connect", _tapped(frames))
            game_id = await play_game(server.url, mission, strategy, seed, frames)
        for way, codec, frame in frames:
            checked.frame(mission, way, codec, frame)
        for stored in await server.store.read(game_id):
            checked.stored(mission, stored.data)

    async with running_server(config, store=MemoryStore()) as server:
        for n, mission in enumerate(sorted(missions.bundled())):
            await play(mission, "random", 100 + n)
        for part in parts("events"):  # every rules module's own events among the frames
            mine = {e.__struct_config__.tag for e in part.EVENTS}
            module = part.__name__.split(".")[-2]
            for seed in range(5):  # random play seldom captures: greedy does, in most games
                if mine & checked.events or module not in MODULE_MISSION:
                    break
                await play(MODULE_MISSION[module], "greedy", 200 + seed)
            assert mine & checked.events, (module, sorted(mine))
    counts = checked.counts
    assert counts["server"] > 10 * len(checked.shapes) > 0 and counts["client"] > 1000, counts
    assert "card" in checked.hidden["knives"], checked.hidden  # the challenges module's hands
    assert sum(bool(w) for w in checked.hidden.values()) >= 2, checked.hidden  # and another module's redactions


def _tapped(frames: list):
    connect = transport.ws_connect

    async def tapped(*args, **kw):
        return Tap(await connect(*args, **kw), frames)

    return tapped


def test_server_schemas_constrain_only_what_a_shape_keeps():
    defs = published()["$defs"]
    reached, todo = set(), ["ServerMessage"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += [r.rsplit("/", 1)[1] for r in _refs(defs[name])]
    assert "Event" in reached and "Hello" not in reached
    found = set()
    for name in reached:
        _constraints(defs[name], name, found)
    tags_or_tuples = {(path, key) for path, key, value in found
                      if (key == "enum" and path.rsplit("/", 1)[1] in ("type", "frame"))
                      or (key in ("minItems", "maxItems") and value <= 2)}
    assert found - {(p, k, v) for p, k, v in found if (p, k) in tags_or_tuples} == set()


def _refs(node):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for v in node.values():
            yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def _constraints(node, path: str, found: set) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in CONSTRAINTS and not isinstance(value, dict):
                found.add((path, key, json.dumps(value) if key not in ("minItems", "maxItems") else value))
            elif key != "properties" or not isinstance(value, dict):
                _constraints(value, f"{path}/{key}", found)
            else:
                for prop, sub in value.items():
                    _constraints(sub, f"{path}/{prop}", found)
    elif isinstance(node, list):
        for item in node:
            _constraints(item, path, found)

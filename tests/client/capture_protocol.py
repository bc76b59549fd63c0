"""Capture real frames for docs/protocol.md: run a real server, speak raw JSON to it, print every
frame sent and received, grouped by what it shows.

    .venv/bin/python tests/client/capture_protocol.py > /tmp/frames.md

Not a test (pytest does not collect it); the examples in docs/protocol.md were pasted from its
output. Game ids, tokens, seeds and times differ on every run.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from skirmish.server.app import ServerConfig, running_server  # noqa: E402

SECTIONS: dict[str, list[str]] = {}


def note(section: str, direction: str, frame) -> None:
    SECTIONS.setdefault(section, []).append(f"{direction} {frame}")


class Raw:
    """A raw JSON connection that records what it sends and receives."""

    def __init__(self, ws, name):
        self.ws, self.name, self.next_id = ws, name, 0
        self.inbox: list[dict] = []

    @classmethod
    async def open(cls, url, name, hello=True):
        ws = await connect(url, subprotocols=["skirmish.v1.json"], proxy=None)
        raw = cls(ws, name)
        if hello:
            await raw.call("hello", {"type": "hello", "protocol": 1, "client": name})
        return raw

    async def send(self, section, msg, *, raw_text=None):
        if raw_text is None and "id" not in msg:
            self.next_id += 1
            msg = {**msg, "id": self.next_id}
        text = raw_text if raw_text is not None else json.dumps(msg, separators=(",", ":"))
        note(section, "->", text if len(text) < 300 else text[:120] + f"… ({len(text)} characters)")
        await self.ws.send(text)
        if raw_text is None:
            return msg["id"]
        try:
            return json.loads(raw_text).get("id", 0)
        except ValueError:
            return 0

    async def recv(self, section, timeout=2.0):
        frame = await asyncio.wait_for(self.ws.recv(), timeout)
        note(section, "<-", frame)
        msg = json.loads(frame)
        self.inbox.append(msg)
        return msg

    async def call(self, section, msg, *, raw_text=None):
        """Send and read frames until the reply with the same id (pushes on the way are noted)."""
        mid = await self.send(section, msg, raw_text=raw_text)
        while True:
            reply = await self.recv(section)
            if reply.get("id") == mid and reply["type"] not in ("event", "decision", "game_over"):
                return reply

    async def drain(self, section, quiet=0.3):
        out = []
        while True:
            try:
                out.append(await self.recv(section, quiet))
            except TimeoutError:
                return out

    async def until(self, section, pred, timeout=5.0):
        while True:
            msg = await self.recv(section, timeout)
            if pred(msg):
                return msg


async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    db = str(tmp / "capture.sqlite")
    async with running_server(ServerConfig(port=0, db=db, log_level="error")) as srv:
        url = srv.url
        a = await Raw.open(url, "alice")
        await a.call("list_missions", {"type": "list_missions"})
        await a.call("create_game (no seat)", {"type": "create_game", "mission": "ridge"})
        seated = await a.call("create_game (seat)", {"type": "create_game", "mission": "ridge", "seat": "a",
                                                     "client_seed": "alice-42"})
        gid, token_a = seated["game_id"], seated["token"]
        await a.drain("create_game (seat)")
        await a.call("list_games", {"type": "list_games"})
        await a.call("ping", {"type": "ping"})

        # not started yet
        await a.call("error game.not_started", {"type": "command", "game_id": gid, "decision_id": 1,
                                                 "option": ["first", "a"], "command_id": "c-early"})

        s = await Raw.open(url, "watcher")
        await s.call("spectate", {"type": "spectate", "game_id": gid})
        await s.drain("spectate")

        b = await Raw.open(url, "bob")
        await b.call("join", {"type": "join", "game_id": gid, "seat": "any"})
        await b.drain("join")
        await a.drain("game starts (seat a)")

        # play the first decisions with the first option, noting commands and acks
        for turn in range(6):
            for c in (a, b):
                pending = [m for m in c.inbox if m["type"] == "decision"]
                if not pending:
                    continue
                d = pending[-1]["decision"]
                seat = "a" if c is a else "b"
                if d["side"] != seat:
                    continue
                c.inbox.clear()
                await c.call("command", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                         "option": d["options"][0], "command_id": f"{seat}-{d['id']}"})
                await c.drain("command")
            await a.drain("after")
            await b.drain("after")
        # the pending decision, whoever's it is
        last = [m for m in a.inbox + b.inbox if m["type"] == "decision"]
        d = last[-1]["decision"]
        mine, theirs = (a, b) if d["side"] == "a" else (b, a)
        await theirs.call("error game.not_your_decision", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                                           "option": d["options"][0], "command_id": "x1"})
        await mine.call("error game.illegal_option", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                                      "option": ["dance"], "command_id": "x2"})
        await mine.call("error game.stale_decision", {"type": "command", "game_id": gid, "decision_id": d["id"] - 1,
                                                      "option": d["options"][0], "command_id": "x3"})
        await mine.call("error game.malformed_command", {"type": "command", "game_id": gid,
                                                         "decision_id": d["id"], "option": [], "command_id": "x4"})
        await s.call("error auth.not_seated", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                               "option": d["options"][0]})
        # a retried command id: acked again, acted on once
        cid = "retry-demo"
        await mine.call("command retried (same command_id)", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                                              "option": d["options"][0], "command_id": cid})
        await mine.drain("command retried (same command_id)")
        await mine.call("command retried (same command_id)", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                                              "option": d["options"][0], "command_id": cid})
        await mine.call("error game.command_id_reused", {"type": "command", "game_id": gid, "decision_id": d["id"],
                                                         "option": d["options"][-1], "command_id": cid})
        await a.drain("after")
        await b.drain("after")
        await s.drain("after")

        # b drops and resumes
        last_seq = max(m["seq"] for m in b.inbox if m["type"] == "event")
        token_b = None
        for line in SECTIONS["join"]:
            if '"type":"seated"' in line:
                token_b = json.loads(line[3:])["token"]
        await b.ws.close()
        # a plays on meanwhile, if it is a's turn
        for _ in range(2):
            dec = [m for m in a.inbox if m["type"] == "decision"]
            if dec and dec[-1]["decision"]["side"] == "a":
                dd = dec[-1]["decision"]
                a.inbox.clear()
                await a.call("after", {"type": "command", "game_id": gid, "decision_id": dd["id"],
                                       "option": dd["options"][0], "command_id": f"a-{dd['id']}"})
                await a.drain("after")
        b2 = await Raw.open(url, "bob")
        await b2.call("resume", {"type": "resume", "game_id": gid, "token": token_b, "last_seq": last_seq})
        await b2.drain("resume")
        await b2.call("error auth.bad_token", {"type": "resume", "game_id": gid, "token": "not-the-token",
                                               "last_seq": 0})
        c = await Raw.open(url, "carol")
        await c.call("error lobby.game_full", {"type": "join", "game_id": gid})
        await c.call("error lobby.no_such_game", {"type": "join", "game_id": "g-000000000000"})
        await c.call("error lobby.no_such_mission", {"type": "create_game", "mission": "atlantis"})
        other = await c.call("x", {"type": "create_game", "mission": "ridge", "seat": "a"})
        d2 = await Raw.open(url, "dave")
        await d2.call("error lobby.seat_taken", {"type": "join", "game_id": other["game_id"], "seat": "a"})

        # resign: ack, the last events, game over for everyone
        await a.call("resign", {"type": "resign", "game_id": gid, "command_id": "a-resign"})
        await a.drain("resign")
        await s.drain("game_over (spectator)")
        await a.call("error game.over", {"type": "command", "game_id": gid, "decision_id": 999,
                                         "option": ["end"], "command_id": "late"})

        # malformed frames
        e = await Raw.open(url, "eve")
        await e.call("error protocol.malformed", {}, raw_text='{"type": "ping", "id": 7')
        await e.send("error protocol.malformed", {}, raw_text="not json at all")
        await e.recv("error protocol.malformed")
        await e.call("error protocol.unknown_type", {"type": "dance", "id": 8}, raw_text='{"type":"dance","id":8}')
        await e.call("error protocol.invalid_field", {}, raw_text='{"type":"join","id":9}')
        await e.call("error protocol.invalid_field", {}, raw_text='{"type":"join","game_id":5,"id":10}')
        await e.call("strings", {}, raw_text='{"type":"hello","protocol":1,"client":"eve\\u001b[2J","id":12}')
        await e.send("error protocol.malformed (nesting)", {}, raw_text='{"type":"ping","id":13,"x":' + "[" * 40 + "]" * 40 + "}")
        await e.recv("error protocol.malformed (nesting)")
        big = json.dumps({"type": "create_game", "mission": "x" * 70000, "id": 11})
        await e.call("error protocol.too_large", {}, raw_text=big)
        for i in range(120):
            await e.ws.send(json.dumps({"type": "ping", "id": 1000 + i}))
        got = []
        while len(got) < 120:
            got.append(json.loads(await e.ws.recv()))
        limited = [g for g in got if g["type"] == "error"]
        note("error protocol.rate_limited", "->", '{"type":"ping","id":1000} … 120 pings at once')
        if limited:
            note("error protocol.rate_limited", "<-", json.dumps(limited[0], separators=(",", ":")))

        f = await Raw.open(url, "frank", hello=False)
        await f.call("error protocol.hello_first", {"type": "list_games"})
        await f.send("error protocol.version", {"type": "hello", "protocol": 2, "client": "future"})
        await f.recv("error protocol.version")
        try:
            await f.ws.recv()
        except ConnectionClosed as exc:
            note("error protocol.version", "xx", f"closed: code {exc.rcvd.code if exc.rcvd else None} "
                                                f"reason {exc.rcvd.reason if exc.rcvd else ''!r}")

        # issue 12: a second hello; out-of-range seqs; a reused command id; cancel; the whole log after the end
        e2 = await Raw.open(url, "eve")
        await e2.call("error protocol.hello_again", {"type": "hello", "protocol": 1, "client": "eve-again"})
        await e2.call("error lobby.seq_out_of_range", {"type": "spectate", "game_id": gid, "after_seq": 100000})
        await e2.call("error protocol.invalid_field (seq)", {}, raw_text='{"type":"resume","game_id":"%s",'
                      '"token":"x","last_seq":-1,"id":31}' % gid)
        k = await Raw.open(url, "kim")
        ks = await k.call("cancel", {"type": "create_game", "mission": "ridge", "seat": "a"})
        await k.drain("cancel")
        kk = await Raw.open(url, "kim-phone")
        await kk.call("cancel", {"type": "cancel", "game_id": ks["game_id"], "token": ks["token"]})
        await k.drain("cancel (the creator's connection)")
        await kk.call("error game.over (cancel)", {"type": "cancel", "game_id": ks["game_id"], "token": ks["token"]})
        late = await Raw.open(url, "late")
        await late.call("spectate after the end", {"type": "spectate", "game_id": gid, "after_seq": 0})
        await late.drain("spectate after the end")

        # a frame past the WebSocket limit closes the connection
        g = await Raw.open(url, "grace")
        await g.ws.send("x" * (1024 * 1024 + 10))
        try:
            await g.ws.recv()
        except ConnectionClosed as exc:
            note("close 1009", "xx", f"closed: code {exc.rcvd.code if exc.rcvd else None} "
                                     f"reason {exc.rcvd.reason if exc.rcvd else ''!r}")

        # a seat free when the server stops cannot be handed out after a restart
        h = await Raw.open(url, "heidi")
        lost = await h.call("x", {"type": "create_game", "mission": "ridge", "seat": "a"})
        await h.drain("x")
        watcher = await Raw.open(url, "ivan")
    # shutdown: everyone connected hears it, then the connection closes with 1001
    for raw in (watcher,):
        try:
            while True:
                frame = await asyncio.wait_for(raw.ws.recv(), 5)
                note("server.shutting_down", "<-", frame)
        except ConnectionClosed as exc:
            note("server.shutting_down", "xx", f"closed: code {exc.rcvd.code if exc.rcvd else None} "
                                               f"reason {exc.rcvd.reason if exc.rcvd else ''!r}")
    async with running_server(ServerConfig(port=0, db=db, log_level="error")) as srv:
        j = await Raw.open(srv.url, "judy")
        await j.call("seated after a restart", {"type": "join", "game_id": lost["game_id"], "seat": "b"})

    # the limits against clients that hold resources without playing (small, to be seen at once)
    limits = ServerConfig(port=0, db=":memory:", log_level="error", hello_timeout=0.3, idle_timeout=0.3,
                          connections_per_address=2, games_per_minute=30, games_burst=3)
    async with running_server(limits) as srv:
        k = await Raw.open(srv.url, "kim")
        for _ in range(4):
            await k.call("error lobby.rate_limited", {"type": "create_game", "mission": "ridge"})
        await k.call("list_games (filters, paging)", {"type": "list_games", "status": "open", "offset": 1, "limit": 2})
        await Raw.open(srv.url, "lee", hello=False)
        extra = await Raw.open(srv.url, "mo", hello=False)
        for section, raw in (("error server.too_many_connections", extra), ("error server.idle_timeout", k)):
            try:
                while True:
                    await raw.recv(section, 5)
            except ConnectionClosed as exc:
                note(section, "xx", f"closed: code {exc.rcvd.code if exc.rcvd else None} "
                                    f"reason {exc.rcvd.reason if exc.rcvd else ''!r}")
        late = await Raw.open(srv.url, "ned", hello=False)
        try:
            while True:
                await late.recv("error protocol.hello_timeout", 5)
        except ConnectionClosed as exc:
            note("error protocol.hello_timeout", "xx", f"closed: code {exc.rcvd.code if exc.rcvd else None} "
                                                       f"reason {exc.rcvd.reason if exc.rcvd else ''!r}")

    for section, lines in SECTIONS.items():
        if section in ("x", "after"):
            continue
        print(f"### {section}\n")
        for line in lines:
            print(line)
        print()


if __name__ == "__main__":
    asyncio.run(main())

"""The load generator of ``bench/bench_server.py``: WebSocket clients in their own process.

    python bench/loadgen.py echo  --url URL --connections C --warmup W --seconds T [options]
    python bench/loadgen.py games --url URL --games G --warmup W --seconds T [--per-game-rate R]
                                  [--probe-timeout S] [options]

``echo``: C connections, each sending a command-sized request and waiting for its reply, in a
closed loop (one request in flight per connection).

``games``: G games of skirmish at once, each played by two connections (one creates the game and
takes seat a, the other joins it), speaking the wire protocol directly (``docs/protocol.md``)
with a light decoder that reads only the fields it needs. The seat a ``decision`` names answers
it with a seeded random option (as the ``random`` bot does), with a ``command_id``:

- without ``--per-game-rate``, at once (a closed loop: one command in flight per game);
- with it, not before the game's next slot, slots being a Poisson process of that rate per game
  (an open loop at G x R commands/s, within what the server keeps up with).

A game that ends is replaced by a new one (its set-up is inside the measured time, its commands
are not counted until it plays), so G games stay live. With ``--probe-timeout S``, after the
measured window every game is asked to answer its pending decision at once, and the report says
how many completed a command round trip (command sent after the probe began, its ``ack``
received) within S seconds. At the end each live game resigns (so that the server can let it go)
and its connections close.

With hello ``batch`` (the default; ``--no-batch`` for the v1 pushes) the server sends each
command's events, the next decision and the commander's ``ack`` as one ``updates`` frame per
connection: the three latencies below are then those of that frame.

Measured, for commands *sent* inside the window (warm-up excluded): command -> its ``ack``
(durably stored: ``ack`` comes last), command -> the next ``decision`` on the same connection,
command -> the first ``event`` on it (``OptionChosen``); throughput counts the ``ack`` frames
*received* inside the window.

Talking to the parent: one line ``ready {json}`` on stdout once every connection is open (every
game seated and started), then it waits for a line on stdin, then warm-up, window, probe and
clean-up, then one line ``result {json}``. Everything else goes to stderr.

It imports nothing from skirmish: it is what a client in any language would do.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
import time
from collections import Counter

import msgspec
from harness import LoadCollector, nofile_for
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

SUBPROTOCOL = {"msgpack": "skirmish.v1.msgpack", "json": "skirmish.v1.json"}
INF = float("inf")


class WireDecision(msgspec.Struct):
    id: int
    side: str
    options: list


class WirePush(msgspec.Struct):
    """A ``decision`` or ``ack`` folded into ``updates``: the fields read from it."""

    id: int = 0
    decision: WireDecision | None = None


class Frame(msgspec.Struct):
    """The fields of a server message the load generator reads; the rest (events...) is skipped.

    ``decision`` is a decision (in a ``decision`` push) or a whole ``decision`` message (in
    ``updates``), read by ``Frame.wire_decision`` once the type is known."""

    type: str
    id: int = 0
    game_id: str = ""
    seat: str = ""
    code: str = ""
    message: str = ""
    decision: msgspec.Raw = msgspec.Raw()  # empty: none
    events: list[msgspec.Raw] = []  # updates: only counted
    game_over: msgspec.Raw = msgspec.Raw()
    ack: WirePush | None = None


def present(raw: msgspec.Raw) -> bool:
    """A part of ``updates`` that is there: not left out, not null."""
    return len(raw) > 0 and bytes(raw) not in (b"\xc0", b"null")


def make_codec(name: str):
    """(encode, decode a Frame, decode a WireDecision, decode a WirePush)."""
    mod = msgspec.json if name == "json" else msgspec.msgpack
    enc = mod.Encoder()
    dec, dec_d, dec_p = mod.Decoder(Frame), mod.Decoder(WireDecision), mod.Decoder(WirePush)
    encode = (lambda msg: enc.encode(msg).decode()) if name == "json" else enc.encode
    return encode, dec.decode, dec_d.decode, dec_p.decode


# This process's garbage collector: kept out of the measured windows, each collection timed.
COLLECTOR = LoadCollector()


def emit(kind: str, payload: dict) -> None:
    sys.stdout.write(f"{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


async def wait_for_go() -> None:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if not line:
        raise SystemExit("loadgen: the parent went away")


def ms(samples: list[float]) -> list[float]:
    return [round(s * 1000, 4) for s in samples]


class Base:
    def __init__(self, args):
        self.args = args
        self.url = args.url
        self.placement = getattr(args, "placement", "random")
        self.encode, self.decode, self.decode_decision, self.decode_push = make_codec(args.codec)
        self.batch = not getattr(args, "no_batch", False)
        self.subprotocol = SUBPROTOCOL[args.codec]
        self.compression = None if args.compression == "none" else "deflate"
        self.m0 = self.m1 = INF  # the measured window, perf_counter seconds
        self.running = True
        self.errors: Counter[str] = Counter()

    async def connect(self, url: str | None = None):
        return await connect(url or self.url, subprotocols=[self.subprotocol], compression=self.compression,
                             ping_interval=None, max_size=2**24, open_timeout=120, close_timeout=5,
                             proxy=None)

    def in_window(self, t: float) -> bool:
        return self.m0 <= t < self.m1


# ------------------------------------------------------------------------------------ echo


class EchoLoad(Base):
    def __init__(self, args):
        super().__init__(args)
        self.lat: list[float] = []
        self.replies = 0
        self.bytes = 0

    async def loop(self, ws, n: int) -> None:
        encode, decode, pc = self.encode, self.decode, time.perf_counter
        game_id = f"g-{n:012x}"
        i = 0
        try:
            while self.running:
                i += 1
                frame = encode({"type": "command", "game_id": game_id, "decision_id": i,
                                "option": ["move", 3, 4], "command_id": f"a-{i}", "id": i})
                t0 = pc()
                await ws.send(frame)
                raw = await ws.recv()
                reply = decode(raw)
                t1 = pc()
                if reply.id != i:
                    self.errors["echo.wrong_id"] += 1
                if self.m0 <= t1 < self.m1:
                    self.replies += 1
                    self.bytes += len(raw)
                if self.m0 <= t0 < self.m1:
                    self.lat.append(t1 - t0)
        except ConnectionClosed as exc:
            self.errors[f"closed {exc.rcvd.code if exc.rcvd else 'abnormally'}"] += 1

    async def run(self) -> None:
        a = self.args
        started = time.perf_counter()
        sem = asyncio.Semaphore(a.setup_concurrency)

        async def opened():
            async with sem:
                return await self.connect()

        conns = await asyncio.gather(*(opened() for _ in range(a.connections)))
        emit("ready", {"connections": len(conns), "setup_s": round(time.perf_counter() - started, 3),
                       "nofile": nofile_for(0)})
        await wait_for_go()
        COLLECTOR.full()  # (the phase's one full collection, before its warm-up)
        go = time.perf_counter()
        self.m0, self.m1 = go + a.warmup, go + a.warmup + a.seconds
        tasks = [asyncio.create_task(self.loop(ws, n)) for n, ws in enumerate(conns)]
        await asyncio.sleep(a.warmup)
        cpu0 = time.process_time()
        await asyncio.sleep(a.seconds)
        cpu1 = time.process_time()
        self.running = False
        await asyncio.wait(tasks, timeout=10)
        await asyncio.gather(*(ws.close() for ws in conns), return_exceptions=True)
        emit("result", {"kind": "echo", "connections": len(conns), "window_s": a.seconds, "replies": self.replies,
                        "frames": self.replies, "bytes": self.bytes, "lat_reply_ms": ms(self.lat),
                        "errors": dict(self.errors), "cpu_s": cpu1 - cpu0})


# ------------------------------------------------------------------------------------ games


class SetupFailed(Exception):
    pass


class Conn:
    __slots__ = ("ws", "seat", "calls", "ids", "sent", "last_send", "want_event", "want_decision", "reader")

    def __init__(self, ws):
        self.ws = ws
        self.seat = ""
        self.calls: dict[int, asyncio.Future] = {}  # request id -> its reply (hello, create, join, resign)
        self.ids = itertools.count(1)
        self.sent: dict[int, float] = {}  # command id -> when it was sent (until its ack)
        self.last_send = 0.0
        self.want_event = self.want_decision = False
        self.reader: asyncio.Task | None = None


class Game:
    """One game and its two connections, seen from the clients."""

    def __init__(self, load: "GameLoad", number: int):
        self.load = load
        self.number = number
        self.rng = random.Random(load.args.seed * 1_000_003 + number)
        self.conns: list[Conn] = []
        self.game_id = ""
        self.pending: tuple[Conn, WireDecision] | None = None  # the latest decision for one of our seats
        self.started = asyncio.Event()  # a first decision arrived: the game runs
        self.wake = asyncio.Event()
        self.answered = 0
        self.over = False
        self.failed = ""
        self.closing = False
        self.next_slot = 0.0
        self.window_acks = 0
        self.ready_at = INF  # when the set-up finished
        self.probe_rtt = INF  # seconds from the probe's start to the ack of a command sent after it

    # -- set-up --------------------------------------------------------------------------

    async def call(self, c: Conn, msg: dict, timeout: float = 120.0) -> Frame:
        msg["id"] = i = next(c.ids)
        fut = asyncio.get_running_loop().create_future()
        c.calls[i] = fut
        await c.ws.send(self.load.encode(msg))
        return await asyncio.wait_for(fut, timeout)

    async def open(self, name: str) -> Conn:
        urls = self.load.url.split(",")  # several nodes: each connection to one of them, at random,
        if self.load.placement == "game":  # or both of a game to one, the games spread over the nodes
            url = urls[self.number % len(urls)]
        else:
            url = urls[random.Random(self.number * 2 + len(self.conns)).randrange(len(urls))]
        c = Conn(await self.load.connect(url))
        self.conns.append(c)
        c.reader = asyncio.create_task(self.read(c))
        hello = {"type": "hello", "protocol": 1, "client": name}
        if self.load.batch:
            hello["batch"] = True
        reply = await self.call(c, hello)
        if reply.type != "welcome":
            raise SetupFailed(f"hello: {reply.code or reply.type}")
        return c

    async def setup(self) -> None:
        n, mission = self.number, self.load.args.mission
        a = await self.open(f"bench-{n}-a")
        r = await self.call(a, {"type": "create_game", "mission": mission, "seat": "a", "client_seed": f"bench-{n}-a"})
        if r.type != "seated":
            raise SetupFailed(f"create_game: {r.code or r.type}")
        self.game_id = r.game_id  # (the reader has set a.seat)
        b = await self.open(f"bench-{n}-b")
        r = await self.call(b, {"type": "join", "game_id": self.game_id, "seat": "any", "client_seed": f"bench-{n}-b"})
        if r.type != "seated":
            raise SetupFailed(f"join: {r.code or r.type}")
        await asyncio.wait_for(self.started.wait(), 120)

    # -- reading -------------------------------------------------------------------------

    async def read(self, c: Conn) -> None:
        load, decode, pc = self.load, self.load.decode, time.perf_counter
        try:
            async for frame in c.ws:
                t = pc()
                f = decode(frame)
                kind = f.type
                if load.m0 <= t < load.m1:
                    load.window_frames += 1
                    load.window_bytes += len(frame)
                if kind == "updates":  # batch: the pushes of one step (and our ack) in one frame
                    self.on_updates(c, f, t)
                elif kind == "event":
                    if c.want_event:
                        c.want_event = False
                        if load.m0 <= c.last_send < load.m1:
                            load.lat_event.append(t - c.last_send)
                elif kind == "decision":
                    self.on_decision(c, load.decode_decision(f.decision), t)
                elif kind == "ack" and f.id in c.sent:
                    self.on_ack(c, f.id, t)
                elif kind == "game_over":
                    self.over = True
                    self.wake.set()
                elif f.id in c.calls:
                    if kind == "seated":  # before the backlog and the game's first decision are read
                        c.seat = f.seat
                    fut = c.calls.pop(f.id)
                    if not fut.done():
                        fut.set_result(f)
                elif kind == "error":
                    load.errors[f.code] += 1
                    if f.id in c.sent:  # a command refused: this game's clients are out of step
                        c.sent.pop(f.id)
                        self.failed = self.failed or f"error {f.code}: {f.message}"
                        self.wake.set()
        except ConnectionClosed:
            pass
        except Exception as exc:  # a frame we could not read: say so, stop this game
            self.failed = self.failed or f"client: {exc!r}"
        finally:
            if not self.closing and not self.over and not self.failed:
                self.failed = f"connection closed by the server ({c.ws.close_code} {c.ws.close_reason})"
            for fut in c.calls.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(self.failed or "closed"))
            c.calls.clear()
            self.wake.set()

    def on_updates(self, c: Conn, f: Frame, t: float) -> None:
        load = self.load
        if f.events and c.want_event:
            c.want_event = False
            if load.m0 <= c.last_send < load.m1:
                load.lat_event.append(t - c.last_send)
        if present(f.decision):
            self.on_decision(c, load.decode_push(f.decision).decision, t)
        if present(f.game_over):
            self.over = True
            self.wake.set()
        if f.ack is not None:
            if f.ack.id in c.sent:
                self.on_ack(c, f.ack.id, t)
            elif f.ack.id in c.calls:  # the resignation at the end
                fut = c.calls.pop(f.ack.id)
                if not fut.done():
                    fut.set_result(Frame(type="ack", id=f.ack.id, game_id=f.game_id))

    def on_decision(self, c: Conn, d: WireDecision, t: float) -> None:
        load = self.load
        if c.want_decision:
            c.want_decision = False
            if load.m0 <= c.last_send < load.m1:
                load.lat_decision.append(t - c.last_send)
        if d.side == c.seat:
            self.pending = (c, d)
            self.wake.set()
        self.started.set()

    def on_ack(self, c: Conn, i: int, t: float) -> None:
        load = self.load
        t0 = c.sent.pop(i)
        if load.m0 <= t < load.m1:
            load.window_acks += 1
            self.window_acks += 1
        if load.m0 <= t0 < load.m1:
            load.lat_ack.append(t - t0)
        if t0 >= load.probe_start and self.probe_rtt == INF:
            self.probe_rtt = t - load.probe_start

    # -- playing -------------------------------------------------------------------------

    async def play(self) -> None:
        load, pc = self.load, time.perf_counter
        rate = load.args.per_game_rate
        if rate:
            self.next_slot = pc() + self.rng.random() / rate  # a random phase, so that games do not align
        while not (self.over or self.failed or not load.running):
            p = self.pending
            if p is None or p[1].id <= self.answered:
                self.wake.clear()
                await self.wake.wait()
                continue
            c, d = p
            if rate and not load.probing:
                now = pc()
                if self.next_slot > now:
                    await load.pause(self.next_slot - now)
                    continue  # look again: the game may have ended, or the probe begun
                # Poisson slots; a game that fell more than a slot behind does not bunch its catch-up
                self.next_slot = max(self.next_slot, now - 1 / rate) + self.rng.expovariate(rate)
            i = next(c.ids)
            msg = load.encode({"type": "command", "game_id": self.game_id, "decision_id": d.id,
                               "option": self.rng.choice(d.options), "command_id": f"{c.seat}-{d.id}", "id": i})
            self.answered = d.id
            t = pc()
            c.sent[i] = c.last_send = t
            c.want_event = c.want_decision = True
            try:
                await c.ws.send(msg)
            except ConnectionClosed:
                self.failed = self.failed or "connection closed while sending a command"
                return

    async def finish(self) -> bool:
        """Resign (so that the server lets the game go) and close; whether the resignation was acked."""
        ok = False
        if not (self.over or self.failed) and self.conns:
            try:
                resign = {"type": "resign", "game_id": self.game_id, "command_id": "bench-end"}
                r = await self.call(self.conns[0], resign, timeout=30)
                ok = r.type == "ack"
            except Exception:
                pass
        await self.close()
        return ok

    async def close(self) -> None:
        self.closing = True
        await asyncio.gather(*(c.ws.close() for c in self.conns), return_exceptions=True)
        for c in self.conns:
            if c.reader is not None:
                c.reader.cancel()


class GameLoad(Base):
    def __init__(self, args):
        super().__init__(args)
        self.lat_ack: list[float] = []
        self.lat_decision: list[float] = []
        self.lat_event: list[float] = []
        self.window_acks = 0
        self.window_frames = 0  # frames (and their bytes) received inside the window, all kinds
        self.window_bytes = 0
        self.probing = False
        self.probe_start = INF
        self.interrupt = asyncio.Event()  # wakes paced games early: the probe begins, or the end
        self.go = asyncio.Event()
        self.all_settled = asyncio.Event()
        self.settled = 0  # slots whose first set-up is done (or failed)
        self.setup_sem = asyncio.Semaphore(args.setup_concurrency)
        self.numbers = itertools.count(args.first_game)
        self.live: set[Game] = set()
        self.set_up = 0
        self.finished = 0
        self.setup_failures: Counter[str] = Counter()
        self.game_failures: Counter[str] = Counter()
        self.connections_open_max = 0

    async def pause(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self.interrupt.wait(), seconds)
        except TimeoutError:
            pass

    def _settle(self) -> None:
        self.settled += 1
        if self.settled == self.args.games:
            self.all_settled.set()

    async def slot(self) -> None:
        first = True
        while self.running:
            game = Game(self, next(self.numbers))
            try:
                async with self.setup_sem:
                    if not self.running:
                        return
                    await game.setup()
            except Exception as exc:
                reason = str(exc) or type(exc).__name__
                self.setup_failures[reason[:120]] += 1
                await game.close()
                if first:
                    first = False
                    self._settle()
                await asyncio.sleep(0.5)
                continue
            self.set_up += 1
            game.ready_at = time.perf_counter()
            self.live.add(game)
            self.connections_open_max = max(self.connections_open_max, 2 * len(self.live))
            if first:
                first = False
                self._settle()
            await self.go.wait()
            await game.play()
            if game.over or game.failed:
                self.live.discard(game)
                if game.over:
                    self.finished += 1
                else:
                    self.game_failures[game.failed[:120]] += 1
                await game.close()
            else:
                return  # stopped; the game stays in ``live`` to be resigned

    async def run(self) -> None:
        a = self.args
        started = time.perf_counter()
        slots = [asyncio.create_task(self.slot()) for _ in range(a.games)]
        await self.all_settled.wait()
        emit("ready", {"games": len(self.live), "connections": 2 * len(self.live),
                       "setup_s": round(time.perf_counter() - started, 3),
                       "setup_failures": dict(self.setup_failures), "nofile": nofile_for(0)})
        await wait_for_go()
        COLLECTOR.full()  # (the phase's one full collection, before its warm-up)
        go = time.perf_counter()
        self.m0, self.m1 = go + a.warmup, go + a.warmup + a.seconds
        self.go.set()
        await asyncio.sleep(a.warmup)
        cpu0 = time.process_time()
        await asyncio.sleep(a.seconds)
        cpu1 = time.process_time()
        live_at_end = sum(1 for g in self.live if not (g.over or g.failed))
        playing = sum(1 for g in self.live if g.window_acks > 0 and not (g.over or g.failed))
        # live through the whole window and not one ack: stuck (a closed loop must have none)
        idle = sum(1 for g in self.live if g.ready_at < self.m0 and g.window_acks == 0 and not (g.over or g.failed))
        probe = None
        if a.probe_timeout:
            probed = [g for g in self.live if not (g.over or g.failed)]
            self.probing = True
            self.probe_start = time.perf_counter()
            self.interrupt.set()
            deadline = self.probe_start + a.probe_timeout
            while time.perf_counter() < deadline and any(g.probe_rtt == INF and not g.failed for g in probed):
                await asyncio.sleep(0.05)
            rtts = sorted(g.probe_rtt for g in probed)
            ok = [r for r in rtts if r <= a.probe_timeout]
            probe = {"games": len(probed), "ok": len(ok), "timeout_s": a.probe_timeout,
                     "slowest_s": round(ok[-1], 3) if ok else None,
                     "failed": sum(1 for g in probed if g.failed)}
        self.running = False
        self.interrupt.set()
        for g in list(self.live):
            g.wake.set()
        done, pending = await asyncio.wait(slots, timeout=10)
        for t in pending:
            t.cancel()
        sem = asyncio.Semaphore(200)

        async def finish(g: Game) -> bool:
            async with sem:
                return await g.finish()

        resigned = await asyncio.gather(*(finish(g) for g in list(self.live)), return_exceptions=True)
        emit("result", {
            "kind": "games", "games": a.games, "window_s": a.seconds, "acks": self.window_acks,
            "frames": self.window_frames, "bytes": self.window_bytes,
            "lat_ack_ms": ms(self.lat_ack), "lat_decision_ms": ms(self.lat_decision),
            "lat_event_ms": ms(self.lat_event),
            "games_set_up": self.set_up, "games_finished": self.finished, "live_at_end": live_at_end,
            "playing_in_window": playing, "idle_whole_window": idle, "connections_open_max": self.connections_open_max,
            "setup_failures": dict(self.setup_failures), "game_failures": dict(self.game_failures),
            "errors": dict(self.errors), "probe": probe, "resigned": sum(1 for r in resigned if r is True),
            "cpu_s": cpu1 - cpu0, "client_gc_ms": COLLECTOR.pauses_ms(self.m0, self.m1)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["echo", "games"])
    ap.add_argument("--url", required=True, help="the server; games: several nodes' URLs, comma-separated "
                    "(each connection goes to one of them at random, see --placement)")
    ap.add_argument("--placement", choices=["random", "game"], default="random",
                    help="games on several nodes: each connection to a node at random, or both of a game to one "
                         "(game N to node N mod the nodes)")
    ap.add_argument("--codec", choices=["msgpack", "json"], default="msgpack")
    ap.add_argument("--compression", choices=["deflate", "none"], default="deflate",
                    help="what the clients offer (default: permessage-deflate, websockets' default)")
    ap.add_argument("--no-batch", action="store_true",
                    help="games: protocol v1 pushes (an event, decision, ack frame each) instead of hello batch")
    ap.add_argument("--connections", type=int, default=200, help="echo: connections")
    ap.add_argument("--games", type=int, default=100, help="games: concurrent games (2 connections each)")
    ap.add_argument("--first-game", type=int, default=0, help="games: number of the first game (seeds, names)")
    ap.add_argument("--mission", default="ridge")
    ap.add_argument("--per-game-rate", type=float, default=0.0,
                    help="games: commands/s per game (Poisson); 0 = answer at once (closed loop)")
    ap.add_argument("--probe-timeout", type=float, default=0.0,
                    help="games: after the window, every game must complete a command within this many s (0: no probe)")
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--setup-concurrency", type=int, default=25, help="games (or connections) set up at once")
    args = ap.parse_args()
    nofile_for(2 * max(args.games, args.connections) + 256)
    load = EchoLoad(args) if args.mode == "echo" else GameLoad(args)
    asyncio.run(COLLECTOR.run(load.run()))


if __name__ == "__main__":
    main()

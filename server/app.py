"""``skirmish serve``: the WebSocket server (``websockets`` asyncio), its connections and its
graceful shutdown.

Contract for clients, tests and the demo::

    async with running_server(ServerConfig(port=0, db=":memory:")) as srv:
        ...  # connect to srv.url ("ws://127.0.0.1:PORT"); srv.port is the bound port

A connection negotiates ``skirmish.v1.msgpack`` (also when it offers no subprotocol) or
``skirmish.v1.json``; a client offering only other subprotocols is refused (HTTP 400). Its
first message must be ``hello``. Then every message gets its reply or a typed ``error``
carrying the message's ``id``, and the connection stays usable, except:

- ``hello`` with another protocol version: ``error protocol.version``, then close 1002;
- a frame over websockets' ``max_size`` (``ServerConfig.ws_max_size``, raised to the largest
  ``replay_frames`` frame while ``replay_max`` > 0; other frames past ``max_frame`` stay
  ``protocol.too_large``): closed by websockets, 1009;
- a client too slow to read what it is sent: closed 1008 (``skirmish.server.connection``);
- no ``hello`` within ``hello_timeout``: ``error protocol.hello_timeout``, then close 1008;
- silent for ``idle_timeout`` while following no unfinished game: ``error server.idle_timeout``,
  then close 1008;
- more than ``connections_per_address`` connections from its IP address: ``error
  server.too_many_connections``, then close 1013 (try again later);
- shutdown: ``error server.shutting_down``, then close 1001.

Shutdown (``App.shutdown``, on SIGTERM/SIGINT for ``skirmish serve``): stop accepting
connections, let the commands already queued commit and fan out, tell each connection and
close it with 1001, close the store. One node of several (``--nats``, ``skirmish.server.cluster``)
first hands its games over (each one's queued jobs, then its lease released for another node).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time

import structlog
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, NegotiationError
from websockets.http11 import Request

from skirmish.engine.errors import GameError
from skirmish.protocol.codec import SUBPROTOCOLS, Codec, codec_for
from skirmish.protocol.errors import ProtocolError
from skirmish.server.collector import Collector
from skirmish.server.config import ServerConfig
from skirmish.server.connection import Connection, TokenBucket
from skirmish.server.housebots import HouseBots, parse_names
from skirmish.server.lobby import Lobby
from skirmish.server.metrics import COMMAND_TYPES, CONTENT_TYPE, ServerMetrics, TimedStore, check_store
from skirmish.server.replayframes import frame_limit
from skirmish.server.session import MAX_NAME, SERVER_NAME, ServerSession, frame_id  # noqa: F401 (MAX_NAME: re-exported)
from skirmish.server.logs import configure_logging, get_logger
from skirmish.server.store import EventStore, MemoryStore
from skirmish.server.web import WebRoutes, json_response, response
from skirmish.server.webapi import WebApi

__all__ = ["App", "ServerConfig", "running_server", "serve_until_signalled"]

GOING_AWAY, PROTOCOL_ERROR, POLICY, TRY_AGAIN_LATER = 1001, 1002, 1008, 1013


def select_subprotocol(connection: ServerConnection, offered):
    """Our first codec the client offers; none offered: MessagePack (the default)."""
    if not offered:
        return None
    for name in SUBPROTOCOLS:
        if name in offered:
            return name
    raise NegotiationError(f"unsupported subprotocol; this server speaks {', '.join(SUBPROTOCOLS)}")


def store_path(config: ServerConfig):
    """The store the server uses: a SQLite file's Path, a PostgreSQL location, None (in memory)."""
    if config.in_memory:
        return None
    if config.db:
        from skirmish.server.store.location import resolve

        return resolve(config.db, memory=True, what="db")
    from skirmish.server.cli import default_db

    return default_db()


async def open_configured_store(config: ServerConfig) -> EventStore:
    path = store_path(config)
    if path is None:
        return MemoryStore()
    from skirmish.server.store.location import open_location  # names the path and the problem

    return await open_location(path, create=True, writer=config.store_writer)


class App:
    def __init__(self, config: ServerConfig, store: EventStore | None = None):
        self.config = config
        self.store = store
        self._owns_store = store is None
        self.log = get_logger()
        self.lobby: Lobby | None = None
        self.connections: set[Connection] = set()
        self.closing = False
        self._server = None
        self._shutdown_task: asyncio.Task | None = None
        self.port = 0
        self.host = config.host
        self.per_address: dict[str, int] = {}  # open connections by IP address
        self._creations: dict[str, TokenBucket] = {}  # create_game by IP address
        # one codec per subprotocol, shared by its connections (a codec holds no state of a
        # connection; its decoders cost 1.2 KiB a connection: docs/decisions.md, "Memory: 1,000 games")
        self._codecs: dict[str | None, Codec] = {}
        # the web client (skirmish.server.web): HTTP GETs on the same port, and the bots it hosts
        self.house = HouseBots(parse_names(config.house_bots), lambda: self.url, self.log)
        self._background: set[asyncio.Task] = set()  # tasks the server started for itself (resuming house bots)
        self.web = WebRoutes(WebApi(lambda: self.lobby, self.house, config.tournaments), ops=self._ops)
        # /metrics, /healthz, /readyz (skirmish.server.metrics): this server's own registry
        self.metrics = ServerMetrics(self._gauges)
        self.metrics.ready_checks["store"] = lambda: check_store(self.store)
        self.node = None  # one node of several (--nats): skirmish.server.cluster.node.Node

    @property
    def url(self) -> str:
        host = self.host
        if host in ("", "0.0.0.0", "::"):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"ws://{host}:{self.port}"

    @property
    def http_url(self) -> str:
        """Where a browser opens the web client."""
        return "http" + self.url.removeprefix("ws") + "/"

    async def start(self) -> "App":
        c = self.config
        if self.store is None:
            self.store = await open_configured_store(c)
        if c.nats:  # one node of several (skirmish.server.cluster)
            from skirmish.server.cluster.house import ClusterHouse
            from skirmish.server.cluster.lobby import ClusterLobby
            from skirmish.server.cluster.node import Node

            self.node = Node(c, self.store, self.log, self.metrics)
            self.node.house = ClusterHouse(self.node, self.house, self.node.log)
            self.lobby = ClusterLobby(TimedStore(self.store, self.metrics.store_seconds), c, self.log, self.node,
                                      admit_creation=self._take_creation)
            self.lobby.on_rules = self.metrics.rules_seconds.inc
            await self.node.start(self.lobby)
            self.metrics.ready_checks["nats"] = self.node.check
        else:
            self.lobby = Lobby(TimedStore(self.store, self.metrics.store_seconds), c, self.log,
                               admit_creation=self._take_creation)
            self.lobby.on_rules = self.metrics.rules_seconds.inc
        self.lobby.start()
        self._server = await serve(
            self._handle, c.host, c.port,
            subprotocols=list(SUBPROTOCOLS), select_subprotocol=select_subprotocol,
            compression=None if c.compression == "none" else "deflate",
            max_size=max(c.ws_max_size, frame_limit(c.replay_max)), ping_interval=c.ping_interval or None, ping_timeout=c.ping_timeout or None,
            close_timeout=c.close_timeout, server_header=SERVER_NAME, process_request=self.web,
            logger=logging.getLogger("websockets.server"))  # skirmish.server.logs turns its records into JSON
        self.port = self._server.sockets[0].getsockname()[1]
        self.log.info("server.listening", url=self.url, web=self.http_url, host=c.host, port=self.port,
                      db=str(store_path(c) or ":memory:") if self._owns_store else "(given)",
                      move_ms=c.move_ms, reserve_ms=c.reserve_ms, max_timeouts=c.max_timeouts,
                      max_frame=c.max_frame, rate=c.rate, burst=c.burst,
                      compression=c.compression, loop=type(asyncio.get_running_loop()).__module__.split(".")[0],
                      hello_timeout=c.hello_timeout, idle_timeout=c.idle_timeout,
                      connections_per_address=c.connections_per_address, games_per_minute=c.games_per_minute,
                      games_burst=c.games_burst)
        resuming = asyncio.create_task(self._resume_house_bots())  # (in the background: the server serves meanwhile)
        self._background.add(resuming)
        resuming.add_done_callback(self._background.discard)
        return self

    async def _resume_house_bots(self) -> None:
        """The hosted bots of the games a restart interrupted play on (``HouseBots.resume_all``).
        Not on one node of several: there the owner of a game runs its bot, started when the node
        takes the game (``skirmish.server.cluster.house``); a restarted node owns nothing yet."""
        if self.node is not None:
            return
        try:
            n = await self.house.resume_all(self.lobby)
        except Exception as exc:  # noqa: BLE001 - a courtesy to the games: the server runs all the same
            self.log.warning("house_bot.resume_failed", error=f"{type(exc).__name__}: {exc}")
            return
        if n:
            self.log.info("house_bot.resumed", bots=n)

    # -- shutdown ----------------------------------------------------------------------------

    async def shutdown(self) -> None:
        if self._shutdown_task is None:
            self._shutdown_task = asyncio.create_task(self._shutdown())
        await asyncio.shield(self._shutdown_task)

    async def _shutdown(self) -> None:
        c = self.config
        self.closing = True
        if self.node is not None:
            try:
                async with asyncio.timeout(c.shutdown_timeout):
                    await self.node.hand_over()  # each owned game's queued jobs, then its lease to another node
            except TimeoutError:
                self.log.error("server.shutdown_timeout", what="handing games over")
        # (several nodes: until the games are handed over, commands still run, forwarded to the new owner)
        for conn in list(self.connections):
            conn.session.shutting_down = True  # requests from now on: ``server.shutting_down``
        self.log.info("server.stopping", connections=len(self.connections))
        for task in list(self._background):
            task.cancel()
        await self.house.close()
        if self._server is not None:
            self._server.server.close()  # stop accepting; open connections carry on for now
        if self.lobby is not None:
            try:
                async with asyncio.timeout(c.shutdown_timeout):
                    await self.lobby.close()  # in-flight commands commit and fan out
            except TimeoutError:
                self.log.error("server.shutdown_timeout", what="game actors")
        for conn in list(self.connections):
            conn.error("server.shutting_down", "the server is shutting down; reconnect and resume later")
        await asyncio.gather(*(conn.close(GOING_AWAY, "server shutting down")
                               for conn in list(self.connections)), return_exceptions=True)
        if self._server is not None:
            self._server.close()
            try:
                async with asyncio.timeout(c.shutdown_timeout):
                    await self._server.wait_closed()
            except TimeoutError:
                self.log.error("server.shutdown_timeout", what="connections")
        if self.node is not None:
            await self.node.close()
        if self._owns_store and self.store is not None:
            await self.store.close()
        self.log.info("server.stopped")

    # -- a connection --------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        c = self.config
        codec = self._codecs.get(ws.subprotocol) or self._codecs.setdefault(ws.subprotocol, codec_for(ws.subprotocol))
        session = ServerSession(codec, rate=c.rate, burst=c.burst, max_frame=c.max_frame,
                                replay_frame=frame_limit(c.replay_max), hello_timeout=c.hello_timeout, idle_timeout=c.idle_timeout, now=time.monotonic(),
                                log=self.log)
        session.shutting_down = self.closing
        session.on_error = self._count_error
        conn = Connection(ws, session.codec, send_buffer=c.send_buffer, close_timeout=c.close_timeout, log=self.log,
                          session=session)
        remote = ws.remote_address
        conn.address = str(remote[0]) if remote else ""
        # The opening handshake's request and response are of no use past it (web routes read them
        # before, in ``process_request``): websockets would keep their headers for the connection's
        # life, 4 KiB a connection. The request keeps its path (docs/decisions.md, "Memory: 1,000 games").
        ws.request, ws.response = Request(ws.request.path, Headers()), None
        # Nor is the subprotocol chooser: websockets binds it to the protocol as a closure over the
        # connection, a cycle that only a full garbage collection frees, and `serve` runs those
        # seldom (server/collector.py). Without it a closed connection is freed at once (under
        # uvloop: 30 objects left in cycles a connection before, about 1 after).
        ws.protocol.__dict__.pop("select_subprotocol", None)
        self.log.info("connection.open", conn=conn.id, remote=f"{remote[0]}:{remote[1]}" if remote else "",
                      codec=conn.codec.name)
        self.connections.add(conn)
        self.per_address[conn.address] = self.per_address.get(conn.address, 0) + 1
        try:
            if self.closing:
                conn.error("server.shutting_down", "the server is shutting down; try again later")
                await conn.close(GOING_AWAY, "server shutting down")
                return
            if c.connections_per_address and self.per_address[conn.address] > c.connections_per_address:
                self.log.warning("connection.refused", conn=conn.id, address=conn.address,
                                 limit=c.connections_per_address)
                conn.error("server.too_many_connections", f"{c.connections_per_address} connections from one "
                                                          "address at most; close one and try again")
                await conn.close(TRY_AGAIN_LATER, "too many connections from this address")
                return
            while True:  # bytes in, to the session; what it has to say, out; its requests, to the lobby
                try:
                    async with asyncio.timeout(session.quiet_limit(time.monotonic())):
                        frame = await ws.recv()
                except TimeoutError:
                    if session.timed_out(self._following(conn)):
                        conn.transmit()
                        await conn.close(POLICY, session.close_request[1])
                        return
                    continue
                received = time.perf_counter()
                request = session.receive_frame(frame)
                if request is None:
                    conn.transmit()
                    if session.close_request is not None:
                        await conn.close(*session.close_request)
                        return
                    continue
                await self._on_request(conn, request, received)
        except ConnectionClosed:
            pass
        finally:
            self.connections.discard(conn)
            left = self.per_address.get(conn.address, 1) - 1
            if left > 0:
                self.per_address[conn.address] = left
            else:
                self.per_address.pop(conn.address, None)
            if self.lobby is not None:
                self.lobby.detach(conn)
            conn.stop()
            self.log.info("connection.close", conn=conn.id, code=ws.close_code, reason=ws.close_reason or "",
                          sent=conn.sent)

    def _following(self, conn: Connection) -> bool:
        """Whether ``conn`` holds a seat in, or watches, a game that is not over."""
        for game_id in conn.roles:
            actor = self.lobby.actors.get(game_id) if self.lobby is not None else None
            if actor is not None and actor.state.outcome is None:
                return True
        return False

    def _take_creation(self, conn: Connection) -> None:
        """Count a game created from ``conn``'s address, or refuse it (``lobby.rate_limited``)."""
        c = self.config
        if not c.games_per_minute:
            return
        buckets = self._creations
        bucket = buckets.get(conn.address)
        if bucket is None:
            if len(buckets) >= 10_000:  # forget the addresses whose bucket has refilled
                now = time.monotonic()
                for address, b in list(buckets.items()):
                    if b.tokens + (now - b.at) * b.rate >= b.burst:
                        del buckets[address]
            bucket = buckets[conn.address] = TokenBucket(c.games_per_minute / 60, c.games_burst)
        if not bucket.take():
            wait = (1 - bucket.tokens) / bucket.rate
            raise ProtocolError("lobby.rate_limited", f"at most {c.games_per_minute:g} new games a minute "
                                                      f"(at once {c.games_burst}) from one address; "
                                                      f"try again in {wait:.1f} s")

    async def _on_request(self, conn: Connection, request, received: float) -> None:
        """A typed request the session let through: the lobby acts on it; a refusal is an ``error``
        under its id. Game commands are counted and timed (``skirmish.server.metrics``)."""
        counted = type(request) in COMMAND_TYPES
        try:
            await self.lobby.handle(conn, request, received)
        except (ProtocolError, GameError) as exc:
            conn.error(exc.code, exc.message, request.id)
            if counted:
                self.metrics.command(request, received, exc.code)
        except Exception:
            self.log.exception("internal_error", conn=conn.id, type=type(request).__name__)
            conn.error("server.internal", "the server failed; the game is unchanged", request.id)
            if counted:
                self.metrics.command(request, received, "server.internal", failed=True)
        else:
            if counted:
                self.metrics.command(request, received)

    # -- observability (skirmish.server.metrics) --------------------------------------------------

    def _count_error(self, code: str) -> None:
        self.metrics.errors.labels(code).inc()

    def _gauges(self) -> dict[str, tuple[str, float]]:
        actors = list(self.lobby.actors.values()) if self.lobby is not None else []
        actors = [a for a in actors if getattr(a, "owner", True)]  # (several nodes: not the replicas)
        live = sum(1 for a in actors if a.state.started and a.state.outcome is None)
        return {"skirmish_connections": ("WebSocket connections open", len(self.connections)),
                "skirmish_games_owned": ("Games whose actor runs on this node", len(actors)),
                "skirmish_games_live": ("Games on this node started and not over", live)}

    async def _ops(self, path: str):
        """``/healthz``: the process answers; ``/readyz``: it can serve (503 and the failing checks
        if not); ``/metrics``: Prometheus' text format."""
        if path == "/healthz":
            return json_response({"alive": True})
        if path == "/metrics":
            return response(200, await self.metrics.exposition(self.closing), CONTENT_TYPE)
        failing = await self.metrics.readiness(self.closing)
        return json_response({"ready": not failing, "failing": failing}, 503 if failing else 200)


@contextlib.asynccontextmanager
async def running_server(config: ServerConfig | None = None, *, store: EventStore | None = None):
    """Run a server for the body of an ``async with``; shut it down gracefully on exit.

    ``store`` injects an event store (the caller keeps it and closes it); without one the server
    opens ``config.db`` (":memory:" for the in-memory store) and closes it on exit.
    """
    config = config or ServerConfig()
    if not structlog.is_configured():
        configure_logging(config.log_level)
    app = App(config, store)
    await app.start()
    try:
        yield app
    finally:
        await app.shutdown()


def logged_collector(log) -> Collector:
    """``serve``'s garbage collector, each full pass logged as ``gc.full`` (objects collected, ms,
    memory blocks held after it)."""
    return Collector(on_full=lambda collected, took, blocks: log.info(
        "gc.full", collected=collected, ms=round(took * 1000, 1), blocks=blocks))


async def serve_until_signalled(config: ServerConfig, out=None) -> int:
    """``skirmish serve``: run until SIGTERM or SIGINT, then shut down gracefully; exit status 0.

    The process's garbage collector runs by the loop's clock while it serves (``Collector``)."""
    out = out or sys.stdout
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    collector: Collector | None = None
    try:
        async with running_server(config) as app:
            collector = logged_collector(app.log)
            collector.start(loop)
            host = config.host if ":" not in config.host else f"[{config.host}]"
            print(f"listening on ws://{host}:{app.port}", file=out, flush=True)  # (one line: scripts read it)
            await stop.wait()
            app.log.info("server.signal")
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        if collector is not None:
            collector.stop()
    return 0

"""The server's Prometheus metrics (``GET /metrics``) and its health checks (``/healthz``, ``/readyz``).

Each ``App`` has its own ``ServerMetrics`` with its own ``CollectorRegistry`` (never
prometheus-client's global one), so several servers in one process (the tests) keep apart.

Metrics (``docs/operations`` in ``deploy/README.md`` says what to alert on):

- ``skirmish_commands_total{type,outcome,code}``: every game command the lobby acted on, by
  ``type`` (choose, resign, offer_draw, cancel), ``outcome`` ("ok"; "refused": a typed error the
  client caused, its ``code`` e.g. ``game.illegal_option``; "failed": ``server.internal``).
- ``skirmish_command_seconds{type}``: from the command's frame received to its ``ack`` queued
  (decide, the durable append, the fan-out), for the commands that were acked.
- ``skirmish_rules_seconds_total``: seconds the rules took for the commands this server ran
  (``decide``, then ``evolve`` and the views; on the event loop, so CPU): beside
  ``process_cpu_seconds_total`` it says how much of the server's CPU is the game itself.
- ``skirmish_store_write_seconds{op}``: one store write as the server waits for it: ``append``
  (commands, seats, seeds) and ``create`` (a new game); group commit included.
- ``skirmish_errors_total{code}``: every ``error`` message sent to a client (rate limiting and
  malformed frames too, which never reach the lobby).
- ``skirmish_games_owned``: games whose actor runs on this node; ``skirmish_games_live``: those
  of them started and not over; ``skirmish_connections``: WebSocket connections open.
- ``skirmish_ready``: 1 if ``/readyz`` would answer 200, else 0 (checked at each scrape, so that
  Prometheus alerts on readiness without probing ``/readyz`` itself).
- ``skirmish_leases_taken_over_total``: games this node took over from another node whose lease
  lapsed (multi-node; 0 on one node); ``skirmish_appends_fenced_total``: appends of this node the
  store refused because its lease had expired or moved (a node paused or cut off past its lease).
- ``process_*``: the process's CPU, memory and file descriptors (prometheus-client's
  ``ProcessCollector``, Linux only).

Readiness (``/readyz``): every check in ``ServerMetrics.ready_checks`` (name -> coroutine
function) passes within ``READY_TIMEOUT`` seconds; "store" is always there (``check_store``), and
a message bus adds its own. 503 with ``{"ready": false, "failing": {name: reason}}`` otherwise,
and while the server shuts down.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from skirmish.protocol import messages as m
from skirmish.server.store import UnknownGame

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
COMMAND_TYPES = {m.Command: "choose", m.ResignGame: "resign", m.OfferDraw: "offer_draw", m.CancelGame: "cancel"}
READY_TIMEOUT = 2.0
# The classic text format: what every Prometheus (2.x too) and scraper reads; our names are plain
# ASCII, so prometheus-client's exposition is that format whatever version it would announce.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PROBE_GAME = "readyz-probe"  # a game id no game has (ids are g-...): reading it reaches the store, finds nothing

__all__ = ["COMMAND_TYPES", "CONTENT_TYPE", "ServerMetrics", "TimedStore", "check_store"]


class _Gauges:
    """Gauges read when scraped: ``sample()`` returns {name: (help, value)}."""

    def __init__(self, sample: Callable[[], dict[str, tuple[str, float]]]):
        self.sample = sample

    def collect(self):
        for name, (text, value) in self.sample().items():
            yield GaugeMetricFamily(name, text, value=value)

    def describe(self):
        return []  # values only at scrape time (no description at registration)


class ServerMetrics:
    def __init__(self, sample: Callable[[], dict[str, tuple[str, float]]]):
        r = self.registry = CollectorRegistry()
        self.commands = Counter("skirmish_commands", "Game commands the server acted on, by type, outcome and "
                                "error code", ["type", "outcome", "code"], registry=r)
        self.command_seconds = Histogram("skirmish_command_seconds", "Seconds from a command's frame received to "
                                         "its ack queued", ["type"], buckets=LATENCY_BUCKETS, registry=r)
        self.store_seconds = Histogram("skirmish_store_write_seconds", "Seconds one store write took, as the server "
                                       "waited for it", ["op"], buckets=LATENCY_BUCKETS, registry=r)
        self.rules_seconds = Counter("skirmish_rules_seconds", "Seconds the rules took (decide, then evolve and "
                                     "the views) for the commands this server ran", registry=r)
        self.errors = Counter("skirmish_errors", "Error messages sent to clients, by code", ["code"], registry=r)
        self.leases_taken_over = Counter("skirmish_leases_taken_over", "Games this node took over from a node "
                                         "whose lease lapsed", registry=r)
        self.appends_fenced = Counter("skirmish_appends_fenced", "Appends of this node the store refused because "
                                      "its lease on the game had expired or moved (several nodes)", registry=r)
        self.events_heard = Counter("skirmish_events_heard", "Messages of another node's stored events this node "
                                    "received over NATS: only those of the games it holds an actor of (several "
                                    "nodes)", registry=r)
        self.ready = Gauge("skirmish_ready", "1 if /readyz answers 200 (checked at each scrape)", registry=r)
        r.register(_Gauges(sample))
        ProcessCollector(registry=r)
        self.ready_checks: dict[str, Callable[[], Awaitable[None]]] = {}
        self._children: dict[tuple, tuple] = {}  # (type, outcome, code) -> (counter, histogram): labels() once

    def command(self, request, received: float, code: str = "", failed: bool = False) -> None:
        """Count a command the lobby handled (``code``: its error's, "" if acked)."""
        outcome = "failed" if failed else "refused" if code else "ok"
        key = (type(request), outcome, code)
        children = self._children.get(key)
        if children is None:  # (prometheus-client's labels() checks and locks: once per label set, not per command)
            kind = COMMAND_TYPES[type(request)]
            children = self._children[key] = (self.commands.labels(kind, outcome, code),
                                              self.command_seconds.labels(kind))
        children[0].inc()
        if outcome == "ok":
            children[1].observe(max(0.0, time.perf_counter() - received))

    async def exposition(self, closing: bool) -> bytes:
        self.ready.set(0 if await self.readiness(closing) else 1)
        return generate_latest(self.registry)

    async def readiness(self, closing: bool) -> dict[str, str]:
        """{check: reason} of the failing checks (empty: ready)."""
        if closing:
            return {"server": "shutting down"}
        names = list(self.ready_checks)
        results = await asyncio.gather(*(_timed(self.ready_checks[n]) for n in names))
        return {n: why for n, why in zip(names, results) if why}


async def _timed(check: Callable[[], Awaitable[None]]) -> str:
    try:
        async with asyncio.timeout(READY_TIMEOUT):
            await check()
    except TimeoutError:
        return f"no answer within {READY_TIMEOUT:g} s"
    except Exception as exc:  # noqa: BLE001 - any failure is a reason, said to the prober
        return f"{type(exc).__name__}: {exc}"[:300]
    return ""


async def check_store(store) -> None:
    """Reach the store: its ``ping()`` if it has one, else a read of a game that does not exist
    (``UnknownGame`` is the answer of a store that works), and for SQLite its writer."""
    ping = getattr(store, "ping", None)
    if ping is not None:
        await ping()
        return
    try:
        await store.last_seq(PROBE_GAME)
    except UnknownGame:
        pass
    broken = getattr(store, "_broken", None)
    if broken is not None:
        raise RuntimeError(f"the store's writer stopped: {broken!r}")
    pragmas = getattr(store, "pragmas", None)  # SQLiteStore: a round trip to its writer (thread or process)
    if pragmas is not None:
        await pragmas()


class TimedStore:
    """The store as the lobby and its games use it, timing each write (``skirmish_store_write_seconds``);
    everything else is the store's own."""

    def __init__(self, store, histogram: Histogram):
        self._store = store
        self._append = histogram.labels("append")
        self._create = histogram.labels("create")

    def __getattr__(self, name):
        return getattr(self._store, name)

    async def append(self, *args, **kw):
        started = time.perf_counter()
        try:
            return await self._store.append(*args, **kw)
        finally:
            self._append.observe(time.perf_counter() - started)

    async def create_game(self, *args, **kw):
        started = time.perf_counter()
        try:
            return await self._store.create_game(*args, **kw)
        finally:
            self._create.observe(time.perf_counter() - started)

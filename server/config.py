"""The server's settings: one dataclass, defaults documented here, overridable from the
environment (``SKIRMISH_<FIELD>``, e.g. ``SKIRMISH_PORT=9000``) and from ``skirmish serve`` flags.

Defaults, and why:

- ``move_ms`` 30 000 and ``reserve_ms`` 120 000: each decision has 30 s; past that the seat's
  banked reserve (2 minutes for the whole game, never refilled) runs; when both are gone the
  server plays ``skirmish.engine.decide.default_option`` for the seat, recorded as a time-out.
  ``max_timeouts`` 3: the third time-out forfeits the game (0: never forfeit).
- ``max_frame`` 64 KiB: a bigger frame gets ``protocol.too_large`` and is dropped, the
  connection stays; ``ws_max_size`` 1 MiB is websockets' own limit, past which it closes the
  connection with 1009 (so a client cannot make the server buffer more than that).
- ``rate`` 50 messages/s with a ``burst`` of 100 (a token bucket per connection): past it a
  message gets ``protocol.rate_limited`` and is dropped.
- ``compression`` "none": the server declines permessage-deflate, trading bytes on the wire
  (about 0.9 KB a frame) for the server's CPU and memory per connection (docs/decisions.md);
  "deflate" accepts it when the client offers it (websockets' default).
- ``store_writer`` "process": the SQLite store's write connection lives in a child process, so
  that the event loop does not share the GIL with SQLite (docs/decisions.md); "thread" keeps it
  on a thread of the server's process.
- ``open_game_ttl`` 3600 s: a game nobody joined (it has not started) expires an hour after it
  was created: ``GameCancelled`` with reason "expired" ends it in its log, which then verifies
  like any finished game (its server seed revealed). 0: open games never expire.
- ``loop`` "uvloop" where it is installed (a dependency on Linux and macOS), else "asyncio": the
  event loop ``skirmish serve`` runs on. uvloop's sockets, transports and callbacks are C code
  (libuv): the same server spends less CPU per command on it (docs/decisions.md). "asyncio"
  runs the standard library's loop.
- ``send_buffer`` 4 MiB: what may wait unsent to one connection (in its transport's buffer,
  past the kernel's socket buffers). A reader that falls further behind is disconnected (close code 1008) and resumes later; it never stalls a game.

Limits against a client that holds resources without playing (0 turns each off):

- ``hello_timeout`` 10 s: a connection that has not said ``hello`` by then gets
  ``protocol.hello_timeout`` and is closed (1008).
- ``idle_timeout`` 300 s: a connection that follows no unfinished game (no seat in one, not
  watching one) and sends nothing for that long gets ``server.idle_timeout`` and is closed (1008).
- ``connections_per_address`` 64: connections open at once from one IP address; one more gets
  ``server.too_many_connections`` and is closed (1013, try again later). Enough for a household
  or a small NAT; behind a reverse proxy every client has the proxy's address: raise it there.
- ``games_per_minute`` 30 with a ``games_burst`` of 10: ``create_game`` per IP address (a token
  bucket); past it ``lobby.rate_limited`` and no game is created.
- ``list_limit`` 200: the most games one ``list_games`` page holds (its ``limit`` can ask fewer).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Mapping

from skirmish.server.store.sqlite import WRITERS

ENV_PREFIX = "SKIRMISH_"
LOOPS = ("uvloop", "asyncio")  # skirmish serve's event loop (``loop``; ``loop_factory``)


def loop_factory(loop: str):
    """The event loop factory ``skirmish serve`` runs on: uvloop's, the standard library's (None),
    or for "" uvloop's where it is installed. ValueError for "uvloop" where it is not, and for
    anything else."""
    if loop not in ("", *LOOPS):
        raise ValueError(f"loop is one of {', '.join(LOOPS)}, not {loop!r}")
    if loop == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if loop == "uvloop":
            raise ValueError("loop 'uvloop': uvloop is not installed here (pip install uvloop; "
                             "or --loop asyncio)") from None
        return None
    return uvloop.new_event_loop
MEMORY = (":memory:", "memory:")  # ``db`` values that select the in-memory store


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765  # 0: an ephemeral port (``srv.port`` says which)
    db: str = ""  # a SQLite file; "" = skirmish.server.cli.default_db(); ":memory:" = nothing persisted
    move_ms: int = 30_000  # time for each decision before the reserve is used
    reserve_ms: int = 120_000  # banked time per seat for the whole game, not refilled
    max_timeouts: int = 3  # time-outs after which a seat forfeits (0: never)
    max_frame: int = 64 * 1024  # bytes; larger frames get protocol.too_large
    ws_max_size: int = 1024 * 1024  # bytes; websockets closes the connection (1009) past it
    replay_max: int = 2 * 1024 * 1024  # bytes of a replay file sent with replay_frames (0: none); its frame may pass max_frame and ws_max_size
    rate: float = 50.0  # messages per second per connection, sustained
    burst: int = 100  # messages a connection may send at once
    send_buffer: int = 4 * 1024 * 1024  # bytes waiting to be sent before a connection is dropped
    ping_interval: float = 20.0  # websockets keepalive, seconds (0: off)
    ping_timeout: float = 20.0
    close_timeout: float = 5.0  # seconds to wait for a closing handshake
    shutdown_timeout: float = 10.0  # seconds for in-flight commands and last frames at shutdown
    list_limit: int = 200  # the most games one list_games page holds
    hello_timeout: float = 10.0  # seconds a new connection has to say hello (0: no limit)
    idle_timeout: float = 300.0  # seconds of silence before a connection following no unfinished game is closed (0: never)
    connections_per_address: int = 64  # connections open at once from one IP address (0: no limit)
    games_per_minute: float = 30.0  # create_game per IP address, sustained (0: no limit)
    games_burst: int = 10  # create_game per IP address at once
    log_level: str = "info"
    compression: str = "none"  # permessage-deflate offered by clients: "deflate" accepts it, "none" declines
    store_writer: str = "process"  # the SQLite store's writer: in a child "process" or a "thread"
    loop: str = ""  # the event loop of skirmish serve: "uvloop" or "asyncio" ("": uvloop if installed)
    open_game_ttl: float = 3600.0  # seconds after which a game nobody joined expires (0: never)
    house_bots: str = ""  # bots the server hosts for the web client, e.g. "random,greedy,mcts" (server/housebots.py)
    tournaments: str = ""  # tournament output folders (comma-separated) whose report.html the web client lists
    nats: str = ""  # several nodes on one PostgreSQL store: the NATS server linking them, e.g. nats://127.0.0.1:4222 ("": one node)
    node: str = ""  # this node's name among them ("": HOSTNAME-PID)
    lease_ttl: float = 3.0  # seconds a node's lease on a game lasts unrenewed (renewed every third of it)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", "float") and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ValueError(f"{f.name} must be a number, not {value!r}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be in 0..65535, not {self.port}")
        for name in ("move_ms", "reserve_ms", "max_timeouts", "max_frame", "send_buffer", "list_limit", "replay_max",
                     "hello_timeout", "idle_timeout", "connections_per_address", "games_per_minute"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, not {getattr(self, name)}")
        if self.nats and not self.db.startswith(("postgresql://", "postgres://")):
            raise ValueError("several nodes (--nats/SKIRMISH_NATS) share one PostgreSQL store: "
                             "give --db/SKIRMISH_DB postgresql://...")
        if self.lease_ttl <= 0:
            raise ValueError(f"lease_ttl must be > 0, not {self.lease_ttl}")
        if self.open_game_ttl < 0:
            raise ValueError(f"open_game_ttl must be >= 0, not {self.open_game_ttl}")
        if self.move_ms + self.reserve_ms <= 0:
            raise ValueError("move_ms + reserve_ms must be > 0")
        if self.rate <= 0 or self.burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        if self.games_burst < 1:
            raise ValueError(f"games_burst must be >= 1, not {self.games_burst}")
        if self.compression not in ("deflate", "none"):
            raise ValueError(f"compression is 'deflate' or 'none', not {self.compression!r}")
        if self.loop not in ("", *LOOPS):
            raise ValueError(f"loop is one of {', '.join(LOOPS)}, not {self.loop!r}")
        if self.store_writer not in WRITERS:
            raise ValueError(f"store_writer is one of {', '.join(WRITERS)}, not {self.store_writer!r}")
        if self.max_frame < 1 or self.ws_max_size < self.max_frame:
            raise ValueError("max_frame must be >= 1 and ws_max_size >= max_frame")
        if self.db:  # a store this server can open: a SQLite file or :memory: (skirmish.server.store.location)
            from skirmish.server.store.location import resolve

            resolve(self.db, memory=True, what="--db/SKIRMISH_DB")

    @property
    def in_memory(self) -> bool:
        return self.db in MEMORY

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> "ServerConfig":
        """Defaults, then ``SKIRMISH_<FIELD>`` variables, then ``overrides`` that are not None.

        A variable that does not parse is a ValueError naming it.
        """
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in dataclasses.fields(cls):
            name = ENV_PREFIX + f.name.upper()
            raw = environ.get(name)
            if raw is None or raw == "":
                continue
            try:
                values[f.name] = {"int": int, "float": float}.get(f.type, str)(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a valid {f.type}") from None
        unknown = set(overrides) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise TypeError(f"unknown server settings: {', '.join(sorted(unknown))}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

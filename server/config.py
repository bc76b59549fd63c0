"""The server's settings: one dataclass, defaults documented here, overridable from the
environment (``SKIRMISH_<FIELD>``, e.g. ``SKIRMISH_PORT=9000``) and from ``skirmish serve`` flags.

Defaults, and why:

- ``move_ms`` 30 000 and ``reserve_ms`` 120 000: each decision has 30 s; past that the seat's
  banked reserve (2 minutes for the whole game, never refilled) runs; when both are gone the
  server plays ``engine.decide.default_option`` for the seat, recorded as a time-out.
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
- ``send_buffer`` 4 MiB: what may wait in one connection's send queue. A reader that falls
  further behind is disconnected (close code 1008) and resumes later; it never stalls a game.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Mapping

from server.store.sqlite import WRITERS

ENV_PREFIX = "SKIRMISH_"
MEMORY = (":memory:", "memory:")  # ``db`` values that select the in-memory store


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765  # 0: an ephemeral port (``srv.port`` says which)
    db: str = ""  # a SQLite file; "" = server.cli.default_db(); ":memory:" = nothing persisted
    move_ms: int = 30_000  # time for each decision before the reserve is used
    reserve_ms: int = 120_000  # banked time per seat for the whole game, not refilled
    max_timeouts: int = 3  # time-outs after which a seat forfeits (0: never)
    max_frame: int = 64 * 1024  # bytes; larger frames get protocol.too_large
    ws_max_size: int = 1024 * 1024  # bytes; websockets closes the connection (1009) past it
    rate: float = 50.0  # messages per second per connection, sustained
    burst: int = 100  # messages a connection may send at once
    send_buffer: int = 4 * 1024 * 1024  # bytes waiting to be sent before a connection is dropped
    ping_interval: float = 20.0  # websockets keepalive, seconds (0: off)
    ping_timeout: float = 20.0
    close_timeout: float = 5.0  # seconds to wait for a closing handshake
    shutdown_timeout: float = 10.0  # seconds for in-flight commands and last frames at shutdown
    list_limit: int = 200  # games listed by list_games (the most recent)
    log_level: str = "info"
    compression: str = "none"  # permessage-deflate offered by clients: "deflate" accepts it, "none" declines
    store_writer: str = "process"  # the SQLite store's writer: in a child "process" or a "thread"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", "float") and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ValueError(f"{f.name} must be a number, not {value!r}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be in 0..65535, not {self.port}")
        for name in ("move_ms", "reserve_ms", "max_timeouts", "max_frame", "send_buffer", "list_limit"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, not {getattr(self, name)}")
        if self.move_ms + self.reserve_ms <= 0:
            raise ValueError("move_ms + reserve_ms must be > 0")
        if self.rate <= 0 or self.burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        if self.compression not in ("deflate", "none"):
            raise ValueError(f"compression is 'deflate' or 'none', not {self.compression!r}")
        if self.store_writer not in WRITERS:
            raise ValueError(f"store_writer is one of {', '.join(WRITERS)}, not {self.store_writer!r}")
        if self.max_frame < 1 or self.ws_max_size < self.max_frame:
            raise ValueError("max_frame must be >= 1 and ws_max_size >= max_frame")
        if self.db:  # a store this server can open: a SQLite file or :memory: (server.store.location)
            from server.store.location import resolve

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

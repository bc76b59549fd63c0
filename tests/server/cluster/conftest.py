"""Several ``skirmish serve`` nodes as real processes on one PostgreSQL store (a schema of its own
per test) linked by NATS, and a round-robin TCP proxy in front of them (what nginx is in
``deploy/compose``): a client whose node dies reconnects through it to another node.

Without PostgreSQL or NATS on 127.0.0.1 the tests skip saying how to enable them; under CI=true
they run (and fail if either is unreachable)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
from pathlib import Path

import pytest

from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.store.postgres import PostgresStore

from tests.server.net.helpers import ServerProcess
from tests.server.store.pg import drop_schema, new_schema, require_postgres, store_url

NATS = os.environ.get("SKIRMISH_TEST_NATS") or "nats://127.0.0.1:4222"
HOW = ("cluster tests skipped: they need a NATS server at 127.0.0.1:4222 (or SKIRMISH_TEST_NATS), e.g. "
       "Debian's nats-server package, and PostgreSQL (tests/server/store/pg.py). Under CI=true they run.")


def require_nats() -> str:
    host, port = NATS.removeprefix("nats://").rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=3).close()
    except OSError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"NATS at {NATS} is unreachable: {exc} (CI=true: these tests must run)")
        pytest.skip(f"{HOW} ({exc})")
    return NATS


class Node(ServerProcess):
    """One node: ``skirmish serve`` with the cluster's store, NATS and ``--node NAME``."""

    def __init__(self, cluster: "Cluster", name: str, *extra: str):
        self.name = name
        super().__init__(cluster.db, cluster.tmp / f"{name}.log", "--nats", cluster.nats, "--node", name,
                         "--lease-ttl", str(cluster.ttl), "--move-ms", "20000", "--open-game-ttl", "0",
                         "--games-per-minute", "0", "--connections-per-address", "0", *extra)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def events(self, name: str) -> list[dict]:
        """This node's JSON log lines of event ``name``."""
        out = []
        for line in self.log_lines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == name:
                out.append(record)
        return out


class Proxy:
    """Round-robin TCP proxy over the live nodes; a node's death closes its clients' sockets."""

    def __init__(self, cluster: "Cluster"):
        self.cluster = cluster
        self.turn = 0
        self.server = None
        self.url = ""
        self.pipes: set[asyncio.Task] = set()

    async def start(self) -> "Proxy":
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        return self

    async def _client(self, reader, writer) -> None:
        for _ in range(3 * len(self.cluster.nodes) + 3):
            live = [n for n in self.cluster.nodes if n.alive and n.url and not n.stopped]
            if not live:
                await asyncio.sleep(0.2)
                continue
            node = live[self.turn % len(live)]
            self.turn += 1
            host, port = node.url.removeprefix("ws://").rsplit(":", 1)
            try:
                up_r, up_w = await asyncio.open_connection(host, int(port))
            except OSError:
                continue
            break
        else:
            writer.close()
            return

        async def pipe(r, w):
            try:
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))

    async def close(self) -> None:
        self.server.close()


class Cluster:
    def __init__(self, tmp: Path, schema: str, ttl: float = 1.5):
        self.tmp, self.schema, self.ttl = tmp, schema, ttl
        self.db = store_url(schema)
        self.nats = require_nats()
        self.nodes: list[Node] = []
        self.proxy = Proxy(self)
        self.extra: tuple[str, ...] = ()  # more ``skirmish serve`` arguments for every node

    async def start(self, names=("n1", "n2", "n3")) -> "Cluster":
        await asyncio.gather(*(self.add(name) for name in names))
        await self.proxy.start()
        return self

    async def add(self, name: str) -> Node:
        node = Node(self, name, *self.extra)
        node.stopped = False
        self.nodes.append(node)
        await node.started(timeout=60)
        return node

    def node(self, name: str) -> Node:
        return [n for n in self.nodes if n.name == name and n.alive][-1]

    async def store(self) -> PostgresStore:
        return await PostgresStore.open(self.db.split("?")[0], schema=self.schema, create=False)

    async def owners(self) -> dict[str, str]:
        """game -> the node holding its live lease."""
        async with await self.store() as s:
            async with s.pool.connection() as conn:
                cur = await conn.execute("SELECT game_id, node FROM leases WHERE expires_at > clock_timestamp() "
                                         "AND node <> ''")
                return dict(await cur.fetchall())

    async def verify(self, game_ids) -> list[tuple[str, str]]:
        """Each game's verify report (``skirmish verify``'s check) as (game, summary); asserts each is ok."""
        out = []
        async with await self.store() as s:
            for gid in game_ids:
                stored = await s.read(gid)
                report = verify_log(gid, [LoggedEvent(e.seq, e.data, e.hash) for e in stored])
                assert report.ok and report.finished, (gid, report.summary())
                out.append((gid, report.summary()))
        return out

    def cleanup(self) -> None:
        for n in self.nodes:
            if n.alive:
                try:
                    n.signal(signal.SIGCONT)
                except ProcessLookupError:
                    pass
            n.cleanup()


@pytest.fixture
async def cluster(tmp_path):
    require_postgres()
    require_nats()
    schema = new_schema()
    c = Cluster(tmp_path, schema)
    try:
        yield c
    finally:
        c.cleanup()
        await c.proxy.close() if c.proxy.server else None
        drop_schema(schema)

"""A closed connection leaves no garbage cycle through its websockets connection: ``serve``
frees cycles only in its collector's rare full passes (server/collector.py)."""

from __future__ import annotations

import asyncio
import gc

from websockets.asyncio.server import ServerConnection

from skirmish.server.app import running_server
from skirmish.server.config import ServerConfig

from .helpers import RawClient


async def test_a_closed_connection_is_freed_without_the_cyclic_collector():
    async with running_server(ServerConfig(port=0, db=":memory:", connections_per_address=0)) as app:
        url = f"ws://127.0.0.1:{app.port}"
        clients = [await RawClient.open(url) for _ in range(5)]
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept in gc.garbage
        try:
            for c in clients:
                await c.ws.close()
            async with asyncio.timeout(10):
                while app.connections:
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            gc.collect()
            in_cycles = [o for o in gc.garbage if isinstance(o, ServerConnection)]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert in_cycles == [], f"{len(in_cycles)} of 5 closed connections were left in garbage cycles"

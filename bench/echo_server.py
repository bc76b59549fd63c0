"""The baseline for ``bench/bench_server.py``: a bare ``websockets`` + MessagePack echo server.

    python bench/echo_server.py [--port 0] [--codec msgpack|json] [--loop asyncio|uvloop]

What a minimal MessagePack RPC server over WebSockets does and nothing more: for every frame it
decodes the request (``msgpack``, the reference library; ``json`` with ``--codec json``), builds
a reply map of similar size (``type``, ``game_id``, ``seq``, ``option`` and the request's ``id``)
and sends it back, awaiting the send. No game, no store, no log, no send queue. ``websockets``
runs with its defaults (keepalive pings every 20 s; permessage-deflate if the client offers it,
which ``bench_server.py`` does only with ``--compression deflate``, when ``skirmish serve``
accepts it too). Prints ``listening on ws://HOST:PORT`` once bound, like ``skirmish serve``; stops on
SIGTERM or SIGINT. ``--loop uvloop`` runs it on uvloop (default: the standard library's loop), to
compare like with like when ``skirmish serve`` runs on uvloop.

It imports nothing from skirmish.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal

import msgpack
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed


def handler_for(codec: str):
    if codec == "json":
        loads, dumps = json.loads, json.dumps
    else:
        loads, dumps = msgpack.unpackb, msgpack.packb

    async def handler(ws) -> None:
        try:
            async for frame in ws:
                req = loads(frame)
                await ws.send(dumps({"type": "ack", "game_id": req.get("game_id", ""),
                                     "seq": req.get("decision_id", 0), "option": req.get("option"),
                                     "id": req.get("id", 0)}))
        except ConnectionClosed:
            pass

    return handler


async def main(port: int, codec: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with serve(handler_for(codec), "127.0.0.1", port) as server:
        bound = server.sockets[0].getsockname()[1]
        print(f"listening on ws://127.0.0.1:{bound}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--codec", choices=["msgpack", "json"], default="msgpack")
    ap.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio")
    args = ap.parse_args()
    factory = None
    if args.loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main(args.port, args.codec))

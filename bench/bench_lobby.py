"""Benchmark: ``list_games`` on a store with a long history, small and large, side by side in one run.

    python bench/bench_lobby.py [--sizes 1000,20000] [--repeat 20]

A server that has run for months holds tens of thousands of finished games. A page of the lobby
must cost the same whatever the store holds, and the server's memory must not grow with the
games it once listed (issue 19: the p99 and memory aims hold on such a server too).

Setup, per size N (not timed): a SQLite store (the server's, WAL, ``synchronous=FULL``) with N
finished games of ``ridge`` (created, started, resigned: written with ``LiveGame`` as
``skirmish serve`` writes them, 200 at a time) and 20 games left live. Then, each in a fresh
``Lobby`` on the reopened store, as after a restart:

1. the first ``list_games`` on the store as written: its games have no listing yet, so the lobby
   lists each from its log once and saves it (what a store from before listings costs once);
2. a restart: the first ``list_games`` of a new lobby (cold);
3. ``--repeat`` more pages, ``status=finished`` and ``status=live`` in turns (warm): median and
   worst wall time, and the event loop thread's CPU per page (``time.thread_time`` of that
   thread: the store's reads run on a thread of their own, and are in the wall time);
4. the process's RSS before the lobby's first page and after the last (growth with N: what the
   lobby keeps in memory of the games it listed);
5. the longest the event loop was kept from a 1 ms timer while the pages ran (what every live
   game's next command would have waited): in the first page after the restart, and in the warm ones.

Printed per size, then the ratio of the largest size's warm figures to the smallest's (1.0: a
page costs the same whatever the store holds).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skirmish.engine.commands import Resign, Start  # noqa: E402
from skirmish.protocol import messages as m  # noqa: E402
from skirmish.server import missions  # noqa: E402
from skirmish.server.config import ServerConfig  # noqa: E402
from skirmish.server.game import LiveGame  # noqa: E402
from skirmish.server.lobby import Lobby  # noqa: E402
from skirmish.server.store import SQLiteStore  # noqa: E402

LIVE = 20


class Quiet:
    """The lobby's logger, keeping nothing."""

    def bind(self, **_kw):
        return self

    def _line(self, *_a, **_kw) -> None:
        pass

    info = warning = error = debug = _line


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def one_game(store, mission, i: int, finish: bool) -> None:
    game = await LiveGame.create(store, mission, game_id=f"g{i:07d}")
    await game.run(Start())
    if finish:
        await game.run(Resign("a"))


async def build(path: Path, n: int) -> None:
    mission = missions.load("ridge")
    async with await SQLiteStore.open(path, writer="process") as store:
        for start in range(0, n + LIVE, 200):
            batch = range(start, min(start + 200, n + LIVE))
            await asyncio.gather(*(one_game(store, mission, i, i < n) for i in batch))


class Lag:
    """The longest a 1 ms sleep on the loop overslept while it ran."""

    def __enter__(self) -> "Lag":
        self.worst = 0.0
        self.task = asyncio.get_running_loop().create_task(self._watch())
        return self

    async def _watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - before - 0.001)

    def __exit__(self, *_exc) -> None:
        self.task.cancel()


async def page_once(lobby: Lobby, status: str) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.thread_time()
    page, total = await lobby.list_games(m.ListGames(status=status, limit=50))
    return time.perf_counter() - wall, time.thread_time() - cpu, total


async def measure(path: Path, n: int, repeat: int) -> dict:
    out: dict = {}
    async with await SQLiteStore.open(path) as store:
        lobby = Lobby(store, ServerConfig(), Quiet())
        out["first"], _, total = await page_once(lobby, "finished")
        assert total == n, (total, n)
        await lobby.close()
    async with await SQLiteStore.open(path) as store:
        lobby = Lobby(store, ServerConfig(), Quiet())
        rss = rss_mib()
        with Lag() as lag:
            out["cold"], _, total = await page_once(lobby, "finished")
        out["cold_lag"] = lag.worst
        walls, cpus = [], []
        with Lag() as lag:
            for i in range(repeat):
                wall, cpu, total = await page_once(lobby, "live" if i % 2 else "finished")
                assert total == (LIVE if i % 2 else n), total
                walls.append(wall)
                cpus.append(cpu)
        out["lag"] = lag.worst
        out["rss"] = rss_mib() - rss
        out["warm"], out["worst"], out["cpu"] = statistics.median(walls), max(walls), statistics.median(cpus)
        await lobby.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,20000", help="finished games per store, comma-separated")
    ap.add_argument("--repeat", type=int, default=20, help="warm pages per size (default 20)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-lobby-") as tmp:
        for n in sizes:
            path = Path(tmp) / f"games-{n}.sqlite"
            started = time.perf_counter()
            asyncio.run(build(path, n))
            print(f"store of {n:,} finished games and {LIVE} live built in {time.perf_counter() - started:.1f} s "
                  f"({path.stat().st_size / 2**20:.1f} MiB)", flush=True)
            results[n] = r = asyncio.run(measure(path, n, args.repeat))
            print(f"  N={n:>7,}: first listing (lists every game once) {r['first'] * 1000:9.1f} ms; after a restart: "
                  f"first page {r['cold'] * 1000:6.1f} ms, then median {r['warm'] * 1000:6.2f} ms "
                  f"(worst {r['worst'] * 1000:6.2f}), event loop CPU {r['cpu'] * 1000:6.2f} ms a page; "
                  f"RSS growth {r['rss']:+.1f} MiB; the loop held up at most {r['cold_lag'] * 1000:.1f} ms "
                  f"(first page), {r['lag'] * 1000:.1f} ms (then)", flush=True)
    small, large = results[min(sizes)], results[max(sizes)]
    print(f"ratio N={max(sizes):,} / N={min(sizes):,}: page median x{large['warm'] / small['warm']:.2f}, "
          f"event loop CPU x{large['cpu'] / small['cpu']:.2f}, first page after a restart "
          f"x{large['cold'] / small['cold']:.2f} (1.0: a page costs the same whatever the store holds)")


if __name__ == "__main__":
    main()

"""The server process's cyclic garbage collector, run by the event loop's clock.

CPython starts a collection of its youngest generation when allocations outnumber deallocations
by a threshold. A game server's live set churns without growing: every command replaces its
game's pending decision, option tuples, waiting futures and timeouts, a new object made for each
old one freed, so the count barely moves, collections come seldom, and each one walks every
object made since the last, most of them still alive: with 1,000 games, pauses of 50-270 ms
that set the p99 of the acks around them (docs/decisions.md "The collector by the clock").

So the server collects by the clock instead: every ``young_s`` (50 ms) the youngest generation
only, then ``gc.freeze()`` moves the survivors out of every later pass; a pass therefore walks
what the last 50 ms made and kept, a few milliseconds at most. Freezing does not keep anything
alive: a frozen object whose last reference goes is freed at once, as every object is. Only
cyclic garbage among frozen objects waits for a full pass (unfreeze, collect everything, freeze
again). The server makes little: a closed connection left ~33 objects in a cycle through
websockets' subprotocol chooser until ``App._handle`` dropped it after the handshake. A full
pass comes when the memory the interpreter holds in objects has grown by ``growth`` (a quarter)
since the last one, looked at every ``check_s``: garbage waiting among frozen objects is memory
held, so this bounds it to a fraction of what is alive, and a growing live set (games being set
up) is walked in proportion to what was made, as CPython's own rule for its full collections
does with its count of survivors. The measure is ``sys.getallocatedblocks()`` (~0.1 ms with
1,000 games), not the count of frozen objects: ``gc.get_freeze_count()`` walks their list, and
with 1,000 games that took 30-50 ms, a stall once a second that set the p99 of the acks around
it. With 1,000 games a full pass takes ~200-260 ms and, the server making next to no cyclic
garbage, finds next to nothing: a pass that frees less than 1% of what is held doubles the growth
the next one waits for, up to ``MAX_GROWTH`` (the heap doubling, Go's default), and a pass that
frees more sets it back. A server that ramps up to 1,000 games so pays a few passes, not one at
each quarter; should it start to leak cycles, the next pass finds them and the quarter is back.
Each pass logs what it collected and how long it took (``gc.full``).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections.abc import Callable


MAX_GROWTH = 1.0  # what fruitless full passes can stretch ``growth`` to
FRUITLESS = 0.01  # a full pass that frees less than this share of what is held


def held_blocks() -> int:
    """The memory blocks the interpreter's objects hold (``sys.getallocatedblocks``), or, where
    that is not counted (``PYTHONMALLOC=malloc`` gives 0), the count of frozen objects."""
    return sys.getallocatedblocks() or gc.get_freeze_count()


class Collector:
    """Start it on the server's loop, stop it at shutdown; it leaves the collector as it found it.

    ``size`` is what a full pass waits to grow by ``growth``: by default :func:`held_blocks`."""

    def __init__(self, young_s: float = 0.05, *, check_s: float = 1.0, growth: float = 0.25,
                 on_full: Callable[[int, float, int], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, size: Callable[[], int] = held_blocks) -> None:
        if not (young_s > 0 and check_s >= young_s and growth > 0):
            raise ValueError("the collector needs 0 < young_s <= check_s and growth > 0, "
                             f"got young_s={young_s}, check_s={check_s}, growth={growth}")
        self.young_s, self.check_s, self.growth = young_s, check_s, growth
        self.growth_now = growth  # what the next full pass waits for (stretched by fruitless ones)
        self.on_full = on_full  # (objects collected, seconds taken, size after)
        self.clock, self.size = clock, size
        self.young_passes = self.full_passes = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._next_check = 0.0
        self._size_after_full = 0
        self._was_enabled = True
        self._frozen_before = 0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is not None:
            raise RuntimeError("the collector is already running")
        self._loop = loop
        self._was_enabled, self._frozen_before = gc.isenabled(), gc.get_freeze_count()
        gc.disable()
        gc.freeze()  # what start-up made (modules, missions): no pass walks it again
        self._size_after_full = self.size()
        self._next_check = self.clock() + self.check_s
        self._handle = loop.call_later(self.young_s, self._tick)

    def stop(self) -> None:
        if self._loop is None:
            return
        if self._handle is not None:
            self._handle.cancel()
        self._loop = self._handle = None
        if not self._frozen_before:  # (objects someone else froze before stay frozen)
            gc.unfreeze()
        if self._was_enabled:
            gc.enable()

    def _tick(self) -> None:
        try:
            gc.collect(0)
            gc.freeze()
            self.young_passes += 1
            now = self.clock()
            if now >= self._next_check:
                self._next_check = now + self.check_s
                if self.size() > self._size_after_full * (1 + self.growth_now):
                    self.full()
        finally:  # (an on_full that raises, the log's say, must not stop the clock: nothing else collects)
            if self._loop is not None:
                self._handle = self._loop.call_later(self.young_s, self._tick)

    def full(self) -> int:
        """Collect everything now (cyclic garbage among frozen objects included); the count collected."""
        started = time.perf_counter()
        gc.unfreeze()
        collected = gc.collect()
        gc.freeze()
        took = time.perf_counter() - started
        self.full_passes += 1
        self._size_after_full = self.size()
        if collected < FRUITLESS * self._size_after_full:
            self.growth_now = min(2 * self.growth_now, max(self.growth, MAX_GROWTH))
        else:
            self.growth_now = self.growth
        if self.on_full is not None:
            self.on_full(collected, took, self._size_after_full)
        return collected

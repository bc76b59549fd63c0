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
pass comes when the frozen objects have grown by ``growth`` (a quarter) since the last one,
looked at every ``check_s``: CPython's own rule for its full collections, which keeps the
garbage waiting to a fraction of what is alive and the passes' cost in proportion to what was
made. With 1,000 games a full pass takes ~100-300 ms; it comes while the live set grows (games
being set up), not with play. Each one logs what it collected and how long it took (``gc.full``).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable


class Collector:
    """Start it on the server's loop, stop it at shutdown; it leaves the collector as it found it."""

    def __init__(self, young_s: float = 0.05, *, check_s: float = 1.0, growth: float = 0.25,
                 on_full: Callable[[int, float, int], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not (young_s > 0 and check_s >= young_s and growth > 0):
            raise ValueError("the collector needs 0 < young_s <= check_s and growth > 0, "
                             f"got young_s={young_s}, check_s={check_s}, growth={growth}")
        self.young_s, self.check_s, self.growth = young_s, check_s, growth
        self.on_full = on_full  # (objects collected, seconds taken, objects frozen after)
        self.clock = clock
        self.young_passes = self.full_passes = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._next_check = 0.0
        self._frozen_after_full = 0  # (gc.get_freeze_count() walks the list: ~1 ms at 300,000)
        self._was_enabled = True
        self._frozen_before = 0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is not None:
            raise RuntimeError("the collector is already running")
        self._loop = loop
        self._was_enabled, self._frozen_before = gc.isenabled(), gc.get_freeze_count()
        gc.disable()
        gc.freeze()  # what start-up made (modules, missions): no pass walks it again
        self._frozen_after_full = gc.get_freeze_count()
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
                if gc.get_freeze_count() > self._frozen_after_full * (1 + self.growth):
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
        self._frozen_after_full = gc.get_freeze_count()
        if self.on_full is not None:
            self.on_full(collected, took, self._frozen_after_full)
        return collected

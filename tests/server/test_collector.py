"""The server's garbage collector by the clock (skirmish.server.collector)."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref

import pytest

from skirmish.server.collector import MAX_GROWTH, Collector, held_blocks


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[weakref.ref, Node]:
    """Two objects that hold each other: only the cyclic collector frees them."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a), a


def is_frozen(obj) -> bool:
    return gc.is_tracked(obj) and not any(o is obj for g in range(3) for o in gc.get_objects(g))


async def until(predicate, seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not predicate():
            await asyncio.sleep(0.01)


@pytest.fixture
def collector():
    made: list[Collector] = []

    def make(**kwargs) -> Collector:
        c = Collector(**kwargs)
        made.append(c)
        return c

    yield make
    for c in made:
        c.stop()


async def test_a_young_pass_frees_new_cyclic_garbage_and_freezes_what_survives(collector):
    before = gc.get_freeze_count()
    c = collector(young_s=0.02)
    c.start(asyncio.get_running_loop())
    assert not gc.isenabled()  # no automatic collection while the clock runs
    assert gc.get_freeze_count() > before  # what was there at the start is frozen

    dead, a = cycle()
    del a
    kept, keep = cycle()
    passes = c.young_passes
    await until(lambda: c.young_passes >= passes + 2)
    assert dead() is None  # a young pass found the garbage cycle
    assert kept() is keep and is_frozen(keep)  # the survivor is out of every later pass


async def test_cyclic_garbage_among_frozen_objects_waits_for_the_full_pass(collector):
    reports = []
    c = collector(young_s=0.02, on_full=lambda *r: reports.append(r))
    c.start(asyncio.get_running_loop())
    ref, a = cycle()
    await until(lambda obj=a: is_frozen(obj))
    del a  # garbage now, but frozen: young passes never walk it
    passes = c.young_passes
    await until(lambda: c.young_passes >= passes + 3)
    assert ref() is not None
    assert c.full() >= 2 and ref() is None
    assert len(reports) == 1
    collected, took, frozen = reports[0]
    assert collected >= 2 and took >= 0 and frozen > 0
    assert not gc.isenabled()  # still by the clock after a full pass


@pytest.mark.parametrize("size", [None, gc.get_freeze_count], ids=["memory held, the default", "frozen objects"])
async def test_a_full_pass_comes_when_the_measure_grew_by_a_quarter(collector, size):
    """By default the measure is the interpreter's allocated blocks (cheap to read), not the count of
    frozen objects (a walk of their list: tens of ms once a second with 1,000 games)."""
    now, reports = [0.0], []
    c = collector(young_s=0.01, check_s=1.0, clock=lambda: now[0], on_full=lambda *r: reports.append(r),
                  **({"size": size} if size else {}))
    assert c.size is (size or held_blocks)
    c.start(asyncio.get_running_loop())
    start = c.size()
    refs, garbage = [], []
    while c.size() < start * 1.3:  # cyclic garbage, frozen before it is dropped
        for _ in range(10_000):
            ref, a = cycle()
            refs.append(ref)
            garbage.append(a)
        await until(lambda obj=garbage[-1]: is_frozen(obj))
    del garbage, a
    passes = c.young_passes
    await until(lambda: c.young_passes >= passes + 3)
    assert c.full_passes == 0 and refs[0]() is not None  # not looked at before check_s
    now[0] = 1.0
    await until(lambda: c.full_passes == 1)
    assert all(r() is None for r in refs)
    collected, _took, after = reports[0]
    assert collected >= 2 * len(refs) and after < start * 1.3
    now[0] = 2.0
    passes = c.young_passes
    await until(lambda: c.young_passes >= passes + 3)
    assert c.full_passes == 1  # no growth since: no second full pass


async def test_full_passes_that_find_nothing_wait_for_more_growth_and_one_that_finds_garbage_resets_it(collector):
    now, held = [0.0], [10**9]  # blocks held: 1% of it is far more than a test process's garbage
    c = collector(young_s=0.01, check_s=1.0, clock=lambda: now[0], size=lambda: held[0])
    c.start(asyncio.get_running_loop())

    async def checked(size: float) -> int:
        """The full passes after one look at ``size`` blocks held."""
        held[0] = int(size)
        now[0] += 1.0
        passes = c.young_passes
        await until(lambda: c.young_passes >= passes + 3)
        return c.full_passes

    assert await checked(1.26e9) == 1  # a quarter more: a pass, which frees next to nothing
    assert c.growth_now == 0.5
    assert await checked(1.26e9 * 1.4) == 1  # so the next waits for half as much again
    assert await checked(1.26e9 * 1.51) == 2
    assert c.growth_now == MAX_GROWTH
    assert await checked(1.26e9 * 1.51 * 1.9) == 2  # at most the heap doubling
    assert await checked(1.26e9 * 1.51 * 2.01) == 3
    assert c.growth_now == MAX_GROWTH
    held[0] = 100  # a pass that frees more than 1% of what is held: back to a quarter
    refs = [cycle()[0] for _ in range(10)]
    assert c.full() >= 20 and all(r() is None for r in refs)
    assert c.growth_now == c.growth == 0.25
    assert await checked(126) == 5


def test_without_pymalloc_the_measure_is_the_frozen_count(monkeypatch):
    monkeypatch.setattr(sys, "getallocatedblocks", lambda: 0)  # what PYTHONMALLOC=malloc gives
    assert held_blocks() == gc.get_freeze_count()


async def test_a_full_pass_whose_report_fails_does_not_stop_the_clock(collector):
    now = [0.0]

    def report(*_):
        raise OSError("the log's disk is full")

    c = collector(young_s=0.01, check_s=1.0, growth=0.25, on_full=report, clock=lambda: now[0],
                  size=gc.get_freeze_count)
    loop = asyncio.get_running_loop()
    errors = []
    loop.set_exception_handler(lambda _loop, ctx: errors.append(ctx.get("exception")))
    try:
        c.start(loop)
        keep = [Node() for _ in range(gc.get_freeze_count())]  # the frozen objects double
        await until(lambda obj=keep[-1]: is_frozen(obj))
        now[0] = 1.0
        await until(lambda: c.full_passes == 1)
        passes = c.young_passes
        await until(lambda: c.young_passes >= passes + 3)  # the young passes go on
        assert any(isinstance(e, OSError) for e in errors)  # and the failure was reported, not swallowed
    finally:
        loop.set_exception_handler(None)


async def test_stop_leaves_the_collector_as_it_was(collector):
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    c = collector(young_s=0.01)
    c.start(asyncio.get_running_loop())
    with pytest.raises(RuntimeError):
        c.start(asyncio.get_running_loop())
    await until(lambda: c.young_passes >= 1)
    c.stop()
    c.stop()  # twice is harmless
    assert gc.isenabled() == enabled and gc.get_freeze_count() == frozen
    passes = c.young_passes
    await asyncio.sleep(0.05)
    assert c.young_passes == passes  # the clock stopped with it


@pytest.mark.parametrize("young_s, check_s, growth", [(0, 1, 0.25), (-1, 1, 0.25), (1.0, 0.5, 0.25), (0.05, 1, 0)])
def test_bad_settings_are_refused(young_s, check_s, growth):
    with pytest.raises(ValueError, match="the collector needs"):
        Collector(young_s=young_s, check_s=check_s, growth=growth)

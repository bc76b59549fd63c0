"""The board: a square grid of terrain (RULES-BRIEF "Core", the Board bullet: 1 cell = 1 inch).

Terrain characters (one per cell, row-major; the mission's ASCII map uses the same ones):

=======  ======================================================================================
``.``    open ground
``#``    blocking: no movement, no line of fire
``+``    cover: open to movement; a unit standing in it rolls cover dice (Resistance)
``~``    water, ``:`` desert, ``^`` mountain, ``%`` jungle, ``0`` zero-g: difficult (2 per cell)
``a``    ``b``: deployment zone of side a / b (open ground)
``*``    an objective marker (open ground; the mission puts an objective on it)
``n``    narrow gate: costs 1, entered and left only orthogonally (no diagonal step into or
         out of it); one unit fits, as in any cell; does not block line of fire
``w``    wide gate: passable like open ground; does not block line of fire
=======  ======================================================================================

Distances are in cells, counted as a king moves (Chebyshev): Reach is distance 1, which is
what seed 000 calls "engaged" and seed 004 "base to base contact". Beyond Reach come the
board's Close, Medium and Long bands and then Extreme (``range_band``).

The board is split at the mid-line across ``board.midline``: side a's half is the low one
(rows, or columns, with small numbers), side b's the high one; on a board with an odd number of
rows (columns) the middle row (column) lies on the mid-line and is in nobody's half (``half``).
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from skirmish.engine.model import Board

BLOCKING = frozenset("#")
COVER = frozenset("+")
DIFFICULT = frozenset("~:^%0")
NARROW_GATE = "n"
WIDE_GATE = "w"
GATES = frozenset(NARROW_GATE + WIDE_GATE)
OPEN = frozenset(".ab*")
OBJECTIVE_MARKER = "*"
TERRAIN = BLOCKING | COVER | DIFFICULT | OPEN | GATES

TERRAIN_NAMES: dict[str, str] = {
    ".": "open ground",
    "#": "blocking",
    "+": "cover",
    "~": "water (difficult)",
    ":": "desert (difficult)",
    "^": "mountain (difficult)",
    "%": "jungle (difficult)",
    "0": "zero-g (difficult)",
    "a": "deployment zone of side a",
    "b": "deployment zone of side b",
    "*": "objective marker",
    "n": "narrow gate",
    "w": "wide gate",
}
assert set(TERRAIN_NAMES) == TERRAIN

BANDS = ("reach", "close", "medium", "long", "extreme")

Cell = tuple[int, int]

_STEPS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))


def terrain(board: Board, x: int, y: int) -> str:
    return board.cells[y * board.width + x]


def on_board(board: Board, x: int, y: int) -> bool:
    return 0 <= x < board.width and 0 <= y < board.height


def distance(ax: int, ay: int, bx: int, by: int) -> int:
    return max(abs(ax - bx), abs(ay - by))


def _cost_of(t: str) -> int:
    if t in BLOCKING:
        return 0
    return 2 if t in DIFFICULT else 1


def move_cost(board: Board, x: int, y: int) -> int:
    """Cost of entering a cell: 1, or 2 for difficult terrain; 0 means it cannot be entered."""
    return _cost_of(terrain(board, x, y))


def in_cover(board: Board, x: int, y: int) -> bool:
    return terrain(board, x, y) in COVER


def range_band(board: Board, ax: int, ay: int, bx: int, by: int) -> str:
    """The range band from one cell to another: "reach", "close", "medium", "long" or "extreme".

    Each band holds the distances up to and including its size (``board.reach`` ...
    ``board.long``) that the smaller bands do not; "extreme" is everything beyond Long.
    """
    d = distance(ax, ay, bx, by)
    if d <= board.reach:
        return "reach"
    if d <= board.close:
        return "close"
    if d <= board.medium:
        return "medium"
    if d <= board.long:
        return "long"
    return "extreme"


def midline(board: Board) -> tuple[int, int]:
    """The mid-line as ``(last index of side a's half, first index of side b's half)``.

    Indices are rows when ``board.midline`` is "y", columns when it is "x". For an even size
    they are adjacent; for an odd size the one index between them is on the mid-line.
    """
    size = board.height if board.midline == "y" else board.width
    return size // 2 - 1, (size + 1) // 2


def half(board: Board, x: int, y: int) -> str | None:
    """The side whose half of the board the cell is in: "a", "b", or None on the mid-line."""
    last_a, first_b = midline(board)
    i = y if board.midline == "y" else x
    if i <= last_a:
        return "a"
    if i >= first_b:
        return "b"
    return None


def in_enemy_half(board: Board, side: str, x: int, y: int) -> bool:
    """True when the cell is in the half of the side opposing ``side`` (the mid-line is not)."""
    h = half(board, x, y)
    return h is not None and h != side


@lru_cache(maxsize=4096)
def _line_offsets(dx: int, dy: int) -> tuple[Cell, ...]:
    """Offsets of the cells whose interior the segment from (0, 0) to (dx, dy) passes through.

    Exact (rational arithmetic): the segment is cut wherever it crosses a cell border
    (x = k + 1/2 or y = k + 1/2); the middle of each piece lies inside exactly one cell. Pieces
    of length zero (the line passing exactly through a corner) add nothing, so touching a corner
    does not count. The start and end cells are left out.
    """
    cuts: set[Fraction] = {Fraction(0), Fraction(1)}
    for d in (dx, dy):
        if d:
            lo, hi = sorted((0, d))
            for k in range(lo, hi):  # borders k + 1/2 between 0 and d
                cuts.add(Fraction(2 * k + 1, 2 * d))
    ts = sorted(cuts)
    out: list[Cell] = []
    for t0, t1 in zip(ts, ts[1:]):
        t = (t0 + t1) / 2
        cx, cy = round(dx * t), round(dy * t)  # never a tie: t is strictly inside a piece
        if (cx, cy) not in ((0, 0), (dx, dy)) and (not out or out[-1] != (cx, cy)):
            out.append((cx, cy))
    return tuple(out)


def line_cells(ax: int, ay: int, bx: int, by: int) -> list[Cell]:
    """Cells strictly between two cells on the straight line joining their centres, in order.

    A cell counts when the line passes through its interior (corner touches do not count). The
    set of cells is the same from either end, so line of fire is symmetric.
    """
    return [(ax + ox, ay + oy) for ox, oy in _line_offsets(bx - ax, by - ay)]


def line_of_fire(board: Board, ax: int, ay: int, bx: int, by: int) -> bool:
    """True unless a blocking cell stands between the two cells (units and gates do not block)."""
    cells, w = board.cells, board.width
    for ox, oy in _line_offsets(bx - ax, by - ay):
        if cells[(ay + oy) * w + ax + ox] in BLOCKING:
            return False
    return True


@lru_cache(maxsize=64)
def _grid(width: int, cells: str) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Per cell: the cost of entering it (0: never) and whether it is a narrow gate."""
    return tuple(_cost_of(t) for t in cells), tuple(t == NARROW_GATE for t in cells)


@lru_cache(maxsize=64)
def _steps(width: int, height: int, cells: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per cell index: the (neighbour index, cost of entering it) of every legal step from it,
    units aside: into the board, not into a blocking cell, and not diagonally into or out of a
    narrow gate."""
    costs, narrow = _grid(width, cells)
    out = []
    for i in range(width * height):
        x, y = i % width, i // width
        steps = []
        for dx, dy in _STEPS:
            nx, ny = x + dx, y + dy
            if not (0 <= nx < width and 0 <= ny < height):
                continue
            j = ny * width + nx
            if costs[j] and not (dx and dy and (narrow[i] or narrow[j])):
                steps.append((j, costs[j]))
        out.append(tuple(steps))
    return tuple(out)


def reachable(board: Board, start: Cell, budget: int, occupied: set[Cell]) -> dict[Cell, int]:
    """Cells a unit at ``start`` can reach for at most ``budget`` movement, with their cost.

    Moves go to the eight neighbours; difficult terrain costs 2; blocking cells and cells
    holding another unit cannot be entered or passed through; a narrow gate is entered and left
    only by orthogonal steps. ``start`` itself is excluded. (A fresh dict: the caller may keep
    or change it; the search itself is cached, as a turn asks for the same cells again and again.)
    """
    return _reachable(board.width, board.height, board.cells, start, budget, frozenset(occupied)).copy()


# The searches' caches hold one dict an entry, its keys the board's cells from ``_cells``, made
# once. An entry made of ((x, y), cost) pairs was some 200 tuples tracked by the cyclic collector;
# a full cache turning over on a busy server kept hundreds of thousands of them in the youngest
# generation (an entry made and one evicted leave CPython's allocation count as it was), and a
# collection then took 100-160 ms (docs/decisions.md, "The p99 at half rate: two stalls found").
@lru_cache(maxsize=64)
def _cells(width: int, height: int) -> tuple[Cell, ...]:
    """Every cell of a board, by index (shared by the dicts ``reachable`` returns)."""
    return tuple((i % width, i // width) for i in range(width * height))


@lru_cache(maxsize=4096)
def _reachable(width: int, height: int, cells: str, start: Cell, budget: int,
               occupied: frozenset[Cell]) -> dict[Cell, int]:
    steps = _steps(width, height, cells)
    blocked = {y * width + x for x, y in occupied if 0 <= x < width and 0 <= y < height}
    far = 1 << 30
    best = [far] * (width * height)
    first = start[1] * width + start[0]
    best[first] = 0
    heap = [(0, first)]  # Dijkstra; costs are 1 or 2
    pop, push = heapq.heappop, heapq.heappush
    reached = []
    while heap:
        cost, i = pop(heap)
        if cost > best[i]:
            continue
        for j, step in steps[i]:
            nc = cost + step
            if nc <= budget and nc < best[j] and j not in blocked:
                if best[j] == far:
                    reached.append(j)
                best[j] = nc
                push(heap, (nc, j))
    reached.sort()
    at = _cells(width, height)
    return {at[i]: best[i] for i in reached if i != first}


class Gait(NamedTuple):
    """How one unit moves where it differs from the others (a rules module's ``gait`` hook; the
    skills module's Multiterrain and Heavyweight, seed 003).

    ``easy``: terrain characters the unit enters at cost 1 although they are difficult (2).
    ``heavy``: narrow gates cannot be entered; stepping out of a wide gate ends the movement (the
    cell beyond it is the last), and a wide gate is never where the movement ends."""

    easy: frozenset[str] = frozenset()
    heavy: bool = False


def reachable_gait(board: Board, start: Cell, budget: int, occupied: set[Cell], gait: Gait) -> dict[Cell, int]:
    """``reachable`` for a unit with its own ``Gait``: easy terrain is plain ground to it, so without
    Heavyweight's gates it is the same search (and cache) on the board read that way."""
    cells = "".join("." if ch in gait.easy else ch for ch in board.cells) if gait.easy else board.cells
    search = _reachable_gait if gait.heavy else _reachable
    return search(board.width, board.height, cells, start, budget, frozenset(occupied)).copy()


@lru_cache(maxsize=1024)
def _reachable_gait(width: int, height: int, cells: str, start: Cell, budget: int,
                    occupied: frozenset[Cell]) -> dict[Cell, int]:
    """The search for a Heavyweight: narrow gates refused, a wide gate's far side the last step."""
    steps = _steps(width, height, cells)
    blocked = {y * width + x for x, y in occupied if 0 <= x < width and 0 <= y < height}
    far = 1 << 30
    best = {}  # (cell index, ended) -> cost; ended: the move stops there (just out of a wide gate)
    first = start[1] * width + start[0]
    best[(first, False)] = 0
    heap = [(0, first, False)]
    while heap:
        cost, i, ended = heapq.heappop(heap)
        if cost > best.get((i, ended), far) or ended:
            continue
        for j, step in steps[i]:
            if j in blocked or cells[j] == NARROW_GATE:
                continue
            stop = cells[i] == WIDE_GATE and cells[j] != WIDE_GATE
            nc = cost + step
            if nc <= budget and nc < best.get((j, stop), far):
                best[(j, stop)] = nc
                heapq.heappush(heap, (nc, j, stop))
    out: dict[int, int] = {}
    for (i, _), c in best.items():
        if i != first and cells[i] != WIDE_GATE and c < out.get(i, far):
            out[i] = c
    at = _cells(width, height)
    return {at[i]: out[i] for i in sorted(out)}

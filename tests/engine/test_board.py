"""The board (RULES-BRIEF "Core", the Board bullet): terrain, gates, range bands, halves, line
of fire and movement."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skirmish.engine import board as geo
from skirmish.engine.model import Board


def make(rows: str, **bands) -> Board:
    lines = [r.strip() for r in rows.strip().split("\n")]
    return Board(len(lines[0]), len(lines), "".join(lines), **bands)


# ---------------------------------------------------------------------------- terrain


@pytest.mark.parametrize("ch, cost", [
    (".", 1), ("a", 1), ("b", 1), ("*", 1), ("+", 1), ("w", 1), ("n", 1),
    ("~", 2), (":", 2), ("^", 2), ("%", 2), ("0", 2),
    ("#", 0),
])
def test_cost_of_entering_each_terrain(ch: str, cost: int) -> None:
    board = make(f".{ch}")
    assert geo.move_cost(board, 1, 0) == cost
    reach = geo.reachable(board, (0, 0), 5, set())
    assert reach.get((1, 0)) == (cost or None)


def test_every_terrain_has_a_name_and_one_category() -> None:
    assert set(geo.TERRAIN_NAMES) == geo.TERRAIN
    groups = [geo.BLOCKING, geo.COVER, geo.DIFFICULT, geo.OPEN, geo.GATES]
    assert sum(len(g) for g in groups) == len(geo.TERRAIN)
    assert set(geo.DIFFICULT) == set("~:^%0")


def test_only_cover_cells_are_in_cover() -> None:
    board = make("+.n~")
    assert [geo.in_cover(board, x, 0) for x in range(4)] == [True, False, False, False]


# ---------------------------------------------------------------------------- gates

WALL = """
.....
##n##
.....
"""


def test_narrow_gate_is_entered_only_orthogonally() -> None:
    board = make(WALL)
    # From (1, 0) the gate at (2, 1) is a diagonal step away: not allowed, though it is adjacent.
    assert (2, 1) not in geo.reachable(board, (1, 0), 1, set())
    assert geo.reachable(board, (2, 0), 1, set()) == {(1, 0): 1, (3, 0): 1, (2, 1): 1}


def test_narrow_gate_is_left_only_orthogonally() -> None:
    board = make(WALL)
    reach = geo.reachable(board, (2, 1), 1, set())
    assert set(reach) == {(2, 0), (2, 2)}


def test_passing_a_narrow_gate_takes_the_orthogonal_path() -> None:
    board = make(WALL)
    # (0, 0) -> (1, 0) -> (2, 0) -> (2, 1) -> (2, 2) -> (3, 2): five steps, none diagonal through
    # the gate; with diagonals allowed it would be four.
    assert geo.reachable(board, (0, 0), 4, set()).get((3, 2)) is None
    assert geo.reachable(board, (0, 0), 5, set())[(3, 2)] == 5
    assert geo.reachable(board, (1, 0), 3, set())[(2, 2)] == 3


def test_a_unit_in_the_narrow_gate_closes_it() -> None:
    board = make(WALL)
    assert not {(x, 2) for x in range(5)} & set(geo.reachable(board, (2, 0), 10, {(2, 1)}))


def test_wide_gate_is_passable_like_open_ground() -> None:
    board = make(WALL.replace("n", "w"))
    assert geo.reachable(board, (1, 0), 1, set())[(2, 1)] == 1  # diagonal in
    assert geo.reachable(board, (2, 1), 1, set())[(3, 2)] == 1  # diagonal out
    assert geo.reachable(board, (0, 0), 3, set())[(3, 2)] == 3  # where the narrow gate takes 5


@pytest.mark.parametrize("gate", ["n", "w"])
def test_gates_do_not_block_line_of_fire(gate: str) -> None:
    board = make(WALL.replace("n", gate))
    assert geo.line_of_fire(board, 2, 0, 2, 2)
    assert not geo.line_of_fire(board, 0, 0, 0, 2)


# ---------------------------------------------------------------------------- range bands


@pytest.mark.parametrize("d, band", [
    (0, "reach"), (1, "reach"), (2, "close"), (3, "medium"), (4, "medium"),
    (5, "long"), (8, "long"), (9, "extreme"), (20, "extreme"),
])
def test_default_range_bands(d: int, band: str) -> None:
    board = Board(30, 30, "." * 900)
    assert geo.range_band(board, 0, 0, d, 0) == band
    assert geo.range_band(board, d, d, 0, 0) == band  # Chebyshev: a diagonal counts as one


@pytest.mark.parametrize("d, band", [
    (1, "reach"), (2, "reach"), (3, "close"), (5, "close"), (6, "medium"), (9, "medium"),
    (10, "long"), (12, "long"), (13, "extreme"),
])
def test_mission_range_bands(d: int, band: str) -> None:
    board = Board(30, 1, "." * 30, reach=2, close=5, medium=9, long=12)
    assert geo.range_band(board, 0, 0, d, 0) == band


def test_bands_are_listed_in_order() -> None:
    assert geo.BANDS == ("reach", "close", "medium", "long", "extreme")


# ---------------------------------------------------------------------------- halves


@pytest.mark.parametrize("height, halves", [
    (2, ["a", "b"]),
    (3, ["a", None, "b"]),
    (8, ["a"] * 4 + ["b"] * 4),
    (9, ["a"] * 4 + [None] + ["b"] * 4),
    (1, [None]),
])
def test_halves_by_rows(height: int, halves: list) -> None:
    board = Board(3, height, "." * (3 * height))
    assert [geo.half(board, 1, y) for y in range(height)] == halves
    assert all(geo.half(board, x, y) == halves[y] for x in range(3) for y in range(height))


@pytest.mark.parametrize("width, halves", [
    (4, ["a", "a", "b", "b"]),
    (5, ["a", "a", None, "b", "b"]),
])
def test_halves_by_columns(width: int, halves: list) -> None:
    board = Board(width, 2, "." * (2 * width), midline="x")
    assert [geo.half(board, x, 0) for x in range(width)] == halves
    assert [geo.half(board, x, 1) for x in range(width)] == halves


def test_midline_indices_and_enemy_half() -> None:
    assert geo.midline(Board(2, 9, "." * 18)) == (3, 5)
    assert geo.midline(Board(2, 8, "." * 16)) == (3, 4)
    assert geo.midline(Board(7, 2, "." * 14, midline="x")) == (2, 4)
    board = Board(1, 5, "." * 5)
    assert [geo.in_enemy_half(board, "a", 0, y) for y in range(5)] == [False, False, False, True, True]
    assert [geo.in_enemy_half(board, "b", 0, y) for y in range(5)] == [True, True, False, False, False]


# ---------------------------------------------------------------------------- line of fire


def test_blocking_cell_between_blocks_line_of_fire() -> None:
    board = make("""
    .....
    ..#..
    .....
    """)
    assert not geo.line_of_fire(board, 0, 1, 4, 1)
    assert not geo.line_of_fire(board, 1, 0, 3, 2)  # the diagonal through (2, 1)
    assert geo.line_of_fire(board, 0, 0, 4, 0)
    assert geo.line_of_fire(board, 1, 1, 2, 0)  # adjacent cells always see each other


def test_a_blocking_end_cell_does_not_block() -> None:
    board = make("#...#")
    assert geo.line_of_fire(board, 0, 0, 4, 0)


def test_touching_a_corner_does_not_block() -> None:
    # From (0, 0) to (2, 2) the line passes exactly through the corners of (1, 0) and (0, 1)...
    board = make("""
    .#.
    #..
    ...
    """)
    assert geo.line_of_fire(board, 0, 0, 2, 2)
    # ...and from (0, 0) to (3, 1) through the corner shared by (1, 0) and (2, 1), grazing neither
    # (1, 1) nor (2, 0).
    board = make("""
    ..#.
    .#..
    """)
    assert geo.line_cells(0, 0, 3, 1) == [(1, 0), (2, 1)]
    assert geo.line_of_fire(board, 0, 0, 3, 1)


def test_a_line_clipping_a_corner_region_counts_the_cell() -> None:
    # y = 0.4 x crosses y = 1/2 at x = 1.25 and x = 3/2 at y = 0.6: it runs through (1, 1).
    assert (1, 1) in geo.line_cells(0, 0, 5, 2)
    board = make("""
    ......
    .#....
    ......
    """)
    assert not geo.line_of_fire(board, 0, 0, 5, 2)


def _sampled(ax: int, ay: int, bx: int, by: int, n: int = 997) -> set[tuple[int, int]]:
    """Cells whose interior holds a point sampled along the segment (a slow, rough reference)."""
    out = set()
    for i in range(1, n):
        t = i / n
        fx, fy = ax + (bx - ax) * t, ay + (by - ay) * t
        if abs(fx - math.floor(fx) - 0.5) < 1e-6 or abs(fy - math.floor(fy) - 0.5) < 1e-6:
            continue
        out.add((round(fx), round(fy)))
    return out - {(ax, ay), (bx, by)}


boards = st.tuples(st.integers(1, 12), st.integers(1, 12)).flatmap(
    lambda wh: st.builds(
        lambda cells: Board(wh[0], wh[1], cells),
        st.text(alphabet=".#+~n", min_size=wh[0] * wh[1], max_size=wh[0] * wh[1]),
    )
)


@st.composite
def board_and_two_cells(draw):
    board = draw(boards)
    cell = st.tuples(st.integers(0, board.width - 1), st.integers(0, board.height - 1))
    return board, draw(cell), draw(cell)


@settings(max_examples=400, deadline=None)
@given(board_and_two_cells())
def test_line_of_fire_is_symmetric(case) -> None:
    board, (ax, ay), (bx, by) = case
    assert geo.line_of_fire(board, ax, ay, bx, by) == geo.line_of_fire(board, bx, by, ax, ay)
    assert set(geo.line_cells(ax, ay, bx, by)) == set(geo.line_cells(bx, by, ax, ay))


@settings(max_examples=200, deadline=None)
@given(st.integers(-15, 15), st.integers(-15, 15))
def test_line_cells_are_the_cells_the_line_runs_through(dx: int, dy: int) -> None:
    cells = geo.line_cells(0, 0, dx, dy)
    assert len(cells) == len(set(cells))
    assert (0, 0) not in cells and (dx, dy) not in cells
    assert _sampled(0, 0, dx, dy) <= set(cells)
    # Consecutive cells (and the ends) touch: the line is unbroken.
    path = [(0, 0), *cells, (dx, dy)] if (dx, dy) != (0, 0) else [(0, 0)]
    assert all(geo.distance(*p, *q) == 1 for p, q in zip(path, path[1:]))


@settings(max_examples=200, deadline=None)
@given(board_and_two_cells())
def test_line_of_fire_is_blocked_exactly_by_blocking_cells_between(case) -> None:
    board, (ax, ay), (bx, by) = case
    between = geo.line_cells(ax, ay, bx, by)
    expected = not any(geo.terrain(board, x, y) == "#" for x, y in between)
    assert geo.line_of_fire(board, ax, ay, bx, by) == expected


# ---------------------------------------------------------------------------- movement


def test_movement_pays_for_difficult_terrain_and_avoids_units() -> None:
    board = make("""
    .~~.
    .#..
    ....
    """)
    reach = geo.reachable(board, (0, 0), 4, {(0, 2)})
    assert reach[(1, 0)] == 2 and reach[(2, 0)] == 4
    assert geo.reachable(board, (0, 0), 3, {(0, 2)}).get((2, 0)) is None
    assert reach[(0, 1)] == 1 and (1, 1) not in reach and (0, 2) not in reach
    assert reach[(1, 2)] == 2  # diagonal past the blocking cell's corner
    assert (0, 0) not in reach


def _reference_reachable(board: Board, start, budget: int, occupied) -> dict:
    """Bellman-Ford over the eight-neighbour graph with the narrow-gate rule (slow, obvious)."""
    inf = 10**9
    best = {start: 0}
    changed = True
    while changed:
        changed = False
        for (x, y), c in list(best.items()):
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    nx, ny = x + dx, y + dy
                    if (dx, dy) == (0, 0) or not geo.on_board(board, nx, ny) or (nx, ny) in occupied:
                        continue
                    if geo.terrain(board, nx, ny) == "#":
                        continue
                    if dx and dy and "n" in (geo.terrain(board, x, y), geo.terrain(board, nx, ny)):
                        continue
                    nc = c + (2 if geo.terrain(board, nx, ny) in "~:^%0" else 1)
                    if nc <= budget and nc < best.get((nx, ny), inf):
                        best[(nx, ny)] = nc
                        changed = True
    del best[start]
    return best


@settings(max_examples=200, deadline=None)
@given(board_and_two_cells(), st.integers(0, 8))
def test_reachable_matches_a_reference_search(case, budget: int) -> None:
    board, start, other = case
    occupied = {other} - {start}
    assert geo.reachable(board, start, budget, occupied) == _reference_reachable(board, start, budget, occupied)


def test_a_search_is_cached_once_and_handed_out_as_a_fresh_dict_of_the_boards_cells() -> None:
    """The cache's entries share the board's cell tuples (``board._cells``): an entry of its own
    tuples filled the collector's youngest generation on a busy server (docs/decisions.md)."""
    board = Board(12, 12, "." * 144)
    first = geo.reachable(board, (5, 5), 4, {(6, 6)})
    second = geo.reachable(board, (5, 5), 4, {(6, 6)})
    assert first == second == _reference_reachable(board, (5, 5), 4, {(6, 6)}) and first is not second
    first[(0, 0)] = 99  # the caller's to change: the next search is untouched
    assert (0, 0) not in geo.reachable(board, (5, 5), 4, {(6, 6)})
    cells = {id(c) for c in geo._cells(12, 12)}
    assert all(id(cell) in cells for cell in second)
    heavy = geo.reachable_gait(board, (5, 5), 4, {(6, 6)}, geo.Gait(heavy=True))
    assert heavy == second and all(id(cell) in cells for cell in heavy)

"""Geometry: cells, lines and symmetries of every board shape."""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noughts.errors import VariantError
from noughts.geometry import Geometry, scan_forward
from noughts.symmetries import (
    MAX_DERIVED_SYMMETRIES,
    MAX_SYMMETRIES,
    Symmetries,
    _cube_automorphisms,
    _find_automorphisms,
)
from noughts.variants import MAX_SIDE_2D, MAX_SIDE_3D, variant


def lines_2d(rows: int, cols: int, k: int) -> int:
    """Line count by formula: rows, columns and both diagonal directions."""
    if k == 1:
        return rows * cols
    across = rows * max(0, cols - k + 1)
    down = cols * max(0, rows - k + 1)
    diagonal = 2 * max(0, rows - k + 1) * max(0, cols - k + 1)
    return across + down + diagonal


def lines_3d(n: int, k: int) -> int:
    """3 axis directions, 6 face diagonals, 4 space diagonals."""
    free = n - k + 1
    return 3 * n * n * free + 6 * n * free**2 + 4 * free**3


@pytest.mark.parametrize(
    ("name", "count"),
    [("3x3", 8), ("4x4k3", 24), ("4x4", 10), ("4x4x4", 76), ("3x3x3", 49), ("5x4k4", 17)],
)
def test_named_line_counts(name: str, count: int) -> None:
    assert len(variant(name).lines) == count


@pytest.mark.parametrize(
    ("rows", "cols", "k"),
    [(3, 3, 3), (4, 4, 3), (5, 4, 4), (7, 6, 4), (19, 19, 5), (6, 6, 6), (3, 7, 5), (4, 4, 1)],
)
def test_2d_line_counts_follow_the_formula(rows: int, cols: int, k: int) -> None:
    geometry = Geometry((rows, cols), k)
    assert len(geometry.lines) == lines_2d(rows, cols, k)
    assert len(set(geometry.lines)) == len(geometry.lines)
    assert all(line.bit_count() == k for line in geometry.lines)


@pytest.mark.parametrize(("n", "k"), [(3, 3), (4, 4), (4, 3), (5, 5), (5, 4), (3, 2)])
def test_3d_line_counts_follow_the_formula(n: int, k: int) -> None:
    assert len(Geometry((n, n, n), k).lines) == lines_3d(n, k)


def test_lines_through_each_cell() -> None:
    geometry = variant("4x4x4").geometry
    for cell in range(geometry.cells):
        assert set(geometry.lines_through[cell]) == {
            line for line in geometry.lines if line >> cell & 1
        }
    # Corners and the 8 central cells lie on 7 lines, every other cell on 4.
    degrees = sorted(len(lines) for lines in geometry.lines_through)
    assert degrees == [4] * 48 + [7] * 16


def test_coords_and_cells_round_trip() -> None:
    for name in ("3x3", "5x4k4", "4x4x4"):
        geometry = variant(name).geometry
        for cell in range(geometry.cells):
            assert geometry.cell(geometry.coords(cell)) == cell
    assert variant("4x4x4").coords(1 * 16 + 2 * 4 + 3) == (1, 2, 3)
    assert variant("5x4k4").coords(7) == (1, 3)  # 5 rows of 4 columns
    with pytest.raises(VariantError, match="off a board"):
        variant("3x3").cell((3, 0))


@pytest.mark.parametrize(
    ("name", "count"),
    [("3x3", 8), ("4x4k3", 8), ("4x4", 32), ("4x4x4", 192), ("3x3x3", 48), ("5x4k4", 4)],
)
def test_symmetry_counts(name: str, count: int) -> None:
    geometry = variant(name).geometry
    assert len(geometry.symmetries) == count
    assert geometry.symmetries_complete
    assert geometry.symmetries[0] == tuple(range(geometry.cells))
    assert len(set(geometry.symmetries)) == count


@pytest.mark.parametrize("name", ["3x3", "4x4k3", "4x4", "4x4x4", "3x3x3", "5x4k4"])
def test_every_symmetry_maps_lines_onto_lines(name: str) -> None:
    geometry = variant(name).geometry
    lines = set(geometry.lines)
    for perm in geometry.symmetries:
        assert sorted(perm) == list(range(geometry.cells))
        assert {_image(line, perm) for line in geometry.lines} == lines


@pytest.mark.parametrize("name", ["3x3", "4x4", "4x4x4"])
def test_symmetries_form_a_group(name: str) -> None:
    geometry = variant(name).geometry
    group = set(geometry.symmetries)
    rng = random.Random(name)
    sample = geometry.symmetries if len(group) <= 32 else rng.sample(geometry.symmetries, 24)
    for a in sample:
        for b in geometry.symmetries:
            assert tuple(a[b[cell]] for cell in range(geometry.cells)) in group
    for index, perm in enumerate(geometry.symmetries):
        inverse = geometry.symmetries[geometry.inverse_symmetries[index]]
        assert all(inverse[perm[cell]] == cell for cell in range(geometry.cells))


def test_3x3_symmetries_are_every_line_preserving_permutation() -> None:
    geometry = variant("3x3").geometry
    lines = set(geometry.lines)
    brute = [
        perm
        for perm in permutations(range(9))
        if perm[4] == 4 and all(_image(line, perm) in lines for line in geometry.lines)
    ]  # the centre is the only cell on 4 lines, so it is always fixed
    assert set(brute) == set(geometry.symmetries)


def test_4x4_has_the_inside_out_symmetry() -> None:
    # Swapping the middle two rows and the middle two columns with the outer ones
    # (0 <-> 1, 2 <-> 3 on each axis) keeps every row, column and diagonal a line.
    swap = (1, 0, 3, 2)
    perm = tuple(swap[cell // 4] * 4 + swap[cell % 4] for cell in range(16))
    assert perm in variant("4x4").symmetries
    assert perm not in variant("4x4k3").symmetries


@pytest.mark.parametrize(("shape", "k"), [((3, 3), 3), ((5, 4), 3), ((4, 4, 4), 4),
                                          ((5, 5, 5), 3), ((7, 2), 2), ((1, 5), 2)])
def test_lines_are_ordered_by_their_first_cell_then_by_direction(
        shape: tuple[int, ...], k: int) -> None:
    # Line numbers are shared by every table and the compiled core: the order is a promise.
    from noughts.geometry import _directions

    geometry = Geometry(shape, k)
    keys = []
    for line in geometry.lines:
        first, second = list(scan_forward(line))[:2]
        a, b = geometry.coords(first), geometry.coords(second)
        direction = tuple(y - x for x, y in zip(a, b, strict=True))
        keys.append((first, _directions(len(shape)).index(direction)))
    assert keys == sorted(set(keys))
    count = lines_2d(*shape, k) if len(shape) == 2 else lines_3d(shape[0], k)
    assert len(geometry.lines) == count


CUBES = [(side,) * dims for dims, most in ((2, MAX_SIDE_2D), (3, MAX_SIDE_3D))
         for side in range(1, most + 1)]


@pytest.mark.parametrize("shape", CUBES, ids=["x".join(map(str, shape)) for shape in CUBES])
def test_derived_cube_symmetries_are_what_the_search_finds(shape: tuple[int, ...]) -> None:
    # Every cube board with k = side that takes the derived group (no search) gets the
    # very permutations the search finds, in the search's order; the others (sides 1-2,
    # and groups past the bound: 8x8 has 1,536 symmetries) are left to the search.
    geometry = Geometry(shape, shape[0])
    derived = _cube_automorphisms(geometry)
    side, dims = shape[0], len(shape)
    expected = {2: {3: 8, 4: 32, 5: 32, 6: 192, 7: 192}, 3: {3: 48, 4: 192, 5: 192}}[dims]
    if side not in expected:
        assert derived is None
        return
    assert derived is not None and len(derived) == expected[side] <= MAX_DERIVED_SYMMETRIES
    searched, complete = _find_automorphisms(geometry)
    assert complete and derived == searched


def test_derived_symmetries_skip_boards_that_are_not_cubes_with_k_equal_to_the_side() -> None:
    for shape, k in [((4, 4), 3), ((5, 4), 4), ((4, 4, 4), 3), ((3, 3, 3), 2), ((2, 2), 2)]:
        assert _cube_automorphisms(Geometry(shape, k)) is None


def test_qubic_symmetries_come_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_search(geometry: Geometry) -> None:
        raise AssertionError(f"searched the symmetries of {geometry}")

    monkeypatch.setattr("noughts.symmetries._find_automorphisms", no_search)
    group = Symmetries(Geometry((4, 4, 4), 4))  # a fresh group: nothing cached
    assert group.count == 192 and group.complete
    twist = (1, 0, 3, 2)  # Qubic's inside-out map: 0 <-> 1 and 2 <-> 3 on every axis
    inside_out = tuple(twist[cell // 16] * 16 + twist[cell // 4 % 4] * 4 + twist[cell % 4]
                       for cell in range(64))
    assert inside_out in group.perms
    x, o = 1 << 5 | 1 << 63, 1 << 21
    assert group.canonical(x, o) == variant("qubic").geometry.canonical(x, o)


def test_degenerate_boards_report_an_incomplete_group() -> None:
    geometry = variant("2x2x2").geometry  # every pair of cells is a line: all 8! permutations
    assert len(geometry.symmetries) == MAX_SYMMETRIES
    assert not geometry.symmetries_complete
    assert len(variant("3x3k1").lines) == 9


def test_transform_matches_the_permutation() -> None:
    geometry = variant("4x4x4").geometry
    rng = random.Random(0)
    for _ in range(50):
        bb = rng.getrandbits(64)
        symmetry = rng.randrange(len(geometry.symmetries))
        assert geometry.transform(bb, symmetry) == _image(bb, geometry.symmetries[symmetry])


def _image(bb: int, perm: tuple[int, ...]) -> int:
    result = 0
    for cell in scan_forward(bb):
        result |= 1 << perm[cell]
    return result


GEOMETRIES = ["3x3", "4x4k3", "4x4", "4x4x4", "3x3x3", "5x4k4"]


@st.composite
def marks_and_symmetry(draw: st.DrawFn) -> tuple[Geometry, int, int, int]:
    geometry = variant(draw(st.sampled_from(GEOMETRIES)))
    cells = geometry.cells
    owners = draw(st.lists(st.sampled_from("XO."), min_size=cells, max_size=cells))
    x = sum(1 << cell for cell, owner in enumerate(owners) if owner == "X")
    o = sum(1 << cell for cell, owner in enumerate(owners) if owner == "O")
    symmetry = draw(st.integers(0, len(geometry.symmetries) - 1))
    return geometry, x, o, symmetry


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(marks_and_symmetry())
def test_canonical_form_is_shared_by_symmetric_positions(
    case: tuple[Geometry, int, int, int],
) -> None:
    geometry, x, o, symmetry = case
    image_x, image_o = geometry.transform(x, symmetry), geometry.transform(o, symmetry)
    canon_x, canon_o, used = geometry.canonical(x, o)
    assert geometry.canonical(image_x, image_o)[:2] == (canon_x, canon_o)
    assert (geometry.transform(x, used), geometry.transform(o, used)) == (canon_x, canon_o)
    assert geometry.canonical(canon_x, canon_o)[:2] == (canon_x, canon_o)
    assert canon_x.bit_count() == x.bit_count() and canon_o.bit_count() == o.bit_count()


def test_geometry_identity_and_errors() -> None:
    assert Geometry((3, 3), 3) == variant("3x3").geometry and hash(Geometry((3, 3), 3)) == hash(
        variant("tictactoe").geometry
    )
    assert Geometry((4, 4), 3) != Geometry((4, 4), 4)
    qubic = variant("qubic").geometry
    assert eval(repr(variant("4x4x4").geometry), {"Geometry": Geometry}) == qubic
    assert eval(repr(variant("4x4x4-misere")), {"variant": variant}) is variant("qubic-misere")
    with pytest.raises(VariantError, match="2 or 3 dimensions"):
        Geometry((3,), 3)
    with pytest.raises(VariantError, match="at least 1"):
        Geometry((3, 0), 1)
    with pytest.raises(VariantError, match="k=4 in a row cannot fit"):
        Geometry((3, 3), 4)


def test_huge_groups_fall_back_to_the_box_symmetries() -> None:
    # 8x8 with 8 in a row has 8 * 2**3 * 4! = 1,536 symmetries but a search full of dead
    # ends: it stops early, keeps what it found plus the box's 8, and says so.
    geometry = Geometry((8, 8), 8)
    lines = set(geometry.lines)
    assert not geometry.symmetries_complete
    assert geometry.symmetries[0] == tuple(range(64))
    assert len(geometry.symmetries) >= 8
    for perm in geometry.symmetries:
        assert {_image(line, perm) for line in geometry.lines} == lines
    rotate = tuple((col) * 8 + (7 - row) for row in range(8) for col in range(8))
    assert rotate in geometry.symmetries

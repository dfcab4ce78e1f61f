"""Board geometry: cells, winning lines and symmetries of a tic-tac-toe-family board.

Cells are numbered row-major from 0; in 3-D, ``cell = layer*n*n + row*n + col``.
Bit ``i`` of a bitboard (a plain ``int``) is cell ``i``::

    3x3:  0 1 2      4x4x4, layer 0:  0  1  2  3   layer 1: 16 17 18 19 ...
          3 4 5                       4  5  6  7
          6 7 8                       ...

>>> g = Geometry((3, 3), 3)
>>> len(g.lines), g.cells
(8, 9)
>>> len(Geometry((4, 4, 4), 4).lines), len(Geometry((3, 3, 3), 3).lines)
(76, 49)
>>> sorted(bin(line) for line in g.lines_through[4])
['0b100010001', '0b10010010', '0b1010100', '0b111000']
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from itertools import permutations, product

from noughts.errors import VariantError

__all__ = ["Bitboard", "Geometry", "scan_forward"]

Bitboard = int
"""A set of cells as an ``int``: bit ``i`` set means cell ``i`` is in the set."""

MAX_SYMMETRIES = 5000
"""Stop enumerating symmetries past this many (only huge k = side boards get there)."""

MAX_SEARCH_STEPS = 200_000
"""Give up the symmetry search after this many steps (large n x n boards with k = n have
hundreds of millions of symmetries and a search full of dead ends); the box's own
rotations and reflections are then added to what was found."""


def scan_forward(bb: Bitboard) -> Iterator[int]:
    """Yield the indices of the set bits of ``bb``, lowest first.

    >>> list(scan_forward(0b101001))
    [0, 3, 5]
    """
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def _directions(dims: int) -> list[tuple[int, ...]]:
    """One direction vector per line direction (the first non-zero component positive)."""
    result = []
    for vector in product((-1, 0, 1), repeat=dims):
        nonzero = [v for v in vector if v]
        if nonzero and nonzero[0] > 0:
            result.append(vector)
    return result


class Geometry:
    """A board shape (``(rows, cols)`` or ``(n, n, n)``) with ``k`` marks in a row to win.

    Instances are compared and hashed by ``(shape, k)``; the line tables are built once.
    """

    __slots__ = (
        "shape",
        "k",
        "cells",
        "full",
        "lines",
        "lines_through",
        "__dict__",
    )

    def __init__(self, shape: tuple[int, ...], k: int) -> None:
        if len(shape) not in (2, 3):
            raise VariantError(f"a board has 2 or 3 dimensions, not {len(shape)}")
        if any(side < 1 for side in shape):
            raise VariantError(f"every side must be at least 1, got {shape}")
        if k < 1:
            raise VariantError(f"k={k}: at least 1 mark in a row is needed to win")
        if k > max(shape):
            raise VariantError(f"k={k} in a row cannot fit on a board of sides {shape}")
        self.shape: tuple[int, ...] = tuple(shape)
        self.k: int = k
        self.cells: int = 1
        for side in shape:
            self.cells *= side
        self.full: Bitboard = (1 << self.cells) - 1
        self.lines: tuple[Bitboard, ...] = tuple(self._build_lines())
        through: list[list[Bitboard]] = [[] for _ in range(self.cells)]
        for line in self.lines:
            for cell in scan_forward(line):
                through[cell].append(line)
        self.lines_through: tuple[tuple[Bitboard, ...], ...] = tuple(
            tuple(lines) for lines in through
        )

    # -- identity -----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Geometry)
            and self.shape == other.shape
            and self.k == other.k
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.k))

    def __repr__(self) -> str:
        return f"Geometry({self.shape!r}, {self.k})"

    @property
    def dims(self) -> int:
        """Number of dimensions: 2 or 3."""
        return len(self.shape)

    @property
    def name(self) -> str:
        """The canonical variant name, e.g. ``"3x3"``, ``"4x4k3"``, ``"4x4x4"``.

        >>> Geometry((4, 4), 3).name, Geometry((4, 4, 4), 4).name, Geometry((5, 4), 4).name
        ('4x4k3', '4x4x4', '5x4')
        """
        base = "x".join(str(side) for side in self.shape)
        return base if self.k == min(self.shape) else f"{base}k{self.k}"

    # -- cells and coordinates ----------------------------------------------------
    def coords(self, cell: int) -> tuple[int, ...]:
        """Coordinates of ``cell``: ``(row, col)`` or ``(layer, row, col)``.

        >>> Geometry((4, 4, 4), 4).coords(37)
        (2, 1, 1)
        """
        result = []
        for side in reversed(self.shape):
            cell, rest = divmod(cell, side)
            result.append(rest)
        return tuple(reversed(result))

    def cell(self, coords: tuple[int, ...]) -> int:
        """Cell index of ``coords`` (the inverse of :meth:`coords`).

        >>> Geometry((3, 3), 3).cell((2, 1))
        7
        """
        if len(coords) != len(self.shape) or not all(
            0 <= c < side for c, side in zip(coords, self.shape, strict=True)
        ):
            raise VariantError(f"coordinates {coords} are off a board of shape {self.shape}")
        index = 0
        for c, side in zip(coords, self.shape, strict=True):
            index = index * side + c
        return index

    def _build_lines(self) -> list[Bitboard]:
        lines = []
        for start in product(*(range(side) for side in self.shape)):
            for direction in _directions(self.dims):
                end = [s + (self.k - 1) * d for s, d in zip(start, direction, strict=True)]
                if not all(0 <= e < side for e, side in zip(end, self.shape, strict=True)):
                    continue
                mask = 0
                for step in range(self.k):
                    point = tuple(s + step * d for s, d in zip(start, direction, strict=True))
                    mask |= 1 << self.cell(point)
                lines.append(mask)
        return list(dict.fromkeys(lines))  # with k = 1 every direction gives the same cell

    # -- wins -----------------------------------------------------------------------
    def has_line(self, marks: Bitboard) -> bool:
        """True if ``marks`` cover a whole line.

        >>> Geometry((3, 3), 3).has_line(0b100010001)
        True
        """
        return any(line & marks == line for line in self.lines)

    def completed_lines(self, marks: Bitboard) -> list[Bitboard]:
        """Every line wholly covered by ``marks``."""
        return [line for line in self.lines if line & marks == line]

    def wins_after(self, marks: Bitboard, cell: int) -> bool:
        """True if ``marks`` (which include ``cell``) complete a line through ``cell``."""
        return any(line & marks == line for line in self.lines_through[cell])

    # -- symmetries -------------------------------------------------------------------
    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Every permutation of cells mapping lines onto lines; ``perm[cell]`` is the image.

        The identity comes first. Computed by a backtracking search that keeps
        collinearity, so combinatorial symmetries (4x4's inside-out swaps) are found too.

        >>> [len(Geometry(s, k).symmetries) for s, k in [((3, 3), 3), ((4, 4), 3), ((4, 4), 4)]]
        [8, 8, 32]
        >>> len(Geometry((4, 4, 4), 4).symmetries)
        192
        """
        return tuple(self._automorphisms[0])

    @property
    def symmetries_complete(self) -> bool:
        """False if the group has more than :data:`MAX_SYMMETRIES` elements and
        :attr:`symmetries` holds only some (degenerate boards such as k = 1 or 2x2x2).

        Any subset still gives sound canonical keys; counting orbits needs them all.

        >>> Geometry((3, 3), 3).symmetries_complete, Geometry((2, 2, 2), 2).symmetries_complete
        (True, False)
        """
        return self._automorphisms[1]

    @cached_property
    def _automorphisms(self) -> tuple[list[tuple[int, ...]], bool]:
        return _find_automorphisms(self)

    @cached_property
    def _transform_tables(self) -> list[list[list[Bitboard]]]:
        tables = []
        for perm in self.symmetries:
            chunks = []
            for base in range(0, self.cells, 8):
                width = min(8, self.cells - base)
                table = [0] * (1 << width)
                for byte in range(1, 1 << width):
                    low = byte & -byte
                    bit = low.bit_length() - 1
                    table[byte] = table[byte ^ low] | (1 << perm[base + bit])
                chunks.append(table)
            tables.append(chunks)
        return tables

    def transform(self, bb: Bitboard, symmetry: int) -> Bitboard:
        """Image of bitboard ``bb`` under symmetry number ``symmetry``.

        >>> g = Geometry((3, 3), 3)
        >>> sorted(g.transform(1, s) for s in range(8))  # a corner goes to the four corners
        [1, 1, 4, 4, 64, 64, 256, 256]
        """
        result = 0
        shift = 0
        for table in self._transform_tables[symmetry]:
            result |= table[(bb >> shift) & 0xFF]
            shift += 8
        return result

    @cached_property
    def inverse_symmetries(self) -> tuple[int, ...]:
        """``inverse_symmetries[s]`` is the index of the inverse of symmetry ``s``."""
        index = {perm: i for i, perm in enumerate(self.symmetries)}
        result = []
        for perm in self.symmetries:
            inverse = [0] * self.cells
            for cell, image in enumerate(perm):
                inverse[image] = cell
            result.append(index[tuple(inverse)])
        return tuple(result)

    def canonical(self, x: Bitboard, o: Bitboard) -> tuple[Bitboard, Bitboard, int]:
        """The least ``(x, o)`` image under all symmetries, and the symmetry that gives it.

        Symmetric positions share one canonical pair, so it serves as a hash key.

        >>> g = Geometry((3, 3), 3)
        >>> g.canonical(0b100000000, 0)[:2] == g.canonical(0b1, 0)[:2]
        True
        """
        combined = x | (o << self.cells)
        best = combined
        best_symmetry = 0
        cells = self.cells
        for symmetry in range(1, len(self.symmetries)):
            image = self.transform(x, symmetry) | (self.transform(o, symmetry) << cells)
            if image < best:
                best, best_symmetry = image, symmetry
        return best & self.full, best >> cells, best_symmetry


def _find_automorphisms(geometry: Geometry) -> tuple[list[tuple[int, ...]], bool]:
    """Cell permutations that keep collinearity and map the line set onto itself.

    Returns them (at most :data:`MAX_SYMMETRIES`) and whether that is all of them.
    """
    cells = geometry.cells
    line_set = set(geometry.lines)
    collinear = [0] * cells
    for line in geometry.lines:
        for cell in scan_forward(line):
            collinear[cell] |= line
    for cell in range(cells):
        collinear[cell] &= ~(1 << cell)
    degree = [len(geometry.lines_through[c]) for c in range(cells)]
    signature = [(degree[c], collinear[c].bit_count()) for c in range(cells)]
    same_signature = [0] * cells
    for a in range(cells):
        for b in range(cells):
            if signature[a] == signature[b]:
                same_signature[a] |= 1 << b

    # Order cells so that each one is collinear with as many earlier ones as possible.
    order: list[int] = []
    placed = 0
    remaining = set(range(cells))
    while remaining:
        best = max(remaining, key=lambda c: ((collinear[c] & placed).bit_count(), -c))
        order.append(best)
        placed |= 1 << best
        remaining.remove(best)

    # Each cell's earlier cells it is collinear with: its image must be collinear with
    # exactly their images among the cells placed so far (and with no other placed image).
    partners = [
        [earlier for earlier in order[:depth] if collinear[cell] >> earlier & 1]
        for depth, cell in enumerate(order)
    ]
    line_cells = [list(scan_forward(line)) for line in geometry.lines]
    found: list[tuple[int, ...]] = []
    image = [0] * cells

    steps = MAX_SEARCH_STEPS

    def extend(depth: int, used: int) -> None:
        nonlocal steps
        steps -= 1
        if len(found) > MAX_SYMMETRIES or steps < 0:
            return
        if depth == cells:
            for members in line_cells:
                mapped = 0
                for member in members:
                    mapped |= 1 << image[member]
                if mapped not in line_set:
                    return
            found.append(tuple(image))
            return
        cell = order[depth]
        candidates = same_signature[cell] & ~used
        cell_partners = partners[depth]
        for earlier in cell_partners[:2]:
            candidates &= collinear[image[earlier]]
        if candidates & (candidates - 1) == 0:  # one candidate (or none): the check
            if candidates:  # of lines at the leaf settles it, no need to test here
                image[cell] = candidates.bit_length() - 1
                extend(depth + 1, used | candidates)
            return
        wanted = 0
        for earlier in cell_partners:
            wanted |= 1 << image[earlier]
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            if collinear[low.bit_length() - 1] & used == wanted:
                image[cell] = low.bit_length() - 1
                extend(depth + 1, used | low)

    extend(0, 0)
    complete = len(found) <= MAX_SYMMETRIES and steps >= 0
    found = found[:MAX_SYMMETRIES]
    if steps < 0:
        found = list(dict.fromkeys(found + _box_symmetries(geometry)))
    found.sort(key=lambda perm: perm != tuple(range(cells)))
    return found, complete


def _box_symmetries(geometry: Geometry) -> list[tuple[int, ...]]:
    """The rotations and reflections of the board's box: axis swaps between equal sides
    and flips of any axis. They map straight lines onto straight lines, so lines onto lines.
    """
    shape = geometry.shape
    result = []
    for axes in permutations(range(geometry.dims)):
        if any(shape[axis] != shape[index] for index, axis in enumerate(axes)):
            continue
        for flips in product((False, True), repeat=geometry.dims):
            images = []
            for cell in range(geometry.cells):
                coords = geometry.coords(cell)
                moved = tuple(
                    shape[index] - 1 - coords[axis] if flip else coords[axis]
                    for index, (axis, flip) in enumerate(zip(axes, flips, strict=True))
                )
                images.append(geometry.cell(moved))
            result.append(tuple(images))
    return result

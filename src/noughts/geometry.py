"""Board geometry: the cells and winning lines of a tic-tac-toe-family board.

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
from itertools import product

from noughts.errors import VariantError
from noughts.symmetries import MAX_SYMMETRIES, Symmetries

__all__ = ["Bitboard", "Geometry", "scan_forward", "name_of", "check_marks", "MAX_SYMMETRIES"]

Bitboard = int
"""A set of cells as an ``int``: bit ``i`` set means cell ``i`` is in the set."""

def scan_forward(bb: Bitboard) -> Iterator[int]:
    """Yield the indices of the set bits of ``bb``, lowest first.

    >>> list(scan_forward(0b101001))
    [0, 3, 5]
    """
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def check_marks(x: Bitboard, o: Bitboard, full: Bitboard) -> None:
    """Raise a ``ValueError`` unless both sides' marks lie on the board (the cells of
    ``full``), on different cells: the searches' check of a position handed to them
    (the compiled core's reader gives the same messages).

    >>> check_marks(0b01, 0b10, 0b11)
    >>> check_marks(0b11, 0b10, 0b11)
    Traceback (most recent call last):
    ...
    ValueError: the marks share a cell: they must lie on the board, on different cells
    """
    if x < 0 or o < 0 or (x | o) & ~full:
        raise ValueError("the marks leave the board: they must lie on the board, on "
                         "different cells")
    if x & o:
        raise ValueError("the marks share a cell: they must lie on the board, on different cells")


def name_of(shape: tuple[int, ...], k: int) -> str:
    """The canonical variant name of a board: sides joined by ``x``, then ``kK`` unless k
    is the smallest side.

    >>> name_of((4, 4), 3), name_of((4, 4, 4), 4), name_of((5, 4), 4)
    ('4x4k3', '4x4x4', '5x4')
    """
    base = "x".join(str(side) for side in shape)
    return base if k == min(shape) else f"{base}k{k}"


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
    ``name`` is the canonical variant name:

    >>> Geometry((4, 4), 3).name, Geometry((3, 3, 3), 3).name
    ('4x4k3', '3x3x3')
    """

    __slots__ = (
        "shape",
        "k",
        "name",
        "_hash",
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
        self.name: str = name_of(self.shape, k)  # (kept: searches ask for it every move)
        self._hash = hash((self.shape, k))
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
        return self._hash

    def __repr__(self) -> str:
        return f"Geometry({self.shape!r}, {self.k})"

    @property
    def degenerate(self) -> bool:
        """True if ``k`` is longer than the short side: lines run along the long sides
        only, and the symmetry group explodes (thousands of permutations of interchangeable
        cells), so searches and caches do without symmetries there.

        >>> Geometry((3, 8), 6).degenerate, Geometry((3, 8), 3).degenerate
        (True, False)
        """
        return self.k > min(self.shape)

    @property
    def dims(self) -> int:
        """Number of dimensions: 2 or 3."""
        return len(self.shape)

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
        """Every run of k cells in a row, ordered by its first cell, then by direction."""
        shape, k = self.shape, self.k
        strides = [1] * len(shape)  # how far a cell number moves with each coordinate
        for axis in range(len(shape) - 2, -1, -1):
            strides[axis] = strides[axis + 1] * shape[axis + 1]
        found = []
        for order, direction in enumerate(_directions(self.dims)):
            step = sum(d * stride for d, stride in zip(direction, strides, strict=True))
            starts = [  # the coordinates a run in this direction may start from
                range(k - 1 if d < 0 else 0, side - (k - 1 if d > 0 else 0))
                for d, side in zip(direction, shape, strict=True)]
            for start in product(*starts):
                first = sum(c * stride for c, stride in zip(start, strides, strict=True))
                mask = 0
                for index in range(k):
                    mask |= 1 << (first + index * step)
                found.append((first, order, mask))
        found.sort()
        return list(dict.fromkeys(mask for _, _, mask in found))  # k = 1: all alike

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

    def completing(self, marks: Bitboard, empty: Bitboard) -> list[int]:
        """The cells of ``empty`` where ``marks`` would complete a line, lowest first.

        >>> Geometry((3, 3), 3).completing(0b000_010_011, 0b111_101_100)  # marks 0, 1, 4
        [2, 7, 8]
        """
        return [cell for cell in scan_forward(empty) if self.wins_after(marks | 1 << cell, cell)]

    # -- symmetries (kept in :mod:`noughts.symmetries`; these are shortcuts) -------------
    @cached_property
    def symmetry_group(self) -> Symmetries:
        """The board's symmetries: permutations, inverses, image tables, canonical form.

        >>> Geometry((3, 3), 3).symmetry_group.count
        8
        """
        return Symmetries(self)

    @property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Every permutation of cells mapping lines onto lines, the identity first
        (:attr:`Symmetries.perms`).

        >>> [len(Geometry(s, k).symmetries) for s, k in [((3, 3), 3), ((4, 4), 3), ((4, 4), 4)]]
        [8, 8, 32]
        >>> len(Geometry((4, 4, 4), 4).symmetries)
        192
        """
        return self.symmetry_group.perms

    @property
    def symmetries_complete(self) -> bool:
        """False if :attr:`symmetries` holds only some of a huge group
        (:attr:`Symmetries.complete`).

        >>> Geometry((3, 3), 3).symmetries_complete, Geometry((2, 2, 2), 2).symmetries_complete
        (True, False)
        """
        return self.symmetry_group.complete

    @property
    def inverse_symmetries(self) -> tuple[int, ...]:
        """``inverse_symmetries[s]`` is the index of the inverse of symmetry ``s``."""
        return self.symmetry_group.inverse_index

    def transform(self, bb: Bitboard, symmetry: int) -> Bitboard:
        """Image of bitboard ``bb`` under symmetry number ``symmetry``.

        >>> g = Geometry((3, 3), 3)
        >>> sorted(g.transform(1, s) for s in range(8))  # a corner goes to the four corners
        [1, 1, 4, 4, 64, 64, 256, 256]
        """
        return self.symmetry_group.transform(bb, symmetry)

    def canonical(self, x: Bitboard, o: Bitboard) -> tuple[Bitboard, Bitboard, int]:
        """The least ``(x, o)`` image under all symmetries, and the symmetry that gives it.

        >>> g = Geometry((3, 3), 3)
        >>> g.canonical(0b100000000, 0)[:2] == g.canonical(0b1, 0)[:2]
        True
        """
        return self.symmetry_group.canonical(x, o)

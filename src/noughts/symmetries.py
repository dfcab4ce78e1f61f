"""The symmetries of a board: one :class:`Symmetries` per geometry, and canonical keys.

:class:`Symmetries` (``geometry.symmetry_group``) holds the cell permutations that map
lines onto lines (found once, by a search that keeps collinearity, so combinatorial
symmetries such as 4x4's inside-out swaps are found too; on n x n (x n) boards with
k = n, Qubic's among them, the same group is derived without a search), their
inverses, per-byte image tables, and the canonical form of a position. Everything that
needs symmetries (canonical keys, the search board's hashes, counts, the service's
cache) asks it.

>>> from noughts.variants import variant
>>> group = variant("3x3").symmetry_group
>>> group.count, group.perms[0] == tuple(range(9)), group.complete
(8, True, True)
>>> s = 3
>>> group.inverses[s][group.perms[s][2]]
2

:class:`SymmetryKeys` gives fast canonical keys: one ``int`` per position, shared by all
its symmetric images. A position's *word* is ``me | opp << cells`` (``me`` = the side to
move). Its canonical key is the least word among the images of the position under the
geometry's symmetries.
Images are computed a byte at a time from per-byte tables that hold, for every byte
value, the images under *all* symmetries at once, so a key costs a few C-level ``map``
calls instead of a Python loop per symmetry.

>>> from noughts.variants import variant
>>> keys = SymmetryKeys(variant("3x3"))
>>> keys.key(0b000000001, 0) == keys.key(0b100000000, 0)  # corners are alike
True
>>> keys.key(0b000010000, 0) == keys.key(0b000000010, 0)  # the centre is no edge
False
>>> key, symmetry = keys.key_and_symmetry(0b100000000, 0b000000010)
>>> me, opp = keys.split(key)  # the symmetry maps the position onto its key
>>> me == 1 << keys.apply(symmetry, 8), opp == 1 << keys.apply(symmetry, 1)
(True, True)
>>> keys.invert(symmetry, keys.apply(symmetry, 8))
8
"""

from __future__ import annotations

from functools import cached_property
from itertools import permutations, product
from math import factorial
from operator import or_
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from array import array
    from collections.abc import Callable

    from noughts.geometry import Geometry

__all__ = [
    "Symmetries",
    "SymmetryKeys",
    "invert",
    "box_symmetries",
    "MAX_KEY_SYMMETRIES",
    "MAX_DERIVED_SYMMETRIES",
    "MAX_SYMMETRIES",
    "MAX_SEARCH_STEPS",
]

Bitboard = int

MAX_SYMMETRIES = 5000
"""Stop enumerating symmetries past this many (only huge k = side boards get there)."""

MAX_SEARCH_STEPS = 200_000
"""Give up the symmetry search after this many steps (large n x n boards with k = n have
hundreds of millions of symmetries and a search full of dead ends); the box's own
rotations and reflections are then added to what was found."""

MAX_KEY_SYMMETRIES = 256
"""At most this many symmetries take part in a key (any subset still gives valid keys)."""

MAX_DERIVED_SYMMETRIES = 256
"""Cube boards with k = side and at most this many symmetries get them derived rather
than searched (2-D sides 3 to 7, 3-D sides 3 to 5: where the search is known to find
exactly the derived group)."""


def invert(perm: tuple[int, ...]) -> tuple[int, ...]:
    """The inverse permutation: ``invert(p)[p[cell]] == cell``.

    >>> invert((2, 0, 1))
    (1, 2, 0)
    """
    inverse = [0] * len(perm)
    for cell, image in enumerate(perm):
        inverse[image] = cell
    return tuple(inverse)


class Symmetries:
    """The symmetry group of one geometry (at most :data:`MAX_SYMMETRIES` of it).

    Built lazily: the permutations on first use, each table on first use.
    """

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry

    @cached_property
    def _found(self) -> tuple[tuple[tuple[int, ...], ...], bool]:
        derived = _cube_automorphisms(self.geometry)
        if derived is not None:
            return tuple(derived), True
        perms, complete = _find_automorphisms(self.geometry)
        return tuple(perms), complete

    @property
    def perms(self) -> tuple[tuple[int, ...], ...]:
        """Every permutation of cells mapping lines onto lines; ``perm[cell]`` is the image.
        The identity comes first."""
        return self._found[0]

    @property
    def complete(self) -> bool:
        """False if the group has more than :data:`MAX_SYMMETRIES` elements and
        :attr:`perms` holds only some (degenerate boards such as k = 1 or 2x2x2). Any
        subset still gives sound canonical keys; counting orbits needs them all."""
        return self._found[1]

    @property
    def count(self) -> int:
        return len(self.perms)

    @cached_property
    def inverses(self) -> tuple[tuple[int, ...], ...]:
        """``inverses[s]`` is the inverse permutation of symmetry ``s``."""
        return tuple(invert(perm) for perm in self.perms)

    @cached_property
    def inverse_index(self) -> tuple[int, ...]:
        """``inverse_index[s]`` is the number of the inverse of symmetry ``s``."""
        index = {perm: i for i, perm in enumerate(self.perms)}
        return tuple(index[inverse] for inverse in self.inverses)

    @cached_property
    def _byte_tables(self) -> list[list[list[Bitboard]]]:
        cells = self.geometry.cells
        tables = []
        for perm in self.perms:
            chunks = []
            for base in range(0, cells, 8):
                width = min(8, cells - base)
                table = [0] * (1 << width)
                for byte in range(1, 1 << width):
                    low = byte & -byte
                    bit = low.bit_length() - 1
                    table[byte] = table[byte ^ low] | (1 << perm[base + bit])
                chunks.append(table)
            tables.append(chunks)
        return tables

    @property
    def ready(self) -> bool:
        """True once the permutations and image tables are built (so a canonical form is
        cheap; the service warms big boards in the background until then)."""
        return "_found" in self.__dict__ and "_byte_tables" in self.__dict__

    def transform(self, bb: Bitboard, symmetry: int) -> Bitboard:
        """Image of bitboard ``bb`` under symmetry number ``symmetry``."""
        result = 0
        shift = 0
        for table in self._byte_tables[symmetry]:
            result |= table[(bb >> shift) & 0xFF]
            shift += 8
        return result

    def canonical(self, x: Bitboard, o: Bitboard) -> tuple[Bitboard, Bitboard, int]:
        """The least ``(x, o)`` image under all symmetries, and the symmetry giving it."""
        cells = self.geometry.cells
        if self.count <= MAX_KEY_SYMMETRIES:  # the fast keys hold every symmetry
            word, symmetry = self.keys.key_and_symmetry(x, o)
            return word & self.geometry.full, word >> cells, symmetry
        best = x | (o << cells)
        best_symmetry = 0
        for symmetry in range(1, self.count):
            image = self.transform(x, symmetry) | (self.transform(o, symmetry) << cells)
            if image < best:
                best, best_symmetry = image, symmetry
        return best & self.geometry.full, best >> cells, best_symmetry

    def child_canonical(
        self, x: Bitboard, o: Bitboard, side: int
    ) -> Callable[[int], tuple[Bitboard, Bitboard, int]]:
        """:meth:`canonical` of the positions after ``side`` (0 = X, 1 = O) marks one more
        cell, as a function of that cell: the images of what the positions share are
        made once, so each one costs a single pass over the symmetries.

        >>> from noughts.variants import variant
        >>> group = variant("4x4x4").symmetry_group
        >>> after = group.child_canonical(0b1, 1 << 21, 0)
        >>> after(42) == group.canonical(0b1 | 1 << 42, 1 << 21)
        True
        """
        cells = self.geometry.cells
        if self.count > MAX_KEY_SYMMETRIES:  # the fast keys do not hold every symmetry
            def each_slow(cell: int) -> tuple[Bitboard, Bitboard, int]:
                bit = 1 << cell
                return self.canonical(x | bit, o) if side == 0 else self.canonical(x, o | bit)

            return each_slow
        keys, full, shift = self.keys, self.geometry.full, cells * side
        shared = tuple(keys.images(x | o << cells))

        def each(cell: int) -> tuple[Bitboard, Bitboard, int]:
            images = list(map(or_, shared, keys.bit_images(cell + shift)))
            word = min(images)
            return word & full, word >> cells, images.index(word)

        return each

    def mask_images(self) -> list[array[int]]:
        """For each symmetry, the image of every mask of cells (boards of at most 24 cells).

        >>> from noughts.variants import variant
        >>> sorted(table[0b1] for table in variant("3x3").symmetry_group.mask_images())
        [1, 1, 4, 4, 64, 64, 256, 256]
        """
        from array import array

        cells = self.geometry.cells
        if cells > 24:
            raise ValueError(f"mask tables of {cells} cells would not fit in memory")
        size = 1 << cells
        tables = []
        for perm in self.perms:
            table = array("I", bytes(size * array("I").itemsize))
            for mask in range(1, size):
                low = mask & -mask
                table[mask] = table[mask ^ low] | 1 << perm[low.bit_length() - 1]
            tables.append(table)
        return tables

    @cached_property
    def keys(self) -> SymmetryKeys:
        """Fast canonical keys over (at most :data:`MAX_KEY_SYMMETRIES` of) the group."""
        return SymmetryKeys(self.geometry)


class SymmetryKeys:
    """Canonical keys and cell maps for the symmetries of one geometry.

    Using only some of the symmetries is still sound: two positions with one key are
    images of one another, so they have one value.
    """

    __slots__ = ("cells", "count", "_tables", "_singles", "_perms", "_group", "_columns")

    def __init__(self, geometry: Geometry, max_symmetries: int = MAX_KEY_SYMMETRIES) -> None:
        group = geometry.symmetry_group
        perms = group.perms[:max_symmetries]
        cells = geometry.cells
        self.cells = cells
        self.count = len(perms)
        self._perms = perms
        self._group = group  # (its inverses, built when a cell is first mapped back)
        self._columns: list[tuple[int, ...]] | None = None  # each cell's images
        # For each byte of a position's word (the bits of ``me``, then those of ``opp``)
        # and each of its 256 values, the images of those bits under every symmetry: a
        # table filled as the lookups need it (a cold start reads a few dozen entries).
        width = 2 * cells
        self._tables: list[list[tuple[int, ...] | None]] = [
            [(0,) * self.count] + [None] * 255 for _ in range(0, width, 8)]
        self._singles: list[list[tuple[int, ...]] | None] = [None] * len(self._tables)

    def word(self, me: Bitboard, opp: Bitboard) -> int:
        """The position's own (unreduced) word."""
        return me | opp << self.cells

    def _entry(self, index: int, byte: int) -> tuple[int, ...]:
        """The images of ``byte`` at byte ``index`` of a word, under every symmetry."""
        singles = self._singles[index]
        if singles is None:
            if self._columns is None:
                self._columns = list(zip(*self._perms, strict=True))
            singles = []
            for bit in range(min(8, 2 * self.cells - 8 * index)):
                at = 8 * index + bit
                cell, shift = (at, 0) if at < self.cells else (at - self.cells, self.cells)
                singles.append(tuple(map((1 << shift).__lshift__, self._columns[cell])))
            self._singles[index] = singles
        low = byte & -byte
        rest = byte ^ low
        single = singles[low.bit_length() - 1]
        images = single if not rest else tuple(map(or_, self._image(index, rest), single))
        self._tables[index][byte] = images
        return images

    def _image(self, index: int, byte: int) -> tuple[int, ...]:
        images = self._tables[index][byte]
        return images if images is not None else self._entry(index, byte)

    def _images(self, word: int) -> tuple[int, ...] | map[int]:
        tables = self._tables
        images: tuple[int, ...] | map[int] = tables[0][word & 255] or self._entry(0, word & 255)
        word >>= 8
        index = 1
        while word:
            byte = word & 255
            if byte:
                images = map(or_, images, tables[index][byte] or self._entry(index, byte))
            word >>= 8
            index += 1
        return images

    def images(self, word: int) -> tuple[int, ...] | map[int]:
        """The images of a word under every symmetry, in the group's order (an iterable
        to read once)."""
        return self._images(word)

    def bit_images(self, at: int) -> tuple[int, ...]:
        """The images of the word holding bit ``at`` alone, under every symmetry."""
        return self._image(at >> 3, 1 << (at & 7))

    def key(self, me: Bitboard, opp: Bitboard) -> int:
        """The canonical key: the least word over the symmetric images."""
        return min(self._images(me | opp << self.cells))

    def key_and_symmetry(self, me: Bitboard, opp: Bitboard) -> tuple[int, int]:
        """The canonical key and the number of a symmetry that maps the position onto it."""
        images = list(self._images(me | opp << self.cells))
        key = min(images)
        return key, images.index(key)

    def apply(self, symmetry: int, cell: int) -> int:
        """Image of ``cell`` under symmetry number ``symmetry``."""
        return self._perms[symmetry][cell]

    def invert(self, symmetry: int, cell: int) -> int:
        """The cell that symmetry number ``symmetry`` maps onto ``cell``."""
        return self._group.inverses[symmetry][cell]

    def split(self, key: int) -> tuple[Bitboard, Bitboard]:
        """The ``(me, opp)`` bitboards of a key (or of any word)."""
        return key & ((1 << self.cells) - 1), key >> self.cells


def _find_automorphisms(geometry: Geometry) -> tuple[list[tuple[int, ...]], bool]:
    """Cell permutations that keep collinearity and map the line set onto itself.

    Returns them (at most :data:`MAX_SYMMETRIES`) and whether that is all of them.
    """
    cells = geometry.cells
    line_set = set(geometry.lines)
    collinear, order = _search_order(geometry)
    degree = [len(geometry.lines_through[c]) for c in range(cells)]
    signature = [(degree[c], collinear[c].bit_count()) for c in range(cells)]
    same_signature = [0] * cells
    for a in range(cells):
        for b in range(cells):
            if signature[a] == signature[b]:
                same_signature[a] |= 1 << b

    # Each cell's earlier cells it is collinear with: its image must be collinear with
    # exactly their images among the cells placed so far (and with no other placed image).
    partners = [
        [earlier for earlier in order[:depth] if collinear[cell] >> earlier & 1]
        for depth, cell in enumerate(order)
    ]
    line_cells = [_cells(line) for line in geometry.lines]
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
        found = list(dict.fromkeys(found + box_symmetries(geometry)))
    found.sort(key=lambda perm: perm != tuple(range(cells)))
    return found, complete


def _search_order(geometry: Geometry) -> tuple[list[Bitboard], list[int]]:
    """Each cell's collinear cells (a bitboard, without the cell), and the order in which
    the search places cells: each one collinear with as many earlier ones as possible."""
    cells = geometry.cells
    collinear = [0] * cells
    for line in geometry.lines:
        for cell in _cells(line):
            collinear[cell] |= line
    for cell in range(cells):
        collinear[cell] &= ~(1 << cell)
    # score[c] orders cells as (how many placed cells c is collinear with, -c) does
    order: list[int] = []
    step = cells + 1
    score = [-cell for cell in range(cells)]
    remaining = set(range(cells))
    while remaining:
        best = max(remaining, key=score.__getitem__)
        order.append(best)
        remaining.remove(best)
        for cell in _cells(collinear[best]):
            score[cell] += step
    return collinear, order


def _cube_automorphisms(geometry: Geometry) -> list[tuple[int, ...]] | None:
    """The symmetries of an n x n (x n) board with k = n >= 3 (Qubic's 192 among them),
    made without a search and in the order the search finds them; ``None`` for other
    boards, and for cubes whose group exceeds :data:`MAX_DERIVED_SYMMETRIES`.

    Such a board's lines are its full rows, columns and diagonals: along a line each
    coordinate is a constant, ``t`` or ``n-1-t`` (``t`` = 0..n-1). Applying one
    permutation ``s`` of 0..n-1 to every coordinate maps them onto a constant, ``u`` or
    ``n-1-u`` with ``u = s(t)`` exactly when ``s`` commutes with the reversal
    ``t -> n-1-t``: so every line goes to a line. These *twists* (for n = 4: swapping
    0 and 1 with 2 and 3, the inside-out map; or 1 with 2), with the box's axis swaps
    and per-axis flips, make d! 2^d 2^h h! / 2 symmetries (h = n // 2; the full flip
    equals the reversal twist): 8 for 3x3, 32 for 4x4, 192 for Qubic. On every board
    where this count is at most :data:`MAX_DERIVED_SYMMETRIES` the search finds exactly
    these, which the tests check board by board.

    >>> from noughts.geometry import Geometry
    >>> len(_cube_automorphisms(Geometry((4, 4, 4), 4))), _cube_automorphisms(Geometry((4, 4), 3))
    (192, None)
    """
    shape = geometry.shape
    n, dims = shape[0], geometry.dims
    if n < 3 or geometry.k != n or any(side != n for side in shape):
        return None
    half = n // 2
    if factorial(dims) * 2**dims * 2**half * factorial(half) // 2 > MAX_DERIVED_SYMMETRIES:
        return None
    weights = [n ** (dims - 1 - axis) for axis in range(dims)]

    def separable(tables: list[list[int]]) -> tuple[int, ...]:
        """The permutation taking the cell at coordinates ``c`` to the cell numbered
        ``sum(tables[axis][c[axis]])``, cell by cell (row-major)."""
        images = [0]
        for table in tables:
            images = [image + part for image in images for part in table]
        return tuple(images)

    # Twists up to the reversal (pair 0 kept upright): pair ``low`` = {low, n-1-low}
    # goes to pair ``pairs[low]``, turned or not.
    twists = []
    for pairs in permutations(range(half)):
        for turned in product((False, True), repeat=half - 1):
            twist = list(range(n))
            for low, (pair, turn) in enumerate(zip(pairs, (False, *turned), strict=True)):
                twist[low] = n - 1 - pair if turn else pair
                twist[n - 1 - low] = n - 1 - twist[low]
            twists.append(twist)
    mapped = [  # each twist, then each axis flipped or not
        separable([[weight * (n - 1 - image if flipped else image) for image in twist]
                   for weight, flipped in zip(weights, flips, strict=True)])
        for twist in twists for flips in product((False, True), repeat=dims)]
    swaps = [  # axis ``axis`` becomes axis ``axes.index(axis)``
        separable([[weights[axes.index(axis)] * c for c in range(n)] for axis in range(dims)])
        for axes in permutations(range(dims))]
    found = [tuple(map(swap.__getitem__, perm)) for perm in mapped for swap in swaps]
    _, order = _search_order(geometry)
    found.sort(key=lambda perm: list(map(perm.__getitem__, order)))  # the search's order:
    identity = tuple(range(geometry.cells))  # its candidates go lowest cell first
    found.sort(key=lambda perm: perm != identity)
    return found


def box_symmetries(geometry: Geometry) -> list[tuple[int, ...]]:
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
                moved = tuple(  # each source axis flipped (or not), then the axes permuted
                    shape[axis] - 1 - coords[axis] if flips[axis] else coords[axis]
                    for axis in axes
                )
                images.append(geometry.cell(moved))
            result.append(tuple(images))
    return result


def _cells(bb: Bitboard) -> list[int]:
    cells = []
    while bb:
        low = bb & -bb
        cells.append(low.bit_length() - 1)
        bb ^= low
    return cells

"""Fast canonical keys: one ``int`` per position, shared by all its symmetric images.

A position's *word* is ``me | opp << cells`` (``me`` = the side to move). Its canonical
key is the least word among the images of the position under the geometry's symmetries.
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

from operator import or_

from noughts.geometry import Bitboard, Geometry

__all__ = ["SymmetryKeys", "MAX_KEY_SYMMETRIES"]

MAX_KEY_SYMMETRIES = 256
"""At most this many symmetries take part in a key (any subset still gives valid keys)."""


class SymmetryKeys:
    """Canonical keys and cell maps for the symmetries of one geometry.

    Using only some of the symmetries is still sound: two positions with one key are
    images of one another, so they have one value.
    """

    __slots__ = ("cells", "count", "_tables", "_perms", "_inverses")

    def __init__(self, geometry: Geometry, max_symmetries: int = MAX_KEY_SYMMETRIES) -> None:
        perms = geometry.symmetries[:max_symmetries]
        cells = geometry.cells
        self.cells = cells
        self.count = len(perms)
        self._perms = perms
        inverses = []
        for perm in perms:
            inverse = [0] * cells
            for cell, image in enumerate(perm):
                inverse[image] = cell
            inverses.append(tuple(inverse))
        self._inverses: tuple[tuple[int, ...], ...] = tuple(inverses)
        width = 2 * cells
        tables: list[tuple[tuple[int, ...], ...]] = []
        for base in range(0, width, 8):
            singles = []
            for bit in range(min(8, width - base)):
                index = base + bit
                cell, shift = (index, 0) if index < cells else (index - cells, cells)
                singles.append(tuple(1 << (perm[cell] + shift) for perm in perms))
            table: list[tuple[int, ...]] = [(0,) * len(perms)]
            for byte in range(1, 1 << len(singles)):
                low = byte & -byte
                table.append(
                    tuple(map(or_, table[byte ^ low], singles[low.bit_length() - 1]))
                )
            tables.append(tuple(table))
        self._tables = tuple(tables)

    def word(self, me: Bitboard, opp: Bitboard) -> int:
        """The position's own (unreduced) word."""
        return me | opp << self.cells

    def _images(self, word: int) -> tuple[int, ...] | map[int]:
        tables = self._tables
        images: tuple[int, ...] | map[int] = tables[0][word & 255]
        word >>= 8
        index = 1
        while word:
            byte = word & 255
            if byte:
                images = map(or_, images, tables[index][byte])
            word >>= 8
            index += 1
        return images

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
        return self._inverses[symmetry][cell]

    def split(self, key: int) -> tuple[Bitboard, Bitboard]:
        """The ``(me, opp)`` bitboards of a key (or of any word)."""
        return key & ((1 << self.cells) - 1), key >> self.cells

"""Opening moves: the strongest cells first, from a small table mapped through symmetry.

The table holds one representative position per symmetry class (its canonical image)
with the replies worth playing there, in the representative's frame. A lookup finds
the symmetry taking the position to its representative and maps the replies back.
The 4x4x4 seed opened on a random strong cell; in Qubic those are the 8 corners and
the 8 centre cells (each on 7 lines), which the 192 symmetries map onto each other.

>>> import random
>>> from noughts.position import Position
>>> move = book_move(Position("", "qubic"), random.Random(1))
>>> move in strong_cells(Position("", "qubic").geometry)
True
>>> len(strong_cells(Position("", "qubic").geometry))
16
>>> book_move(Position("XO" + "." * 62, "qubic"), random.Random(1)) is None
True
"""

from __future__ import annotations

import random
from functools import lru_cache

from noughts.geometry import Bitboard, Geometry
from noughts.position import Position
from noughts.search.board import tables_for

__all__ = ["strong_cells", "book_move", "BOOK_PLIES"]

BOOK_PLIES = 1
"""The table covers the empty board and every position after one move."""


def strong_cells(geometry: Geometry) -> tuple[int, ...]:
    """The cells on the most lines (Qubic: corners and centres; 3x3: the centre)."""
    counts = [len(lines) for lines in geometry.lines_through]
    top = max(counts)
    return tuple(cell for cell, count in enumerate(counts) if count == top)


def _canonical(geometry: Geometry, marks: Bitboard) -> tuple[int, list[int]]:
    """The least image of a board holding at most one mark, and every symmetry index
    that produces it (a single cell's image is just its image under the permutation)."""
    perms = tables_for(geometry).perms
    if not marks:
        return 0, list(range(len(perms)))
    cell = marks.bit_length() - 1
    images = [perm[cell] for perm in perms]
    best = min(images)
    return 1 << best, [index for index, image in enumerate(images) if image == best]


@lru_cache(maxsize=16)
def _book(geometry: Geometry) -> dict[int, tuple[int, ...]]:
    """Representative position -> good replies (representative's frame).

    Empty board: the strong cells. After one move: the strong cells sharing a line
    with it (blocking while building), else every strong cell still empty.
    """
    strong = strong_cells(geometry)
    table: dict[int, tuple[int, ...]] = {0: strong}
    for first in range(geometry.cells):
        key, _ = _canonical(geometry, 1 << first)
        if key in table:
            continue
        rep = key.bit_length() - 1
        shared = 0
        for line in geometry.lines_through[rep]:
            shared |= line
        replies = tuple(c for c in strong if c != rep and shared >> c & 1)
        table[key] = replies or tuple(c for c in strong if c != rep)
    return table


def book_move(position: Position, rng: random.Random) -> int | None:
    """A seeded random reply from the table, or ``None`` past the table's plies."""
    geometry = position.geometry
    if position.ply > BOOK_PLIES or geometry.cells > 125:
        return None
    marks = position.x | position.o  # at most one mark: key the table by where it is
    key, symmetries = _canonical(geometry, marks)
    replies = _book(geometry).get(key)
    if not replies:
        return None
    tables = tables_for(geometry)
    choices = sorted({tables.inverse[s][cell] for s in symmetries for cell in replies})
    choices = [c for c in choices if not marks >> c & 1]
    return rng.choice(choices) if choices else None

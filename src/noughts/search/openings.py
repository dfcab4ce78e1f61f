"""Opening moves: on an empty board, a seeded random pick among the strongest cells.

The 4x4x4 seed opened on a random strong cell; in Qubic those are the 8 corners and
the 8 centre cells (each on 7 lines), which the 192 symmetries map onto each other.
From the second ply on, the search chooses. (An earlier table also answered the first
move, on a strong cell sharing a line with it; against the seed's depth-3 bot opening
on a strong cell, O won 5 of 30 games with that table and 15 of the same 30 letting
the search choose, at 1 s a move.)

>>> import random
>>> from noughts.position import Position
>>> move = opening_move(Position("", "qubic"), random.Random(1))
>>> move in strong_cells(Position("", "qubic").geometry)
True
>>> len(strong_cells(Position("", "qubic").geometry))
16
>>> opening_move(Position("X" + "." * 63, "qubic"), random.Random(1)) is None
True
"""

from __future__ import annotations

import random

from noughts.geometry import Geometry
from noughts.position import Position

__all__ = ["strong_cells", "opening_move"]


def strong_cells(geometry: Geometry) -> tuple[int, ...]:
    """The cells on the most lines (Qubic: corners and centres; 3x3: the centre)."""
    counts = [len(lines) for lines in geometry.lines_through]
    top = max(counts)
    return tuple(cell for cell, count in enumerate(counts) if count == top)


def opening_move(position: Position, rng: random.Random) -> int | None:
    """A seeded random strong cell on an empty board (up to 125 cells), else ``None``."""
    geometry = position.geometry
    if position.ply > 0 or geometry.cells > 125:
        return None
    return rng.choice(strong_cells(geometry))

"""Exact values of every reachable position of a small board, in one NumPy array.

A position is indexed in base 3, cell ``c`` weighing ``3**c`` (digit 0 empty, 1 X, 2 O);
the table holds, for the side to move, an ``int8`` score: ``WIN - plies`` for a win,
``plies - WIN`` for a loss, 0 for a draw (a drawn game always fills the board), where
``plies`` counts the plies to the end with best play on both sides. A finished game
scores ``-WIN`` (the player to move has lost, in 0 plies) or 0 (a full board). The table
is built by retrograde analysis: the reachable positions ply by ply from the empty board,
then their values from the last ply back (two passes over NumPy arrays, no search).

Boards of at most :data:`MAX_TABLE_CELLS` cells have a table: 3x3 (5,478 reachable
positions, a few milliseconds) and 4x4k3 (6,036,001 positions, 43 MB kept, once per
process on first use). Where the compiled step (:mod:`noughts.rl.native`) is built, a
depth-first walk in C builds it (4x4k3 in a fraction of a second); else the NumPy
reference does (about 5 s of CPU and some 400 MB while it is built). A
misere variant (``"3x3-misere"``) has the table of the game where completing a line loses.

>>> table = exact_table("3x3")
>>> int(table.values[0])  # the empty board: a draw
0
>>> from noughts import Position
>>> position = Position("XX./OO./...")
>>> int(table.values[table.index_of(position)])  # X to move wins in 1 ply
99
>>> table.move_scores(np.array([table.index_of(position)]), np.array([1]))[0].tolist()
[-128, -128, 99, -128, -128, 0, -98, -98, -98]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.rl.native import build_table
from noughts.variants import Variant, variant

__all__ = ["WIN", "NO_MOVE", "MAX_TABLE_CELLS", "ExactTable", "exact_table", "line_cells"]

WIN = 100
"""A win in ``d`` plies scores ``WIN - d``; a loss in ``d`` plies ``d - WIN``."""
NO_MOVE = -128
"""The score :meth:`ExactTable.move_scores` gives an occupied cell."""
MAX_TABLE_CELLS = 16
"""Boards with at most this many cells have a table (``3**16`` entries: 43 MB)."""


def line_cells(geometry: Geometry) -> np.ndarray:
    """The cells of every line, one row a line (``(lines, k)``, ascending cells).

    >>> line_cells(variant("3x3").geometry)[:2].tolist()
    [[0, 1, 2], [0, 3, 6]]
    """
    cells = range(geometry.cells)
    rows = [[cell for cell in cells if line >> cell & 1] for line in geometry.lines]
    return np.array(rows, dtype=np.intp).reshape(len(rows), geometry.k)


@dataclass(frozen=True, eq=False)
class ExactTable:
    """The exact score of every reachable position of ``geometry`` (see the module)."""

    geometry: Geometry
    misere: bool
    values: np.ndarray  # int8, 3**cells entries
    positions: int  # reachable positions (finished ones included)

    @property
    def powers(self) -> np.ndarray:
        """``3**c`` for every cell ``c`` (``int64``)."""
        return _powers(self.geometry.cells)

    def index_of(self, position: Position) -> int:
        """The table index of ``position`` (X's digit 1, O's digit 2)."""
        powers = self.powers.tolist()
        return sum(
            powers[cell] * (1 if position.x >> cell & 1 else 2)
            for cell in range(self.geometry.cells)
            if (position.x | position.o) >> cell & 1
        )

    def move_scores(self, indices: np.ndarray, digits: np.ndarray) -> np.ndarray:
        """Every move's score for the side to move (``int16``, ``(boards, cells)``).

        ``indices`` are the boards' table indices and ``digits`` the mover's digit (1 for
        X, 2 for O) on each board. A move scores from the mover's view, a ply further than
        the position it reaches; an occupied cell scores :data:`NO_MOVE`.
        """
        powers = self.powers
        empty = (indices[:, None] // powers[None, :]) % 3 == 0
        children = np.where(empty, indices[:, None] + digits[:, None] * powers[None, :], 0)
        after = self.values[children].astype(np.int16)
        return np.where(empty, np.sign(after) - after, NO_MOVE).astype(np.int16)


@lru_cache(maxsize=4)
def _powers(cells: int) -> np.ndarray:
    return 3 ** np.arange(cells, dtype=np.int64)


def has_table(geometry: Geometry) -> bool:
    """True if ``geometry`` is small enough for :func:`exact_table`.

    >>> has_table(variant("4x4k3").geometry), has_table(variant("3x3x3").geometry)
    (True, False)
    """
    return geometry.cells <= MAX_TABLE_CELLS


def exact_table(variant_name: str | Variant | Geometry) -> ExactTable:
    """The table of ``variant_name`` (built on first use, then kept for the process; a
    misere variant's table is the misere game's)."""
    game = variant(variant_name)
    geometry = game.geometry
    if not has_table(geometry):
        raise NoughtsError(
            f"no exact table for {geometry.name}: tables cover boards of at most "
            f"{MAX_TABLE_CELLS} cells (3x3, 4x4k3...)"
        )
    return _build(geometry, game.misere)


@lru_cache(maxsize=4)
def _build(geometry: Geometry, misere: bool) -> ExactTable:
    """The table in C where the compiled step is built (4x4k3 in a fraction of a
    second), else in NumPy (:func:`_build_reference`): the same values."""
    built = build_table(geometry, line_cells(geometry), misere)
    if built is None:
        return _build_reference(geometry, misere)
    values, positions = built
    return ExactTable(geometry, misere, values, positions)


def _build_reference(geometry: Geometry, misere: bool) -> ExactTable:
    """The table by retrograde analysis in NumPy, ply by ply (the C walk's reference)."""
    cells = geometry.cells
    powers = _powers(cells)
    lines = line_cells(geometry)
    layers, finished = _reachable(cells, powers, lines)
    values = np.zeros(3**cells, dtype=np.int8)
    ended = WIN if misere else -WIN  # the side to move after a completed line
    for ply in range(cells, -1, -1):
        indices = layers[ply]
        best = np.full(len(indices), NO_MOVE, dtype=np.int16)
        digit = 1 if ply % 2 == 0 else 2
        if ply < cells:
            for cell in range(cells):
                empty = (indices // powers[cell]) % 3 == 0
                after = values[np.where(empty, indices + digit * powers[cell], 0)].astype(np.int16)
                best = np.where(empty, np.maximum(best, np.sign(after) - after), best)
        best[best == NO_MOVE] = 0  # a full board
        best[finished[ply]] = ended
        values[indices] = best.astype(np.int8)
    return ExactTable(geometry, misere, values, sum(len(layer) for layer in layers))


def _reachable(
    cells: int, powers: np.ndarray, lines: np.ndarray
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The reachable indices ply by ply, and which of them end with a completed line."""
    seen = np.zeros(3**cells, dtype=bool)
    indices = np.zeros(1, dtype=np.int64)
    layers: list[np.ndarray] = []
    finished: list[np.ndarray] = []
    for ply in range(cells + 1):
        digits = np.empty((len(indices), cells), dtype=np.int8)
        for cell in range(cells):
            digits[:, cell] = (indices // powers[cell]) % 3
        last = 1 if ply % 2 == 1 else 2  # the digit of the player who just moved
        done = (digits[:, lines] == last).all(axis=2).any(axis=1) if ply else np.zeros(1, bool)
        layers.append(indices)
        finished.append(done)
        if ply == cells:
            break
        live, live_digits = indices[~done], digits[~done]
        digit = 1 if ply % 2 == 0 else 2
        for cell in range(cells):
            seen[live[live_digits[:, cell] == 0] + digit * powers[cell]] = True
        indices = np.flatnonzero(seen)
        seen[indices] = False
    return layers, finished

"""A board as an RGB image in a NumPy array: what ``render_mode="rgb_array"`` answers.

Cells are squares of :data:`CELL_PX` pixels drawn from three tiles (empty, X, O), the
layers of a cube side by side with a gap between them, so every image of a board has
the same size (a video of a game keeps its frames' size), divisible by 16 as video
encoders like it. NumPy only: no image library.

>>> from noughts.position import Position
>>> image = board_image(Position("X../.O./..."))
>>> image.shape, image.dtype
((96, 96, 3), dtype('uint8'))
>>> board_image(Position("", "qubic")).shape  # four layers of 4x4, side by side
(128, 560, 3)
>>> bool((image[16, 16] == X_COLOUR).all()), bool((image[48, 48] == CELL_COLOUR).all())
(True, True)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from noughts.position import Position

__all__ = ["board_image", "CELL_PX", "LAYER_GAP_PX", "X_COLOUR", "O_COLOUR", "CELL_COLOUR"]

CELL_PX = 32
"""The side of a cell, its border included."""
LAYER_GAP_PX = 16
"""The gap between two layers of a cube."""

CELL_COLOUR = np.array((253, 250, 243), dtype=np.uint8)
LINE_COLOUR = np.array((205, 196, 178), dtype=np.uint8)
X_COLOUR = np.array((226, 83, 54), dtype=np.uint8)
O_COLOUR = np.array((38, 103, 210), dtype=np.uint8)
GAP_COLOUR = np.array((240, 236, 228), dtype=np.uint8)


@lru_cache(maxsize=1)
def _tiles() -> np.ndarray:
    """The empty, X and O tiles: ``(3, CELL_PX, CELL_PX, 3)`` ``uint8``."""
    size = CELL_PX
    rows, cols = np.mgrid[0:size, 0:size].astype(np.float64)
    inside = (rows >= 1) & (rows < size - 1) & (cols >= 1) & (cols < size - 1)
    centre = (size - 1) / 2
    margin = size * 0.22
    in_box = (np.abs(rows - centre) <= centre - margin) & (np.abs(cols - centre) <= centre - margin)
    cross = in_box & (
        (np.abs(rows - cols) <= 1.6) | (np.abs(rows + cols - (size - 1)) <= 1.6)
    )
    radius = np.hypot(rows - centre, cols - centre)
    ring = (radius >= size * 0.22) & (radius <= size * 0.31)
    empty = np.where(inside[..., None], CELL_COLOUR, LINE_COLOUR).astype(np.uint8)
    tiles = np.stack([empty, empty, empty])
    tiles[1][cross] = X_COLOUR
    tiles[2][ring] = O_COLOUR
    return tiles


def board_image(position: Position) -> np.ndarray:
    """The board of ``position`` as an ``(height, width, 3)`` ``uint8`` RGB image: rows
    from the top as the board string lists them, a cube's layers left to right."""
    geometry = position.geometry
    cells = geometry.cells
    marks = np.zeros(cells, dtype=np.intp)
    for cell in range(cells):
        if position.x >> cell & 1:
            marks[cell] = 1
        elif position.o >> cell & 1:
            marks[cell] = 2
    tiles = _tiles()[marks]  # (cells, size, size, 3)
    *layers, rows, cols = (1, *geometry.shape) if len(geometry.shape) == 2 else geometry.shape
    size = CELL_PX
    grid = tiles.reshape(layers[-1], rows, cols, size, size, 3)
    grid = grid.transpose(0, 1, 3, 2, 4, 5).reshape(layers[-1], rows * size, cols * size, 3)
    if layers[-1] == 1:
        return np.ascontiguousarray(grid[0])
    gap = np.broadcast_to(GAP_COLOUR, (rows * size, LAYER_GAP_PX, 3))
    parts: list[np.ndarray] = []
    for layer in grid:
        if parts:
            parts.append(gap)
        parts.append(layer)
    return np.concatenate(parts, axis=1)

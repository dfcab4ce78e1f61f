"""What a learning agent sees: two planes of marks (its own, the opponent's) and a move mask.

The planes follow the board's shape with the two marks last, as PettingZoo's
``tictactoe_v3`` does: ``(rows, cols, 2)`` in 2-D, ``(n, n, n, 2)`` for a cube. Plane 0
holds the marks of the player the observation is for, plane 1 the opponent's; so one
network (or one table) serves both sides. Cells are numbered row-major, as everywhere in
noughts (``cell = layer*n*n + row*n + col``); the action is the cell.

>>> from noughts import Position
>>> seen = observe(Position("X.O/.X./..."), "O")
>>> seen["observation"][:, :, 0].tolist()  # O's own marks
[[0, 0, 1], [0, 0, 0], [0, 0, 0]]
>>> seen["action_mask"].tolist()
[0, 1, 0, 1, 0, 1, 1, 1, 1]
>>> observe(Position("X.O/.X./..."), "X")["action_mask"].sum()  # not X's turn
np.int64(0)
"""

from __future__ import annotations

import operator
from functools import lru_cache

import numpy as np

from noughts.errors import IllegalMoveError
from noughts.geometry import Bitboard, Geometry
from noughts.position import Position
from noughts.results import Mark
from noughts.rl.spaces import LazyBox, LazyDict, LazyDiscrete

__all__ = [
    "Observation",
    "observation_space",
    "action_space",
    "action_cell",
    "observe",
    "encode",
    "cells_of",
]

Observation = dict[str, np.ndarray]
"""``{"observation": int8 planes, "action_mask": int8 vector}``."""


def observation_space(geometry: Geometry) -> LazyDict:
    """The space of :func:`observe`'s answers on ``geometry`` (seeded lazily: see
    :mod:`noughts.rl.spaces`).

    >>> from noughts import variant
    >>> observation_space(variant("qubic"))["observation"].shape
    (4, 4, 4, 2)
    """
    return LazyDict(
        {
            "observation": LazyBox(0, 1, shape=(*geometry.shape, 2), dtype=np.int8),
            "action_mask": LazyBox(0, 1, shape=(geometry.cells,), dtype=np.int8),
        }
    )


def action_space(geometry: Geometry) -> LazyDiscrete:
    """One action per cell (seeded lazily: see :mod:`noughts.rl.spaces`).

    >>> from noughts import variant
    >>> action_space(variant("4x4k3")).n
    np.int64(16)
    """
    return LazyDiscrete(geometry.cells)


def action_cell(action: object) -> int:
    """The cell an action names: an ``int``, a NumPy integer or a 0-d integer array.

    >>> action_cell(np.int64(4)), action_cell(np.array(2))
    (4, 2)
    >>> action_cell(1.5)
    Traceback (most recent call last):
    ...
    noughts.errors.IllegalMoveError: an action is a cell index, not 1.5
    """
    if not isinstance(action, bool):
        try:
            return operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise IllegalMoveError(f"an action is a cell index, not {action!r}")


def cells_of(board: Bitboard, cells: int) -> np.ndarray:
    """The bitboard as a 0/1 ``int8`` vector of ``cells`` entries (cell ``i`` at index ``i``).

    >>> cells_of(0b101, 4).tolist()
    [1, 0, 1, 0]
    """
    raw = np.frombuffer(board.to_bytes((cells + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:cells].view(np.int8)


def observe(position: Position, mark: Mark) -> Observation:
    """The observation of ``position`` for the player of ``mark``.

    The mask marks the legal moves when ``mark`` is to move and the game goes on; it is all
    zeros otherwise.
    """
    own, opponent = (position.x, position.o) if mark == "X" else (position.o, position.x)
    legal = position.legal_moves.mask if position.to_move == mark else 0
    return encode(position.geometry, own, opponent, legal)


LOOKUP_CELLS = 16
"""Boards of at most this many cells encode through lookup tables (``2**cells`` rows)."""


@lru_cache(maxsize=8)
def _lookups(cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every bitboard: its cells on the even entries (own plane), on the odd entries
    (opponent plane) of an interleaved ``(cells * 2)`` row, and as a mask of ``cells``."""
    boards = np.arange(1 << cells, dtype="<u2").view(np.uint8).reshape(-1, 2)
    bits = np.unpackbits(boards, axis=1, bitorder="little")[:, :cells].view(np.int8)
    own = np.zeros((1 << cells, cells, 2), dtype=np.int8)
    own[:, :, 0] = bits
    rival = np.zeros_like(own)
    rival[:, :, 1] = bits
    tables = (own.reshape(-1, cells * 2), rival.reshape(-1, cells * 2), np.ascontiguousarray(bits))
    for table in tables:
        table.flags.writeable = False
    return tables


def encode(geometry: Geometry, own: Bitboard, opponent: Bitboard, legal: Bitboard) -> Observation:
    """The observation of the boards ``own`` and ``opponent`` with the moves ``legal``.

    >>> from noughts import variant
    >>> encode(variant("3x3"), 0b1, 0b10, 0b100)["action_mask"].tolist()
    [0, 0, 1, 0, 0, 0, 0, 0, 0]
    """
    cells = geometry.cells
    if cells <= LOOKUP_CELLS:  # rows of lookup tables, one sum and one copy
        own_bits, rival_bits, mask_bits = _lookups(cells)
        planes = own_bits[own] + rival_bits[opponent]
        mask = mask_bits[legal].copy()
        return {"observation": planes.reshape(*geometry.shape, 2), "action_mask": mask}
    if cells <= 64:  # one unpacking for the three boards
        words = np.array((own, opponent, legal), dtype=np.uint64).view(np.uint8)
        bits = np.unpackbits(words, bitorder="little").reshape(3, 64)[:, :cells].view(np.int8)
    else:
        bits = np.stack([cells_of(board, cells) for board in (own, opponent, legal)])
    planes = np.ascontiguousarray(bits[:2].T).reshape(*geometry.shape, 2)
    return {"observation": planes, "action_mask": bits[2].copy()}

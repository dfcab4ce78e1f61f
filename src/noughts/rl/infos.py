"""One ``info`` schema for every ``make_vec`` mode: the batched environment's.

``make_vec(..., vectorization_mode="vector_entry_point")`` (the batched
:class:`~noughts.rl.NoughtsVectorEnv`) answers ``info`` as NumPy arrays of numbers and
masks; ``"sync"`` and ``"async"`` stack the single :class:`~noughts.rl.NoughtsEnv`'s
``info`` as Gymnasium does, keeping its strings and tuples (object arrays).
:func:`as_batched_info` turns the second form into the first, key by key, so code written
for one reads the other; the tests replay the same games in both modes and hold the two
equal at every step.

=================  =========================  ==========================================
key                single env (sync, async)   batched (and :func:`as_batched_info`)
=================  =========================  ==========================================
``agent``          ``"X"``/``"O"``            the same, a ``str`` array
``opponent_move``  the cell                   the cell, ``-1`` where absent
``illegal_move``   the cell                   the cell, ``-1`` where absent
``result``         ``"win"``/``"draw"``/...   ``+1``/``0``/``-1`` (``int8``)
``exact``          ``True``/``False``         the same; ``False`` on finished boards
``outcome``        ``"win"``/``"draw"``/...   ``+1``/``0``/``-1`` (``int8``)
``plies``          plies to the end           the same (``int16``)
``optimal_moves``  a tuple of cells           a ``(N, cells)`` boolean mask
``keeping_moves``  a tuple of cells           a ``(N, cells)`` boolean mask
``move_values``    a tuple, one a cell        ``(N, cells)`` ``int16``, ``NO_MOVE`` blank
``value``          ``"win in 3"``             left out: ``outcome`` and ``plies`` say it
=================  =========================  ==========================================

The values agree wherever both forms have them; the batched exact table also values
positions the single environment's solver does not reach (early 4x4k3-misere), and the
single environment's solver values late Qubic positions, where the batched one has no
table (``exact`` is then ``False`` on every board).

>>> import gymnasium
>>> import noughts.rl
>>> envs = gymnasium.make_vec("noughts/Noughts-v0", num_envs=2, vectorization_mode="sync",
...     variant_name="3x3", opponent="exact", agent="O")
>>> _, info = envs.reset(seed=0)
>>> info["outcome"].tolist(), info["optimal_moves"][0]
(['draw', 'draw'], (4,))
>>> batched = as_batched_info(info, cells=9)
>>> batched["outcome"].tolist(), batched["optimal_moves"][0].nonzero()[0].tolist()
([0, 0], [4])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from noughts.rl.tables import NO_MOVE

__all__ = ["OUTCOME_CODES", "as_batched_info"]

OUTCOME_CODES = {"win": 1, "draw": 0, "loss": -1}
"""The batched codes of the single environment's ``outcome`` and ``result`` strings."""

_CELLS = {"opponent_move", "illegal_move"}
_CODED = {"outcome", "result"}
_MASKS = {"optimal_moves", "keeping_moves"}


def as_batched_info(info: dict[str, Any], cells: int) -> dict[str, Any]:
    """``info`` of ``make_vec``'s ``"sync"`` or ``"async"`` mode in the batched form (see
    the module docstring); ``cells`` is the board's number of cells."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if key.startswith("_") or key == "value" or f"_{key}" not in info:
            continue
        has = np.asarray(info[f"_{key}"], dtype=bool)
        boards = len(has)
        rows = np.flatnonzero(has)
        if key == "agent":
            out[key] = np.asarray([str(each) for each in value])
        elif key == "exact":
            out[key] = np.asarray(value, dtype=bool) & has
            has = np.ones(boards, dtype=bool)
        elif key in _CELLS:
            out[key] = np.full(boards, -1, dtype=np.intp)
            out[key][rows] = np.asarray(value)[rows]
        elif key in _CODED:
            out[key] = np.zeros(boards, dtype=np.int8)
            out[key][rows] = [OUTCOME_CODES[value[row]] for row in rows]
        elif key == "plies":
            out[key] = np.where(has, value, 0).astype(np.int16)
        elif key == "move_values":
            out[key] = np.full((boards, cells), NO_MOVE, dtype=np.int16)
            for row in rows:
                out[key][row] = value[row]
        elif key in _MASKS:
            out[key] = np.zeros((boards, cells), dtype=bool)
            for row in rows:
                out[key][row, list(value[row])] = True
        else:
            out[key] = value
        out[f"_{key}"] = has.copy()
    if "exact" not in out:  # every board's game ended at this step
        boards = len(next(iter(out.values())))
        out["exact"], out["_exact"] = np.zeros(boards, bool), np.ones(boards, bool)
    return out

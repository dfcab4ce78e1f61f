"""Symmetry augmentation: observations, masks, actions and per-cell targets mapped
through a board's symmetries.

A board's symmetries (its ``symmetry_group``: the cell permutations that map lines onto
lines, 8 on 3x3, 32 on 4x4, 192 on Qubic...) keep every game value, so a training sample
stands for all its images. :func:`augment` maps a batch of samples through every one of
them at once: the observation planes and any per-cell array (the action mask,
``info["move_values"]``, a policy target) are permuted cell by cell, an action is
mapped to its image cell. The first image is the sample itself.

>>> import numpy as np
>>> from noughts import Position
>>> from noughts.rl import observe
>>> seen = observe(Position("X../.../..."), "O")
>>> images = augment("3x3", observation=seen["observation"][None],
...                  action_mask=seen["action_mask"][None], action=np.array([4]))
>>> images["observation"].shape, images["action_mask"].shape, images["action"].shape
((8, 1, 3, 3, 2), (8, 1, 9), (8, 1))
>>> sorted({int(np.flatnonzero(plane[0, :, :, 1])[0]) for plane in images["observation"]})
[0, 2, 6, 8]
>>> images["action"][:, 0].tolist()  # the centre is its own image
[4, 4, 4, 4, 4, 4, 4, 4]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.variants import Variant, variant

__all__ = ["symmetries", "augment"]


@lru_cache(maxsize=16)
def _symmetries(geometry: Geometry) -> np.ndarray:
    perms = np.array(geometry.symmetry_group.perms, dtype=np.intp)
    perms.flags.writeable = False
    return perms


def symmetries(variant_name: str | Variant | Geometry) -> np.ndarray:
    """The board's symmetries, one row a symmetry: ``row[cell]`` is the cell's image
    (``(symmetries, cells)``; the identity first).

    >>> symmetries("3x3").shape, symmetries("3x3")[0].tolist()
    ((8, 9), [0, 1, 2, 3, 4, 5, 6, 7, 8])
    """
    return _symmetries(variant(variant_name).geometry)


def augment(
    variant_name: str | Variant | Geometry,
    *,
    observation: np.ndarray | None = None,
    action_mask: np.ndarray | None = None,
    action: np.ndarray | None = None,
    cell_values: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every symmetric image of a batch of samples, on a new first axis (one entry a
    symmetry). ``observation`` is ``(batch, *board, 2)`` (the environments' planes);
    ``action_mask`` and ``cell_values`` are ``(batch, cells)``, any dtype; ``action`` is
    ``(batch,)`` cells. Only what is given is mapped and returned, under the same names."""
    geometry = variant(variant_name).geometry
    perms = symmetries(geometry)
    cells = geometry.cells
    inverse = np.argsort(perms, axis=1)  # image[j] = sample[inverse[j]]
    out: dict[str, np.ndarray] = {}
    if observation is not None:
        planes = np.asarray(observation)
        if planes.shape[1:] != (*geometry.shape, 2):
            raise NoughtsError(
                f"an observation batch of {geometry.name} is (batch, {geometry.shape}, 2), "
                f"not {planes.shape}"
            )
        flat = planes.reshape(len(planes), cells, 2)
        out["observation"] = flat[:, inverse].transpose(1, 0, 2, 3).reshape(
            len(perms), *planes.shape
        )
    for name, given in (("action_mask", action_mask), ("cell_values", cell_values)):
        if given is not None:
            values = np.asarray(given)
            if values.ndim != 2 or values.shape[1] != cells:
                raise NoughtsError(f"{name} is (batch, {cells}), not {values.shape}")
            out[name] = values[:, inverse].transpose(1, 0, 2)
    if action is not None:
        actions = np.asarray(action)
        if actions.ndim != 1 or ((actions < 0) | (actions >= cells)).any():
            raise NoughtsError(f"actions are a (batch,) array of cells 0 to {cells - 1}")
        out["action"] = perms[:, actions]
    return out

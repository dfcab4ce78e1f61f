"""Variant names, parsed rather than listed: ``3x3``, ``4x4k3``, ``4x4x4``, ``7x7k5``...

``RxC`` is a 2-D board of R rows and C columns, ``NxNxN`` a cube; ``kK`` sets the marks
in a row needed to win (default: the smallest side). Aliases: ``tictactoe``, ``qubic``.

>>> variant("qubic").shape, variant("qubic").k
((4, 4, 4), 4)
>>> variant("4x4k3").name
'4x4k3'
>>> variant("3x3k4")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
noughts.errors.VariantError: unknown variant '3x3k4': k=4 in a row cannot fit on a board...
"""

from __future__ import annotations

import re
from functools import lru_cache

from noughts.errors import VariantError
from noughts.geometry import Geometry

__all__ = ["variant", "ALIASES", "NAMED_VARIANTS", "MAX_SIDE_2D", "MAX_SIDE_3D"]

MAX_SIDE_2D = 19
MAX_SIDE_3D = 5

ALIASES = {"tictactoe": "3x3", "tic-tac-toe": "3x3", "qubic": "4x4x4"}
"""Friendly names for common variants."""

NAMED_VARIANTS = ("3x3", "4x4k3", "4x4", "4x4x4")
"""The variants the page and docs feature first."""

_PATTERN = re.compile(r"^(\d+)x(\d+)(?:x(\d+))?(?:k(\d+))?$")


def variant(name: str) -> Geometry:
    """The geometry named ``name`` (case-insensitive; cached, so geometries are shared).

    >>> variant("3x3") is variant("TicTacToe") and variant("4x4k4") is variant("4x4")
    True
    """
    if not isinstance(name, str):
        raise VariantError(f"a variant name must be a string, not {type(name).__name__}")
    key = name.strip().lower()
    geometry = _parse(ALIASES.get(key, key))
    # "5x4k4" and "5x4" are one board: share one object (and its cached tables).
    return _SHARED.setdefault(geometry.name, geometry)


_SHARED: dict[str, Geometry] = {}


@lru_cache(maxsize=64)
def _parse(key: str) -> Geometry:
    original = key
    match = _PATTERN.match(key)
    if not match:
        raise VariantError(
            f"unknown variant {original!r}: expected a name like 3x3, 4x4k3, 4x4x4 or qubic"
        )
    first, second, third, k_text = match.groups()
    if third is None:
        shape: tuple[int, ...] = (int(first), int(second))
        limit = MAX_SIDE_2D
    else:
        shape = (int(first), int(second), int(third))
        limit = MAX_SIDE_3D
        if len(set(shape)) != 1:
            raise VariantError(f"unknown variant {original!r}: a 3-D board must be a cube NxNxN")
    if any(side < 1 for side in shape):
        raise VariantError(f"unknown variant {original!r}: every side must be at least 1")
    if any(side > limit for side in shape):
        raise VariantError(
            f"unknown variant {original!r}: sides are limited to {limit} in {len(shape)}-D"
        )
    k = int(k_text) if k_text is not None else min(shape)
    try:
        return Geometry(shape, k)
    except VariantError as error:
        raise VariantError(f"unknown variant {original!r}: {error}") from None

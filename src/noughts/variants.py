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
from noughts.geometry import Geometry, name_of
from noughts.lru import LRU

__all__ = [
    "variant",
    "kept_variants",
    "is_built",
    "ALIASES",
    "NAMED_VARIANTS",
    "MAX_SIDE_2D",
    "MAX_SIDE_3D",
    "MAX_KEPT_VARIANTS",
]

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
    original = ALIASES.get(key, key)
    shape, k = _parse(original)
    # "5x4k4" and "5x4" are one board: share one object (and its cached tables).
    canonical = name_of(shape, k)
    pinned = _PINNED.get(canonical)
    if pinned is not None:
        return pinned
    geometry = _KEPT.get_or_make(canonical, lambda: _build(original, shape, k))
    if canonical in _NAMED:
        _PINNED[canonical] = geometry
    return geometry


MAX_KEPT_VARIANTS = 32
"""Geometries kept besides the named variants (least recently used first out): each
holds its lines and, once asked for, its symmetry tables, so a stream of distinct
variant names cannot grow a server without bound."""

_NAMED = frozenset(NAMED_VARIANTS)
_PINNED: dict[str, Geometry] = {}
_KEPT: LRU[str, Geometry] = LRU(MAX_KEPT_VARIANTS)


def is_built(name: str) -> bool:
    """True if :func:`variant` would answer ``name`` from memory now (building a large
    board's lines takes tens of milliseconds; a bad name fails fast either way).

    >>> _ = variant("3x3"); is_built("tictactoe"), is_built("17x13k6")
    (True, False)
    """
    key = name.strip().lower() if isinstance(name, str) else ""
    try:
        shape, k = _parse(ALIASES.get(key, key))
    except VariantError:
        return True
    canonical = name_of(shape, k)
    return canonical in _PINNED or canonical in _KEPT


def kept_variants() -> list[str]:
    """The names of the geometries held now (named ones first).

    >>> _ = variant("3x3"); "3x3" in kept_variants()
    True
    """
    return [*_PINNED, *(name for name in _KEPT if name not in _PINNED)]


def _build(original: str, shape: tuple[int, ...], k: int) -> Geometry:
    try:
        return Geometry(shape, k)
    except VariantError as error:
        raise VariantError(f"unknown variant {original!r}: {error}") from None


@lru_cache(maxsize=256)
def _parse(key: str) -> tuple[tuple[int, ...], int]:
    """The shape and k a variant name spells (checked, except whether k fits)."""
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
    if not 1 <= k <= max(shape):
        _build(original, shape, k)  # raises, naming the problem
    return shape, k

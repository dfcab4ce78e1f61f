"""Variants: one record per game, holding its board, its rules, its data and its policies.

Names are parsed rather than listed: ``3x3``, ``4x4k3``, ``4x4x4``, ``7x7k5``...
``RxC`` is a 2-D board of R rows and C columns, ``NxNxN`` a cube; ``kK`` sets the marks
in a row needed to win (default: the smallest side). Aliases: ``tictactoe``, ``qubic``.
A ``-misere`` suffix turns any of them into its misère game, where whoever completes a
line loses (``3x3-misere``, ``qubic-misere``).

:func:`variant` answers one immutable :class:`Variant`. Everything the code knows about
a variant by its name lives here, in :data:`_KNOWN`: the opening book, the 3x3 table,
the shipped strategy, the level calibration, whether the page features it. The record
carries descriptors of that data (which file, how many marks); the modules that own the
data load it lazily, the first time it is asked for.

>>> variant("qubic").shape, variant("qubic").k
((4, 4, 4), 4)
>>> variant("4x4k3").name, variant("Qubic-Misere").name
('4x4k3', '4x4x4-misere')
>>> variant("3x3-misere").rules
Rules(k=3, misere=True)
>>> variant("3x3k4")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
noughts.errors.VariantError: unknown variant '3x3k4': k=4 in a row cannot fit on a board...
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from typing import NamedTuple, TypeVar

from noughts.errors import VariantError
from noughts.geometry import Bitboard, Geometry, name_of
from noughts.runtime.lru import LRU
from noughts.symmetries import Symmetries

__all__ = [
    "Variant",
    "Rules",
    "SymmetryPolicy",
    "variant",
    "kept_variants",
    "is_built",
    "listed_variants",
    "every_name",
    "of_cells",
    "ALIASES",
    "NAMED_VARIANTS",
    "BOOK_VARIANTS",
    "MISERE_SUFFIX",
    "MAX_SIDE_2D",
    "MAX_SIDE_3D",
    "MAX_KEPT_VARIANTS",
]

T = TypeVar("T")

MAX_SIDE_2D = 19
MAX_SIDE_3D = 5

ALIASES = {"tictactoe": "3x3", "tic-tac-toe": "3x3", "qubic": "4x4x4"}
"""Friendly names for common variants (the ``-misere`` suffix may follow them)."""

MISERE_SUFFIX = "-misere"
"""Appended to a variant's name, it names the misère game on the same board."""


class _Known(NamedTuple):
    """What the project ships or has measured for one normal-play variant."""

    featured: bool = False
    listed: bool = True
    book_marks: int = 0
    table3x3: bool = False
    strategy: str | None = None
    o_book: str | None = None
    skills: tuple[float, ...] | None = None
    even_first_player: bool = False
    learned_eval: str | None = None


_KNOWN: dict[str, _Known] = {
    # 3x3: the level scale was tuned here; the levels are spread a little evenlier on it.
    "3x3": _Known(featured=True, table3x3=True,
                  skills=(0.75, 1.8, 2.65, 3.55, 4.6, 5.6, 6.65, 7.85, 8.9)),
    # 4x4k3 is an easy first-player win: the top levels all convert it, so the ladder
    # sits lower on the scale and is spread wider (measured in docs/levels.md).
    "4x4k3": _Known(featured=True, book_marks=4,
                    skills=(0.3, 0.7, 1.2, 1.7, 2.6, 3.4, 4.4, 5.6, 7.0)),
    # 4x4 is a draw that forgives almost everything: the whole ladder from random to
    # perfect spans about 400 Elo, so the levels are placed at even Elo steps on it.
    "4x4": _Known(featured=True, book_marks=8,
                  skills=(0.35, 1.1, 1.8, 2.85, 3.7, 4.6, 5.5, 6.7, 7.7)),
    # Qubic: X plays the shipped strategy, and where it searches, the even 4**marks
    # weights; O plays its opening book first (noughts.builders.o_book builds it), then
    # searches with the learned tempo on the hand-written weights (docs/qubic-o.md).
    "4x4x4": _Known(featured=True, strategy="qubic-strategy.bin", even_first_player=True,
                    learned_eval="qubic-eval.json", o_book="qubic-o-book.json.gz"),
    "5x4": _Known(listed=False, book_marks=1),
    "3x3x3": _Known(book_marks=2),
    "5x5k4": _Known(),
    "7x7k5": _Known(),
    "15x15k5": _Known(),
}
"""The variants known by name: every per-name fact of the project, in one table."""

_NOTHING = _Known(listed=False)
"""What the project knows of any other variant (and of every misère one)."""

NAMED_VARIANTS = tuple(name for name, known in _KNOWN.items() if known.featured)
"""The variants the page and docs feature first."""

BOOK_VARIANTS = tuple(name for name, known in _KNOWN.items() if known.book_marks)
"""The variants that ship an opening book of exact scores (``scripts/build_book.py``
builds them; each record's :attr:`Variant.book_marks` is its depth)."""


class Rules(NamedTuple):
    """How a game on the board is won: ``k`` marks in a row; in misère the player who
    completes a line loses. (A new rule is a new field here, read by the rule code:
    :mod:`noughts.position`, the exact search, the anytime searches.)"""

    k: int
    misere: bool = False

    @property
    def threat_search(self) -> bool:
        """True if forced wins by continuous threats exist: a threat (a line one mark
        short) forces a block in normal play; in misère it is a cell its owner must
        avoid, so the searches find forced results by the terminal rule alone."""
        return not self.misere

    @property
    def line_sign(self) -> int:
        """+1 if a line is worth building to its owner (normal play), -1 if it is a
        liability (misère): the sign of line-count heuristics."""
        return -1 if self.misere else 1

    def line_winner(self, completer: T, opponent: T) -> T:
        """Who wins when ``completer`` completes a line against ``opponent``.

        >>> Rules(3).line_winner("X", "O"), Rules(3, misere=True).line_winner("X", "O")
        ('X', 'O')
        """
        return opponent if self.misere else completer


class SymmetryPolicy:
    """Where a variant's symmetries are worth their cost: one policy for the exact
    search's keys, the anytime search's hashes, the image the engine answers on (and the
    move cache's keys) and the service's event loop (each used to keep its own
    threshold)."""

    EXACT_MAX_CELLS = 40
    """Boards with more cells never key the exact search's table by symmetric images."""
    CACHE_MAX_CELLS = 25
    """Boards up to this size (and the featured ones) are answered on their canonical
    image, and so share move-cache entries across symmetries. Larger boards can have
    thousands of symmetries (8x8 has 1,536), which cost more to enumerate than they
    save, and so do degenerate boards (a side under 3, k under 3, or k longer than the
    short side: 1x19, 3x3k1 or 3x8k6 have more than 5,000, whose tables would cost
    100 MB)."""
    HASHED_MAX = 192
    """Cubes with more symmetries than this hash the identity only in the anytime search."""
    LOOP_MAX = 8
    """Boards with more symmetries than this (Qubic: 192, about 1.5 ms in Python) find
    their canonical view for the service in a thread, off the event loop."""

    __slots__ = ("geometry", "featured")

    def __init__(self, geometry: Geometry, featured: bool) -> None:
        self.geometry = geometry
        self.featured = featured

    @property
    def exact_keys(self) -> bool:
        """True if the exact search keys positions near the root by canonical images."""
        geometry = self.geometry
        return (
            geometry.cells <= self.EXACT_MAX_CELLS
            and not geometry.degenerate  # thousands of symmetries: tables cost more
            and geometry.symmetry_group.count > 1
        )

    @property
    def cache(self) -> bool:
        """True if the move cache keys positions by their canonical image: where the
        engine answers on it (:attr:`canonical`)."""
        return self.canonical

    @property
    def canonical(self) -> bool:
        """True if the engine answers a position on its canonical image
        (:mod:`noughts.orientation`), so that its symmetric images get one answer.

        >>> [variant(n).symmetry.canonical for n in ("4x4x4", "5x5k4", "8x8", "1x19", "3x8k6")]
        [True, True, False, False, False]
        """
        if self.featured:
            return True
        geometry = self.geometry
        small = geometry.cells <= self.CACHE_MAX_CELLS and min(geometry.shape) >= 3
        return small and geometry.k >= 3 and not geometry.degenerate

    def hashed(self, perms: tuple[tuple[int, ...], ...]) -> bool:
        """True if the anytime search hashes a cube under all of ``perms``."""
        return self.geometry.cells <= 64 and len(perms) <= self.HASHED_MAX

    @property
    def cheap(self) -> bool:
        """True if a canonical view costs little enough to find on the event loop."""
        return not self.cache or self.geometry.symmetry_group.count <= self.LOOP_MAX


class Variant:
    """One game of the family: its board, its rules, the data that serves it, its
    symmetry policy, and how the edges show it. Immutable and shared (see :func:`variant`).

    Board attributes (``shape``, ``k``, ``cells``, ``lines``...) are the geometry's:

    >>> v = variant("4x4k3-misere")
    >>> v.shape, v.k, v.cells, v.misere, v.normal.name, v.book_marks
    ((4, 4), 3, 16, True, '4x4k3', 0)
    """

    __slots__ = (
        "name", "geometry", "rules", "misere", "k", "shape", "cells", "full", "lines",
        "lines_through", "dims", "key", "normal_name", "featured", "listed", "book_marks",
        "table3x3", "strategy", "o_book", "skills", "even_first_player", "learned_eval",
        "symmetry", "__dict__",
    )

    def __init__(self, geometry: Geometry, rules: Rules) -> None:
        known = _NOTHING if rules.misere else _KNOWN.get(geometry.name, _NOTHING)
        values = {
            "geometry": geometry,
            "rules": rules,
            "misere": rules.misere,
            "normal_name": geometry.name,
            "name": geometry.name + (MISERE_SUFFIX if rules.misere else ""),
            "k": geometry.k,
            "shape": geometry.shape,
            "cells": geometry.cells,
            "full": geometry.full,
            "lines": geometry.lines,
            "lines_through": geometry.lines_through,
            "dims": geometry.dims,
            "key": hash((geometry.shape, geometry.k, rules.misere)),
            "featured": known.featured,
            "listed": known.listed,
            "book_marks": known.book_marks,
            "table3x3": known.table3x3,
            "strategy": known.strategy,
            "o_book": known.o_book,
            "skills": known.skills,
            "even_first_player": known.even_first_player,
            "learned_eval": known.learned_eval,
            "symmetry": SymmetryPolicy(
                geometry, _KNOWN.get(geometry.name, _NOTHING).featured),  # the board's
        }
        for attribute, value in values.items():
            object.__setattr__(self, attribute, value)

    name: str
    """The canonical name (``4x4x4-misere``), echoed by the API and the CLI."""
    geometry: Geometry
    rules: Rules
    misere: bool
    k: int
    shape: tuple[int, ...]
    cells: int
    full: Bitboard
    lines: tuple[Bitboard, ...]
    lines_through: tuple[tuple[Bitboard, ...], ...]
    dims: int
    key: int
    """A hash of the board and the rules (for position hashes)."""
    normal_name: str
    """The name of the normal-play game on the same board."""
    featured: bool
    """Shown first by the page and the docs (the named variants)."""
    listed: bool
    """Listed at ``GET /api/v1/variants``."""
    book_marks: int
    """The most marks of a position in the shipped opening book; 0: no book."""
    table3x3: bool
    """Answered from the complete 3x3 table (tens of microseconds, so in-process)."""
    strategy: str | None
    """The shipped winning strategy's file for the first player, if any."""
    o_book: str | None
    """The shipped opening book's file for the second player, if any
    (:mod:`noughts.knowledge.obook`)."""
    skills: tuple[float, ...] | None
    """The measured skill of levels 1-9 on this board, where it differs from the level."""
    even_first_player: bool
    """The anytime search's first player uses the even ``4**marks`` weights here."""
    learned_eval: str | None
    """The shipped learned evaluation's file (:mod:`noughts.knowledge.learned`), if any:
    the second player's search weights here."""
    symmetry: SymmetryPolicy

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Variant is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and self.name == other.name

    def __hash__(self) -> int:
        return self.key

    def __repr__(self) -> str:
        return f"variant({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return variant, (self.name,)

    @property
    def in_process(self) -> bool:
        """True if exact answers cost so little that the service answers them on the
        spot, never handing them to a worker process."""
        return self.table3x3

    @property
    def degenerate(self) -> bool:
        """See :attr:`Geometry.degenerate`."""
        return self.geometry.degenerate

    @cached_property
    def normal(self) -> Variant:
        """The normal-play game on the same board (itself if it is one)."""
        return self if not self.misere else variant(self.normal_name)

    def coords(self, cell: int) -> tuple[int, ...]:
        """Coordinates of ``cell`` (:meth:`Geometry.coords`)."""
        return self.geometry.coords(cell)

    def cell(self, coords: tuple[int, ...]) -> int:
        """Cell index of ``coords`` (:meth:`Geometry.cell`)."""
        return self.geometry.cell(coords)

    def has_line(self, marks: Bitboard) -> bool:
        """True if ``marks`` cover a whole line (:meth:`Geometry.has_line`)."""
        return self.geometry.has_line(marks)

    def completed_lines(self, marks: Bitboard) -> list[Bitboard]:
        """Every line wholly covered by ``marks`` (:meth:`Geometry.completed_lines`)."""
        return self.geometry.completed_lines(marks)

    def wins_after(self, marks: Bitboard, cell: int) -> bool:
        """True if ``marks`` complete a line through ``cell`` (:meth:`Geometry.wins_after`)."""
        return self.geometry.wins_after(marks, cell)

    def transform(self, bb: Bitboard, symmetry: int) -> Bitboard:
        """Image of ``bb`` under symmetry number ``symmetry`` (:meth:`Geometry.transform`)."""
        return self.geometry.transform(bb, symmetry)

    def canonical(self, x: Bitboard, o: Bitboard) -> tuple[Bitboard, Bitboard, int]:
        """The least image of ``(x, o)`` and its symmetry (:meth:`Geometry.canonical`)."""
        return self.geometry.canonical(x, o)

    @property
    def symmetry_group(self) -> Symmetries:
        """The board's symmetries (:attr:`Geometry.symmetry_group`)."""
        return self.geometry.symmetry_group

    @property
    def symmetries_complete(self) -> bool:
        """False if only some of a huge group is held (:attr:`Geometry.symmetries_complete`)."""
        return self.geometry.symmetries_complete

    @property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """Every symmetry of the board as a permutation (:attr:`Geometry.symmetries`)."""
        return self.geometry.symmetry_group.perms


def variant(name: str | Variant | Geometry) -> Variant:
    """The variant named ``name`` (case-insensitive; cached, so records are shared). A
    :class:`Geometry` names its normal-play game.

    >>> variant("3x3") is variant("TicTacToe") and variant("4x4k4") is variant("4x4")
    True
    >>> variant("tictactoe-misere").name
    '3x3-misere'
    """
    if isinstance(name, Variant):
        return name
    if isinstance(name, Geometry):  # its normal-play game, even beyond the named sides
        geometry = name
        known = _PINNED.get(geometry.name) or _KEPT.get(geometry.name)
        if known is not None and known.geometry == geometry:
            return known
        return _KEPT.get_or_make(geometry.name, lambda: Variant(geometry, Rules(geometry.k)))
    if not isinstance(name, str):
        raise VariantError(f"a variant name must be a string, not {type(name).__name__}")
    key = name.strip().lower()
    pinned = _PINNED.get(key)
    if pinned is not None:
        return pinned
    original, shape, k, misere = _parse_name(key)
    # "5x4k4" and "5x4" are one board: share one object (and its cached tables).
    canonical = name_of(shape, k) + (MISERE_SUFFIX if misere else "")
    pinned = _PINNED.get(canonical)
    if pinned is not None:
        return pinned
    record = _KEPT.get_or_make(canonical, lambda: _build(original, shape, k, misere))
    if record.featured or (misere and record.normal_name in _FEATURED):
        _PINNED[canonical] = record
    return record


MAX_KEPT_VARIANTS = 32
"""Variants kept besides the featured ones (least recently used first out): each holds
its lines and, once asked for, its symmetry tables, so a stream of distinct variant
names cannot grow a server without bound."""

_FEATURED = frozenset(NAMED_VARIANTS)
_PINNED: dict[str, Variant] = {}
_KEPT: LRU[str, Variant] = LRU(MAX_KEPT_VARIANTS)
_GEOMETRIES: LRU[tuple[tuple[int, ...], int], Geometry] = LRU(MAX_KEPT_VARIANTS)


def listed_variants() -> list[Variant]:
    """The variants listed at ``GET /api/v1/variants``, featured first.

    >>> [v.name for v in listed_variants()][:4]
    ['3x3', '4x4k3', '4x4', '4x4x4']
    """
    return [variant(name) for name, known in _KNOWN.items() if known.listed]


def every_name(max_cells: int | None = None) -> list[str]:
    """Every variant name the registry can form, in canonical spelling: each board (R×C
    up to :data:`MAX_SIDE_2D`, cubes up to :data:`MAX_SIDE_3D`) of at most
    ``max_cells`` cells with every k that fits, normal games first, then the misère
    ones. (Other spellings, ``4x4k4`` or an alias, name one of these.)

    >>> every_name(3)[:8]
    ['1x1', '1x2', '1x2k2', '1x3', '1x3k2', '1x3k3', '2x1', '2x1k2']
    >>> every_name(3)[-2:]
    ['3x1k3-misere', '1x1x1-misere']
    >>> len(every_name()), len(every_name(64))
    (9530, 3292)
    """
    boards: list[tuple[tuple[int, ...], int]] = [
        ((rows, cols), k) for rows in range(1, MAX_SIDE_2D + 1)
        for cols in range(1, MAX_SIDE_2D + 1) for k in range(1, max(rows, cols) + 1)]
    boards += [((side,) * 3, k) for side in range(1, MAX_SIDE_3D + 1)
               for k in range(1, side + 1)]
    normal = [name_of(shape, k) for shape, k in boards
              if max_cells is None or _cells(shape) <= max_cells]
    return normal + [name + MISERE_SUFFIX for name in normal]


def _cells(shape: tuple[int, ...]) -> int:
    cells = 1
    for side in shape:
        cells *= side
    return cells


def of_cells(cells: int) -> str | None:
    """The listed square or cube variant (default k) of ``cells`` cells, if any: the
    board a flat board string of that length means.

    >>> of_cells(9), of_cells(16), of_cells(27), of_cells(64), of_cells(25)
    ('3x3', '4x4', '3x3x3', '4x4x4', None)
    """
    for name, known in _KNOWN.items():
        shape, k = _parse(name, name)
        square = len(set(shape)) == 1 and k == shape[0]
        if known.listed and square and shape[0] ** len(shape) == cells:
            return name
    return None


def is_built(name: str) -> bool:
    """True if :func:`variant` would answer ``name`` from memory now (building a large
    board's lines takes tens of milliseconds; a bad name fails fast either way).

    >>> _ = variant("3x3"); is_built("tictactoe"), is_built("17x13k6")
    (True, False)
    """
    key = name.strip().lower() if isinstance(name, str) else ""
    try:
        _, shape, k, misere = _parse_name(key)
    except VariantError:
        return True
    canonical = name_of(shape, k) + (MISERE_SUFFIX if misere else "")
    return canonical in _PINNED or canonical in _KEPT


def kept_variants() -> list[str]:
    """The names of the variants held now (featured ones first).

    >>> _ = variant("3x3"); "3x3" in kept_variants()
    True
    """
    return [*_PINNED, *(name for name in _KEPT if name not in _PINNED)]


def _build(original: str, shape: tuple[int, ...], k: int, misere: bool) -> Variant:
    # A misère game and its normal one share the geometry (and its symmetry tables).
    pinned = _PINNED.get(name_of(shape, k))
    try:
        geometry = pinned.geometry if pinned is not None else _GEOMETRIES.get_or_make(
            (shape, k), lambda: Geometry(shape, k))
    except VariantError as error:
        raise VariantError(f"unknown variant {original!r}: {error}") from None
    return Variant(geometry, Rules(k, misere))


def _parse_name(key: str) -> tuple[str, tuple[int, ...], int, bool]:
    """The name as given, the shape, k and the misère flag a lower-case name spells."""
    misere = key.endswith(MISERE_SUFFIX)
    base = key[: -len(MISERE_SUFFIX)] if misere else key
    shape, k = _parse(ALIASES.get(base, base), key)
    return key, shape, k, misere


@lru_cache(maxsize=256)
def _parse(key: str, original: str) -> tuple[tuple[int, ...], int]:
    """The shape and k a variant name spells (checked, except whether k fits)."""
    match = _PATTERN.match(key)
    if not match:
        raise VariantError(
            f"unknown variant {original!r}: expected a name like 3x3, 4x4k3, 4x4x4 or qubic, "
            f"with {MISERE_SUFFIX} added for the misère game"
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
        try:
            Geometry(shape, k)
        except VariantError as error:
            raise VariantError(f"unknown variant {original!r}: {error}") from None
    return shape, k


_PATTERN = re.compile(r"^(\d+)x(\d+)(?:x(\d+))?(?:k(\d+))?$")

"""Which core runs the searches: the compiled one, or the pure-Python reference.

The compiled core, :mod:`noughts.search._core`, is a C extension that ``pip install .``
builds where it finds a C compiler (docs/design.md says why C and how). It ports the
pure-Python searches of this package node for node: at a fixed node limit both give the
same move, the same value and the same node count (the tests check it on every board,
both rules). The Python searches are its reference and its fallback: they run where the
extension is not built, on boards of more than 64 cells, and everywhere when the
environment sets ``NOUGHTS_PURE_PYTHON=1``. The choice is made once, at the first
search, so importing the package loads no extension.

The factories below (:func:`anytime_search`) give a search of the core that runs;
``core="python"`` or ``core="compiled"`` asks for one (the parity tests compare them).

>>> name() in ("compiled", "python")
True
>>> from noughts.position import Position
>>> search = anytime_search(Position("XX./OO./...", "3x3"), core="python")
>>> type(search).__name__, bin(search.threat_cells(0))
('AnytimeSearch', '0b100')
"""

from __future__ import annotations

import os
from functools import cache, lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Literal, Protocol

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.search.board import Tables, line_values, tables_for
from noughts.search.evaluate import Style, search_weights
from noughts.search.pvs import AnytimeSearch

if TYPE_CHECKING:
    from noughts.knowledge.learned import LearnedEval

__all__ = [
    "Core", "built", "compiled", "name", "anytime_search", "Searcher", "PURE_PYTHON_VARIABLE",
]

Core = Literal["python", "compiled"]
PURE_PYTHON_VARIABLE = "NOUGHTS_PURE_PYTHON"
"""Set to ``1`` in the environment, it makes every search run on the Python core."""
_MAX_COMPILED_CELLS = 64


@cache
def built() -> ModuleType | None:
    """The compiled core's module if the installation holds it (loaded at the first
    call), whatever the environment says."""
    try:
        from noughts.search import _core
    except ImportError:
        return None
    return _core if hasattr(_core, "Search") else None  # (not a stray folder of that name)


@cache
def compiled() -> ModuleType | None:
    """The compiled core's module, or ``None`` where it is not built or not wanted (the
    environment's :data:`PURE_PYTHON_VARIABLE`)."""
    if os.environ.get(PURE_PYTHON_VARIABLE, "").strip() not in ("", "0"):
        return None
    return built()


def name() -> Core:
    """Which core the searches run on: ``compiled`` or ``python``."""
    return "compiled" if compiled() is not None else "python"


def _native(core: Core | None, geometry: Geometry) -> ModuleType | None:
    """The compiled module to use for a search on ``geometry``, or ``None`` for Python
    (``core`` asks for one; the compiled one takes boards of up to 64 cells)."""
    if core == "python":
        return None
    module = built() if core == "compiled" else compiled()
    if core == "compiled" and module is None:
        raise NoughtsError("the compiled search core is not built in this installation")
    if module is None or geometry.cells > _MAX_COMPILED_CELLS:
        return None
    return module


@lru_cache(maxsize=16)
def _compiled_tables(tables: Tables) -> object:
    """The compiled core's copy of a board's tables (made once per board)."""
    module = built()
    assert module is not None
    return module.Tables(tables.cells, tables.k, tables.lines, tables.through,
                         tables.perms, *tables.base)


class Searcher(Protocol):
    """What the anytime stages ask of a principal-variation search, on either core
    (:class:`~noughts.search.pvs.AnytimeSearch` is the reference)."""

    nodes: int
    limit: Limit

    @property
    def root_marks(self) -> int: ...

    @property
    def restricted(self) -> bool: ...

    def threat_cells(self, side: int) -> int: ...

    def empty_count(self) -> int: ...

    def ordered_moves(self, first: int, ply: int) -> list[int]: ...

    def safe_moves(self) -> list[int]: ...

    def root(self, depth: int, moves: list[int]) -> tuple[int, int, dict[int, int]]: ...

    def move_value(self, cell: int, depth: int) -> int: ...

    def principal_variation(self, first: int, length: int) -> tuple[int, ...]: ...


def anytime_search(
    position: Position,
    *,
    style: Style = "strong",
    limit: Limit | None = None,
    learned: LearnedEval | None = None,
    misere: bool = False,
    core: Core | None = None,
) -> Searcher:
    """A principal-variation search of ``position`` on the core that runs (or ``core``),
    as :class:`~noughts.search.pvs.AnytimeSearch` takes its arguments."""
    native = _native(core, position.geometry)
    if native is None:
        return AnytimeSearch(position, style=style, limit=limit, learned=learned,
                             misere=misere)
    tables = tables_for(position.geometry)
    player = 0 if position.to_move == "X" else 1
    values = line_values(tables, search_weights(position, style, learned), player)
    search: Searcher = native.Search(_compiled_tables(tables), position.x, position.o, player,
                                     values, misere, limit)
    return search

"""Which core runs the searches: the compiled one, or the pure-Python reference.

The compiled core, :mod:`noughts.search._core`, is a C extension that ``pip install .``
builds where it finds a C compiler (docs/design.md says why C and how). It ports the
pure-Python searches of this package node for node: at a fixed node limit both give the
same move, the same value and the same node count (the tests check it on every board
the variant registry can name, both rules). The Python searches are its reference and
its fallback: they run where the extension is not built, on boards beyond the limits
the extension exports (:func:`fits_compiled`: up to 64 cells, lines of up to 16
marks...), and everywhere when the environment sets ``NOUGHTS_PURE_PYTHON=1``. The
choice is made once, at the first search, so importing the package loads no extension.

The factories below give a search of the core that runs: :func:`anytime_search` the
principal-variation search, :func:`threat_search` the threat-space search,
:func:`proof_search` the proof-number search (and its table, :func:`proof_table`),
:func:`exact_search` the inner negamax of :class:`noughts.exact.negamax.ExactSearch`
(``None`` where the Python one runs); ``core="python"`` or ``core="compiled"`` asks
for one (the parity tests compare them). Callers use a search through the Protocols
here (:class:`Searcher`, :class:`ThreatSearcher`, :class:`ProofSearcher`,
:class:`ExactCore`), never through either core's internals. Importing this module
loads neither the extension nor the searches' modules.

>>> name() in ("compiled", "python")
True
>>> from noughts.position import Position
>>> search = anytime_search(Position("XX./OO./...", "3x3"), core="python")
>>> type(search).__name__, bin(search.threat_cells(0))
('AnytimeSearch', '0b100')
"""

from __future__ import annotations

import _thread
import os
from array import array
from functools import cache, lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.results import WIN_SCORE

if TYPE_CHECKING:
    from noughts.knowledge.learned import LearnedEval
    from noughts.position import Position
    from noughts.search.board import LineValues, Tables
    from noughts.search.evaluate import Style
    from noughts.variants import Variant

__all__ = [
    "Core",
    "built",
    "compiled",
    "name",
    "core_module",
    "fits_compiled",
    "compiled_limits",
    "anytime_search",
    "flat_values",
    "threat_search",
    "proof_search",
    "proof_table",
    "Searcher",
    "ThreatSearcher",
    "ProofSearcher",
    "ProofTable",
    "exact_search",
    "exact_compiled",
    "ExactCore",
    "PURE_PYTHON_VARIABLE",
]

Core = Literal["python", "compiled"]
PURE_PYTHON_VARIABLE = "NOUGHTS_PURE_PYTHON"
"""Set to ``1`` in the environment, it makes every search run on the Python core."""


_BUILT: list[ModuleType | None] = []
"""The compiled core's module (or ``None``), once :func:`built` has loaded it."""
_BUILT_LOCK = _thread.allocate_lock()


def built() -> ModuleType | None:
    """The compiled core's module if the installation holds it and this system can load
    it (at the first call), whatever the environment says.

    An extension that is there but does not load (built for another system: a newer C
    library than this one's, another processor) leaves one warning in the log, on the
    ``noughts.search`` logger, and the searches run on the Python core.
    """
    if not _BUILT:
        with _BUILT_LOCK:  # searches starting together in threads load (and log) once
            if not _BUILT:
                _BUILT.append(_load_built())
    return _BUILT[0]


def _load_built() -> ModuleType | None:
    try:
        import noughts.search._core as _core
    except ModuleNotFoundError as error:
        if error.name == "noughts.search._core":  # not built in this installation
            return None
        raise
    except ImportError as error:  # built, but not loadable here
        import logging

        logging.getLogger("noughts.search").warning(
            "noughts: the compiled search core cannot load on this system (%s); the "
            "searches run on the Python core, 20 to 30 times slower", error)
        return None
    if not hasattr(_core, "Search"):  # a stray folder of that name
        return None
    if not hasattr(_core, "MAX_CELLS"):  # built from older sources than this package's
        import logging

        logging.getLogger("noughts.search").warning(
            "noughts: the compiled search core was built from older sources than this "
            "package (it exports no board limits); the searches run on the Python core "
            "until it is built again (pip install .)")
        return None
    return _core


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


def fits_compiled(game: Variant | Geometry) -> bool:
    """True if the compiled core is built and takes ``game``'s board: within the limits
    its module exports (cells, marks in a line, lines, lines through a cell). Every
    factory here asks it, so a board beyond them plays on the Python core, with the
    same answers.

    >>> from noughts.variants import variant
    >>> fits_compiled(variant("5x5x5")), fits_compiled(variant("3x19k17"))
    (False, False)
    >>> fits_compiled(variant("qubic")) == (built() is not None)
    True
    """
    module = built()
    geometry = game if isinstance(game, Geometry) else game.geometry
    return (module is not None
            and geometry.cells <= module.MAX_CELLS
            and geometry.k <= module.MAX_K
            and len(geometry.lines) <= module.MAX_LINES
            and max(map(len, geometry.lines_through)) <= module.MAX_THROUGH)


def compiled_limits() -> str:
    """The boards the compiled core takes, in words (for messages).

    >>> compiled_limits().startswith("up to ") or compiled_limits() == "none: it is not built"
    True
    """
    module = built()
    if module is None:
        return "none: it is not built"
    return (f"up to {module.MAX_CELLS} cells, {module.MAX_LINES} lines, lines of up to "
            f"{module.MAX_K} marks and {module.MAX_THROUGH} lines through a cell")


def core_module(core: Core | None, geometry: Geometry) -> ModuleType | None:
    """The compiled module to use for work on ``geometry`` (a search, the strategy
    checker), or ``None`` for Python (``core`` asks for one; the compiled one takes
    the boards :func:`fits_compiled` admits)."""
    if core == "python":
        return None
    module = built() if core == "compiled" else compiled()
    if core == "compiled" and module is None:
        raise NoughtsError("the compiled search core is not built in this installation")
    if module is None or not fits_compiled(geometry):
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

    @property
    def root_marks(self) -> int: ...

    @property
    def restricted(self) -> bool: ...

    def threat_cells(self, side: int) -> int: ...

    def empty_count(self) -> int: ...

    def ordered_moves(self, first: int, ply: int) -> list[int]: ...

    def safe_moves(self) -> list[int]: ...

    def root(
        self, depth: int, moves: list[int], limit: Limit | None, /
    ) -> tuple[int, int, dict[int, int]]: ...

    def move_value(self, cell: int, depth: int, limit: Limit | None, /) -> int: ...

    def principal_variation(self, first: int, length: int) -> tuple[int, ...]: ...


def anytime_search(
    position: Position,
    *,
    style: Style = "strong",
    learned: LearnedEval | None = None,
    misere: bool = False,
    core: Core | None = None,
) -> Searcher:
    """A principal-variation search of ``position`` on the core that runs (or ``core``),
    as :class:`~noughts.search.pvs.AnytimeSearch` takes its arguments (each call that
    searches takes its limit)."""
    from noughts.search.board import line_values, tables_for
    from noughts.search.evaluate import search_weights
    from noughts.search.pvs import AnytimeSearch

    native = core_module(core, position.geometry)
    if native is None:
        return AnytimeSearch(position, style=style, learned=learned, misere=misere)
    tables = tables_for(position.geometry)
    player = 0 if position.to_move == "X" else 1
    values = line_values(tables, search_weights(position, style, learned), player)
    search: Searcher = native.Search(_compiled_tables(tables), position.x, position.o, player,
                                     flat_values(values), misere)
    return search


def flat_values(values: LineValues) -> list[int]:
    """A board's line values as the compiled search takes them: one flat list, in order
    value (X's, O's), fork_value, tempo_value (X's, O's), to_move, contrib (X's rows,
    O's rows).

    >>> from noughts.position import Position
    >>> from noughts.search.board import line_values, tables_for
    >>> from noughts.search.evaluate import search_weights
    >>> position = Position("", "3x3")
    >>> weights = search_weights(position, "strong", None)
    >>> len(flat_values(line_values(tables_for(position.geometry), weights, 0)))  # k = 3
    69
    """
    value, forks, tempo, to_move, contrib = values
    return [*value[0], *value[1], *forks, *tempo[0], *tempo[1], to_move,
            *(cell for side in contrib for row in side for cell in row)]


class ThreatSearcher(Protocol):
    """What callers ask of a threat-space search, on either core
    (:class:`~noughts.search.threat_search.ThreatSearch` is the reference)."""

    nodes: int

    def find(self, attacker: int, defender: int, max_threats: int = ...,
             limit: Limit | None = None) -> list[int] | None: ...

    def refute(self, attacker: int, defender: int, max_threats: int = ...,
               limit: Limit | None = None) -> list[int] | None: ...

    def exhausted(self) -> bool: ...


def threat_search(game: Variant | Geometry, *, core: Core | None = None) -> ThreatSearcher:
    """A threat-space search for ``game`` on the core that runs (or ``core``), as
    :class:`~noughts.search.threat_search.ThreatSearch` takes its arguments (each call
    takes its limit).

    >>> from noughts.variants import variant
    >>> threats = threat_search(variant("3x3"), core="python")
    >>> threats.find(0b000000011, 0b000011000), threats.nodes
    ([2], 0)
    """
    from noughts.search.board import tables_for
    from noughts.search.threat_search import ThreatSearch
    from noughts.variants import variant

    game = variant(game)
    native = core_module(core, game.geometry)
    if native is None:
        return ThreatSearch(game)
    search: ThreatSearcher = native.ThreatSearch(_compiled_tables(tables_for(game.geometry)))
    return search


class ProofTable(Protocol):
    """A proof search's table, as its owners handle it: shared between searches of one
    attacker on one board, measured, and emptied (a ``dict`` on the Python core)."""

    def __len__(self) -> int: ...

    def clear(self) -> None: ...


class ProofSearcher(Protocol):
    """What callers ask of a proof-number search, on either core
    (:class:`~noughts.search.proof_search.ProofSearch` is the reference)."""

    nodes: int

    @property
    def table(self) -> ProofTable: ...

    def run(self, limit: Limit | None = None, *, nodes: int | None = None,
            thresholds: tuple[int, int] = ...) -> tuple[int, int]: ...

    def play(self, cell: int) -> None: ...

    def undo(self, cell: int) -> None: ...

    def moves(self) -> list[int]: ...

    def best_move(self) -> int | None: ...

    def children(self) -> list[tuple[int, int, int]]: ...

    def defence_chain(self) -> int: ...

    def proof(self, seen: set[int] | None = None) -> list[tuple[int, int, int, bool, int]]: ...

    def plies(self) -> int: ...

    def resisting_move(self) -> int | None: ...


def proof_table(core: Core | None = None, game: Variant | Geometry | None = None) -> ProofTable:
    """An empty table for proof searches on the core that runs (or ``core``) for
    ``game``'s board: pass it to :func:`proof_search` to share it. A search of a board
    the compiled core does not take (:func:`fits_compiled`) runs on the Python core and
    takes a Python table, which a ``game`` here gets; every search's own table is its
    ``table``.

    >>> len(proof_table(core="python"))
    0
    >>> from noughts.variants import variant
    >>> proof_table(game=variant("5x5x5"))
    {}
    """
    module = None if core == "python" else built() if core == "compiled" else compiled()
    if core == "compiled" and module is None:
        raise NoughtsError("the compiled search core is not built in this installation")
    if module is None or (game is not None and not fits_compiled(game)):
        return {}
    table: ProofTable = module.ProofTable()
    return table


def proof_search(
    position: Position,
    attacker: int,
    *,
    table: ProofTable | None = None,
    leaf_threat_nodes: int | None = None,
    max_threats: int | None = None,
    core: Core | None = None,
) -> ProofSearcher:
    """A proof-number search of ``position`` for ``attacker`` (0 = X, 1 = O) on the core
    that runs (or ``core``), as :class:`~noughts.search.proof_search.ProofSearch` takes
    its arguments (``None``: the reference's defaults). A ``table`` decides the core: a
    ``dict`` is the Python core's, a :func:`proof_table` of the compiled core the
    compiled one's.

    >>> from noughts.position import Position
    >>> search = proof_search(Position("XX./OO./..."), 0, core="python")
    >>> search.run(), search.best_move()
    ((0, 1099511627776), 2)
    """
    from noughts.search.board import tables_for
    from noughts.search.proof_search import LEAF_THREAT_NODES, ProofSearch
    from noughts.search.threat_search import DEFAULT_MAX_THREATS

    leaf_threat_nodes = LEAF_THREAT_NODES if leaf_threat_nodes is None else leaf_threat_nodes
    max_threats = DEFAULT_MAX_THREATS if max_threats is None else max_threats
    if table is not None:
        table_core: Core = "python" if isinstance(table, dict) else "compiled"
        if core is not None and core != table_core:
            raise NoughtsError(f"a table of the {table_core} core cannot serve the {core} core")
        core = table_core
    native = core_module(core, position.geometry)
    if native is None:
        python_table: dict[int, Any] | None = None
        if table is not None:
            if not isinstance(table, dict):
                raise NoughtsError("the compiled core's proof table serves the boards that "
                                   f"core takes: {compiled_limits()}")
            python_table = table
        return ProofSearch(position, attacker, table=python_table,
                           leaf_threat_nodes=leaf_threat_nodes, max_threats=max_threats)
    search: ProofSearcher = native.ProofSearch(
        _compiled_tables(tables_for(position.geometry)), position.x, position.o,
        0 if position.to_move == "X" else 1, attacker,
        table if table is not None else native.ProofTable(), leaf_threat_nodes, max_threats)
    return search


class ExactCore(Protocol):
    """The compiled negamax inside :class:`~noughts.exact.negamax.ExactSearch`: its
    search (within the call's limit), node counter, and its table (a mapping of keys to
    packed entries, as the reference's dict)."""

    @property
    def nodes(self) -> int: ...

    max_entries: int
    dynamic_empties: int

    def search(
        self, me: int, opp: int, alpha: int, beta: int, limit: Limit | None, start: int, /
    ) -> int: ...

    def get(self, key: int, /) -> int | None: ...

    def clear(self) -> None: ...

    def items(self) -> list[tuple[int, int]]: ...

    def __len__(self) -> int: ...


def exact_compiled(geometry: Geometry, core: Core | None = None) -> bool:
    """True if the exact search of ``geometry`` runs on the compiled core (where it runs,
    on the boards :func:`fits_compiled` admits).

    >>> from noughts.variants import variant
    >>> exact_compiled(variant("4x4").geometry, core="python")
    False
    """
    return core_module(core, geometry) is not None


def exact_search(
    geometry: Geometry,
    *,
    misere: bool,
    order: tuple[int, ...],
    perms: tuple[tuple[int, ...], ...],
    canonical_marks: int,
    book: tuple[array[int], array[int]] | None,
    book_marks: int,
    max_entries: int,
    dynamic_empties: int,
    core: Core | None = None,
) -> ExactCore | None:
    """The compiled negamax of :class:`~noughts.exact.negamax.ExactSearch` on the core
    that runs (or ``core``), or ``None`` where the Python reference runs (no extension,
    or a board :func:`fits_compiled` refuses). Its arguments are the reference's:
    the static move ``order``, the key symmetries' ``perms`` (their canonical keys serve
    positions of up to ``canonical_marks`` marks), the ``book`` (its keys and scores)
    consulted up to ``book_marks`` marks, the table's ``max_entries`` and the
    ``dynamic_empties`` above which moves are ordered by line weights.

    >>> from noughts.variants import variant
    >>> game = variant("3x3")
    >>> exact_search(game.geometry, misere=False, order=tuple(range(9)), perms=((*range(9),),),
    ...              canonical_marks=-1, book=None, book_marks=-1, max_entries=10,
    ...              dynamic_empties=4, core="python") is None
    True
    """
    from noughts.search.board import tables_for

    native = core_module(core, geometry)
    if native is None:
        return None
    keys, scores = book if book is not None else (None, None)
    exact: ExactCore = native.Exact(
        _compiled_tables(tables_for(geometry)), order, WIN_SCORE, misere, perms,
        canonical_marks, book_marks, keys, scores, max_entries, dynamic_empties,
    )
    return exact

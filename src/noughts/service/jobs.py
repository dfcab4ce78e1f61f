"""The service's search jobs: what a search slot runs, in a thread or a worker process.

A job is a small frozen value (a variant name and bitboards, never a geometry, so it
pickles in a few hundred bytes) called with the request's one
:class:`~noughts.budget.Limit`: its deadline is the request's, and cancelling it (the
client left, the deadline passed) stops the search at its next poll.

A move or an analysis is the engine's plan (:func:`noughts.engine.choose_move`,
:func:`noughts.engine.evaluation`) within that limit: an exact solve that cannot finish
by the limit less its reserve (:func:`noughts.engine.reserve_s`) gives way to the
anytime search in the reserve, and the job says so (``fell_back``). The solver's table
keeps what the stopped solve learnt, so asking again gets further.

>>> from noughts.position import Position
>>> job = MoveJob(Board.of(Position("XX./OO./...")), level=10, seed=None, exact=True)
>>> found = job(Limit.within(seconds=1.0))
>>> found.result.move, found.result.method, found.fell_back
(2, 'exact', False)
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from cachetools import LRUCache

from noughts.budget import Limit
from noughts.engine import choose_move, evaluation
from noughts.position import Position
from noughts.results import Mark, MoveChoice, MoveEval

if TYPE_CHECKING:  # the trace is imported by the explain jobs that need it, not before
    from noughts.teaching.trace import Algorithm

__all__ = [
    "Board",
    "MoveJob",
    "AnalysisJob",
    "ExplainJob",
    "MoveFound",
    "AnalysisFound",
    "EXPLAIN_NODE_LIMIT",
]

EXPLAIN_NODE_LIMIT = 600_000
"""Most positions one explain walk may enter: plain minimax on the empty 3x3 board
(549,946) fits."""


@dataclass(frozen=True)
class Board:
    """A position as plain values: what crosses to a worker process."""

    variant: str
    x: int
    o: int
    first: Mark

    @classmethod
    def of(cls, position: Position) -> Board:
        return cls(position.game.name, position.x, position.o, position.first)

    def position(self) -> Position:
        """The position again (the geometry is built, or found, in this process)."""
        return Position.from_bitboards(self.x, self.o, self.variant, first=self.first)


class MoveFound(NamedTuple):
    """A move job's answer: the move, whether a slow exact solve gave way, the seconds
    the job took."""

    result: MoveChoice
    fell_back: bool
    seconds: float


class AnalysisFound(NamedTuple):
    """An analysis job's answer: every legal move's value, the solver's nodes, the time
    of the analysis (with the stopped solve before a fallback), whether it was a
    fallback, the seconds the job took."""

    moves: tuple[MoveEval, ...]
    nodes: int | None
    elapsed_ms: float
    fell_back: bool
    seconds: float


@dataclass(frozen=True)
class MoveJob:
    """The engine's move for ``board`` at ``level`` (``exact``: the plan solves it first,
    :func:`noughts.engine.answers_exactly`)."""

    board: Board
    level: int
    seed: int | None
    exact: bool

    def __call__(self, limit: Limit) -> MoveFound:
        began = time.perf_counter()
        position = self.board.position()
        result = choose_move(position, limit, level=self.level, seed=self.seed)
        fell_back = self.exact and result.method != "exact"
        return MoveFound(result, fell_back, time.perf_counter() - began)


@dataclass(frozen=True)
class AnalysisJob:
    """Every legal move's value on ``board`` (``exact``: the plan solves it first)."""

    board: Board
    exact: bool

    def __call__(self, limit: Limit) -> AnalysisFound:
        began = time.perf_counter()
        moves, method, nodes = evaluation(self.board.position(), limit)
        elapsed_ms = (time.perf_counter() - began) * 1000
        fell_back = self.exact and method != "exact"
        return AnalysisFound(tuple(moves), nodes, elapsed_ms, fell_back, elapsed_ms / 1000)


@dataclass(frozen=True)
class ExplainJob:
    """A search's trace for Learn mode and, with ``compare``, every algorithm's row.

    Returns ``(trace, rows)`` as plain JSON data; raises
    :class:`~noughts.teaching.trace.TraceTooLargeError` past :data:`EXPLAIN_NODE_LIMIT`.
    """

    board: Board
    algorithm: Algorithm
    depth: int | None
    max_nodes: int
    tutorial: bool
    compare: bool

    def __call__(self, limit: Limit) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
        from noughts.teaching.trace import trace

        position = self.board.position()
        result = trace(
            position,
            self.algorithm,
            depth=self.depth,
            max_stored=self.max_nodes,
            node_limit=EXPLAIN_NODE_LIMIT,
            tutorial=self.tutorial,
            limit=limit,
        )
        rows: tuple[dict[str, Any], ...] = ()
        if self.compare:
            rows = _compare_rows(self.board, result.depth, self.tutorial, limit)
        return result.to_json(), rows


_COMPARED: LRUCache[tuple[Board, int | None, bool], tuple[dict[str, Any], ...]] = LRUCache(
    maxsize=256
)
"""Comparison tables by (position, depth, tutorial): the same every time they are asked."""
_COMPARED_LOCK = threading.Lock()


def _compare_rows(
    board: Board, depth: int | None, tutorial: bool, limit: Limit
) -> tuple[dict[str, Any], ...]:
    """Every algorithm's row on ``board``, cached (a table stopped by its budget is not)."""
    key = (board, depth, tutorial)
    with _COMPARED_LOCK:
        rows = _COMPARED.get(key)
    if rows is None:
        from noughts.teaching.trace import compare

        position = board.position()
        table = compare(position, depth=depth, node_limit=EXPLAIN_NODE_LIMIT, tutorial=tutorial,
                        limit=limit)
        rows = tuple(asdict(row) for row in table)
        with _COMPARED_LOCK:
            _COMPARED[key] = rows
    return rows

"""The service's search jobs: what a search slot runs, in a thread or a worker process.

A job is a small frozen value (a variant name and bitboards, never a geometry, so it
pickles in a few hundred bytes) called with the request's one
:class:`~noughts.budget.Budget`: its deadline is the request's, and cancelling it (the
client left, the deadline passed) stops the search at its next poll.

Policy, for a budget of ``B`` seconds:

- Level 10 on a board the exact solver can finish: solve exactly. If the solve is not
  done ``B`` minus a reserve (a quarter of ``B``, at most 250 ms) after the request
  arrived, its part of the budget runs out and the anytime search answers in the
  reserve instead (``fell_back``). The solver's table keeps what the stopped solve
  learnt, so asking again gets further.
- Elsewhere (Qubic, big boards, levels below 10): the engine with what is left of ``B``.

>>> from noughts.position import Position
>>> job = MoveJob(Board.of(Position("XX./OO./...")), level=10, seed=None, exact=True)
>>> found = job(Budget.within(seconds=1.0))
>>> found.result.move, found.result.method, found.fell_back
(2, 'exact', False)
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from cachetools import LRUCache

from noughts.budget import Budget, BudgetExhausted
from noughts.engine import choose_move, evaluate_moves
from noughts.exact import solver
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
    "reserve_s",
    "MAX_RESERVE_S",
    "EXPLAIN_NODE_LIMIT",
]

MAX_RESERVE_S = 0.25
"""At most this much of the budget is kept back for the fallback of a slow exact solve."""

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


def reserve_s(budget: Budget) -> float:
    """The part of ``budget`` kept back for an anytime fallback of a slow exact solve.

    >>> reserve_s(Budget(deadline=10.5, start=10.0)), reserve_s(Budget(deadline=12.0, start=10.0))
    (0.125, 0.25)
    """
    if budget.deadline is None:
        return 0.0
    return min(MAX_RESERVE_S, (budget.deadline - budget.start) / 4)


def _left(budget: Budget) -> float:
    """Seconds of ``budget`` left (at least 1 ms, so a search can still answer)."""
    return max(0.001, budget.seconds_left() or 0.0)


def _exact_part(budget: Budget) -> Budget:
    """``budget`` less its reserve (the same cancel switch)."""
    if budget.deadline is None:
        return budget
    return budget.limited(deadline=budget.deadline - reserve_s(budget), node_limit=None)


class MoveFound(NamedTuple):
    """A move job's answer: the move, whether a slow exact solve gave way, the seconds
    the job took."""

    result: MoveChoice
    fell_back: bool
    seconds: float


class AnalysisFound(NamedTuple):
    """An analysis job's answer: every legal move's value, the solver's nodes, the time
    of the analysis that answered, whether it was a fallback, the seconds the job took."""

    moves: tuple[MoveEval, ...]
    nodes: int | None
    elapsed_ms: float
    fell_back: bool
    seconds: float


@dataclass(frozen=True)
class MoveJob:
    """The engine's move for ``board`` at ``level`` (``exact``: level 10, solvable)."""

    board: Board
    level: int
    seed: int | None
    exact: bool

    def __call__(self, budget: Budget) -> MoveFound:
        began = time.perf_counter()
        result, fell_back = self._search(self.board.position(), budget)
        return MoveFound(result, fell_back, time.perf_counter() - began)

    def _search(self, position: Position, budget: Budget) -> tuple[MoveChoice, bool]:
        if not self.exact:
            limit = _left(budget)
            return choose_move(
                position, level=self.level, time_limit=limit, seed=self.seed, budget=budget
            ), False
        try:
            part = _exact_part(budget)
            return choose_move(position, level=self.level, seed=self.seed, budget=part), False
        except BudgetExhausted:
            if budget.cancelled:
                raise
        from noughts.anytime.search import anytime_move

        return anytime_move(position, time_limit=_left(budget), seed=self.seed, budget=budget), True


@dataclass(frozen=True)
class AnalysisJob:
    """Every legal move's value on ``board`` (``exact``: the solver can finish it)."""

    board: Board
    exact: bool

    def __call__(self, budget: Budget) -> AnalysisFound:
        began = time.perf_counter()
        moves, nodes, elapsed_ms, fell_back = self._analyse(self.board.position(), budget)
        return AnalysisFound(moves, nodes, elapsed_ms, fell_back, time.perf_counter() - began)

    def _analyse(
        self, position: Position, budget: Budget
    ) -> tuple[tuple[MoveEval, ...], int | None, float, bool]:
        began = time.perf_counter()
        if not self.exact:
            moves = evaluate_moves(position, time_limit=_left(budget), budget=budget)
            return tuple(moves), None, _ms_since(began), False
        counter = solver.solver_for(position.game)
        nodes_before = counter.nodes
        try:
            exact = tuple(evaluate_moves(position, budget=_exact_part(budget)))
            return exact, counter.nodes - nodes_before, _ms_since(began), False
        except BudgetExhausted:
            if budget.cancelled:
                raise
        from noughts.anytime.search import anytime_evaluate

        began = time.perf_counter()
        moves = anytime_evaluate(position, time_limit=_left(budget), budget=budget)
        return tuple(moves), None, _ms_since(began), True


def _ms_since(began: float) -> float:
    return (time.perf_counter() - began) * 1000


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

    def __call__(self, budget: Budget) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
        from noughts.teaching.trace import trace

        position = self.board.position()
        result = trace(
            position,
            self.algorithm,
            depth=self.depth,
            max_stored=self.max_nodes,
            node_limit=EXPLAIN_NODE_LIMIT,
            tutorial=self.tutorial,
            budget=budget,
        )
        rows: tuple[dict[str, Any], ...] = ()
        if self.compare:
            rows = _compare_rows(self.board, result.depth, self.tutorial, budget)
        return result.to_json(), rows


_COMPARED: LRUCache[tuple[Board, int | None, bool], tuple[dict[str, Any], ...]] = LRUCache(
    maxsize=256
)
"""Comparison tables by (position, depth, tutorial): the same every time they are asked."""
_COMPARED_LOCK = threading.Lock()


def _compare_rows(
    board: Board, depth: int | None, tutorial: bool, budget: Budget
) -> tuple[dict[str, Any], ...]:
    """Every algorithm's row on ``board``, cached (a table stopped by its budget is not)."""
    key = (board, depth, tutorial)
    with _COMPARED_LOCK:
        rows = _COMPARED.get(key)
    if rows is None:
        from noughts.teaching.trace import compare

        position = board.position()
        limit = EXPLAIN_NODE_LIMIT
        table = compare(position, depth=depth, node_limit=limit, tutorial=tutorial, budget=budget)
        rows = tuple(asdict(row) for row in table)
        with _COMPARED_LOCK:
            _COMPARED[key] = rows
    return rows

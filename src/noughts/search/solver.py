"""The exact solver: negamax with alpha-beta, a transposition table and symmetry.

Scores are absolute: a win for the side to move that ends the game with ``N`` marks on
the board scores ``WIN_SCORE - N``, the matching loss ``N - WIN_SCORE``, a draw ``0``.
So the winner hurries, the loser delays, and a table entry is valid from any root.

>>> from noughts.position import Position
>>> solve(Position()).outcome
<Outcome.DRAW: 'draw'>
>>> str(solve(Position("XX./OO./...")))
'win in 1'
>>> best_move(Position("X../.O./..X")).move in (2, 6)  # the side square would lose
False
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from noughts.errors import GameOverError, TooLargeError
from noughts.geometry import Bitboard, Geometry, scan_forward
from noughts.position import Position
from noughts.values import WIN_SCORE, Outcome, Value

__all__ = [
    "MoveValue",
    "Choice",
    "Solver",
    "solver_for",
    "can_solve",
    "solve",
    "analyze",
    "best_move",
]

MAX_EMPTY_CELLS = 20
"""Boards with more empty cells than this are not solved on the spot (3x3x3 excepted)."""

_EXACT, _LOWER, _UPPER = 0, 1, 2


@dataclass(frozen=True)
class MoveValue:
    """A legal move and its exact value from the view of the player who makes it."""

    move: int
    value: Value


@dataclass(frozen=True)
class Choice:
    """The chosen move with its value, every move's value, and the search effort."""

    move: int
    value: Value
    moves: tuple[MoveValue, ...]
    nodes: int
    elapsed_ms: float


def can_solve(position: Position) -> bool:
    """True if the exact solver finishes ``position`` on the spot.

    >>> can_solve(Position("", "4x4")), can_solve(Position("", "5x5k4"))
    (True, False)
    """
    empty = position.empty.bit_count()
    geometry = position.geometry
    return empty <= MAX_EMPTY_CELLS or (geometry.dims == 3 and geometry.shape[0] <= 3)


class Solver:
    """Exact negamax over one geometry; its table lives as long as the solver does."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.table: dict[tuple[Bitboard, Bitboard], tuple[int, int]] = {}
        self.nodes = 0
        self._lines_through = geometry.lines_through
        self._cells = geometry.cells
        self._full = geometry.full

    # -- public -----------------------------------------------------------------------
    def score(self, me: Bitboard, opp: Bitboard) -> int:
        """Exact score for the side to move owning ``me`` (no completed line on board)."""
        return self._negamax(me, opp, -WIN_SCORE, WIN_SCORE)

    # -- search ---------------------------------------------------------------------------
    def _wins(self, marks: Bitboard, cell: int) -> bool:
        for line in self._lines_through[cell]:
            if line & marks == line:
                return True
        return False

    def _negamax(self, me: Bitboard, opp: Bitboard, alpha: int, beta: int) -> int:
        """Exact score if it lies strictly inside ``(alpha, beta)``; else a bound beyond it."""
        self.nodes += 1
        occupied = me | opp
        empty = self._full & ~occupied
        if not empty:
            return 0
        marks = occupied.bit_count()
        wins = self._wins
        threats = []
        for cell in scan_forward(empty):
            bit = 1 << cell
            if wins(me | bit, cell):
                return WIN_SCORE - marks - 1
            if wins(opp | bit, cell):
                threats.append(cell)
        if len(threats) >= 2:
            return marks + 2 - WIN_SCORE
        # Bounds from the clock: no win before the third ply, no loss before the second.
        best_possible = WIN_SCORE - marks - 3
        if beta > best_possible:
            beta = best_possible
            if alpha >= beta:
                return beta
        key = self._key(me, opp)
        entry = self.table.get(key)
        if entry is not None:
            flag, stored = entry
            if flag == _EXACT:
                return stored
            if flag == _LOWER and stored >= beta:
                return stored
            if flag == _UPPER and stored <= alpha:
                return stored
        moves = threats if threats else self._ordered(me, opp, empty)
        original_alpha = alpha
        best = -WIN_SCORE
        for cell in moves:
            score = -self._negamax(opp, me | (1 << cell), -beta, -alpha)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        if best <= original_alpha:
            self.table[key] = (_UPPER, best)
        elif best >= beta:
            self.table[key] = (_LOWER, best)
        else:
            self.table[key] = (_EXACT, best)
        return best

    def _key(self, me: Bitboard, opp: Bitboard) -> tuple[Bitboard, Bitboard]:
        canon_me, canon_opp, _ = self.geometry.canonical(me, opp)
        return canon_me, canon_opp

    def _ordered(self, me: Bitboard, opp: Bitboard, empty: Bitboard) -> list[int]:
        """Moves by how many lines they keep alive for us or spoil for the opponent."""
        scored = []
        for cell in scan_forward(empty):
            value = 0
            for line in self._lines_through[cell]:
                if not line & opp:
                    value += 1 + (line & me).bit_count() * 2
                if not line & me:
                    value += 1 + (line & opp).bit_count()
            scored.append((-value, cell))
        scored.sort()
        return [cell for _, cell in scored]


_SOLVERS: dict[Geometry, Solver] = {}


def solver_for(geometry: Geometry) -> Solver:
    """The process-wide solver of ``geometry`` (its table is kept across calls)."""
    solver = _SOLVERS.get(geometry)
    if solver is None:
        solver = _SOLVERS[geometry] = Solver(geometry)
    return solver


def _require_solvable(position: Position) -> None:
    if not can_solve(position):
        raise TooLargeError(
            f"{position.variant} with {position.empty.bit_count()} empty cells is too large "
            f"to solve on the spot (limit {MAX_EMPTY_CELLS}); use the anytime search"
        )


def _sides(position: Position) -> tuple[Bitboard, Bitboard]:
    return (position.x, position.o) if position.to_move == "X" else (position.o, position.x)


def solve(position: Position) -> Value:
    """The exact value of ``position`` for the side to move.

    A finished game is a loss in 0 for the side to move (if someone won) or a draw.
    """
    marks = position.ply
    winner = position.winner
    if winner is not None:
        return Value(Outcome.LOSS, 0)
    if not position.empty:
        return Value(Outcome.DRAW, 0)
    _require_solvable(position)
    me, opp = _sides(position)
    score = solver_for(position.geometry).score(me, opp)
    return _to_value(score, marks, position.geometry.cells)


def _to_value(score: int, marks: int, cells: int) -> Value:
    if score > 0:
        return Value(Outcome.WIN, WIN_SCORE - score - marks)
    if score < 0:
        return Value(Outcome.LOSS, WIN_SCORE + score - marks)
    return Value(Outcome.DRAW, cells - marks)


def analyze(position: Position) -> list[MoveValue]:
    """Every legal move with its exact value for the player who makes it.

    >>> [str(m.value) for m in analyze(Position("XX./OO./..."))][:2]
    ['win in 1', 'draw']
    """
    if position.is_over:
        raise GameOverError("the game is over: there are no moves to analyze")
    _require_solvable(position)
    result = []
    for move in position.legal_moves:
        child = position.play(move)
        result.append(MoveValue(move, solve(child).negate_after_move()))
    return result


def best_move(position: Position) -> Choice:
    """A move of best value; among equals the one leaving the most losing replies.

    Remaining ties go to the lowest cell index, so the choice is deterministic.
    """
    solver = solver_for(position.geometry)
    start_nodes = solver.nodes
    start = time.perf_counter()
    moves = analyze(position)
    top = max(m.value.score for m in moves)
    best = [m for m in moves if m.value.score == top]
    if len(best) > 1:
        best.sort(key=lambda m: -_losing_replies(position.play(m.move)))
    chosen = best[0]
    return Choice(
        move=chosen.move,
        value=chosen.value,
        moves=tuple(moves),
        nodes=solver.nodes - start_nodes,
        elapsed_ms=(time.perf_counter() - start) * 1000,
    )


def _losing_replies(position: Position) -> int:
    """How many of the side to move's replies lose (the traps we set)."""
    if position.is_over:
        return 0
    return sum(1 for m in analyze(position) if m.value.outcome is Outcome.LOSS)

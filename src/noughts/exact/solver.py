"""Exact play: the value of a position, of every legal move, and the best move.

Values are the outcome for the side to move and the plies to the end, the winner
hurrying and the loser delaying (a draw ends when the board is full). 3x3 is answered
from its complete table (:mod:`noughts.exact.table3x3`); larger boards by negamax with
alpha-beta and a transposition table that lives across calls in the process
(:mod:`noughts.exact.negamax`), primed by a shipped opening book where there is one
(:mod:`noughts.exact.book`).

The best move is a move of best value; among equals, the one that leaves the opponent
the most losing replies (traps); then the lowest cell, or a seeded random pick.

>>> from noughts.position import Position
>>> solve(Position()).outcome
<Outcome.DRAW: 'draw'>
>>> str(solve(Position("XX./OO./...")))
'win in 1'
>>> best_move(Position("X../.O./..X")).move in (2, 6)  # a corner would lose
False
>>> best_move(Position("", "4x4k3")).value
Value(outcome=<Outcome.WIN: 'win'>, plies=5)
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TypeAlias

from noughts.errors import GameOverError, TooLargeError
from noughts.exact.table3x3 import Table3x3
from noughts.geometry import Bitboard, Geometry
from noughts.position import Position
from noughts.results import WIN_SCORE, MoveChoice, MoveEval, Outcome, Value
from noughts.runtime.lru import LRU
from noughts.variants import Variant, variant

if TYPE_CHECKING:
    from noughts.budget import Limit
    from noughts.exact.negamax import ExactSearch
    from noughts.search.core import Core

__all__ = [
    "Solver",
    "solver_for",
    "can_solve",
    "solve",
    "analyze",
    "best_move",
    "principal_variation",
    "MAX_EMPTY_CELLS",
    "MAX_EMPTY_CELLS_LARGE_BOARD",
    "MAX_EMPTY_CELLS_MISERE",
    "MAX_EMPTY_CELLS_MISERE_COMPILED",
    "MAX_KEPT_SOLVERS",
    "IDLE_TABLE_ENTRIES",
    "share_tables",
    "Budget",
]

Budget: TypeAlias = "tuple[Limit, int] | None"
"""The searches of one answer bound together: a limit and the node count its node limit
counts from (:meth:`Solver.budget`), or ``None`` for no limit."""

MAX_EMPTY_CELLS = 20
"""Boards with more empty cells than this are not solved on the spot (3x3x3 excepted)."""

MAX_EMPTY_CELLS_LARGE_BOARD = 18
"""The limit on boards of more than :data:`MAX_EMPTY_CELLS` cells, where quiet middle
games with 20 empty cells took 20 s of CPU (5x5k4) and 18 take well under a second."""

MAX_EMPTY_CELLS_MISERE = 12
"""The limit in misère games on the Python core, where few lines are ever completed and
games run long: the worst of a handful of random positions took 3 s with 15 empty cells
(4x4 misère), 2 s with 14 and a quarter of a second with 12."""

MAX_EMPTY_CELLS_MISERE_COMPILED = 16
"""The limit in misère games where the exact search runs on the compiled core: a best
move with 16 empty cells takes at most half a second there (4x4 misère from the empty
board 42 ms, 5x5k4 misère 0.27 s, 5x4k4 misère 0.51 s); with 17, two seconds."""



def can_solve(position: Position) -> bool:
    """True if the exact solver finishes ``position`` on the spot.

    That is: a 3x3x3 (or smaller) cube, or at most :data:`MAX_EMPTY_CELLS` empty cells
    (:data:`MAX_EMPTY_CELLS_LARGE_BOARD` on boards with more cells than that, and
    :data:`MAX_EMPTY_CELLS_MISERE` in misère games, cubes included, or
    :data:`MAX_EMPTY_CELLS_MISERE_COMPILED` where the compiled core runs the search).

    >>> can_solve(Position("", "4x4")), can_solve(Position("", "5x5k4"))
    (True, False)
    >>> can_solve(Position("", "3x3-misere")), can_solve(Position("", "5x4k4-misere"))
    (True, False)
    """
    empty = position.empty.bit_count()
    game = position.game
    if game.dims == 3 and game.shape[0] <= 3 and game.rules.threat_search:
        return True
    return empty <= _empty_limit(game, empty)


def _empty_limit(game: Variant, empty: int) -> int:
    """The most empty cells solved on the spot on ``game`` (``empty``: the position's;
    up to the Python core's misère limit the compiled core is not even asked about)."""
    if game.rules.misere:
        if empty > MAX_EMPTY_CELLS_MISERE:
            from noughts.search.core import exact_compiled

            if exact_compiled(game.geometry):
                return MAX_EMPTY_CELLS_MISERE_COMPILED
        return MAX_EMPTY_CELLS_MISERE
    if game.cells <= MAX_EMPTY_CELLS:
        return MAX_EMPTY_CELLS
    return MAX_EMPTY_CELLS_LARGE_BOARD


_VALUES: dict[tuple[Outcome, int], Value] = {}


def _value(outcome: Outcome, plies: int) -> Value:
    value = _VALUES.get((outcome, plies))
    if value is None:
        value = _VALUES[outcome, plies] = Value(outcome, plies)
    return value


def to_value(score: int, marks: int, cells: int) -> Value:
    """The :class:`Value` of an absolute ``score`` seen with ``marks`` marks on the board.

    >>> to_value(WIN_SCORE - 5, 4, 9), to_value(0, 4, 9)
    (Value(outcome=<Outcome.WIN: 'win'>, plies=1), Value(outcome=<Outcome.DRAW: 'draw'>, plies=5))
    """
    if score > 0:
        return _value(Outcome.WIN, WIN_SCORE - score - marks)
    if score < 0:
        return _value(Outcome.LOSS, WIN_SCORE + score - marks)
    return _value(Outcome.DRAW, cells - marks)


class Solver:
    """Exact values on one geometry: the 3x3 table or a search with a lasting table.

    ``use_book=False`` gives a search that starts from nothing (to measure the solver);
    ``table_share`` bounds its transposition table to that share of the search's usual
    bound; ``core`` asks for a search core (``"python"`` or ``"compiled"``; by default
    the one :mod:`noughts.search.core` picks).
    All methods take ``(me, opp)`` bitboards of an unfinished position, ``me`` to move.
    """

    def __init__(
        self,
        game: Variant | Geometry,
        *,
        use_book: bool = True,
        table_share: float = 1.0,
        core: Core | None = None,
    ) -> None:
        self.game = variant(game)
        self.geometry = geometry = self.game.geometry
        self.cells = geometry.cells
        self.table3x3 = Table3x3.get() if self.game.table3x3 and use_book else None
        self._use_book = use_book
        self._table_share = table_share
        self._core = core
        self._search = None if self.table3x3 is not None else self._new_search()

    @property
    def search(self) -> ExactSearch:
        """The negamax search and its lasting table. With the 3x3 table it is made on
        first use: the table answers a move without one, so ``noughts move`` on 3x3 never
        imports it."""
        if self._search is None:
            self._search = self._new_search()
        return self._search

    def _new_search(self) -> ExactSearch:
        from noughts.exact.book import load_book
        from noughts.exact.misere import MisereSearch
        from noughts.exact.negamax import DEFAULT_MAX_ENTRIES, ExactSearch

        kind = MisereSearch if self.game.rules.misere else ExactSearch
        book = load_book(self.game) if self._use_book else None
        max_entries = int(DEFAULT_MAX_ENTRIES * self._table_share)
        return kind(self.game, book=book, max_entries=max_entries, core=self._core)

    @property
    def table_entries(self) -> int:
        """Entries in the search's transposition table (none before it is made)."""
        return 0 if self._search is None else len(self._search.table)

    @property
    def nodes(self) -> int:
        """Nodes searched so far (table and book answers cost none)."""
        return 0 if self._search is None else self._search.nodes

    def budget(self, limit: Limit | None) -> Budget:
        """``limit`` for the searches of one answer: its node limit counts the nodes
        searched from now (``None``: no limit)."""
        return None if limit is None else (limit, self.nodes)

    def score(self, me: Bitboard, opp: Bitboard, budget: Budget = None) -> int:
        """Exact absolute score of an unfinished position for the side to move (within
        ``budget``: a limit and the node count its node limit counts from)."""
        if self.table3x3 is not None:
            return self.table3x3.score(me, opp)
        known = self.search.book_entry(me, opp)
        if known is not None:
            return known[0]
        return self.search.value(me, opp, *budget or (None, None))

    def wins(self, me: Bitboard, opp: Bitboard, budget: Budget = None) -> bool:
        """True if the side to move wins an unfinished position with best play."""
        if self.table3x3 is not None:
            return self.table3x3.score(me, opp) > 0
        known = self.search.book_entry(me, opp)
        if known is not None:
            return known[0] > 0
        return self.search.wins(me, opp, *budget or (None, None))

    def move_score(self, me: Bitboard, opp: Bitboard, cell: int, budget: Budget = None) -> int:
        """Absolute score of playing ``cell``, from the view of the player who plays it."""
        if self.search.completes_line(me, cell):
            return self.search.line_score((me | opp).bit_count())
        mine = me | 1 << cell
        if (mine | opp) == self.geometry.full:
            return 0
        return -self.score(opp, mine, budget)

    def move_scores(self, me: Bitboard, opp: Bitboard, budget: Budget = None
                    ) -> list[tuple[int, int]]:
        """``(cell, score)`` for every legal move, lowest cell first."""
        if self.table3x3 is not None:
            return self.table3x3.move_scores(me, opp)
        empty = self.geometry.full & ~(me | opp)
        result = []
        while empty:
            bit = empty & -empty
            empty ^= bit
            cell = bit.bit_length() - 1
            result.append((cell, self.move_score(me, opp, cell, budget)))
        return result

    def losing_replies(self, me: Bitboard, opp: Bitboard, cell: int, budget: Budget = None
                       ) -> int:
        """After ``me`` plays ``cell``: how many of the opponent's replies lose."""
        if self.table3x3 is not None:
            return self.table3x3.losing_replies(me, opp, cell)
        mine = me | 1 << cell
        if self.search.completes_line(me, cell):
            return 0
        known = self.search.book_entry(opp, mine)
        if known is not None:
            return known[1]
        full = self.geometry.full
        empty = full & ~(mine | opp)
        count = 0
        while empty:
            bit = empty & -empty
            empty ^= bit
            reply = bit.bit_length() - 1
            theirs = opp | bit
            if self.search.completes_line(opp, reply):
                count += not self.search.completion_wins  # a line that loses (misère)
                continue
            if theirs | mine == full:
                continue
            if self.wins(mine, theirs, budget):
                count += 1
        return count

    def choose(
        self, me: Bitboard, opp: Bitboard, seed: int | None = None, budget: Budget = None
    ) -> tuple[int, int, list[tuple[int, int]], int]:
        """The best move: ``(move, its score, every (cell, score), its trap count)``."""
        scores = self.move_scores(me, opp, budget)
        top = max(score for _, score in scores)
        best = [cell for cell, score in scores if score == top]
        traps = 0
        if len(best) > 1:
            counts = [self.losing_replies(me, opp, cell, budget) for cell in best]
            traps = max(counts)
            best = [cell for cell, count in zip(best, counts, strict=True) if count == traps]
        if seed is None or len(best) == 1:
            move = best[0]
        else:
            import random

            move = random.Random(seed).choice(best)
        return move, top, scores, traps

    def principal_variation(self, me: Bitboard, opp: Bitboard, first: int,
                            budget: Budget = None) -> list[int]:
        """Best play from ``first`` (a best move of the side to move) to the game's end."""
        if self.table3x3 is not None:
            return self.table3x3.principal_variation(me, opp, first)
        full = self.geometry.full
        line = [first]
        target = self.move_score(me, opp, first, budget)
        while True:
            if self.search.completes_line(me, line[-1]):
                return line
            me, opp = opp, me | 1 << line[-1]
            if me | opp == full:
                return line
            target = -target
            line.append(self._move_keeping(me, opp, target, budget))

    def _move_keeping(self, me: Bitboard, opp: Bitboard, target: int, budget: Budget) -> int:
        """A move whose score is ``target`` (the position's exact score)."""
        stored = self.search.best_stored_move(me, opp)
        empty = self.geometry.full & ~(me | opp)
        cells = [stored] if stored is not None and empty >> stored & 1 else []
        cells += [c for c in range(self.cells) if empty >> c & 1 and c != stored]
        for cell in cells:
            if self.search.completes_line(me, cell):
                if self.search.line_score((me | opp).bit_count()) == target:
                    return cell
                continue
            mine = me | 1 << cell
            if mine | opp == self.geometry.full:
                if target == 0:
                    return cell
                continue
            if self.table3x3 is not None:
                if -self.table3x3.score(opp, mine) == target:
                    return cell
            elif -self.search.search(opp, mine, -target - 1, -target + 1,
                                     *budget or (None, None)) == target:
                return cell
        raise AssertionError("no move keeps the position's value")  # pragma: no cover


MAX_KEPT_SOLVERS = 4
"""Solvers kept for later calls (least recently used first out)."""

IDLE_TABLE_ENTRIES = 750_000
"""The table entries the kept solvers other than the one in use may hold together (about
75 MB): half of what the one in use may hold, ``negamax.DEFAULT_MAX_ENTRIES`` (about
150 MB)."""

_SOLVERS: LRU[str, Solver] = LRU(MAX_KEPT_SOLVERS)
_table_share = 1.0


def share_tables(fraction: float) -> None:
    """Bound this process's solver tables to ``fraction`` of the usual bounds (the one in
    use, the idle ones together): for one of several processes that share one memory
    bound (the service's search workers). Solvers made before keep their bound.

    >>> from noughts.exact.negamax import DEFAULT_MAX_ENTRIES
    >>> from noughts.variants import variant
    >>> share_tables(0.5)
    >>> solver_for(variant("2x7k3")).search.max_entries == DEFAULT_MAX_ENTRIES // 2
    True
    >>> share_tables(1.0)
    """
    global _table_share
    _table_share = fraction


def solver_for(game: Variant | Geometry) -> Solver:
    """The process-wide solver of ``game`` (its table is kept across calls; a
    :class:`Geometry` stands for its normal-play game).

    At most :data:`MAX_KEPT_SOLVERS` are kept, and the others' tables together hold at
    most :data:`IDLE_TABLE_ENTRIES`: older solvers are dropped to stay within both.

    >>> from noughts.variants import variant
    >>> solver_for(variant("3x3")) is solver_for(variant("tictactoe"))
    True
    """
    if type(game) is not Variant:
        game = variant(game)
    name = game.name
    share = _table_share
    solver = _SOLVERS.get_or_make(name, lambda: Solver(game, table_share=share))
    idle_bound = IDLE_TABLE_ENTRIES * _table_share
    while _idle_entries(solver) > idle_bound and _SOLVERS.evict_oldest(keep=name):
        pass
    return solver


def _idle_entries(in_use: Solver) -> int:
    return sum(s.table_entries for s in _SOLVERS.values() if s is not in_use)


def _require_solvable(position: Position) -> None:
    if not can_solve(position):
        limit = _empty_limit(position.game, position.empty.bit_count())
        raise TooLargeError(
            f"{position.variant} with {position.empty.bit_count()} empty cells is too large "
            f"to solve on the spot (limit {limit} empty cells); "
            "use the anytime search (noughts.search.anytime) or choose_move, which does"
        )


def _require_unfinished(position: Position, what: str) -> None:
    if position.is_over:
        raise GameOverError(f"the game is over: there are no moves to {what}")


def _sides(position: Position) -> tuple[Bitboard, Bitboard]:
    return (position.x, position.o) if position.to_move == "X" else (position.o, position.x)


def solve(position: Position, *, limit: Limit | None = None) -> Value:
    """The exact value of ``position`` for the side to move.

    A finished game is a loss in 0 for the side to move (if someone won) or a draw in 0.

    >>> solve(Position("XXX/OO./..."))
    Value(outcome=<Outcome.LOSS: 'loss'>, plies=0)
    """
    winner = position.winner
    if winner is not None:
        return _value(Outcome.WIN if winner == position.to_move else Outcome.LOSS, 0)
    if not position.empty:
        return _value(Outcome.DRAW, 0)
    _require_solvable(position)
    me, opp = _sides(position)
    solver = solver_for(position.game)
    score = solver.score(me, opp, solver.budget(limit))
    return to_value(score, position.ply, position.geometry.cells)


def analyze(position: Position, *, limit: Limit | None = None) -> list[MoveEval]:
    """Every legal move with its exact value for the player who makes it, lowest cell first.

    >>> [str(m.value) for m in analyze(Position("XX./OO./..."))][:2]
    ['win in 1', 'draw']
    """
    _require_unfinished(position, "analyze")
    _require_solvable(position)
    me, opp = _sides(position)
    marks, cells = position.ply, position.geometry.cells
    solver = solver_for(position.game)
    scores = solver.move_scores(me, opp, solver.budget(limit))
    game = position.game
    return [MoveEval(cell, game, to_value(score, marks, cells)) for cell, score in scores]


_ANSWERS_3X3: dict[int, MoveChoice] = {}


def best_move(
    position: Position, *, seed: int | None = None, pv: bool = True, limit: Limit | None = None
) -> MoveChoice:
    """A move of best value; among equals the one leaving the most losing replies.

    Remaining ties go to the lowest cell, or, given a ``seed``, to a seeded random pick
    among them. ``pv=False`` skips the principal variation (``pv`` is the move). The
    search polls ``limit`` (its deadline, its node limit counted from the call, its
    cancel switch) and raises :class:`~noughts.budget.BudgetExhausted` when it runs out
    (as :func:`solve` and :func:`analyze` do).

    >>> best_move(Position("", "4x4k3")).pv[:1]
    (5,)
    """
    start = time.perf_counter()
    solver = solver_for(position.game)
    table = solver.table3x3
    if table is not None:  # the fast path: one memoised answer per position
        me, opp = _sides(position)
        word = me | opp << 9
        answer = _ANSWERS_3X3.get(word) if seed is None else None
        if answer is None:
            if not table.is_unfinished(me, opp):
                _require_unfinished(position, "choose from")
            answer = _answer_3x3(solver, me, opp, seed)
            if seed is None:
                _ANSWERS_3X3[word] = answer
        return answer._replace(elapsed_ms=(time.perf_counter() - start) * 1000)
    _require_unfinished(position, "choose from")
    _require_solvable(position)
    start_nodes = solver.nodes
    me, opp = _sides(position)
    budget = solver.budget(limit)
    move, score, scores, traps = solver.choose(me, opp, seed, budget)
    line = tuple(solver.principal_variation(me, opp, move, budget)) if pv else (move,)
    choice = _choice(position.game, move, score, scores, position.ply, line, traps, 0)
    elapsed_ms = (time.perf_counter() - start) * 1000
    return choice._replace(nodes=solver.nodes - start_nodes, elapsed_ms=elapsed_ms)


def _choice(
    game: Variant,
    move: int,
    score: int,
    scores: list[tuple[int, int]],
    marks: int,
    line: tuple[int, ...],
    traps: int,
    nodes: int,
) -> MoveChoice:
    value = to_value(score, marks, game.cells)
    known = _MOVE_EVALS.get
    return MoveChoice(
        move=move,
        game=game,
        value=value,
        estimate=None,
        depth=value.plies,
        pv=line,
        nodes=nodes,
        elapsed_ms=0.0,
        method="exact",
        traps=traps,
        moves=tuple(
            known((game, cell, s, marks)) or _shared_eval(game, cell, s, marks)
            for cell, s in scores
        ),
    )


def _answer_3x3(solver: Solver, me: Bitboard, opp: Bitboard, seed: int | None) -> MoveChoice:
    """The 3x3 answer of an unfinished position."""
    marks = (me | opp).bit_count()
    move, score, scores, traps = solver.choose(me, opp, seed)
    line = tuple(solver.principal_variation(me, opp, move))
    return _choice(solver.game, move, score, scores, marks, line, traps, 0)


_MOVE_EVALS: dict[tuple[Variant, int, int, int], MoveEval] = {}


def _shared_eval(game: Variant, cell: int, score: int, marks: int) -> MoveEval:
    """The shared :class:`MoveEval` of a move of absolute ``score`` after ``marks`` marks."""
    evaluation = MoveEval(cell, game, to_value(score, marks, game.cells))
    if game.cells <= 9:
        _MOVE_EVALS[game, cell, score, marks] = evaluation
    return evaluation


def principal_variation(position: Position) -> tuple[int, ...]:
    """Best play from ``position`` to the end of the game (the best move first).

    >>> principal_variation(Position("XX./OO./..."))
    (2,)
    """
    return best_move(position).pv

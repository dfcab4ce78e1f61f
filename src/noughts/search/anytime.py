"""Anytime play for boards too large to solve on the spot (Qubic, big m x n boards).

:func:`anytime_move` answers within a time and/or node budget: rules first (win now,
block the opponent's only threat), then the opening table, a forced win by continuous
threats (:mod:`noughts.search.threats`), iterative deepening of the principal-variation
search (:mod:`noughts.search.pvs`) and, with the last part of the budget, a check that
the chosen move leaves the opponent no forced win by continuous threats.
:func:`anytime_evaluate` values every legal move. Proven values are exact.

>>> from noughts.position import Position
>>> result = anytime_move(Position("XXX./OOO./..../....|" + "|".join(["..../..../..../...."] * 3),
...                                 "qubic"), time_limit=0.2)
>>> result.move, result.proven, result.outcome, result.plies, result.method
(3, True, 'win', 1, 'anytime')
"""

from __future__ import annotations

import functools
import gc
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from noughts.anytime.proof import CHAIN_NODES, find_win
from noughts.anytime.strategy import strategy_move
from noughts.engine import MoveEval, MoveResult
from noughts.errors import GameOverError, NoughtsError
from noughts.position import Position
from noughts.search.evaluate import Style
from noughts.search.openings import book_move
from noughts.search.pvs import INF, MATE, MATE_BOUND, AnytimeSearch, Stop
from noughts.search.threats import ThreatSearch
from noughts.values import Outcome, Value

__all__ = [
    "anytime_move",
    "anytime_evaluate",
    "AnytimeSearch",
    "DEFAULT_TIME_LIMIT",
    "MATE",
    "MATE_BOUND",
]

DEFAULT_TIME_LIMIT = 1.0
"""Seconds a move when neither a time limit nor a node budget is given."""

_SAFETY = 0.03
_SAFETY_SHARE = 0.05
"""Kept back from the time budget for unwinding and building the result: the larger of
``_SAFETY`` seconds and ``_SAFETY_SHARE`` of the budget (a busy machine wakes us late)."""


# -- results ---------------------------------------------------------------------------------
def _proven(score: int, root_marks: int) -> Value | None:
    """The exact value (for the root's side to move) a mate score proves, if it is one."""
    if score >= MATE_BOUND:
        return Value(Outcome.WIN, MATE - score - root_marks)
    if score <= -MATE_BOUND:
        return Value(Outcome.LOSS, MATE + score - root_marks)
    return None


def _result(
    position: Position,
    move: int,
    *,
    value: Value | None,
    score: int | None,
    depth: int,
    pv: tuple[int, ...],
    nodes: int,
    start: float,
    moves: tuple[MoveEval, ...] = (),
) -> MoveResult:
    coords = position.geometry.coords(move)
    if value is not None:
        return MoveResult(
            move=move, coords=coords, proven=True, outcome=value.outcome.value,
            plies=value.plies, score=float(value.score), depth=depth, pv=pv or (move,),
            nodes=nodes, elapsed_ms=(time.perf_counter() - start) * 1000, method="anytime",
            moves=moves,
        )
    return MoveResult(
        move=move, coords=coords, proven=False, outcome=None, plies=None,
        score=None if score is None else float(score), depth=depth, pv=pv or (move,),
        nodes=nodes, elapsed_ms=(time.perf_counter() - start) * 1000, method="anytime",
        moves=moves,
    )


def _budget(
    time_limit: float | None, nodes: int | None, start: float
) -> tuple[float | None, int | None]:
    if time_limit is not None and (
        isinstance(time_limit, bool) or not isinstance(time_limit, int | float) or time_limit <= 0
    ):
        raise NoughtsError(f"time limit must be a positive number of seconds, not {time_limit!r}")
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or nodes <= 0):
        raise NoughtsError(f"node budget must be a positive integer, not {nodes!r}")
    if time_limit is None and nodes is None:
        time_limit = DEFAULT_TIME_LIMIT
    if time_limit is None:
        return None, nodes
    margin = max(_SAFETY, time_limit * _SAFETY_SHARE)  # the scheduler may be late to wake us
    deadline = start + max(time_limit - margin, time_limit / 2)
    return deadline, nodes


def _check_playable(position: Position) -> None:
    if position.is_over:
        winner = position.winner
        reason = f"{winner} has won" if winner else "the board is full"
        raise GameOverError(f"the game is over: {reason}")


_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Keep the cyclic garbage collector from pausing a timed search (its table holds
    hundreds of thousands of objects; the search makes no reference cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _timed(function: Callable[_P, _R]) -> Callable[_P, _R]:
    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _no_gc_pauses():
            return function(*args, **kwargs)

    return wrapper


@_timed
def anytime_move(
    position: Position,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
    style: Style = "strong",
) -> MoveResult:
    """The anytime engine's move: proven where it can prove, else its best heuristic try.

    ``time_limit`` (seconds, default 1 s when ``nodes`` is not given either) and
    ``nodes`` bound the search; the move comes back within the time limit plus a few
    milliseconds. ``seed`` makes the opening choice reproducible. ``style`` picks the
    evaluation (see :mod:`noughts.search.evaluate`).
    """
    start = time.perf_counter()
    _check_playable(position)
    deadline, node_limit = _budget(time_limit, nodes, start)
    search = AnytimeSearch(position, style=style, deadline=deadline, node_limit=node_limit)
    board = search.board
    side = board.stm
    mine, theirs = board.threats[side], board.threats[1 - side]
    if mine:
        move = min(mine)
        return _result(position, move, value=Value(Outcome.WIN, 1), score=None, depth=1,
                       pv=(move,), nodes=0, start=start)
    known = strategy_move(position)
    if known is not None:  # the shipped strategy's proven move
        return _result(position, known.move, value=Value(Outcome.WIN, known.plies),
                       score=None, depth=known.plies, pv=(known.move,), nodes=0, start=start)
    if len(theirs) >= 2:
        first, second = sorted(theirs)[:2]
        return _result(position, first, value=Value(Outcome.LOSS, 2), score=None, depth=2,
                       pv=(first, second), nodes=0, start=start)
    if theirs:
        moves = [next(iter(theirs))]  # the block is forced; search it only to value it
    else:
        book = book_move(position, random.Random(seed))
        if book is not None:
            return _result(position, book, value=None, score=None, depth=0, pv=(book,),
                           nodes=0, start=start)
        line = _forced_win(search, deadline, node_limit, start)
        if line is not None:
            return _result(position, line[0], value=Value(Outcome.WIN, len(line)), score=None,
                           depth=len(line), pv=tuple(line), nodes=search.nodes, start=start)
        win = _proof_win(position, search, deadline, node_limit, start)
        if win is not None:
            move, plies = win
            return _result(position, move, value=Value(Outcome.WIN, plies), score=None,
                           depth=plies, pv=(move,), nodes=search.nodes, start=start)
        moves = search.ordered_moves(-1, 0)
    # Deepen until _SEARCH_SHARE of the budget. Once an iteration of _SCREEN_DEPTH plies is done,
    # the root moves are screened, best first, for the opponent's forced wins by
    # continuous threats until one passes (the losing ones are dropped from the
    # search); the last part of the budget checks the final choice the same way.
    search.deadline = _share(start, deadline, _SEARCH_SHARE)
    search.node_limit = None if node_limit is None else max(int(node_limit * _SEARCH_SHARE), 1)
    guard = _Guard(search, node_limit)
    root_moves = len(moves)
    best_move, best_score, depth_done = moves[0], None, 0
    scores: dict[int, int] = {}
    for depth in range(1, board.empty.bit_count() + 1):
        try:
            score, move, scores = search.root(depth, moves)
        except Stop:
            break
        best_move, best_score, depth_done = move, score, depth
        moves.sort(key=lambda m: -scores[m])
        if abs(score) >= MATE_BOUND or (len(moves) == 1 and depth >= 4):
            break
        if depth == _SCREEN_DEPTH and len(moves) > 1 and not theirs:
            guard.screen(moves, _share(start, deadline, _SCREEN_SHARE))
            if guard.safe:  # the refuted moves need no deeper search
                moves[:] = [m for m in moves if m not in guard.refuted]
                if best_move in guard.refuted:
                    best_move, best_score = _best_safe(moves, guard.safe, scores)
    value = None if best_score is None else _proven(best_score, search.root_marks)
    if value is None and len(moves) > 1 and not theirs:
        if best_move not in guard.safe:
            guard.check(best_move, deadline)
        while best_move in guard.refuted and not guard.safe:  # look for a safe move
            unchecked = [m for m in moves if m not in guard.refuted]
            if not unchecked or not guard.check(unchecked[0], deadline):
                break
        if best_move in guard.refuted:
            if guard.safe:
                best_move, best_score = _best_safe(moves, guard.safe, scores)
            elif len(guard.refuted) == root_moves:
                slowest = max(guard.refuted, key=lambda c: guard.refuted[c])
                best_move, best_score = slowest, None
                value = Value(Outcome.LOSS, guard.refuted[slowest])
    # big boards search the cells near the marks only (a forced block excepted)
    partial = not theirs and root_moves < len(position.legal_moves)
    if value is not None and value.outcome is Outcome.LOSS and partial:
        value = None  # a far move was not searched: no proof of a loss
    pv = search.principal_variation(best_move, max(depth_done, 1))
    return _result(position, best_move, value=value, score=best_score, depth=depth_done,
                   pv=pv, nodes=search.nodes, start=start)


def _share(start: float, deadline: float | None, fraction: float) -> float | None:
    return None if deadline is None else start + (deadline - start) * fraction


_SEARCH_SHARE = 0.93
"""The deepening stops at this share of the budget; the rest checks the final choice
(a check usually takes a few milliseconds: the screening has done most of the work)."""
_SCREEN_DEPTH = 4
"""The iteration after which the root moves are screened for the opponent's forced wins."""
_SCREEN_SHARE = 0.6
"""The screening after that iteration stops at this share of the budget."""
_REFUTE_THREATS = 12
"""How many forcing moves the opponent's chains may have in the screening."""


def _best_safe(moves: list[int], safe: set[int], scores: dict[int, int]) -> tuple[int, int | None]:
    """The best-scored move that passed the screening."""
    move = next(m for m in moves if m in safe)
    return move, scores.get(move)


class _Guard:
    """Defend in time: which root moves leave the opponent a forced win by continuous
    threats (``refuted``: move -> plies to the loss) and which do not (``safe``). One
    threat search serves every check, so its table of failed positions is shared."""

    def __init__(self, search: AnytimeSearch, node_limit: int | None) -> None:
        self.search = search
        self.node_limit = node_limit
        self.threats = ThreatSearch(search.board)
        self.safe: set[int] = set()
        self.refuted: dict[int, int] = {}

    def screen(self, moves: list[int], deadline: float | None) -> None:
        """Check each of ``moves`` not checked yet, in order, until the budget
        (``deadline``; the search's node budget) runs out."""
        for cell in moves:
            if cell not in self.safe and cell not in self.refuted and not self.check(
                cell, deadline
            ):
                return

    def check(self, cell: int, deadline: float | None) -> bool:
        """Check one move; ``False`` when the budget ran out first."""
        search = self.search
        board = search.board
        threats = self.threats
        remaining = None if self.node_limit is None else self.node_limit - search.nodes
        if remaining is not None and remaining <= 0:
            return False
        if deadline is not None and time.perf_counter() >= deadline:
            return False  # (a check that ends within 128 nodes never looks at the clock)
        threats.deadline = deadline
        threats.node_limit = None if remaining is None else threats.nodes + remaining
        before = threats.nodes
        board.play(cell)
        try:
            line = threats.refute(_REFUTE_THREATS)
        finally:
            board.undo(cell)
        search.nodes += threats.nodes - before
        if line is not None:
            self.refuted[cell] = len(line) + 1
            return True
        if threats.exhausted():
            return False
        self.safe.add(cell)
        return True


def _forced_win(
    search: AnytimeSearch, deadline: float | None, node_limit: int | None, start: float
) -> list[int] | None:
    """A continuous-threat win for the side to move, spending at most a quarter of the
    budget."""
    threat_deadline = None if deadline is None else start + (deadline - start) / 4
    threat_nodes = None if node_limit is None else max(node_limit // 4, 1)
    threats = ThreatSearch(search.board, deadline=threat_deadline, node_limit=threat_nodes)
    line = threats.find()
    if line is None and not threats.exhausted():
        # a long chain the deepening did not reach: the depth-first try the strategy
        # builder calls a leaf with (see noughts.anytime.strategy_build)
        threats.node_limit = threats.nodes + CHAIN_NODES
        line = threats.refute()
    search.nodes += threats.nodes
    return line


_PROOF_SHARE = 0.1
"""The share of the budget the proof-number search gets to prove a win by quiet moves
(after the threat search found none)."""


def _proof_win(
    position: Position, search: AnytimeSearch, deadline: float | None, node_limit: int | None,
    start: float,
) -> tuple[int, int] | None:
    """A proven win for the side to move that needs quiet moves, within a share of the
    budget."""
    now = time.perf_counter()
    proof_deadline = None if deadline is None else now + (deadline - start) * _PROOF_SHARE
    proof_nodes = None if node_limit is None else max(int(node_limit * _PROOF_SHARE), 1)
    if proof_deadline is None and proof_nodes is None:
        return None
    return find_win(position, deadline=proof_deadline, nodes=proof_nodes)


@_timed
def anytime_evaluate(
    position: Position,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    style: Style = "strong",
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it, proven or heuristic.

    Each move gets a full-window search, deepened one ply at a time over all moves
    until the budget runs out (so the values of one call come from at most two depths).

    >>> from noughts.position import Position
    >>> evals = anytime_evaluate(Position("XXX.OOO." + "." * 56, "qubic"), time_limit=0.2)
    >>> [(e.move, e.outcome, e.plies) for e in evals if e.proven][:3]
    [(3, 'win', 1), (8, 'loss', 2), (9, 'loss', 2)]
    """
    start = time.perf_counter()
    _check_playable(position)
    deadline, node_limit = _budget(time_limit, nodes, start)
    search = AnytimeSearch(position, style=style, deadline=deadline, node_limit=node_limit)
    board = search.board
    side = board.stm
    marks = board.marks
    values: dict[int, Value | int] = {}
    for cell in (board.threats[side]):
        values[cell] = Value(Outcome.WIN, 1)
    blocks = board.threats[1 - side]
    pending: list[int] = []
    static: dict[int, int] = {}
    for cell in position.legal_moves:
        if cell in values:
            continue
        if blocks and (len(blocks) >= 2 or cell not in blocks):
            values[cell] = Value(Outcome.LOSS, 2)  # the opponent wins next move
            continue
        board.play(cell)
        values[cell] = static[cell] = -board.evaluation()
        board.undo(cell)
        pending.append(cell)
    pending.sort(key=lambda c: -static[c])
    try:
        for depth in range(1, board.empty.bit_count()):
            for cell in list(pending):
                board.play(cell)
                try:
                    score = -search.negamax(depth - 1, -INF, INF, 1)
                finally:
                    board.undo(cell)
                proven = _proven(score, marks)
                values[cell] = proven if proven is not None else score
                if proven is not None:
                    pending.remove(cell)
            if not pending:
                break
    except Stop:
        pass
    geometry = position.geometry
    result = []
    for cell in position.legal_moves:
        value = values[cell]
        if isinstance(value, Value):
            result.append(MoveEval(move=cell, coords=geometry.coords(cell), proven=True,
                                   outcome=value.outcome.value, plies=value.plies,
                                   score=float(value.score)))
        else:
            result.append(MoveEval(move=cell, coords=geometry.coords(cell), proven=False,
                                   score=float(value)))
    return result

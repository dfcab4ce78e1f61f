"""Anytime search for boards too large to solve on the spot (Qubic, big m x n boards).

Iterative deepening principal-variation search (negamax, alpha-beta) under a time
and/or node budget. A transposition table keyed by Zobrist hashes (canonical over the
board's symmetries near the root, plain deeper, where symmetric transpositions are
rare and the canonical key costs more than it saves), move ordering by table move,
killers, history and threats, forced replies searched without spending depth, and a
quiescence of threat moves at the leaves, so forks and continuous-threat wins show up.
Rules come first: win now, block the opponent's immediate win, play the opening table,
play a forced win found by the threat-space search.

Scores are absolute like the solver's: a win for the side to move that ends the game
with ``N`` marks on the board scores ``MATE - N``, so a score beyond ``MATE_BOUND`` is
a proof, whatever the depth of the search that found it.

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

from noughts.engine import MoveEval, MoveResult
from noughts.errors import GameOverError, NoughtsError
from noughts.position import Position
from noughts.search.board import SearchBoard
from noughts.search.evaluate import Style, line_weights
from noughts.search.openings import book_move
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

MATE = 1 << 50
MATE_BOUND = MATE - 100_000
"""Scores beyond this are proven wins (losses below its negative)."""

_INF = MATE + 1
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CANONICAL_PLIES = 1
"""Nodes this close to the root use the canonical (symmetry-reduced) table key."""
_QUIESCENCE_PLIES = 0
"""Threat moves a leaf may still try (each forces a reply that costs nothing)."""
_SAFETY = 0.03
_SAFETY_SHARE = 0.05
"""Kept back from the time budget for unwinding and building the result: the larger of
``_SAFETY`` seconds and ``_SAFETY_SHARE`` of the budget (a busy machine wakes us late)."""
_MAX_TABLE = 400_000
_KILLER_BONUS = 1 << 40
_PROBE_THREATS = 0
"""Threats a frontier node may chain looking for a forced win (0: no probe)."""
_LMR = True
_LMR_AFTER = 4
"""Moves after this many are searched one ply shallower first (late move reduction)."""


class _Stop(Exception):
    """The budget ran out: unwind to the root."""


class AnytimeSearch:
    """One search over ``position`` with its own table; see :func:`anytime_move`."""

    def __init__(
        self,
        position: Position,
        *,
        style: Style = "strong",
        deadline: float | None = None,
        node_limit: int | None = None,
    ) -> None:
        self.position = position
        self.player = 0 if position.to_move == "X" else 1
        self.board = SearchBoard(position, line_weights(position.geometry.k, style), self.player)
        self.tables = self.board.tables
        self.deadline = deadline
        self.node_limit = node_limit
        self.nodes = 0
        self.next_check = 256
        self.table: dict[int, tuple[int, int, int, int]] = {}
        cells = position.geometry.cells
        self.history = [0] * cells
        self.killers = [[-1, -1] for _ in range(cells + 2)]
        self.cell_weight = [len(t) for t in self.tables.through]
        self.root_marks = self.board.marks
        self.restricted = bool(self.tables.near)
        self.threats = ThreatSearch(self.board)

    # -- budget ---------------------------------------------------------------------------
    def out_of_budget(self) -> bool:
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def _tick(self) -> None:
        if self.out_of_budget():
            raise _Stop

    # -- move generation -------------------------------------------------------------------
    def candidates(self) -> int:
        """Cells worth searching: every empty cell, or near the marks on big boards."""
        board = self.board
        if not self.restricted or not board.occupied:
            return board.empty if board.occupied else self._opening_cells()
        near = self.tables.near
        mask = 0
        occupied = board.occupied
        while occupied:
            low = occupied & -occupied
            mask |= near[low.bit_length() - 1]
            occupied ^= low
        return mask & board.empty

    def _opening_cells(self) -> int:
        if not self.restricted:
            return self.board.empty
        weights = self.cell_weight
        top = max(weights)
        return sum(1 << c for c, w in enumerate(weights) if w == top)

    def ordered_moves(self, first: int, ply: int) -> list[int]:
        """Candidate moves: table move, killers, then by evaluation gain and history."""
        board = self.board
        history = self.history
        killers = self.killers[ply]
        scored = []
        gains = board.gain[board.stm]
        mask = self.candidates()
        while mask:
            low = mask & -mask
            mask ^= low
            cell = low.bit_length() - 1
            value = gains[cell] + history[cell]
            if cell == killers[0] or cell == killers[1]:
                value += _KILLER_BONUS
            if cell == first:
                value += 2 * _KILLER_BONUS
            scored.append((value, cell))
        scored.sort(reverse=True)
        return [cell for _, cell in scored]

    def frontier(self, alpha: int, beta: int) -> int:
        """A node one ply above the leaves with no threat or fork on the board: quiet
        moves are valued by their evaluation gain without playing them; the moves that
        make a threat are played, as their forced replies may still matter."""
        board = self.board
        pot = board.pot[board.stm]
        if _PROBE_THREATS and pot:
            line = self.probe()
            if line is not None:
                return MATE - board.marks - len(line)
        stand = board.evaluation()
        gains = board.gain[board.stm]
        top = -_INF
        mask = self.candidates()
        while mask:
            low = mask & -mask
            mask ^= low
            cell = low.bit_length() - 1
            if gains[cell] > top and cell not in pot:
                top = gains[cell]
        best = stand + top if top > -_INF else -_INF
        forcing = list(pot)
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        for cell in forcing:
            board.play(cell)
            try:
                score = -self.negamax(0, -beta, -alpha, 99)
            finally:
                board.undo(cell)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    # -- the search ---------------------------------------------------------------------------
    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score for the side to move if inside ``(alpha, beta)``, else a bound."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + 64
            self._tick()
        board = self.board
        side = board.stm
        marks = board.marks
        if board.threats[side]:
            return MATE - marks - 1
        if not board.empty:
            return 0
        theirs = board.threats[1 - side]
        if theirs:
            if len(theirs) >= 2:
                return marks + 2 - MATE
            block = next(iter(theirs))
            board.play(block)
            try:
                return -self.negamax(depth, -beta, -alpha, ply + 1)
            finally:
                board.undo(block)
        if board.forks[side]:
            return MATE - marks - 3
        # No win before five plies now, no loss before four.
        top = MATE - marks - 5
        if beta > top:
            beta = top
            if alpha >= beta:
                return top
        if depth <= 0:
            return self.quiesce(depth, alpha, beta, ply)
        if depth == 1 and not board.forks[1 - side] and not self.restricted:
            self.nodes += board.empty.bit_count()
            return self.frontier(alpha, beta)
        table = self.table
        if ply <= _CANONICAL_PLIES:
            key, symmetry = board.canonical_key()
        else:
            key, symmetry = board.key(), 0
        entry = table.get(key)
        first = -1
        if entry is not None:
            stored_depth, flag, stored, move = entry
            if stored_depth >= depth or abs(stored) >= MATE_BOUND:
                if flag == _EXACT:
                    return stored
                if flag == _LOWER and stored >= beta:
                    return stored
                if flag == _UPPER and stored <= alpha:
                    return stored
            if move >= 0:
                first = self.tables.inverse[symmetry][move]
                if not board.empty >> first & 1:
                    first = -1
        moves = self.ordered_moves(first, ply)
        original_alpha = alpha
        best = -_INF
        best_move = -1
        searched_first = False
        pot = board.pot[side]
        for index, cell in enumerate(moves):
            # Late quiet moves are searched shallower first (re-searched if they rise).
            reduce = _LMR and depth >= 3 and index >= _LMR_AFTER and cell not in pot
            board.play(cell)
            try:
                if not searched_first:
                    score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
                    searched_first = True
                else:
                    score = alpha + 1
                    if reduce:
                        score = -self.negamax(depth - 2, -alpha - 1, -alpha, ply + 1)
                    if score > alpha:
                        score = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                board.undo(cell)
            if score > best:
                best = score
                best_move = cell
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        killers = self.killers[ply]
                        if killers[0] != cell:
                            killers[1] = killers[0]
                            killers[0] = cell
                        self.history[cell] += depth * depth
                        break
        if best <= -MATE_BOUND and self.restricted:
            best = -MATE_BOUND + 1  # unsearched far moves: a likely loss, not a proof
        if len(table) >= _MAX_TABLE:
            table.clear()
        flag = _UPPER if best <= original_alpha else _LOWER if best >= beta else _EXACT
        stored_move = self.tables.perms[symmetry][best_move] if best_move >= 0 else -1
        table[key] = (depth, flag, best, stored_move)
        return best

    def probe(self) -> list[int] | None:
        """A continuous-threat win of at most ``_PROBE_THREATS`` threats for the side to
        move (the table of failed positions is shared by the whole search)."""
        threats = self.threats
        before = threats.nodes
        try:
            return threats.probe(_PROBE_THREATS)
        finally:
            self.nodes += threats.nodes - before
            if self.nodes >= self.next_check:
                self.next_check = self.nodes + 64
                self._tick()

    def quiesce(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Stand pat on the evaluation, or try the moves that make a threat."""
        board = self.board
        stand = board.evaluation()
        if stand >= beta or depth <= -_QUIESCENCE_PLIES:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        pot = board.pot[board.stm]
        for cell in sorted(pot, key=lambda c: -pot[c]):
            board.play(cell)
            try:
                score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                board.undo(cell)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def root(self, depth: int, moves: list[int]) -> tuple[int, int, dict[int, int]]:
        """One iteration at the root: best score, best move and the scores found."""
        board = self.board
        alpha, beta = -_INF, _INF
        best, best_move = -_INF, moves[0]
        scores: dict[int, int] = {}
        for index, cell in enumerate(moves):
            board.play(cell)
            try:
                if index == 0:
                    score = -self.negamax(depth - 1, -beta, -alpha, 1)
                else:
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self.negamax(depth - 1, -beta, -alpha, 1)
            finally:
                board.undo(cell)
            scores[cell] = score
            if score > best:
                best, best_move = score, cell
                alpha = max(alpha, score)
        return best, best_move, scores

    def principal_variation(self, first: int, length: int) -> tuple[int, ...]:
        """The table's line from the root, starting with ``first``."""
        board = self.board
        line = [first]
        board.play(first)
        played = [first]
        try:
            while len(line) < length and board.empty and not board.threats[1 - board.stm]:
                if board.threats[board.stm]:
                    line.append(next(iter(board.threats[board.stm])))
                    break
                key, symmetry = board.key(), 0
                entry = self.table.get(key)
                if entry is None:
                    key, symmetry = board.canonical_key()
                    entry = self.table.get(key)
                if entry is None or entry[3] < 0:
                    break
                cell = self.tables.inverse[symmetry][entry[3]]
                if not board.empty >> cell & 1:
                    break
                line.append(cell)
                board.play(cell)
                played.append(cell)
        finally:
            for cell in reversed(played):
                board.undo(cell)
        return tuple(line)


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
        moves = search.ordered_moves(-1, 0)
    # Deepen until 85% of the budget; the rest checks the opponent's replies.
    search.deadline = _share(start, deadline, 0.85)
    search.node_limit = None if node_limit is None else max(node_limit * 17 // 20, 1)
    best_move, best_score, depth_done = moves[0], None, 0
    for depth in range(1, board.empty.bit_count() + 1):
        try:
            score, move, scores = search.root(depth, moves)
        except _Stop:
            break
        best_move, best_score, depth_done = move, score, depth
        moves.sort(key=lambda m: -scores[m])
        if abs(score) >= MATE_BOUND or (len(moves) == 1 and depth >= 4):
            break
    value = None if best_score is None else _proven(best_score, search.root_marks)
    if value is None and len(moves) > 1:
        checked = _refute(search, [best_move] + [m for m in moves if m != best_move],
                          deadline, node_limit)
        if checked is not None:
            move, loss = checked
            if move != best_move:
                best_move, best_score = move, None
            value = loss
    pv = search.principal_variation(best_move, max(depth_done, 1))
    return _result(position, best_move, value=value, score=best_score, depth=depth_done,
                   pv=pv, nodes=search.nodes, start=start)


def _share(start: float, deadline: float | None, fraction: float) -> float | None:
    return None if deadline is None else start + (deadline - start) * fraction


def _refute(
    search: AnytimeSearch, moves: list[int], deadline: float | None, node_limit: int | None
) -> tuple[int, Value | None] | None:
    """Defend in time: check, best move first, whether the opponent has a forced win by
    continuous threats after each move; return the first move with none found (and
    ``None``), or, when every move loses so, the slowest loss (proven). ``None`` when
    the best move stands or the budget ran out before anything was refuted."""
    board = search.board
    refuted: dict[int, int] = {}
    for cell in moves:
        remaining = None if node_limit is None else node_limit - search.nodes
        if remaining is not None and remaining <= 0:
            break
        threats = ThreatSearch(board, deadline=deadline, node_limit=remaining)
        board.play(cell)
        try:
            line = threats.find(max_threats=8)
        finally:
            board.undo(cell)
        search.nodes += threats.nodes
        if line is None:
            if threats.exhausted():
                break
            return (cell, None) if refuted else None
        refuted[cell] = len(line) + 1
    if not refuted:
        return None
    if len(refuted) == len(moves):
        slowest = max(refuted, key=lambda c: refuted[c])
        return slowest, Value(Outcome.LOSS, refuted[slowest])
    return None  # ran out of budget among refuted moves: keep the search's choice


def _forced_win(
    search: AnytimeSearch, deadline: float | None, node_limit: int | None, start: float
) -> list[int] | None:
    """A continuous-threat win for the side to move, spending at most a quarter of the
    budget."""
    threat_deadline = None if deadline is None else start + (deadline - start) / 4
    threat_nodes = None if node_limit is None else max(node_limit // 4, 1)
    threats = ThreatSearch(search.board, deadline=threat_deadline, node_limit=threat_nodes)
    line = threats.find()
    search.nodes += threats.nodes
    return line


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
                    score = -search.negamax(depth - 1, -_INF, _INF, 1)
                finally:
                    board.undo(cell)
                proven = _proven(score, marks)
                values[cell] = proven if proven is not None else score
                if proven is not None:
                    pending.remove(cell)
            if not pending:
                break
    except _Stop:
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

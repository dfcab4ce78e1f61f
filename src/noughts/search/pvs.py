"""The principal-variation search behind the anytime engine (see noughts.search.anytime).

Negamax with alpha-beta and null windows over a :class:`SearchBoard`, a transposition
table keyed by Zobrist hashes (canonical over the board's symmetries at the root's
children, where symmetric positions are common; plain deeper, where a canonical key
costs more than it saves), move ordering (table move, killers, history, evaluation
gain), forced replies searched without spending depth, fork points recognised as wins
in 3, late-move reductions, and frontier nodes valued from the board's per-cell
evaluation gains instead of being played. The limit is checked every 64 nodes; running
out raises :class:`~noughts.budget.BudgetExhausted`, which unwinds to the caller with
the board restored.

**Misère games** (``misere=True``: whoever completes a line loses) change three things.
The board's threats (cells that would complete a line of a side) are the cells that side
must not play: playing one loses in 1 ply, and a side with no other empty cell loses now.
So no threat forces a reply and no fork wins (the threat and proof-number searches,
built on forcing threats, do not apply: this search finds forced results by the misère
terminal rule, a forced loss as surely as a forced win). The evaluation is the normal
one with its sign turned: the lines a side has built are its liabilities. Moves are
tried quietest first: the cells that add least to the mover's own lines.

Scores are absolute like the solver's: a win for the side to move that ends the game
with ``N`` marks on the board scores ``MATE - N``, so a score beyond ``MATE_BOUND`` is
a proof, whatever the depth of the search that found it.

This is the reference the compiled core (``noughts.search._core.Search``) ports move for
move: a search's answers and node counts are the same with either (the tests check it).
Where a choice could depend on the order of a hash table, it follows the cells' order.

>>> from noughts.position import Position
>>> search = AnytimeSearch(Position("X.../.O../..../....", "4x4k3"))  # X to move: it wins
>>> score, move, _ = search.root(3, search.ordered_moves(-1, 0), None)
>>> score >= MATE_BOUND, MATE - score - 2, move, search.nodes  # proven: 9 plies at most
(True, 9, 4, 34)
>>> bin(AnytimeSearch(Position("XX./OO./...", "3x3")).threat_cells(0))
'0b100'
>>> sorted(AnytimeSearch(Position("XX./OO./...", "3x3-misere"), misere=True).safe_moves())
[5, 6, 7, 8]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from noughts.budget import BudgetExhausted, Limit
from noughts.geometry import scan_forward
from noughts.position import Position
from noughts.search.board import SearchBoard
from noughts.search.evaluate import Style, search_weights

if TYPE_CHECKING:
    from noughts.knowledge.learned import LearnedEval

__all__ = ["AnytimeSearch", "MATE", "MATE_BOUND", "INF"]

MATE = 1 << 50
MATE_BOUND = MATE - 100_000
"""Scores beyond this are proven wins (losses below its negative)."""

INF = MATE + 1
_EXACT, _LOWER, _UPPER = 0, 1, 2
_CANONICAL_PLIES = 1
"""Nodes this close to the root use the canonical (symmetry-reduced) table key."""
_MAX_TABLE = 400_000
_KILLER_BONUS = 1 << 40
_LMR_AFTER = 4
"""Moves after this many are searched one ply shallower first (late move reduction)."""
_FORCED_PLY = 99
"""The ply a frontier node's forcing moves are searched at: at depth 0, where no killer
is read (the compiled core's is its killer rows' end, with the same nodes)."""


class AnytimeSearch:
    """One search over ``position`` with its own table, evaluating in ``style`` with the
    tempo of a ``learned`` evaluation where one is given (see
    :func:`~noughts.search.evaluate.search_weights`), by the misère rule when ``misere``.
    Each call that searches (:meth:`root`, :meth:`move_value`) takes the limit that
    bounds it."""

    def __init__(
        self,
        position: Position,
        *,
        style: Style = "strong",
        learned: LearnedEval | None = None,
        misere: bool = False,
    ) -> None:
        self.position = position
        self.player = 0 if position.to_move == "X" else 1
        weights = search_weights(position, style, learned)
        self.board = SearchBoard(position, weights, self.player)
        self.tables = self.board.tables
        self.nodes = 0
        self.next_check = 0
        self._limit = Limit()
        self.table: dict[int, tuple[int, int, int, int]] = {}
        cells = position.geometry.cells
        self.history = [0] * cells
        self.killers = [[-1, -1] for _ in range(cells + 2)]
        self.cell_weight = [len(t) for t in self.tables.through]
        self.root_marks = self.board.marks
        self.restricted = bool(self.tables.near)
        self.misere = misere

    # -- the limit --------------------------------------------------------------------------
    def _bound(self, limit: Limit | None) -> None:
        """A call's limit (None: none), polled from its first node."""
        self._limit = limit if limit is not None else Limit()
        self.next_check = self.nodes + 1

    def _tick(self) -> None:
        """Poll the limit (every 64 nodes, and at its node limit): once it has run out,
        the node being entered is neither searched nor counted."""
        limit = self._limit
        if limit.expired(self.nodes - 1):
            self.nodes -= 1
            raise BudgetExhausted
        nodes = limit.node_limit
        self.next_check = self.nodes + 64 if nodes is None else min(self.nodes + 64, nodes + 1)

    # -- the position -------------------------------------------------------------------------
    def threat_cells(self, side: int) -> int:
        """The empty cells that would complete a line of ``side`` (0 = X, 1 = O), as a
        bitboard: its wins in normal play, the cells it must not play in misère."""
        return self.board.threat_cells[side]

    def empty_count(self) -> int:
        """How many cells are empty."""
        return self.board.empty.bit_count()

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

    def _quiet_gains(self) -> list[int]:
        """The misère move order by cell: least added to the mover's own lines first."""
        return [-gain for gain in self.board.gain[self.board.stm]]

    def ordered_moves(
        self, first: int, ply: int, cells: int = 0, gains: list[int] | None = None
    ) -> list[int]:
        """Candidate moves (or ``cells``): table move, killers, then by evaluation gain
        (or ``gains``, cell by cell) and history; equal values, the higher cell first."""
        board = self.board
        history = self.history
        killers = self.killers[ply]
        scored = []
        if gains is None:
            gains = board.gain[board.stm]
        mask = cells or self.candidates()
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

    def safe_moves(self) -> list[int]:
        """Misère: the side to move's cells that do not complete a line of its own,
        quietest first (least added to its own lines), near the marks on big boards."""
        board = self.board
        safe = board.empty & ~board.threat_cells[board.stm]
        if not safe:
            return []
        near = self.candidates() & safe
        return self.ordered_moves(-1, 0, near or safe, self._quiet_gains())

    def frontier(self, alpha: int, beta: int) -> int:
        """A node one ply above the leaves with no threat or fork on the board: quiet
        moves are valued by their evaluation gain without playing them; the moves that
        make a threat are played (lowest cell first), as their forced replies may still
        matter."""
        board = self.board
        pot = board.pot_cells[board.stm]
        stand = board.waiting_evaluation()  # gains value a move from the waiting side's view
        gains = board.gain[board.stm]
        top = -INF
        for cell in scan_forward(self.candidates() & ~pot):
            if gains[cell] > top:
                top = gains[cell]
        best = stand + top if top > -INF else -INF
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
        for cell in scan_forward(pot):
            board.play(cell)
            try:
                score = -self.negamax(0, -beta, -alpha, _FORCED_PLY)
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
        """The score for the side to move if inside ``(alpha, beta)``, else a bound.

        In a misère game a side's threats are the cells it must not play, and none
        forces a reply."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._tick()
        board = self.board
        side = board.stm
        marks = board.marks
        misere = self.misere
        if misere:
            if not board.empty:
                return 0
            safe = board.empty & ~board.threat_cells[side]
            if not safe:
                return marks + 1 - MATE  # every cell completes a line of ours
            top = MATE - marks - 2  # no win before their move
            if beta > top:
                beta = top
                if alpha >= beta:
                    return top
            bottom = marks + 3 - MATE  # no loss before our next move
            if alpha < bottom:
                alpha = bottom
                if alpha >= beta:
                    return bottom
            if depth <= 0:
                return -board.evaluation()
            key, symmetry = board.key(), 0
        else:
            if board.threat_cells[side]:
                return MATE - marks - 1
            if not board.empty:
                return 0
            theirs = board.threat_cells[1 - side]
            if theirs:
                if theirs & (theirs - 1):
                    return marks + 2 - MATE
                block = theirs.bit_length() - 1
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
                return board.evaluation()  # (a threat-only quiescence searched shallower
                # and won less against the seed's bot: 2/6 against 4/6)
            if depth == 1 and not board.forks[1 - side] and not self.restricted:
                self.nodes += board.empty.bit_count()
                return self.frontier(alpha, beta)
            if ply <= _CANONICAL_PLIES:
                key, symmetry = board.canonical_key()
            else:
                key, symmetry = board.key(), 0
        table = self.table
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
        if misere:  # the quietest safe cells first, near the marks if that leaves any
            near = self.candidates() & safe
            moves = self.ordered_moves(first, ply, near or safe, self._quiet_gains())
            unsearched = near != safe and near != 0
        else:
            moves = self.ordered_moves(first, ply)
            unsearched = self.restricted
        original_alpha = alpha
        best = -INF
        best_move = -1
        searched_first = False
        pot = board.pot_cells[side]
        for index, cell in enumerate(moves):
            # Late quiet moves are searched shallower first (re-searched if they rise).
            reduce = depth >= 3 and index >= _LMR_AFTER and not misere and not pot >> cell & 1
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
        if best <= -MATE_BOUND and unsearched:
            best = -MATE_BOUND + 1  # unsearched far moves: a likely loss, not a proof
        if len(table) >= _MAX_TABLE:
            table.clear()
        flag = _UPPER if best <= original_alpha else _LOWER if best >= beta else _EXACT
        stored_move = self.tables.perms[symmetry][best_move] if best_move >= 0 else -1
        table[key] = (depth, flag, best, stored_move)
        return best

    def root(
        self, depth: int, moves: list[int], limit: Limit | None
    ) -> tuple[int, int, dict[int, int]]:
        """One iteration at the root within ``limit``: best score, best move and the
        scores found."""
        self._bound(limit)
        board = self.board
        alpha, beta = -INF, INF
        best, best_move = -INF, moves[0]
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

    def move_value(self, cell: int, depth: int, limit: Limit | None) -> int:
        """The value of playing ``cell`` for the side to move: its evaluation after the
        move at ``depth`` 0 (misère: its lines a liability), else a full-window search of
        ``depth - 1`` plies after it, within ``limit``."""
        self._bound(limit)
        board = self.board
        board.play(cell)
        try:
            if depth == 0:
                return board.evaluation() if self.misere else -board.evaluation()
            return -self.negamax(depth - 1, -INF, INF, 1)
        finally:
            board.undo(cell)

    def principal_variation(self, first: int, length: int) -> tuple[int, ...]:
        """The table's line from the root, starting with ``first``."""
        board = self.board
        misere = self.misere  # (threats force nothing; the table holds plain keys)
        line = [first]
        board.play(first)
        played = [first]
        try:
            while len(line) < length and board.empty:
                if not misere:
                    if board.threat_cells[1 - board.stm]:
                        break
                    mine = board.threat_cells[board.stm]
                    if mine:
                        line.append((mine & -mine).bit_length() - 1)
                        break
                key, symmetry = board.key(), 0
                entry = self.table.get(key)
                if entry is None and not misere:
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

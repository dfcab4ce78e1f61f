"""The anytime search of misère games: whoever completes a line loses.

What applies from normal play, and what does not:

* The search board's *threats* (cells that would complete a line of a side) are here
  the cells that side must not play: playing one loses in 1 ply. A side with no other
  empty cell loses now. So no threat forces a reply, no fork wins, and the
  continuous-threat search and the proof-number search (both built on forcing
  threats) do not apply: forced results are found by this principal-variation search
  with the misère terminal rule, a forced loss as surely as a forced win (both are
  scores beyond :data:`~noughts.anytime.pvs.MATE_BOUND`).
* The evaluation is the normal one with its sign turned: the lines a side has built are
  its liabilities (each near-complete line takes a cell away from it).
* Moves are tried quietest first: the cells that add least to the mover's own lines.

Scores are absolute like the normal search's (a win ending the game with ``N`` marks
scores ``MATE - N``).

>>> from noughts.position import Position
>>> search = MisereSearch(Position("XX./OO./...", "3x3-misere"))
>>> sorted(search.safe_moves())  # 2 would complete X's row
[5, 6, 7, 8]
"""

from __future__ import annotations

from noughts.anytime.pvs import _EXACT, _LOWER, _UPPER, INF, MATE, MATE_BOUND, AnytimeSearch
from noughts.geometry import Bitboard

__all__ = ["MisereSearch"]

_MAX_TABLE = 400_000


class MisereSearch(AnytimeSearch):
    """An :class:`AnytimeSearch` by the misère rule (see the module)."""

    def poison(self, side: int) -> Bitboard:
        """The cells that would complete a line of ``side`` (0 = X, 1 = O)."""
        mask = 0
        for cell in self.board.threats[side]:
            mask |= 1 << cell
        return mask

    def safe_moves(self) -> list[int]:
        """The side to move's cells that do not complete a line of its own, quietest
        first (least added to its own lines)."""
        board = self.board
        safe = board.empty & ~self.poison(board.stm)
        near = self.candidates() & safe
        return self._quiet_first(near or safe, -1, 0)

    def _quiet_first(self, cells: Bitboard, first: int, ply: int) -> list[int]:
        gains = self.board.gain[self.board.stm]
        history = self.history
        killers = self.killers[ply]
        scored = []
        while cells:
            low = cells & -cells
            cells ^= low
            cell = low.bit_length() - 1
            value = history[cell] - gains[cell]
            if cell == killers[0] or cell == killers[1]:
                value += 1 << 40
            if cell == first:
                value += 1 << 41
            scored.append((value, cell))
        scored.sort(reverse=True)
        return [cell for _, cell in scored]

    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score for the side to move if inside ``(alpha, beta)``, else a bound."""
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.next_check = self.nodes + 64
            self._tick()
        board = self.board
        marks = board.marks
        if not board.empty:
            return 0
        safe = board.empty & ~self.poison(board.stm)
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
        table = self.table
        key = board.key()
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
            first = move
        near = self.candidates() & safe
        moves = self._quiet_first(near or safe, first, ply)
        original_alpha = alpha
        best, best_move = -INF, -1
        for index, cell in enumerate(moves):
            board.play(cell)
            try:
                if index == 0:
                    score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
                else:
                    score = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                board.undo(cell)
            if score > best:
                best, best_move = score, cell
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        killers = self.killers[ply]
                        if killers[0] != cell:
                            killers[1] = killers[0]
                            killers[0] = cell
                        self.history[cell] += depth * depth
                        break
        if best <= -MATE_BOUND and near and near != safe:
            best = -MATE_BOUND + 1  # unsearched far moves: a likely loss, not a proof
        if len(table) >= _MAX_TABLE:
            table.clear()
        flag = _UPPER if best <= original_alpha else _LOWER if best >= beta else _EXACT
        table[key] = (depth, flag, best, best_move)
        return best

    def principal_variation(self, first: int, length: int) -> tuple[int, ...]:
        """The table's line from the root, starting with ``first``."""
        board = self.board
        line = [first]
        played: list[int] = []
        try:
            board.play(first)
            played.append(first)
            while len(line) < length and board.empty:
                entry = self.table.get(board.key())
                if entry is None or entry[3] < 0 or not board.empty >> entry[3] & 1:
                    break
                line.append(entry[3])
                board.play(entry[3])
                played.append(entry[3])
        finally:
            for cell in reversed(played):
                board.undo(cell)
        return tuple(line)

"""The exact search of misère games: whoever completes a line loses.

The same negamax as :class:`~noughts.exact.negamax.ExactSearch` (absolute scores, the
lasting table, symmetric keys near the root, the budget), with the misère terminal rule:
the cells that would complete a line of the side to move are cells it must not play
(they lose in 1 ply); a side left with no other cell loses now. The winner of a misère
game is the player who did *not* complete a line, so the earliest win is the
opponent's next move and the earliest loss (while a safe cell is left) is our next one.
Moves are ordered the other way round from normal play: cells that add least to our
own lines, and spoil least of the opponent's, first.

>>> from noughts.variants import variant
>>> search = MisereSearch(variant("3x3-misere"))
>>> search.value(0, 0)  # the empty board: a draw
0
>>> from noughts.results import WIN_SCORE
>>> search.value(0b000_010_011, 0b001_100_100) == 5 + 1 - WIN_SCORE  # XX./.X./O.. vs O
False
>>> search.value(0b100_001_011, 0b010_110_100) == 8 + 1 - WIN_SCORE  # one cell, a line
True
"""

from __future__ import annotations

from noughts.exact.negamax import _EXACT, _LOWER, _MOVE_MASK, _OFFSET, _UPPER, ExactSearch
from noughts.geometry import Bitboard
from noughts.results import WIN_SCORE

__all__ = ["MisereSearch"]


class MisereSearch(ExactSearch):
    """Exact negamax of a misère game (see the module); no book serves it."""

    completion_wins = False

    def line_score(self, marks: int) -> int:
        """Completing a line with ``marks`` marks on the board loses at once."""
        return marks + 1 - WIN_SCORE

    def _ordered_misere(
        self, me: Bitboard, opp: Bitboard, my_live: int, opp_live: int, cells: Bitboard
    ) -> list[int]:
        """``cells``, quietest first: least added to our lines, least spoiled of theirs."""
        weights = self._weights
        scored = []
        for cell in self._order:
            if cells >> cell & 1:
                value = 0
                for line_bit, line in self._through[cell]:
                    if my_live & line_bit:
                        value += weights[(line & me).bit_count()]
                    if opp_live & line_bit:
                        value += weights[(line & opp).bit_count()]
                scored.append((value, cell))
        scored.sort()
        return [cell for _, cell in scored]

    def _negamax(
        self,
        me: Bitboard,
        opp: Bitboard,
        marks: int,
        my_live: int,
        opp_live: int,
        my_wins: Bitboard,
        opp_wins: Bitboard,
        alpha: int,
        beta: int,
    ) -> int:
        """Fail-soft negamax; ``my_wins``/``opp_wins`` are the cells that would complete
        a line of that side (here: lose it the game)."""
        self.nodes += 1
        if self.nodes >= self._next_poll:
            self._poll()
        if marks == self._cells:
            return 0
        safe = self._full & ~(me | opp) & ~my_wins
        if not safe:
            return marks + 1 - WIN_SCORE  # every cell completes a line of ours
        if not my_live | opp_live:
            return 0  # no line is open to anyone: a certain draw
        # Bounds from the clock: no win before their move, no loss before our next one.
        upper = WIN_SCORE - marks - 2 if opp_live else 0
        if upper <= alpha:
            return upper
        lower = marks + 3 - WIN_SCORE if my_live else 0
        if lower >= beta:
            return lower
        if beta > upper:
            beta = upper
        if alpha < lower:
            alpha = lower

        keys = self._keys
        canonical = marks <= self.canonical_marks
        symmetry = 0
        if canonical:
            assert keys is not None
            key, symmetry = keys.key_and_symmetry(me, opp)
        else:
            key = me | opp << self._cells
        table = self.table
        entry = table.get(key)
        tt_move = -1
        if entry is not None:
            stored = (entry >> 12) - _OFFSET
            flag = entry & 3
            if flag == _EXACT:
                return stored
            if flag == _LOWER:
                if stored >= beta:
                    return stored
                if stored > alpha:
                    alpha = stored
            elif stored <= alpha:
                return stored
            elif stored < beta:
                beta = stored
            tt_move = (entry >> 2 & _MOVE_MASK) - 1
            if canonical and tt_move >= 0:
                assert keys is not None
                tt_move = keys.invert(symmetry, tt_move)

        if self._cells - marks > self.dynamic_empties:
            moves = self._ordered_misere(me, opp, my_live, opp_live, safe)
        else:
            moves = [c for c in self._order if safe >> c & 1]
        if tt_move >= 0 and tt_move != moves[0] and safe >> tt_move & 1:
            moves.remove(tt_move)
            moves.insert(0, tt_move)

        window_alpha = alpha
        best = -WIN_SCORE
        best_move = -1
        through = self._through
        line_bits = self._line_bits
        child_marks = marks + 1
        for cell in moves:
            bit = 1 << cell
            mine = me | bit
            threats = my_wins
            for line_bit, line in through[cell]:
                if my_live & line_bit:
                    rest = line & ~mine
                    if not rest & (rest - 1):
                        threats |= rest
            score = -self._negamax(
                opp,
                mine,
                child_marks,
                opp_live & ~line_bits[cell],
                my_live,
                opp_wins & ~bit,
                threats,
                -beta,
                -alpha,
            )
            if score > best:
                best = score
                best_move = cell
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break

        if best <= window_alpha:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        if canonical:
            assert keys is not None
            best_move = keys.apply(symmetry, best_move)
        if len(table) >= self.max_entries:
            table.clear()
        table[key] = (best + _OFFSET) << 12 | (best_move + 1) << 2 | flag
        return best

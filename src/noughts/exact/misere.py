"""The exact search of misère games: whoever completes a line loses.

The negamax of :class:`~noughts.exact.negamax.ExactSearch` (absolute scores, the
lasting table, symmetric keys near the root, the limit), by the misère terminal rule:
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

from noughts.exact.negamax import ExactSearch
from noughts.results import WIN_SCORE

__all__ = ["MisereSearch"]


class MisereSearch(ExactSearch):
    """Exact negamax of a misère game (see the module); no book serves it."""

    completion_wins = False

    def line_score(self, marks: int) -> int:
        """Completing a line with ``marks`` marks on the board loses at once."""
        return marks + 1 - WIN_SCORE

"""The anytime search of misère games: whoever completes a line loses.

What applies from normal play, and what does not:

* The search board's *threats* (cells that would complete a line of a side) are here
  the cells that side must not play: playing one loses in 1 ply. A side with no other
  empty cell loses now. So no threat forces a reply, no fork wins, and the
  continuous-threat search and the proof-number search (both built on forcing
  threats) do not apply: forced results are found by this principal-variation search
  with the misère terminal rule, a forced loss as surely as a forced win (both are
  scores beyond :data:`~noughts.search.pvs.MATE_BOUND`).
* The evaluation is the normal one with its sign turned: the lines a side has built are
  its liabilities (each near-complete line takes a cell away from it).
* Moves are tried quietest first: the cells that add least to the mover's own lines.

The search is :meth:`~noughts.search.pvs.AnytimeSearch.negamax` with its misère branches
on. Scores are absolute like the normal search's (a win ending the game with ``N`` marks
scores ``MATE - N``).

>>> from noughts.position import Position
>>> search = MisereSearch(Position("XX./OO./...", "3x3-misere"))
>>> sorted(search.safe_moves())  # 2 would complete X's row
[5, 6, 7, 8]
"""

from __future__ import annotations

from typing import Any

from noughts.search.pvs import AnytimeSearch

__all__ = ["MisereSearch"]


class MisereSearch(AnytimeSearch):
    """An :class:`AnytimeSearch` by the misère rule (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.misere = True

    def safe_moves(self) -> list[int]:
        """The side to move's cells that do not complete a line of its own, quietest
        first (least added to its own lines)."""
        board = self.board
        safe = board.empty & ~self.poison(board.stm)
        near = self.candidates() & safe
        return self.ordered_moves(-1, 0, near or safe, self.quiet_gains())

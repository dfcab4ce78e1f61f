"""The exact truth about a position, where the solver can tell it: its value, the optimal
moves and the moves that keep the result (any other move is a blunder).

A blunder throws a result away: from a won position to one that is not won, or from a
drawn position to a lost one. Positions the exact solver cannot finish on the spot (the
early and middle game of 4x4x4, large m x n k boards) have no exact view: ``None``.

>>> from noughts import Position
>>> view = exact_view(Position("XX./OO./..."))
>>> str(view.value), view.optimal_moves, view.keeping_moves
('win in 1', (2,), (2,))
>>> view.is_blunder(5), view.is_blunder(2)
(True, False)
>>> view.move_values  # every cell's score: WIN - plies a win, 0 a draw, plies - WIN a loss
(-128, -128, 99, -128, -128, 0, -98, -98, -98)
>>> exact_view(Position("XXX/OO./...")) is None  # the game is over
True
"""

from __future__ import annotations

from dataclasses import dataclass

from noughts.exact.solver import analyze, can_solve
from noughts.position import Position
from noughts.results import Outcome, Value
from noughts.rl.tables import NO_MOVE, WIN

__all__ = ["ExactView", "exact_view"]


@dataclass(frozen=True)
class ExactView:
    """Exact facts about an unfinished position, for the side to move.

    ``value`` is the position's value; ``optimal_moves`` reach it exactly (outcome and
    plies); ``keeping_moves`` keep its outcome (a win stays a win, a draw at least a draw);
    ``move_values`` gives every cell's exact value as a training target: ``WIN - plies``
    for a move that wins in ``plies`` (the move counted), 0 for a draw, ``plies - WIN``
    for a loss, :data:`~noughts.rl.tables.NO_MOVE` on an occupied cell (the scores of
    :meth:`ExactTable.move_scores <noughts.rl.tables.ExactTable.move_scores>`).
    """

    value: Value
    optimal_moves: tuple[int, ...]
    keeping_moves: tuple[int, ...]
    move_values: tuple[int, ...] = ()

    def is_blunder(self, move: int) -> bool:
        """True if ``move`` throws the result away (won to not won, drawn to lost)."""
        return move not in self.keeping_moves

    def as_info(self) -> dict[str, object]:
        """The view as plain data (for an environment's ``info``).

        >>> exact_view(Position("XX./OO./...")).as_info()["outcome"]
        'win'
        """
        return {
            "exact": True,
            "outcome": self.value.outcome.value,
            "plies": self.value.plies,
            "value": str(self.value),
            "optimal_moves": self.optimal_moves,
            "keeping_moves": self.keeping_moves,
            "move_values": self.move_values,
        }


def exact_view(position: Position) -> ExactView | None:
    """The exact view of ``position``, or ``None`` if the game is over or too large to solve."""
    if position.is_over or not can_solve(position):
        return None
    values: dict[int, Value] = {}
    for entry in analyze(position):
        assert entry.value is not None  # the solver's values are exact
        values[entry.move] = entry.value
    best = max(values.values(), key=lambda value: value.score)
    keeps = _keeps(best.outcome)
    return ExactView(
        value=best,
        optimal_moves=tuple(move for move, value in values.items() if value == best),
        keeping_moves=tuple(move for move, value in values.items() if value.outcome in keeps),
        move_values=tuple(
            _table_score(values[cell]) if cell in values else NO_MOVE
            for cell in range(position.geometry.cells)
        ),
    )


def _table_score(value: Value) -> int:
    """``value`` as the exact tables score a move (see :class:`ExactView`)."""
    if value.outcome is Outcome.WIN:
        return WIN - value.plies
    if value.outcome is Outcome.LOSS:
        return value.plies - WIN
    return 0


def _keeps(outcome: Outcome) -> tuple[Outcome, ...]:
    if outcome is Outcome.WIN:
        return (Outcome.WIN,)
    if outcome is Outcome.DRAW:
        return (Outcome.WIN, Outcome.DRAW)
    return (Outcome.WIN, Outcome.DRAW, Outcome.LOSS)

"""Exact game values: the outcome for the side to move and the plies to the end.

The winner hurries and the loser delays, so values order as
win in 1 > win in 3 > ... > draw > ... > loss in 4 > loss in 2. A draw's plies are the
empty cells left (a draw ends when the board is full).

Values pack into one ``int`` score for search: ``WIN_SCORE - plies`` for a win,
``0`` for a draw, ``plies - WIN_SCORE`` for a loss.

>>> Value(Outcome.WIN, 3) > Value(Outcome.WIN, 5) > Value(Outcome.DRAW, 4)
True
>>> Value.from_score(-(WIN_SCORE - 2), empty=7)
Value(outcome=<Outcome.LOSS: 'loss'>, plies=2)
>>> Value(Outcome.LOSS, 2).negate_after_move()
Value(outcome=<Outcome.WIN: 'win'>, plies=3)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Outcome", "Value", "WIN_SCORE"]

WIN_SCORE = 1000
"""Score of an immediate win; every board here ends in far fewer plies."""


class Outcome(StrEnum):
    """Outcome for the side to move under perfect play."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    def flipped(self) -> Outcome:
        """The same result seen by the other player."""
        if self is Outcome.WIN:
            return Outcome.LOSS
        if self is Outcome.LOSS:
            return Outcome.WIN
        return Outcome.DRAW


@dataclass(frozen=True, order=False)
class Value:
    """An exact value: outcome for the side to move and plies until the game ends."""

    outcome: Outcome
    plies: int

    @property
    def score(self) -> int:
        """The packed search score (higher is better for the side to move)."""
        if self.outcome is Outcome.WIN:
            return WIN_SCORE - self.plies
        if self.outcome is Outcome.LOSS:
            return self.plies - WIN_SCORE
        return 0

    @classmethod
    def from_score(cls, score: int, *, empty: int) -> Value:
        """Unpack a score; ``empty`` (cells left) gives a draw its plies."""
        if score > 0:
            return cls(Outcome.WIN, WIN_SCORE - score)
        if score < 0:
            return cls(Outcome.LOSS, WIN_SCORE + score)
        return cls(Outcome.DRAW, empty)

    def negate_after_move(self) -> Value:
        """The value one ply earlier, seen by the player who moved into this position."""
        return Value(self.outcome.flipped(), self.plies + 1)

    def __lt__(self, other: Value) -> bool:
        return self.score < other.score

    def __gt__(self, other: Value) -> bool:
        return self.score > other.score

    def __str__(self) -> str:
        """Human text: ``win in 3``, ``draw``, ``loss in 2``."""
        if self.outcome is Outcome.DRAW:
            return "draw"
        return f"{self.outcome.value} in {self.plies}"

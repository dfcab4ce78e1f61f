"""An independent referee for misère games (whoever completes a line loses), for the tests.

Written from the rules alone, on the geometry's lines and plain bitboards, sharing no
code with the engine's searches: a memoised minimax over every position reached, no
pruning, no table of bounds, no symmetry. Exact values, the winner hurrying and the
loser delaying, as the engine reports them. Slow and simple: fine for boards of up to
about 16 cells with a couple of marks on them.
"""

from __future__ import annotations

from noughts.position import Position
from noughts.variants import variant

_WIN = 1_000
"""A win in ``p`` plies scores ``_WIN - p``, a loss ``p - _WIN``, a draw 0."""


class MisereReferee:
    """Exact values of one misère game, memoised across calls."""

    def __init__(self, name: str) -> None:
        game = variant(name)
        assert game.rules.misere, name
        geometry = game.geometry
        self.cells = geometry.cells
        self.full = (1 << geometry.cells) - 1
        self.through = [[line for line in geometry.lines if line >> cell & 1]
                        for cell in range(geometry.cells)]
        self.memo: dict[tuple[int, int], int] = {}

    def _score(self, me: int, opp: int) -> int:
        """The score of the side to move, owning ``me``, in an unfinished position."""
        known = self.memo.get((me, opp))
        if known is not None:
            return known
        best = -2 * _WIN
        empty = self.full & ~(me | opp)
        while empty:
            bit = empty & -empty
            empty ^= bit
            best = max(best, self._move_score(me, opp, bit.bit_length() - 1))
        self.memo[(me, opp)] = best
        return best

    def _move_score(self, me: int, opp: int, cell: int) -> int:
        mine = me | 1 << cell
        if any(line & mine == line for line in self.through[cell]):
            return 1 - _WIN  # our own line: we lose at once
        if mine | opp == self.full:
            return 0  # the board is full and nobody completed a line
        after = -self._score(opp, mine)
        return after - 1 if after > 0 else after + 1 if after < 0 else 0

    def move_value(self, position: Position, move: int) -> tuple[str, int]:
        """``(outcome, plies)`` of ``move`` for the player who makes it (plies 0 for a
        draw)."""
        me, opp = (position.x, position.o) if position.to_move == "X" else (
            position.o, position.x)
        score = self._move_score(me, opp, move)
        if score > 0:
            return "win", _WIN - score
        if score < 0:
            return "loss", _WIN + score
        return "draw", 0

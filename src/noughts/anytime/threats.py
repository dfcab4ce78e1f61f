"""Threat-space search: forced wins by continuous threats.

A *threat* is a line holding ``k-1`` marks of one side and an empty last cell. A side
that makes a threat forces the reply (block it, or lose at once, unless the defender
can win first); a chain of such forcing moves that ends in a double threat (a fork:
two threats the defender cannot both block) wins. Because every defending move in the
chain is forced, a chain found here is a proof, not a guess.

>>> from noughts.position import Position
>>> x = sum(1 << c for c in (0, 1, 6, 10))  # two lines of two cross on the empty cell 2
>>> o = sum(1 << c for c in (12, 15, 60, 63))
>>> find_forced_win(Position.from_bitboards(x, o, "qubic"))
ForcedWin(moves=(2, 3, 14))
"""

from __future__ import annotations

from dataclasses import dataclass

from noughts.anytime.board import SearchBoard
from noughts.anytime.evaluate import line_weights
from noughts.budget import Budget, BudgetExhausted
from noughts.position import Position

__all__ = [
    "ForcedWin",
    "ThreatSearch",
    "find_forced_win",
    "DEFAULT_MAX_THREATS",
]

DEFAULT_MAX_THREATS = 12
"""How many forcing moves a chain may have by default."""


@dataclass(frozen=True)
class ForcedWin:
    """A forced win for the side to move: the moves of both sides, the winning one last."""

    moves: tuple[int, ...]

    @property
    def plies(self) -> int:
        """Plies until the win (the length of the line)."""
        return len(self.moves)


class ThreatSearch:
    """Continuous-threat search on a :class:`SearchBoard` for the side to move.

    ``budget`` bounds :meth:`find` and :meth:`refute` (its node limit counts this
    search's positions, :attr:`nodes`); without one, ``deadline`` (a
    ``time.perf_counter()`` value) and ``node_limit`` make one. Failed positions are
    remembered (per side and remaining depth) across calls.
    """

    def __init__(
        self,
        board: SearchBoard,
        *,
        budget: Budget | None = None,
        deadline: float | None = None,
        node_limit: int | None = None,
    ) -> None:
        self.board = board
        self.budget = budget if budget is not None else Budget(
            deadline=deadline, node_limit=node_limit
        )
        self.nodes = 0
        self.failed: dict[int, int] = {}
        self.hint: dict[int, int] = {}

    def find(self, max_threats: int = DEFAULT_MAX_THREATS) -> list[int] | None:
        """The shortest forced line (deepening one threat at a time), or ``None`` if
        there is none within ``max_threats`` forcing moves or the budget ran out."""
        try:
            return self._deepening(max_threats)
        except BudgetExhausted:
            return None

    def refute(self, max_threats: int = DEFAULT_MAX_THREATS) -> list[int] | None:
        """Any forced line of at most ``max_threats`` forcing moves (depth first, not
        necessarily the shortest), trying the cells of the last line found first: the
        cheap way to check many sibling positions, as one chain often refutes several.
        ``None`` if there is none or the budget ran out (see :meth:`exhausted`)."""
        try:
            line = self._search(max_threats)
        except BudgetExhausted:
            return None
        if line is not None:
            self.hint = {cell: index for index, cell in enumerate(line[::2])}
        return line

    def probe(self, max_threats: int) -> list[int] | None:
        """A forced line of at most ``max_threats`` forcing moves, not necessarily the
        shortest, without a budget of its own (for use inside another search)."""
        return self._search(max_threats)

    def _deepening(self, max_threats: int) -> list[int] | None:
        for depth in range(max_threats + 1):
            line = self._search(depth)
            if line is not None:
                return line
        return None

    def exhausted(self) -> bool:
        """True once the budget has run out (or was cancelled)."""
        return self.budget.expired(self.nodes)

    def _search(self, depth: int) -> list[int] | None:
        board = self.board
        self.nodes += 1
        budget = self.budget
        if budget.node_limit is not None and self.nodes > budget.node_limit:
            raise BudgetExhausted
        if self.nodes & 127 == 0 and budget.expired(self.nodes):
            raise BudgetExhausted
        side = board.stm
        other = 1 - side
        mine = board.threats[side]
        if mine:
            return [next(iter(mine))]
        theirs = board.threats[other]
        if len(theirs) >= 2:
            return None
        pot = board.pot[side]
        if theirs:
            block = next(iter(theirs))
            if block not in pot:
                return None  # the forced block makes no threat: the chain breaks
            candidates = [block]
        else:
            if board.forks[side]:
                fork = next(c for c, n in pot.items() if n >= 2)
                board.play(fork)
                first, second = list(board.threats[side])[:2]
                board.undo(fork)
                return [fork, first, second]
            hint = self.hint
            candidates = sorted(pot, key=lambda c: (hint.get(c, 99), -pot[c]))
        if depth == 0 or not candidates:
            return None
        memo = board.key() ^ side
        if self.failed.get(memo, -1) >= depth:
            return None
        for cell in candidates:
            board.play(cell)
            try:
                if board.threats[other]:  # the defender would win first
                    continue
                made = board.threats[side]
                if len(made) >= 2:
                    first, second = list(made)[:2]
                    return [cell, first, second]
                reply = next(iter(made))
                board.play(reply)
                try:
                    rest = self._search(depth - 1)
                finally:
                    board.undo(reply)
            finally:
                board.undo(cell)
            if rest is not None:
                return [cell, reply, *rest]
        self.failed[memo] = depth
        return None


def find_forced_win(
    position: Position,
    *,
    max_threats: int = DEFAULT_MAX_THREATS,
    time_limit: float | None = None,
    nodes: int | None = None,
    budget: Budget | None = None,
) -> ForcedWin | None:
    """A forced win by continuous threats for the side to move, or ``None``.

    ``None`` means none was found within ``max_threats`` forcing moves and the budget
    (``time_limit`` seconds, ``nodes`` positions, or a ``budget``); the position may
    still be won.

    >>> find_forced_win(Position("XX./OO./...")).moves
    (2,)
    >>> find_forced_win(Position("X../.O./...")) is None
    True
    """
    if position.is_over:
        return None
    if budget is None:
        budget = Budget.within(time_limit, nodes)
    player = 0 if position.to_move == "X" else 1
    board = SearchBoard(position, line_weights(position.geometry.k), player)
    line = ThreatSearch(board, budget=budget).find(max_threats)
    return None if line is None else ForcedWin(tuple(line))

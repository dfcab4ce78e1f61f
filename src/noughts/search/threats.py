"""Forced wins by continuous threats: a position's shortest one, on the core that runs.

The threat-space search itself is :class:`~noughts.search.threat_search.ThreatSearch`
(the pure-Python reference, read it for how a chain is found) or its compiled port;
:func:`noughts.search.core.threat_search` gives the one of the core that runs.

>>> from noughts.position import Position
>>> x = sum(1 << c for c in (0, 1, 6, 10))  # two lines of two cross on the empty cell 2
>>> o = sum(1 << c for c in (12, 15, 60, 63))
>>> find_forced_win(Position.from_bitboards(x, o, "qubic"))
ForcedWin(moves=(2, 3, 14))
"""

from __future__ import annotations

from dataclasses import dataclass

from noughts.budget import Limit
from noughts.position import Position
from noughts.search.core import threat_search
from noughts.search.threat_search import (
    DEFAULT_MAX_THREATS,
    ThreatSearch,
    chain_survives,
    defences,
)

__all__ = [
    "ForcedWin",
    "ThreatSearch",
    "find_forced_win",
    "defences",
    "chain_survives",
    "DEFAULT_MAX_THREATS",
]


@dataclass(frozen=True)
class ForcedWin:
    """A forced win for the side to move: the moves of both sides, the winning one last."""

    moves: tuple[int, ...]

    @property
    def plies(self) -> int:
        """Plies until the win (the length of the line)."""
        return len(self.moves)


def find_forced_win(
    position: Position,
    *,
    max_threats: int = DEFAULT_MAX_THREATS,
    time_limit: float | None = None,
    nodes: int | None = None,
    limit: Limit | None = None,
) -> ForcedWin | None:
    """A forced win by continuous threats for the side to move, or ``None``.

    ``None`` means none was found within ``max_threats`` forcing moves and the budget
    (``time_limit`` seconds, ``nodes`` positions, or a ``limit``); the position may
    still be won.

    >>> find_forced_win(Position("XX./OO./...")).moves
    (2,)
    >>> find_forced_win(Position("X../.O./...")) is None
    True
    """
    if position.is_over or not position.game.rules.threat_search:
        return None  # (misère: a threat forces nothing; see noughts.search.pvs)
    if limit is None:
        limit = Limit.within(time_limit, nodes)
    mine, theirs = (position.x, position.o) if position.to_move == "X" else (position.o,
                                                                            position.x)
    line = threat_search(position.game).find(mine, theirs, max_threats, limit)
    return None if line is None else ForcedWin(tuple(line))

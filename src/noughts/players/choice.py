"""A bare cell answered by a player outside the engine, as a :class:`MoveChoice`.

>>> from noughts.position import Position
>>> choice = choice_of(Position(), 4, started=0.0)
>>> choice.square, choice.method, choice.proven
('b2', 'bot', False)
"""

from __future__ import annotations

import operator
import time

from noughts.errors import IllegalMoveError
from noughts.position import Position
from noughts.results import MoveChoice

__all__ = ["choice_of"]


def choice_of(position: Position, cell: object, *, started: float) -> MoveChoice:
    """A bare cell answered by a player, as a :class:`MoveChoice` (method ``bot``).

    The cell is checked to be an integer (a numpy integer is fine), not to be legal:
    the game loop does that.

    >>> choice_of(Position(), "b2", started=0.0)
    Traceback (most recent call last):
    ...
    noughts.errors.IllegalMoveError: a move is a cell index, not 'b2'
    """
    if isinstance(cell, bool) or not hasattr(cell, "__index__"):
        raise IllegalMoveError(f"a move is a cell index, not {cell!r}")
    move = operator.index(cell)
    geometry = position.geometry
    if not 0 <= move < geometry.cells:
        raise IllegalMoveError(f"cell {move} is off the board ({geometry.name})")
    return MoveChoice(
        move=move,
        game=position.game,
        value=None,
        estimate=None,
        depth=None,
        pv=(move,),
        nodes=0,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        method="bot",
    )

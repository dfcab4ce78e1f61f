"""The SIG-AI seed's functional interface, a thin documented layer over :class:`Position`.

The SIG-AI seed defines a game by four functions over states ``(B, t, d)`` (board,
turns left, dimension) and actions ``(w, i, j)`` (the mark ``w`` to place at row ``i``,
column ``j``). Here a state is a :class:`Position` of any variant, and an action is
``(mark, row, col)``, or ``(mark, layer, row, col)`` on a 3-D board::

    (mark, 0, 0) (mark, 0, 1) (mark, 0, 2)        cells 0 1 2
    (mark, 1, 0) (mark, 1, 1) (mark, 1, 2)              3 4 5
    (mark, 2, 0) (mark, 2, 1) (mark, 2, 2)              6 7 8

* :func:`is_terminal` -- a line on the board or no turns left (the seed's ``isTerminal``).
* :func:`value` -- ``1`` if X won, ``-1`` if O won, ``0`` for a tie, and ``None`` for a
  state that is not terminal: only terminal states have values (``getValue``).
* :func:`legal_actions` -- the actions of the side to move, row-major (``legalActions``).
  A terminal state has none: the seed's transition is defined on non-terminal states only.
* :func:`successor` -- the state after an action, or ``None`` where the seed's transition
  is undefined (the game is over, the cell is taken, or the mark is not the side to
  move's); a malformed action is a :class:`~noughts.errors.IllegalMoveError`
  (``getSuccessor``).

The seed's camel-case names are kept as aliases. :func:`minimax_value` is the seed
agent's ``V_AI``: the maximum over successors when X is to move, the minimum when O is.

>>> state = Position("XX./OO./...")
>>> is_terminal(state), value(state)
(False, None)
>>> legal_actions(state)[:2]
[('X', 0, 2), ('X', 1, 2)]
>>> after = successor(state, ("X", 0, 2))
>>> is_terminal(after), value(after)
(True, 1)
>>> successor(state, ("X", 0, 0)) is None  # the cell is taken
True
>>> minimax_value(Position("X../.O./..."))
0
"""

from __future__ import annotations

from noughts.errors import IllegalMoveError
from noughts.position import Position

__all__ = [
    "Action",
    "is_terminal",
    "value",
    "legal_actions",
    "successor",
    "minimax_value",
    "isTerminal",
    "getValue",
    "legalActions",
    "getSuccessor",
]

Action = tuple[str, *tuple[int, ...]]
"""``(mark, row, col)`` on 2-D boards, ``(mark, layer, row, col)`` on 3-D boards."""


def is_terminal(state: Position) -> bool:
    """True if a player has a line or no turns are left.

    >>> is_terminal(Position("XOX/XOO/OXX")), is_terminal(Position())
    (True, False)
    """
    return state.is_over


def value(state: Position) -> int | None:
    """The value of a terminal state: 1 if X won, -1 if O won, 0 for a tie; else None.

    >>> value(Position("XOX/XOO/OXX")), value(Position("OOO/XX./X..")), value(Position())
    (0, -1, None)
    """
    winner = state.winner
    if winner == "X":
        return 1
    if winner == "O":
        return -1
    return 0 if state.is_over else None


def legal_actions(state: Position) -> list[Action]:
    """The side to move's actions ``(mark, *coords)``, row-major; none once terminal.

    >>> len(legal_actions(Position())), legal_actions(Position("XOX/XOO/OX."))
    (9, [('X', 2, 2)])
    """
    mark = state.to_move
    return [(mark, *state.coords(cell)) for cell in state.legal_moves]


def successor(state: Position, action: tuple[object, ...]) -> Position | None:
    """The state after ``action``, or None where the transition is undefined.

    >>> successor(Position(), ("O", 1, 1)) is None  # X is to move, not O
    True
    >>> successor(Position(), ("X", 1, 1))
    Position('.../.X./...')
    >>> successor(Position(), ("X", 3, 1))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    noughts.errors.IllegalMoveError: action ('X', 3, 1): coordinates (3, 1) are off a board...
    """
    geometry = state.geometry
    if not isinstance(action, tuple) or len(action) != geometry.dims + 1:
        raise IllegalMoveError(
            f"an action is (mark, {', '.join(_AXES[-geometry.dims :])}), not {action!r}"
        )
    mark, *coords = action
    if mark not in ("X", "O"):
        raise IllegalMoveError(f"action {action!r}: the mark must be 'X' or 'O'")
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in coords):
        raise IllegalMoveError(f"action {action!r}: coordinates must be integers")
    int_coords = tuple(c for c in coords if isinstance(c, int))
    if not all(0 <= c < side for c, side in zip(int_coords, geometry.shape, strict=True)):
        raise IllegalMoveError(
            f"action {action!r}: coordinates {int_coords} are off a board of shape "
            f"{geometry.shape}"
        )
    cell = geometry.cell(int_coords)
    if state.is_over or mark != state.to_move or not state.empty >> cell & 1:
        return None
    return state.play(cell)


_AXES = ("layer", "row", "col")


def minimax_value(state: Position) -> int:
    """The seed agent's ``V_AI``: ``value`` at terminal states, else max (X) or min (O).

    A plain recursion, as in the seed: fine from mid-game 3x3 positions, slow beyond.

    >>> minimax_value(Position("XX./OO./...")), minimax_value(Position("XX./OO./X.."))
    (1, -1)
    """
    terminal_value = value(state)
    if terminal_value is not None:
        return terminal_value
    results = [
        minimax_value(next_state)
        for action in legal_actions(state)
        if (next_state := successor(state, action)) is not None
    ]
    return max(results) if state.to_move == "X" else min(results)


isTerminal = is_terminal  # the seed's name
getValue = value  # the seed's name
legalActions = legal_actions  # the seed's name
getSuccessor = successor  # the seed's name

"""Teaching searches: plain minimax and alpha-beta, written to be read, with node counts.

The 3x3 functions keep the tutorial seed's own board: a list of nine strings, ``"X"``,
``"O"``, or the cell's number (``"1"`` ... ``"9"``) while the cell is empty::

     1 | 2 | 3        cell indices   0 1 2
    ---+---+---                      3 4 5
     4 | 5 | 6                       6 7 8
    ---+---+---
     7 | 8 | 9

A won board scores ``50 - depth`` for the searching player (the maximizer) and
``-50 + depth`` for its opponent, so the shallowest win and the deepest loss are
preferred; a full board without a line scores 0.

How the tutorial seed's numbers are counted (both reproduced exactly here, with X on
the centre and the AI, O, to move):

* **minimax: 55,505 positions, the root included.** The plain version is called on the
  current board itself (``minimax(board, 0, True)``) and recurses into every free cell
  in cell order, stopping only at a line or a full board. One call is one position of
  the game tree, so the count is the size of that tree: the root plus 55,504 calls.
* **alpha-beta: 8,465 positions.** The final version's ``next_move`` plays each free
  cell itself, in cell order, and calls ``minimax(board, False, -50, 50, 0)`` on the
  result: every root move gets its own fresh window ``(-50, 50)`` (no window is shared
  between root moves) and the root is not a call. Inside, the tutorial tests
  ``best >= beta`` (maximizer) or ``best <= alpha`` (minimizer) after every cell,
  free or not. The count is the number of calls: 8,465 (8,466 with the root).

>>> from noughts.position import Position
>>> centre = Position(".../.X./...")
>>> minimax_move(centre)
TeachingResult(move=0, score=0, nodes=55505)
>>> alphabeta_move(centre)
TeachingResult(move=0, score=0, nodes=8465)

:func:`negamax` is the same idea on any small board, over :class:`Position`, with or
without alpha-beta, counting every call (the root included):

>>> negamax(Position("XX./OO./...")).score > 0
True
"""

from __future__ import annotations

from dataclasses import dataclass

from noughts.errors import GameOverError, VariantError
from noughts.position import Mark, Position, other
from noughts.teaching.trace import trace

__all__ = [
    "TeachingResult",
    "NodeCounter",
    "tutorial_board",
    "evaluate_board",
    "moves_left",
    "minimax",
    "alphabeta",
    "minimax_move",
    "alphabeta_move",
    "negamax",
]

WIN = 50
"""The tutorial's score of a win found at depth 0 (it uses 50 instead of infinity)."""

LINES_3X3 = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)  # fmt: skip


@dataclass(frozen=True)
class TeachingResult:
    """The chosen move, its score for the player who moves, and the positions visited."""

    move: int
    score: int
    nodes: int


class NodeCounter:
    """Counts calls of a search function (the tutorial used a global variable).

    >>> counter = NodeCounter()
    >>> counter.visit(); counter.visit(); counter.nodes
    2
    """

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0

    def visit(self) -> None:
        """Count one position."""
        self.nodes += 1


def tutorial_board(position: Position) -> list[str]:
    """The tutorial's board of strings for a 3x3 position.

    >>> tutorial_board(Position("X.O/.../..."))
    ['X', '2', 'O', '4', '5', '6', '7', '8', '9']
    """
    geometry, rules = position.geometry, position.game.rules
    if geometry.shape != (3, 3) or rules.k != 3 or rules.misere:
        raise VariantError(f"the tutorial searches work on 3x3 only, not {position.variant}")
    board = []
    for cell in range(9):
        if position.x >> cell & 1:
            board.append("X")
        elif position.o >> cell & 1:
            board.append("O")
        else:
            board.append(str(cell + 1))
    return board


def _is_free(item: str) -> bool:
    return item.isdigit()


def evaluate_board(board: list[str], depth: int, me: Mark) -> int | None:
    """``50 - depth`` if ``me`` has a line, ``-50 + depth`` if the opponent has, else None.

    >>> evaluate_board(["X", "X", "X", "4", "O", "O", "7", "8", "9"], 3, "X")
    47
    """
    for a, b, c in LINES_3X3:
        if board[a] == board[b] == board[c]:
            return (WIN - depth) if board[a] == me else (-WIN + depth)
    return None


def moves_left(board: list[str]) -> bool:
    """True while some cell is free."""
    return any(_is_free(item) for item in board)


def minimax(
    board: list[str], depth: int, is_maximizing: bool, me: Mark, counter: NodeCounter
) -> int:
    """The tutorial's plain minimax: the score of ``board`` for ``me``; one call per position.

    ``is_maximizing`` says whether ``me`` (the maximizer) is to move on ``board``.
    The board is changed and restored in place, as in the tutorial.
    """
    counter.visit()
    score = evaluate_board(board, depth, me)
    if score is not None:
        return score
    if not moves_left(board):
        return 0
    mark = me if is_maximizing else other(me)
    best = -WIN if is_maximizing else WIN
    for cell, item in enumerate(board):
        if _is_free(item):
            board[cell] = mark
            value = minimax(board, depth + 1, not is_maximizing, me, counter)
            board[cell] = item
            best = max(best, value) if is_maximizing else min(best, value)
    return best


def alphabeta(
    board: list[str],
    is_maximizing: bool,
    alpha: int,
    beta: int,
    depth: int,
    me: Mark,
    counter: NodeCounter,
) -> int:
    """The tutorial's minimax with alpha-beta pruning (same argument order as the tutorial).

    Returns the exact score when it lies inside ``(alpha, beta)``; otherwise a bound
    on the far side of the window, which is all the caller needs.
    """
    counter.visit()
    score = evaluate_board(board, depth, me)
    if score is not None:
        return score
    if not moves_left(board):
        return 0
    if is_maximizing:
        best = -WIN
        for cell, item in enumerate(board):
            if _is_free(item):
                board[cell] = me
                best = max(best, alphabeta(board, False, alpha, beta, depth + 1, me, counter))
                board[cell] = item
            if best >= beta:  # the minimizer above will never allow this
                return best
            alpha = max(best, alpha)
        return best
    best = WIN
    for cell, item in enumerate(board):
        if _is_free(item):
            board[cell] = other(me)
            best = min(best, alphabeta(board, True, alpha, beta, depth + 1, me, counter))
            board[cell] = item
        if best <= alpha:  # the maximizer above already has something better
            return best
        beta = min(best, beta)
    return best


def _require_moves(position: Position) -> None:
    if position.is_over:
        raise GameOverError("the game is over: there is no move to search")


def minimax_move(position: Position) -> TeachingResult:
    """The plain minimax move of the side to move, counting the root as one position.

    The first move (lowest cell) of the best score wins ties, as in the tutorial.
    """
    _require_moves(position)
    board = tutorial_board(position)
    me = position.to_move
    counter = NodeCounter()
    counter.visit()  # the root: the tutorial's first call, minimax(board, 0, True)
    best_move, best_score = -1, -WIN - 1
    for cell, item in enumerate(board):
        if _is_free(item):
            board[cell] = me
            score = minimax(board, 1, False, me, counter)
            board[cell] = item
            if score > best_score:
                best_move, best_score = cell, score
    return TeachingResult(best_move, best_score, counter.nodes)


def alphabeta_move(position: Position) -> TeachingResult:
    """The tutorial's ``next_move``: each root move searched in a fresh ``(-50, 50)`` window.

    The root is not a call of :func:`alphabeta`, so it is not counted.
    """
    _require_moves(position)
    board = tutorial_board(position)
    me = position.to_move
    counter = NodeCounter()
    best_move, best_score = -1, -WIN
    for cell, item in enumerate(board):
        if _is_free(item):
            board[cell] = me
            score = alphabeta(board, False, -WIN, WIN, 0, me, counter)
            board[cell] = item
            if score > best_score:
                best_move, best_score = cell, score
    if best_move < 0:  # every move scored -50: impossible on 3x3, kept for safety
        best_move = next(iter(position.legal_moves))
    return TeachingResult(best_move, best_score, counter.nodes)


def negamax(position: Position, *, alpha_beta: bool = True) -> TeachingResult:
    """Negamax on any small board, moves in cell order, every call counted (root too).

    A win ``d`` plies ahead scores ``cells + 1 - d`` for the side to move, a loss the
    negative, a draw 0. Without ``alpha_beta`` it visits the whole game tree:

    >>> negamax(Position(".../.X./..."), alpha_beta=False).nodes
    55505
    >>> negamax(Position("", "2x2")).score  # the first player wins on the 3rd ply
    2

    The walk is the search trace's (:func:`noughts.teaching.trace.trace`), keeping no
    nodes: one walk both counts and, when asked, shows its steps.
    """
    _require_moves(position)
    walk = trace(position, "alphabeta" if alpha_beta else "minimax", max_stored=0)
    return TeachingResult(walk.best_move, walk.value, walk.nodes)

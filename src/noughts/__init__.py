"""noughts: a fast, exact tic-tac-toe-family engine.

>>> from noughts import Position, choose_move
>>> choose_move(Position("X../.O./...")).outcome
'draw'
"""

from noughts.engine import MoveResult, choose_move, evaluate_moves
from noughts.errors import (
    BoardError,
    GameOverError,
    IllegalMoveError,
    NoughtsError,
    TooLargeError,
    VariantError,
)
from noughts.exact.solver import analyze, best_move, can_solve, solve
from noughts.geometry import Bitboard, Geometry
from noughts.position import Position
from noughts.results import (
    Estimate,
    GameResult,
    Mark,
    MoveChoice,
    MoveEval,
    Outcome,
    Scale,
    Value,
    describe,
)
from noughts.variants import variant

__version__ = "0.1.0"

__all__ = [
    "Bitboard",
    "BoardError",
    "Estimate",
    "GameOverError",
    "GameResult",
    "Geometry",
    "IllegalMoveError",
    "Mark",
    "MoveChoice",
    "MoveEval",
    "MoveResult",
    "NoughtsError",
    "Outcome",
    "Position",
    "Scale",
    "TooLargeError",
    "Value",
    "VariantError",
    "analyze",
    "best_move",
    "can_solve",
    "choose_move",
    "describe",
    "evaluate_moves",
    "solve",
    "variant",
]

"""noughts: a fast, exact tic-tac-toe-family engine.

>>> from noughts import Limit, Position, choose_move
>>> choose_move(Position("X../.O./...")).outcome
'draw'
>>> choose_move(Position("X../.O./..."), Limit.within(seconds=1.0)).method
'exact'
"""

TYPE_CHECKING = False  # (not imported from typing: importing typing costs a cold start)
if TYPE_CHECKING:
    from noughts.budget import Limit
    from noughts.engine import choose_move, evaluate_moves
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

_HOMES = {
    "Limit": "noughts.budget",
    "choose_move": "noughts.engine",
    "evaluate_moves": "noughts.engine",
    "BoardError": "noughts.errors",
    "GameOverError": "noughts.errors",
    "IllegalMoveError": "noughts.errors",
    "NoughtsError": "noughts.errors",
    "TooLargeError": "noughts.errors",
    "VariantError": "noughts.errors",
    "analyze": "noughts.exact.solver",
    "best_move": "noughts.exact.solver",
    "can_solve": "noughts.exact.solver",
    "solve": "noughts.exact.solver",
    "Bitboard": "noughts.geometry",
    "Geometry": "noughts.geometry",
    "Position": "noughts.position",
    "Estimate": "noughts.results",
    "GameResult": "noughts.results",
    "Mark": "noughts.results",
    "MoveChoice": "noughts.results",
    "MoveEval": "noughts.results",
    "Outcome": "noughts.results",
    "Scale": "noughts.results",
    "Value": "noughts.results",
    "describe": "noughts.results",
    "variant": "noughts.variants",
}
"""Where each public name lives: imported on first use, so ``import noughts`` (and the
command line, which imports what its command needs) starts fast."""


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'noughts' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])


__version__ = "0.1.0"

__all__ = [
    "Bitboard",
    "BoardError",
    "Estimate",
    "GameOverError",
    "GameResult",
    "Geometry",
    "IllegalMoveError",
    "Limit",
    "Mark",
    "MoveChoice",
    "MoveEval",
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

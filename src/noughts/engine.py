"""The engine's front door: pick a move or value every move, exactly where possible.

``choose_move`` and ``evaluate_moves`` decide by themselves between the exact solver
(boards small enough to solve on the spot) and the anytime search (the rest), and say
which they used in ``method``. Levels below 10 play like weaker opponents.

>>> from noughts.position import Position
>>> result = choose_move(Position("XX./OO./..."))
>>> result.move, result.outcome, result.plies, result.method
(2, 'win', 1, 'exact')
>>> [(e.move, e.outcome) for e in evaluate_moves(Position("XX./OO./..."))][:2]
[(2, 'win'), (5, 'draw')]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from noughts.errors import GameOverError, NoughtsError
from noughts.exact import solver
from noughts.geometry import Geometry
from noughts.position import Position

__all__ = ["MoveResult", "MoveEval", "choose_move", "evaluate_moves", "MAX_LEVEL"]

MAX_LEVEL = 10
Method = Literal["exact", "anytime", "level"]


@dataclass(frozen=True)
class MoveEval:
    """One move's value for the player who makes it: proven (outcome, plies) or heuristic."""

    move: int
    coords: tuple[int, ...]
    proven: bool
    outcome: str | None = None
    plies: int | None = None
    score: float | None = None


@dataclass(frozen=True)
class MoveResult:
    """The engine's move with its value and the effort behind it.

    ``outcome``/``plies`` are set when ``proven``; ``score``/``depth``/``pv`` come from a
    heuristic search (``score`` is also set for proven values: the packed exact score).
    """

    move: int
    coords: tuple[int, ...]
    proven: bool
    outcome: str | None
    plies: int | None
    score: float | None
    depth: int | None
    pv: tuple[int, ...]
    nodes: int
    elapsed_ms: float
    method: Method
    level: int = MAX_LEVEL
    moves: tuple[MoveEval, ...] = field(default=(), repr=False)


def _check_playable(position: Position) -> None:
    if position.is_over:
        result = position.result
        winner = result.winner if result else None
        reason = f"{winner} has won" if winner else "the board is full"
        raise GameOverError(f"the game is over: {reason}")


def _check_level(level: int) -> None:
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise NoughtsError(f"level must be an integer from 0 to {MAX_LEVEL}, not {level!r}")


def choose_move(
    position: Position,
    *,
    level: int = MAX_LEVEL,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
) -> MoveResult:
    """The engine's move for the side to move.

    ``level`` 10 is the strongest play (perfect wherever the solver applies); lower levels
    make human-like mistakes, seeded by ``seed``. ``time_limit`` (seconds) and ``nodes``
    bound the anytime search on boards too large to solve.
    """
    _check_playable(position)
    _check_level(level)
    if level < MAX_LEVEL:
        from noughts.players.levels import level_move

        return level_move(position, level, time_limit=time_limit, nodes=nodes, seed=seed)
    if solver.can_solve(position):
        return _exact_move(position, seed)
    from noughts.anytime.search import anytime_move

    return anytime_move(position, time_limit=time_limit, nodes=nodes, seed=seed)


def _exact_move(position: Position, seed: int | None = None) -> MoveResult:
    start = time.perf_counter()
    choice = solver.best_move(position, seed=seed)
    geometry = position.geometry
    evals = tuple(_proven_eval(geometry, m) for m in choice.moves)
    return MoveResult(
        move=choice.move,
        coords=geometry.coords(choice.move),
        proven=True,
        outcome=choice.value.outcome.value,
        plies=choice.value.plies,
        score=choice.value.score,
        depth=choice.value.plies,
        pv=choice.pv,
        nodes=choice.nodes,
        elapsed_ms=(time.perf_counter() - start) * 1000,
        method="exact",
        moves=evals,
    )


def _proven_eval(geometry: Geometry, move_value: solver.MoveValue) -> MoveEval:
    value = move_value.value
    return MoveEval(
        move=move_value.move,
        coords=geometry.coords(move_value.move),
        proven=True,
        outcome=value.outcome.value,
        plies=value.plies,
        score=value.score,
    )


def evaluate_moves(
    position: Position, *, time_limit: float | None = None, nodes: int | None = None
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it (proven or heuristic)."""
    _check_playable(position)
    if solver.can_solve(position):
        geometry = position.geometry
        return [_proven_eval(geometry, m) for m in solver.analyze(position)]
    from noughts.anytime.search import anytime_evaluate

    return anytime_evaluate(position, time_limit=time_limit, nodes=nodes)

"""The engine's front door: pick a move or value every move, exactly where possible.

``choose_move`` and ``evaluate_moves`` decide by themselves between the exact solver
(boards small enough to solve on the spot) and the anytime search (the rest), and say
which they used in ``method``. Levels below 10 play like weaker opponents.

>>> from noughts.position import Position, check_playable
>>> result = choose_move(Position("XX./OO./..."))
>>> result.move, result.outcome, result.plies, result.method
(2, 'win', 1, 'exact')
>>> [(e.move, e.outcome) for e in evaluate_moves(Position("XX./OO./..."))][:2]
[(2, 'win'), (5, 'draw')]
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from noughts.errors import NoughtsError
from noughts.exact import solver
from noughts.position import Position, check_playable
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval

if TYPE_CHECKING:
    from noughts.budget import Budget

__all__ = ["MoveChoice", "MoveEval", "choose_move", "evaluate_moves", "MAX_LEVEL"]

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
    budget: Budget | None = None,
) -> MoveChoice:
    """The engine's move for the side to move.

    ``level`` 10 is the strongest play (perfect wherever the solver applies); lower levels
    make human-like mistakes, seeded by ``seed``. ``time_limit`` (seconds) bounds the
    whole answer: a solvable board is solved exactly within :data:`EXACT_SHARE` of it,
    else the anytime search plays in the rest; ``nodes`` bounds the anytime search on
    boards too large to solve. Every search polls
    ``budget``: cancel it to stop the search (an exact solve then raises
    :class:`~noughts.budget.BudgetExhausted`; the anytime search answers with its best
    move so far).
    """
    check_playable(position)
    _check_level(level)
    if level < MAX_LEVEL:
        from noughts.levels import level_move

        return level_move(
            position, level, time_limit=time_limit, nodes=nodes, seed=seed, budget=budget
        )
    if solver.can_solve(position):
        if time_limit is None:
            return solver.best_move(position, seed=seed, budget=budget)
        from noughts.budget import BudgetExhausted  # (not on 3x3's cold path)

        began = time.perf_counter()
        limit = _exact_limit(time_limit, budget)
        try:
            return solver.best_move(position, seed=seed, budget=limit)
        except BudgetExhausted:
            if limit.cancelled:
                raise
        time_limit = max(0.001, time_limit - (time.perf_counter() - began))
    from noughts.anytime.search import anytime_move

    return anytime_move(position, time_limit=time_limit, nodes=nodes, seed=seed, budget=budget)


EXACT_SHARE = 0.75
"""With a time limit, the exact solver gets this share of it; when it cannot finish, the
anytime search plays in the time left (so ``--time`` is honoured on every board)."""


def _exact_limit(time_limit: float, budget: Budget | None) -> Budget:
    """The exact solve's budget: its share of ``time_limit``, inside ``budget``."""
    from noughts.budget import Budget

    mine = Budget.within(time_limit * EXACT_SHARE)
    if budget is None:
        return mine
    return budget.narrowed(deadline=mine.deadline, node_limit=None)


def evaluate_moves(
    position: Position,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    budget: Budget | None = None,
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it (proven or heuristic);
    ``time_limit`` bounds it as it bounds :func:`choose_move`."""
    check_playable(position)
    if solver.can_solve(position):
        if time_limit is None:
            return solver.analyze(position, budget=budget)
        from noughts.budget import BudgetExhausted  # (not on 3x3's cold path)

        began = time.perf_counter()
        limit = _exact_limit(time_limit, budget)
        try:
            return solver.analyze(position, budget=limit)
        except BudgetExhausted:
            if limit.cancelled:
                raise
        time_limit = max(0.001, time_limit - (time.perf_counter() - began))
    from noughts.anytime.search import anytime_evaluate

    return anytime_evaluate(position, time_limit=time_limit, nodes=nodes, budget=budget)

"""The engine's front door: the one plan that answers a move, and every move's value.

:func:`choose_move` decides here, and nowhere else, how a move is answered:

1. a level below 10 plays like a weaker opponent (:mod:`noughts.levels`);
2. a board the exact solver can finish (:func:`answers_exactly`) is answered exactly:
   from the 3x3 table or the opening book where one serves it, else by negamax. Under a
   limit with a deadline the solve gets the limit less its reserve (:func:`reserve_s`);
   a solve that cannot finish in that gives way to the anytime search in the reserve;
3. any other board gets the anytime search (:mod:`noughts.search.anytime`): the shipped
   strategy's proven move where it serves, forced wins, then the deepening search. (The
   strategy stays with the anytime driver: its proofs also steer the driver's defence
   and its values, and the levels' deep look plays it too.)

``method`` says which answered (``level``, ``exact`` or ``anytime``).
:func:`evaluate_moves` values every move by the same plan. The service, the command
line, the players (and through them the arena, the terminal game and the learning
environments) all ask here, with one :class:`~noughts.budget.Limit`.

>>> from noughts.position import Position
>>> result = choose_move(Position("XX./OO./..."))
>>> result.move, result.outcome, result.plies, result.method
(2, 'win', 1, 'exact')
>>> [(e.move, e.outcome) for e in evaluate_moves(Position("XX./OO./..."))][:2]
[(2, 'win'), (5, 'draw')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple, TypeVar

from noughts.errors import NoughtsError
from noughts.exact import solver
from noughts.position import Position, check_playable
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval

if TYPE_CHECKING:
    from collections.abc import Callable

    from noughts.budget import Limit

__all__ = [
    "MoveChoice",
    "MoveEval",
    "Evaluation",
    "choose_move",
    "evaluate_moves",
    "evaluation",
    "answers_exactly",
    "reserve_s",
    "MAX_LEVEL",
    "MAX_RESERVE_S",
]

MAX_RESERVE_S = 0.25
"""Under a deadline, an exact solve leaves a quarter of the limit, at most this many
seconds, to the anytime search, for when it cannot finish (so a time limit is honoured
on every board). The solver's table keeps what a stopped solve learnt."""


def _check_level(level: int) -> None:
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise NoughtsError(f"level must be an integer from 0 to {MAX_LEVEL}, not {level!r}")


def answers_exactly(position: Position, level: int = MAX_LEVEL) -> bool:
    """True if the plan answers ``position`` at ``level`` with the exact solver first
    (level 10 on a board it can finish): the answer is the same whenever it is asked.

    >>> answers_exactly(Position()), answers_exactly(Position(), 5)
    (True, False)
    >>> answers_exactly(Position("", "qubic"))
    False
    """
    return level == MAX_LEVEL and solver.can_solve(position)


def reserve_s(limit: Limit) -> float:
    """The part of ``limit`` an exact solve leaves to the anytime search: a quarter of
    its seconds, at most :data:`MAX_RESERVE_S` (none without a deadline).

    >>> from noughts.budget import Limit
    >>> reserve_s(Limit(deadline=10.5, start=10.0)), reserve_s(Limit(deadline=12.0, start=10.0))
    (0.125, 0.25)
    >>> reserve_s(Limit(node_limit=10))
    0.0
    """
    seconds = limit.seconds
    return 0.0 if seconds is None else min(MAX_RESERVE_S, seconds / 4)


def _exact_part(limit: Limit) -> Limit:
    """The exact solve's part of ``limit``: its deadline less the reserve, no node limit
    (the solver counts nodes its own way), the same cancel switch."""
    deadline = None if limit.deadline is None else limit.deadline - reserve_s(limit)
    return limit.limited(deadline=deadline, node_limit=None)


def choose_move(
    position: Position,
    limit: Limit | None = None,
    *,
    level: int = MAX_LEVEL,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
    budget: Limit | None = None,
) -> MoveChoice:
    """The engine's move for the side to move, by the plan (see the module docstring).

    ``level`` 10 is the strongest play (perfect wherever the solver applies); lower levels
    make human-like mistakes, seeded by ``seed``. ``limit`` bounds the whole answer: its
    deadline every search; its node limit the anytime search (and the levels' deep look),
    not an exact solve. ``time_limit`` (seconds from now) and ``nodes`` narrow it
    (``budget`` is ``limit``'s older name). Cancel the limit to stop the search: an exact
    solve then raises :class:`~noughts.budget.BudgetExhausted`; the anytime search answers
    with its best move so far.

    >>> from noughts.budget import Limit
    >>> choose_move(Position("", "qubic"), Limit.within(nodes=2_000), seed=1).method
    'anytime'
    """
    check_playable(position)
    _check_level(level)
    whole = _limit(limit, time_limit, nodes, budget)
    if level < MAX_LEVEL:
        from noughts.levels import level_move

        return level_move(position, level, whole, seed=seed)
    if solver.can_solve(position):
        if whole is None:  # (3x3's hot path: its answers are memoised in the solver)
            return solver.best_move(position, seed=seed)
        found = _exactly(lambda part: solver.best_move(position, seed=seed, budget=part), whole)
        if found is not None:
            return found
    from noughts.search.anytime import anytime_move

    return anytime_move(position, whole, seed=seed)


_T = TypeVar("_T")


def _exactly(solve: Callable[[Limit | None], _T], limit: Limit | None) -> _T | None:
    """The plan's exact step: ``solve`` within ``limit`` less its reserve (the cancel
    switch only, without a deadline); ``None`` when it cannot finish in that. A cancel
    raises :class:`~noughts.budget.BudgetExhausted`."""
    if limit is None or limit.deadline is None:
        untimed = None if limit is None else limit.limited(deadline=None, node_limit=None)
        return solve(untimed)
    from noughts.budget import BudgetExhausted  # (not on 3x3's cold path)

    try:
        return solve(_exact_part(limit))
    except BudgetExhausted:
        if limit.cancelled:
            raise
    return None


def _limit(
    limit: Limit | None, time_limit: float | None, nodes: int | None, budget: Limit | None
) -> Limit | None:
    if limit is None and budget is None and time_limit is None and nodes is None:
        return None  # (3x3's cold path imports no limit)
    from noughts.budget import one_limit

    return one_limit(limit, time_limit, nodes, budget=budget)


class Evaluation(NamedTuple):
    """Every legal move's value, which part of the plan gave them, and the exact
    solver's nodes for them (``None`` from the anytime search)."""

    moves: list[MoveEval]
    method: Literal["exact", "anytime"]
    nodes: int | None = None


def evaluation(position: Position, limit: Limit | None = None) -> Evaluation:
    """Every legal move's value for the player who makes it, by the plan of
    :func:`choose_move` at level 10 (exact where it can finish, else the anytime search).

    >>> evaluation(Position("XX./OO./...")).method
    'exact'
    """
    check_playable(position)
    if solver.can_solve(position):
        counter = solver.solver_for(position.game)
        before = counter.nodes
        moves = _exactly(lambda part: solver.analyze(position, budget=part), limit)
        if moves is not None:
            return Evaluation(moves, "exact", counter.nodes - before)
    from noughts.search.anytime import anytime_evaluate

    return Evaluation(anytime_evaluate(position, limit), "anytime")


def evaluate_moves(
    position: Position,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    budget: Limit | None = None,
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it (proven or heuristic);
    the limit and its keywords bound it as they bound :func:`choose_move`."""
    check_playable(position)
    return evaluation(position, _limit(limit, time_limit, nodes, budget)).moves

"""The engine's answers: the move of a position, and every move's value, by the plan.

:func:`choose_move` asks the stages of :data:`~noughts.engine.plan.PLAN` in order, on
the canonical image of the position (:mod:`noughts.orientation`), and maps the answer
back; :func:`evaluation` and :func:`evaluate_moves` value every move by the same plan.

>>> from noughts.position import Position
>>> choose_move(Position("XX./OO./...")).move
2
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

from noughts.engine.plan import PLAN, _answer, _exactly, _knowledge, _Request, search_limit
from noughts.errors import NoughtsError
from noughts.exact import solver
from noughts.orientation import Orientation
from noughts.position import Position, check_playable
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval

if TYPE_CHECKING:
    from noughts.budget import Limit
    from noughts.knowledge.shipped import Knowledge

__all__ = ["Evaluation", "choose_move", "evaluate_moves", "evaluation"]


def choose_move(
    position: Position,
    limit: Limit | None = None,
    *,
    level: int = MAX_LEVEL,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
    knowledge: Knowledge | None = None,
) -> MoveChoice:
    """The engine's move for the side to move, by the plan (see the module docstring).

    ``level`` 10 is the strongest play (perfect wherever the solver applies); lower levels
    make human-like mistakes, seeded by ``seed``. A ``seed`` (a game's) also picks among
    equally good moves: the same seed gives the same move, in every orientation of the
    board; no seed gives the canonical answer. ``limit`` bounds the whole answer: its
    deadline and node limit every search (each search counts its own nodes).
    ``time_limit`` (seconds from now) and ``nodes`` narrow it. Cancel the limit to stop
    the search: an exact solve then raises :class:`~noughts.budget.BudgetExhausted`;
    the anytime search answers with its best move so far. ``knowledge`` says which of
    the shipped knowledge the stages consult (all of it by default).

    >>> from noughts.budget import Limit
    >>> choose_move(Position("", "qubic"), Limit.within(nodes=2_000), seed=1).method
    'anytime'
    """
    check_playable(position)
    _check_level(level)
    view = Orientation.of(position)
    request = _Request(view.canonical, _limit(limit, time_limit, nodes), level, seed,
                       knowledge)
    return view.original_choice(_answer(request, PLAN))


def _check_level(level: int) -> None:
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise NoughtsError(f"level must be an integer from 0 to {MAX_LEVEL}, not {level!r}")


def _limit(limit: Limit | None, time_limit: float | None, nodes: int | None) -> Limit | None:
    if limit is None and time_limit is None and nodes is None:
        return None  # (3x3's cold path imports no limit)
    from noughts.budget import one_limit

    return one_limit(limit, time_limit, nodes)


class Evaluation(NamedTuple):
    """Every legal move's value, which part of the plan gave them, and the exact
    solver's nodes for them (``None`` from the anytime search)."""

    moves: list[MoveEval]
    method: Literal["exact", "anytime"]
    nodes: int | None = None


def evaluation(position: Position, limit: Limit | None = None, *,
               knowledge: Knowledge | None = None) -> Evaluation:
    """Every legal move's value for the player who makes it, by the plan of
    :func:`choose_move` at level 10 (exact where it can finish, else the anytime search,
    with the stored strategy's proven wins and losses).

    >>> evaluation(Position("XX./OO./...")).method
    'exact'
    """
    check_playable(position)
    view = Orientation.of(position)
    image = view.canonical
    if solver.can_solve(image):
        counter = solver.solver_for(image.game)
        before = counter.nodes
        moves = _exactly(lambda part: solver.analyze(image, limit=part), limit)
        if moves is not None:
            return Evaluation(view.original_evals(moves), "exact", counter.nodes - before)
    from noughts.knowledge.strategy import proven_moves, proven_replies
    from noughts.search.anytime import evaluate_all

    known = _knowledge(knowledge)
    plan = known.strategy_for(image)
    moves = evaluate_all(image, search_limit(limit), wins=proven_moves(image, plan),
                         lost=proven_replies(image, plan),
                         learned=known.learned_for(image.game))
    return Evaluation(view.original_evals(moves), "anytime")


def evaluate_moves(
    position: Position,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    knowledge: Knowledge | None = None,
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it (proven or heuristic);
    the limit and its keywords bound it as they bound :func:`choose_move`."""
    check_playable(position)
    return evaluation(position, _limit(limit, time_limit, nodes), knowledge=knowledge).moves

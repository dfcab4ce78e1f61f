"""The engine's front door: the one plan that answers a move, and every move's value.

:func:`choose_move` answers with the first of these stages that can (:data:`PLAN`):

1. **level** -- a level below 10 plays like a weaker opponent (:mod:`noughts.levels`);
2. **exact** -- a board the exact solver can finish (:func:`answers_exactly`) is answered
   exactly: from the 3x3 table or the opening book where one serves it, else by negamax,
   within the limit less its reserve (:func:`reserve_s`); a solve that cannot finish in
   that gives way to the stages below, in the reserve;
3. **forced win** -- the shortest forced win by continuous threats
   (:func:`~noughts.search.anytime.shortest_win`), before any stage that knows a win
   of its own, so that none hides a shorter one;
4. **strategy** -- the shipped strategy's proven move (Qubic's first player);
5. **book** -- the second player's opening book, unless a short proof check finds the
   opponent a forced win after the book's move (then that move counts as lost below);
6. **opening** -- on an empty board, given a ``seed``, a seeded random pick among the
   cells on the most lines (games between players then differ);
7. **proof** -- a forced win by quiet moves, proven by the proof-number search;
8. **search** -- the deepening search with its guard and, for the second player, its
   defence by proof (:func:`~noughts.search.anytime.search_move`); it always answers.

Stages 3 to 8 share one limit (:func:`~noughts.search.anytime.search_limit`), and the
nodes a stage spent without answering count against it. Misère games skip the stages
built on threats (3, 5, 6, 7): a threat forces nothing there. The shipped knowledge the
stages consult comes in as one :class:`~noughts.knowledge.shipped.Knowledge` value
(:data:`~noughts.knowledge.shipped.SHIPPED` by default); a benchmark, a builder or a
player passes another to switch parts of it off.

The plan answers on the canonical image of the position under its board's symmetries and
maps the answer back (:mod:`noughts.orientation`). So a position gets one answer whoever
asks (the command line, the service and its cache, any worker process), and every
symmetric image of the board gets that answer mapped. A game ``seed`` picks among moves
a stage finds equally good (the exact solver's tied best moves, the deepening search's
near-ties, :mod:`noughts.search.ties`), on that image, so it never trades a proven value.

``method`` says which kind of stage answered (``level``, ``exact`` or ``anytime``).
:func:`evaluation` values every move by the same plan. The service, the command line,
the players (and through them the arena, the terminal game and the learning
environments) all ask here, with one :class:`~noughts.budget.Limit`.

>>> from noughts.position import Position
>>> result = choose_move(Position("XX./OO./..."))
>>> result.move, result.outcome, result.plies, result.method
(2, 'win', 1, 'exact')
>>> [(e.move, e.outcome) for e in evaluate_moves(Position("XX./OO./..."))][:2]
[(2, 'win'), (5, 'draw')]
>>> [stage.__name__ for stage in PLAN]
['level', 'exact', 'forced_win', 'strategy', 'book', 'opening', 'proof', 'search']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple, TypeVar

from noughts.errors import NoughtsError
from noughts.exact import solver
from noughts.orientation import Orientation
from noughts.position import Position, check_playable
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval

if TYPE_CHECKING:
    import random
    from collections.abc import Callable

    from noughts.budget import Limit
    from noughts.knowledge.shipped import Knowledge
    from noughts.results import Value

__all__ = [
    "MoveChoice",
    "MoveEval",
    "Evaluation",
    "PLAN",
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
seconds, to the later stages, for when it cannot finish (so a time limit is honoured
on every board). The solver's table keeps what a stopped solve learnt."""


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
    """The part of ``limit`` an exact solve leaves to the later stages: a quarter of its
    seconds, at most :data:`MAX_RESERVE_S` (none without a deadline).

    >>> from noughts.budget import Limit
    >>> reserve_s(Limit(deadline=10.5, start=10.0)), reserve_s(Limit(deadline=12.0, start=10.0))
    (0.125, 0.25)
    >>> reserve_s(Limit(node_limit=10))
    0.0
    """
    seconds = limit.seconds
    return 0.0 if seconds is None else min(MAX_RESERVE_S, seconds / 4)


# -- the request a plan answers --------------------------------------------------------------
class _Request:
    """One move to answer, and what the stages learn on the way: moves found to lose
    (``lost``: move -> plies of the opponent's win) and the nodes spent by stages that
    did not answer. (A plain class: 3x3's cold path imports no dataclasses.)"""

    __slots__ = ("position", "limit", "level", "seed", "_knowledge", "lost", "spent",
                 "_stages_limit")

    def __init__(self, position: Position, limit: Limit | None, level: int,
                 seed: int | None, knowledge: Knowledge | None) -> None:
        self.position = position
        self.limit = limit
        self.level = level
        self.seed = seed
        self._knowledge = knowledge
        self.lost: dict[int, int] = {}
        self.spent = 0
        self._stages_limit: Limit | None = None

    @property
    def knowledge(self) -> Knowledge:
        """The shipped knowledge the stages consult (all of it unless one was given)."""
        if self._knowledge is None:
            self._knowledge = _knowledge(None)
        return self._knowledge

    @property
    def stages_limit(self) -> Limit:
        """The limit of the stages after the exact one, made when the first asks."""
        if self._stages_limit is None:
            from noughts.search.anytime import search_limit

            self._stages_limit = search_limit(self.limit)
        return self._stages_limit

    @property
    def threats_apply(self) -> bool:
        """Whether the stages built on threats apply (not in misère)."""
        return self.position.game.rules.threat_search


# -- the stages --------------------------------------------------------------------------------
def level(request: _Request) -> MoveChoice | None:
    """A level below 10: a player who makes the mistakes people make."""
    if request.level == MAX_LEVEL:
        return None
    from noughts.levels import level_move

    return level_move(request.position, request.level, request.limit, seed=request.seed,
                      look=_DeepLook(request.knowledge))


def exact(request: _Request) -> MoveChoice | None:
    """The exact solver's move, where it can finish within the limit less its reserve."""
    position = request.position
    if not solver.can_solve(position):
        return None
    if request.limit is None:  # (3x3's hot path: its answers are memoised in the solver)
        return solver.best_move(position, seed=request.seed)
    return _exactly(lambda part: solver.best_move(position, seed=request.seed, limit=part),
                    request.limit)


def forced_win(request: _Request) -> MoveChoice | None:
    """The shortest forced win by continuous threats, if the threat search finds one."""
    if not request.threats_apply:
        return None
    from noughts.results import Bound, Outcome, Value
    from noughts.search.anytime import choice, shortest_win

    position, limit = request.position, request.stages_limit
    line, nodes = shortest_win(position, limit)
    request.spent += nodes
    if line is None:
        return None
    value = Value(Outcome.WIN, 1) if len(line) == 1 else Bound(Outcome.WIN, len(line))
    return choice(position, line[0], limit, value=value, depth=len(line), pv=tuple(line),
                  nodes=request.spent)


def strategy(request: _Request) -> MoveChoice | None:
    """The shipped strategy's proven move, where it holds the position."""
    position = request.position
    plan = request.knowledge.strategy_for(position)
    if plan is None:
        return None
    from noughts.knowledge.strategy import strategy_move
    from noughts.results import Bound, Outcome
    from noughts.search.anytime import choice

    found = strategy_move(position, plan)
    if found is None:
        return None
    return choice(position, found.move, request.stages_limit,
                  value=Bound(Outcome.WIN, found.plies), depth=found.plies,
                  nodes=request.spent, note="From the shipped strategy: a proven win, "
                  f"in at most {found.plies} plies whatever the opponent plays.")


def book(request: _Request) -> MoveChoice | None:
    """The opening book's reply, unless its proof check refutes it."""
    position = request.position
    held = request.knowledge.o_book_for(position)
    booked = None if held is None else held.lookup(position)
    if booked is None:
        return None
    from noughts.search.anytime import book_check, choice

    limit = request.stages_limit
    check = book_check(position, booked.move, limit)
    request.spent += check.nodes
    if booked.move in check.refuted:
        request.lost.update(check.refuted)  # searched like any other move, without it
        return None
    why = (f"the reply that did best in the games it was built from ({booked.score:g} "
           f"points in {booked.games} games)" if booked.games else
           "a reply after which a deep proof search, run offline, found no forced win for X")
    return choice(position, booked.move, limit, value=_stored_loss(request, booked.move),
                  nodes=request.spent, note=f"From O's opening book: {why}.")


def _stored_loss(request: _Request, move: int) -> Value | None:
    """The stored strategy's proof that ``move`` loses, if it holds one."""
    from noughts.knowledge.strategy import strategy_move
    from noughts.results import Bound, Outcome

    after = request.position.play(move)
    found = None if after.is_over else strategy_move(after,
                                                     request.knowledge.strategy_for(after))
    return None if found is None else Bound(Outcome.LOSS, 1 + found.plies)


def opening(request: _Request) -> MoveChoice | None:
    """Given a seed, a seeded random strongest cell on an empty board."""
    if request.seed is None or not request.threats_apply:
        return None
    import random

    from noughts.search.anytime import choice
    from noughts.search.openings import opening_move

    move = opening_move(request.position, random.Random(request.seed))
    if move is None:
        return None
    return choice(request.position, move, request.stages_limit, nodes=request.spent)


def proof(request: _Request) -> MoveChoice | None:
    """A forced win by quiet moves, if the proof-number search proves one."""
    if not request.threats_apply:
        return None
    from noughts.results import Bound, Outcome
    from noughts.search.anytime import choice, proof_win

    won = proof_win(request.position, request.stages_limit)
    if won is None:
        return None
    move, plies = won
    return choice(request.position, move, request.stages_limit,
                  value=Bound(Outcome.WIN, plies), depth=plies, nodes=request.spent)


def search(request: _Request) -> MoveChoice:
    """The deepening search with its guard and defence (it always answers)."""
    from noughts.knowledge.strategy import proven_replies
    from noughts.search.anytime import search_move

    position, knowledge = request.position, request.knowledge
    lost = {**proven_replies(position, knowledge.strategy_for(position)), **request.lost}
    return search_move(position, request.stages_limit, lost=lost, spent=request.spent,
                       learned=knowledge.learned_for(position.game), seed=request.seed)


PLAN: tuple[Callable[[_Request], MoveChoice | None], ...] = (
    level, exact, forced_win, strategy, book, opening, proof, search,
)
"""The stages of :func:`choose_move`, in order: the first that answers gives the move."""

_SEARCHED = PLAN[2:]
"""The stages after the exact one: the levels' deep look past the exact solver's reach."""


def _answer(request: _Request, stages: tuple[Callable[[_Request], MoveChoice | None], ...]
            ) -> MoveChoice:
    for stage in stages:
        answer = stage(request)
        if answer is not None:
            return answer
    raise AssertionError("the search stage always answers")  # pragma: no cover


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


def _knowledge(knowledge: Knowledge | None) -> Knowledge:
    if knowledge is not None:
        return knowledge
    from noughts.knowledge.shipped import SHIPPED  # (not on 3x3's cold path)

    return SHIPPED


_T = TypeVar("_T")


def _exactly(solve: Callable[[Limit | None], _T], limit: Limit | None) -> _T | None:
    """The plan's exact step: ``solve`` within ``limit`` less its reserve; ``None`` when
    it cannot finish in that. A cancel raises :class:`~noughts.budget.BudgetExhausted`."""
    if limit is None:
        return solve(None)
    from noughts.budget import BudgetExhausted  # (not on 3x3's cold path)

    deadline = None if limit.deadline is None else limit.deadline - reserve_s(limit)
    try:
        return solve(limit.limited(deadline=deadline, node_limit=limit.node_limit))
    except BudgetExhausted:
        if limit.cancelled:
            raise
    return None


def _limit(limit: Limit | None, time_limit: float | None, nodes: int | None) -> Limit | None:
    if limit is None and time_limit is None and nodes is None:
        return None  # (3x3's cold path imports no limit)
    from noughts.budget import one_limit

    return one_limit(limit, time_limit, nodes)


class _DeepLook:
    """The levels' look past four plies, by the plan: every move's exact value where the
    exact step can finish, else the later stages' move within the level's nodes."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge

    def __call__(self, position: Position, limit: Limit | None, nodes: int,
                 rng: random.Random) -> list[MoveEval] | int:
        if solver.can_solve(position):
            moves = _exactly(lambda part: solver.analyze(position, limit=part), limit)
            if moves is not None:
                return moves
        from noughts.budget import Limit

        deep = (limit or Limit()).narrowed(deadline=None, node_limit=nodes)
        seed = rng.getrandbits(32)
        return _answer(_Request(position, deep, MAX_LEVEL, seed, self.knowledge),
                       _SEARCHED).move


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
    from noughts.search.anytime import evaluate_all, search_limit

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

"""The plan that answers a move: its stages, in order, and the share of a move's time
each gets.

:func:`~noughts.engine.moves.choose_move` answers with the first of these stages that
can (:data:`PLAN`):

1. **level** -- a level below 10 plays like a weaker opponent (:mod:`noughts.levels`);
2. **exact** -- a board the exact solver can finish (:func:`answers_exactly`) is answered
   exactly: from the 3x3 table or the opening book where one serves it, else by negamax,
   within the limit less its reserve (:func:`reserve_s`); a solve that cannot finish in
   that gives way to the stages below, in the reserve;
3. **forced win** -- the shortest forced win by continuous threats
   (:func:`~noughts.search.anytime.shortest_win`, in :data:`_WIN_SHARE` of the limit),
   before any stage that knows a win of its own, so that none hides a shorter one;
4. **strategy** -- the shipped strategy's proven move (Qubic's first player);
5. **book** -- the second player's opening book, unless a short proof check
   (:func:`book_check`, :data:`BOOK_CHECK_NODES` positions) finds the opponent a forced
   win after the book's move (then that move counts as lost below);
6. **opening** -- on an empty board, given a ``seed``, a seeded random pick among the
   cells on the most lines (games between players then differ);
7. **proof** -- a forced win by quiet moves, proven by the proof-number search
   (:func:`proof_win`, in :data:`_PROOF_SHARE` of the limit);
8. **search** -- the deepening search with its guard and, for the second player, its
   defence by proof (:func:`~noughts.search.anytime.search_move`), in the shares of
   :func:`search_shares`; it always answers.

Stages 3 to 8 share one limit (:func:`search_limit`), and the nodes a stage spent
without answering count against it. Misère games skip the stages built on threats (3, 5,
6, 7): a threat forces nothing there. The shipped knowledge the stages consult comes in
as one :class:`~noughts.knowledge.shipped.Knowledge` value
(:data:`~noughts.knowledge.shipped.SHIPPED` by default); a benchmark, a builder or a
player passes another to switch parts of it off. The searches (:mod:`noughts.search`)
search the limit they are handed: every share of a move's time is set here.

>>> [stage.__name__ for stage in PLAN]
['level', 'exact', 'forced_win', 'strategy', 'book', 'opening', 'proof', 'search']
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TypeVar

from noughts.exact import solver
from noughts.position import Position
from noughts.results import MAX_LEVEL, MoveChoice

if TYPE_CHECKING:
    import random
    from collections.abc import Callable

    from noughts.budget import Limit
    from noughts.knowledge.shipped import Knowledge
    from noughts.results import MoveEval, Value
    from noughts.search.anytime import Shares
    from noughts.search.defence import ProofDefence

__all__ = [
    "PLAN",
    "answers_exactly",
    "reserve_s",
    "search_limit",
    "search_shares",
    "proof_win",
    "book_check",
    "MAX_RESERVE_S",
    "DEFAULT_TIME_LIMIT",
    "BOOK_CHECK_NODES",
]


# -- the shares of a move's time --------------------------------------------------------------
MAX_RESERVE_S = 0.25
"""Under a deadline, an exact solve leaves a quarter of the limit, at most this many
seconds, to the later stages, for when it cannot finish (so a time limit is honoured
on every board). The solver's table keeps what a stopped solve learnt."""

DEFAULT_TIME_LIMIT = 1.0
"""Seconds a move when the limit bounds neither time nor nodes."""

_SAFETY = 0.03
_SAFETY_SHARE = 0.05
"""Kept back from the time limit for unwinding and building the result: the larger of
``_SAFETY`` seconds and ``_SAFETY_SHARE`` of the limit (a busy machine wakes us late)."""

_WIN_SHARE = 0.25
"""The share of the limit the threat search gets to find a forced win."""
_PROOF_SHARE = 0.1
"""The share of the limit the proof-number search gets to prove a win by quiet moves
(after the threat search found none)."""

BOOK_CHECK_NODES = 2_000
"""The proof positions the check of a book move may take before it is played. A book
kept by games can hold a move after which the opponent has a short forced win that the
games' players missed; the proof search finds those in a few dozen positions, and 2,000
take about 30 ms."""

_SEARCH_SHARE = 0.93
"""The deepening stops at this share of the limit; the rest checks the final choice
(a check usually takes a few milliseconds: the screening has done most of the work)."""
_SCREEN_SHARE = 0.6
"""The screening of the root moves for the opponent's forced wins, after the deepening's
fourth iteration, stops at this share of the limit."""
_DEFENCE_SHARE = 0.6
"""The share of the limit kept from the deepening for the proof checks of the chosen
move and the next best (:class:`~noughts.search.defence.ProofDefence`); they end at
:data:`_SEARCH_SHARE` of the limit. On the compiled core a first check takes a few
milliseconds, and the checks deepen until the share runs out: X's wins that start with
a quiet move and that a second's analysis proves once it is played take from 0.5 to 2
million proof positions to find a move earlier (0.2 to 0.5 s). Over the 107 O
positions of the lost games of a family run (40 million nodes a move, no book), 0.4
left 2 visible blunders, 0.6 none (docs/qubic-o.md)."""


_FINAL_SHARE = 0.1
"""With the proof checks alongside the deepening (a time limit, two cores:
:func:`~noughts.search.defence.alongside`), the share of the limit kept from the
deepening for the final choice among the moves they checked; both run until
:data:`_SEARCH_SHARE` less this. In four Qubic positions past O's book at one second,
the deepening went one or two plies deeper and the checks searched about a third more
positions than with :data:`_DEFENCE_SHARE` one after the other."""


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


def search_limit(limit: Limit | None) -> Limit:
    """The anytime stages' limit: ``limit`` (whose cancel switch it shares) less a
    safety margin on its time left, its node limit kept; :data:`DEFAULT_TIME_LIMIT`
    seconds when it bounds neither time nor nodes.

    >>> from noughts.budget import Limit
    >>> round(search_limit(None).seconds, 2)
    0.95
    >>> by_nodes = search_limit(Limit.within(nodes=10))
    >>> by_nodes.node_limit, by_nodes.deadline
    (10, None)
    """
    from noughts.budget import Limit  # (not on 3x3's cold path)

    start = time.perf_counter()
    outer = limit if limit is not None else Limit(start=start)
    left = outer.seconds_left()
    if left is None and outer.node_limit is None:
        left = DEFAULT_TIME_LIMIT
    deadline = None
    if left is not None:
        margin = max(_SAFETY, left * _SAFETY_SHARE)  # the scheduler may wake us late
        deadline = start + max(left - margin, left / 2)
    return outer.narrowed(deadline=deadline, node_limit=outer.node_limit, start=start)


def search_shares() -> Shares:
    """How the deepening search divides the stages' limit: :data:`_SEARCH_SHARE`,
    :data:`_SCREEN_SHARE`, :data:`_DEFENCE_SHARE` and :data:`_FINAL_SHARE`.

    >>> search_shares()
    Shares(search=0.93, screen=0.6, defence=0.6, final=0.1)
    """
    from noughts.search.anytime import Shares

    return Shares(search=_SEARCH_SHARE, screen=_SCREEN_SHARE, defence=_DEFENCE_SHARE,
                  final=_FINAL_SHARE)


def proof_win(position: Position, limit: Limit) -> tuple[int, int] | None:
    """A proven winning move for the side to move that needs quiet moves, and the most
    plies its proof lets the game last, within :data:`_PROOF_SHARE` of ``limit`` from
    now; ``None`` when none is proven."""
    from noughts.search.proof import find_win

    share = limit.share(_PROOF_SHARE)
    if share.deadline is not None:  # the share's length, counted from now
        share = share.limited(deadline=time.perf_counter() + share.deadline - share.start,
                              node_limit=share.node_limit)
    return find_win(position, limit=share)


def book_check(position: Position, move: int, limit: Limit) -> ProofDefence:
    """The proof check of a book's ``move`` (:data:`BOOK_CHECK_NODES` positions): the
    opponent's forced win after it, if one is found, is in its ``refuted``."""
    from noughts.search.defence import ProofDefence

    check = ProofDefence(position, limit, check_nodes=BOOK_CHECK_NODES)
    check.check(move)
    return check


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
    line, nodes = shortest_win(position, limit.share(_WIN_SHARE))
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
    from noughts.search.anytime import choice

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
    from noughts.search.anytime import choice

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
    return search_move(position, request.stages_limit, search_shares(), lost=lost,
                       spent=request.spent, learned=knowledge.learned_for(position.game),
                       seed=request.seed)


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



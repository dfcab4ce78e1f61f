"""Anytime play for boards too large to solve on the spot (Qubic, big m x n boards).

:func:`anytime_move` answers within a time and/or node budget: rules first (win now,
block the opponent's only threat), then O's opening book (a book move after which a
short proof search finds X a forced win is dropped), then the opening move (a random
strong cell on an empty board), a forced win by continuous threats
(:mod:`noughts.search.threats`), iterative deepening of the principal-variation
search (:mod:`noughts.search.pvs`) and, with the last part of the budget, a check that
the chosen move leaves the opponent no forced win by continuous threats. The second
player's moves after which the shipped Qubic strategy proves the first player's win
(:func:`noughts.knowledge.strategy.proven_replies`) count as refuted by that check while
another move is not known to lose. The second player then checks its choice, and the
next best moves in turn, with the proof-number search from the opponent's side
(:mod:`noughts.search.defence`, a quarter of the budget), and plays the first after
which no forced win is found; when every move is refuted (against the whole strategy,
O's first replies all are), it plays the one hardest to refute, and the answer is a
proven loss.
:func:`anytime_evaluate` values every legal move. Proven outcomes are exact; their plies
are exact for a win next move or a loss to a double threat, and otherwise a
:class:`~noughts.results.Bound` (the most the game can last, from the proof).

>>> from noughts.position import Position
>>> result = anytime_move(Position("XXX./OOO./..../....|" + "|".join(["..../..../..../...."] * 3),
...                                 "qubic"), time_limit=0.2)
>>> result.move, result.proven, result.outcome, result.plies, result.method
(3, True, 'win', 1, 'anytime')
"""

from __future__ import annotations

import functools
import gc
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from noughts.budget import BudgetExhausted, Limit, one_limit
from noughts.knowledge.obook import BookMove, book_move
from noughts.knowledge.strategy import proven_moves, proven_replies, strategy_move
from noughts.position import Position, check_playable
from noughts.results import Bound, Estimate, MoveChoice, MoveEval, Outcome, Scale, Value
from noughts.search.defence import ProofDefence
from noughts.search.evaluate import Style
from noughts.search.misere import MisereSearch
from noughts.search.openings import opening_move
from noughts.search.proof import find_win
from noughts.search.pvs import INF, MATE, MATE_BOUND, AnytimeSearch
from noughts.search.threats import ThreatSearch

__all__ = [
    "anytime_move",
    "anytime_evaluate",
    "AnytimeSearch",
    "DEFAULT_TIME_LIMIT",
    "BOOK_CHECK_NODES",
    "MATE",
    "MATE_BOUND",
]

DEFAULT_TIME_LIMIT = 1.0
"""Seconds a move when neither a time limit nor a node budget is given."""

_SAFETY = 0.03
_SAFETY_SHARE = 0.05
"""Kept back from the time budget for unwinding and building the result: the larger of
``_SAFETY`` seconds and ``_SAFETY_SHARE`` of the budget (a busy machine wakes us late)."""


# -- results ---------------------------------------------------------------------------------
def _proven(score: int, root_marks: int) -> Value | None:
    """The proven outcome (for the root's side to move) a mate score gives, if it is
    one; its plies bound the game (the search proves, it does not find the fastest)."""
    if score >= MATE_BOUND:
        return Bound(Outcome.WIN, MATE - score - root_marks)
    if score <= -MATE_BOUND:
        return Bound(Outcome.LOSS, MATE + score - root_marks)
    return None


def _result(
    position: Position,
    move: int,
    *,
    value: Value | None,
    score: int | None,
    depth: int,
    pv: tuple[int, ...],
    nodes: int,
    start: float,
    note: str = "",
) -> MoveChoice:
    return MoveChoice(
        move=move,
        game=position.game,
        value=value,
        estimate=None if value is not None or score is None else _estimate(score),
        depth=depth,
        pv=pv or (move,),
        nodes=nodes,
        elapsed_ms=(time.perf_counter() - start) * 1000,
        method="anytime",
        note=note,
    )


def _estimate(score: int) -> Estimate:
    return Estimate(float(score), Scale.SEARCH)


def _search_limit(limit: Limit | None) -> Limit:
    """The search's limit: ``limit`` (whose cancel switch it shares) less a safety
    margin on its time left; 1 s when nothing bounds it."""
    start = time.perf_counter()
    outer = limit if limit is not None else Limit(start=start)
    left = outer.seconds_left()
    if left is None and outer.node_limit is None:
        left = DEFAULT_TIME_LIMIT
    deadline = None
    if left is not None:
        margin = max(_SAFETY, left * _SAFETY_SHARE)  # the scheduler may wake us late
        deadline = start + max(left - margin, left / 2)
    return outer.narrowed(deadline=deadline, node_limit=None, start=start)


_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Keep the cyclic garbage collector from pausing a timed search (its table holds
    hundreds of thousands of objects; the search makes no reference cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _timed(function: Callable[_P, _R]) -> Callable[_P, _R]:
    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _no_gc_pauses():
            return function(*args, **kwargs)

    return wrapper


@_timed
def anytime_move(
    position: Position,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    seed: int | None = None,
    style: Style = "strong",
    budget: Limit | None = None,
) -> MoveChoice:
    """The anytime engine's move: proven where it can prove, else its best heuristic try.

    ``limit`` bounds the search (1 s when it bounds neither time nor nodes); the move
    comes back within its deadline plus a few milliseconds, and cancelling it stops the
    search, which still answers with its best move so far. ``time_limit`` (seconds from
    now) and ``nodes`` narrow it (``budget`` is its older name). ``seed`` makes the
    opening choice reproducible. ``style`` picks the evaluation (see
    :mod:`noughts.search.evaluate`).
    """
    check_playable(position)
    whole = _search_limit(one_limit(limit, time_limit, nodes, budget=budget))
    if not position.game.rules.threat_search:
        return _misere_move(position, style, whole)
    start = whole.start
    search = AnytimeSearch(position, style=style, budget=whole)
    board = search.board
    side = board.stm
    mine, theirs = board.threats[side], board.threats[1 - side]
    if mine:
        move = min(mine)
        return _result(position, move, value=Value(Outcome.WIN, 1), score=None, depth=1,
                       pv=(move,), nodes=0, start=start)
    known = strategy_move(position)
    if known is not None:  # the shipped strategy's proven move
        return _result(position, known.move, value=Bound(Outcome.WIN, known.plies),
                       score=None, depth=known.plies, pv=(known.move,), nodes=0, start=start)
    if len(theirs) >= 2:
        first, second = sorted(theirs)[:2]
        return _result(position, first, value=Value(Outcome.LOSS, 2), score=None, depth=2,
                       pv=(first, second), nodes=0, start=start)
    lost: dict[int, int] = {}
    doomed: dict[int, int] = {}
    book_refuted: dict[int, int] = {}
    if theirs:
        moves = [next(iter(theirs))]  # the block is forced; search it only to value it
    else:
        booked = book_move(position)
        if booked is not None:  # O's opening book (its first few moves), unless refuted
            check = ProofDefence(position, whole, check_nodes=BOOK_CHECK_NODES)
            stands = check.check(booked.move)
            search.nodes += check.nodes
            if stands:
                return _booked(position, booked, start, search.nodes)
            book_refuted = check.refuted  # searched like any other position, without it
        opening = opening_move(position, random.Random(seed))
        if opening is not None:
            return _result(position, opening, value=None, score=None, depth=0, pv=(opening,),
                           nodes=0, start=start)
        line = _forced_win(search, whole)
        if line is not None:
            return _result(position, line[0], value=Bound(Outcome.WIN, len(line)), score=None,
                           depth=len(line), pv=tuple(line), nodes=search.nodes, start=start)
        win = _proof_win(position, search, whole)
        if win is not None:
            move, plies = win
            return _result(position, move, value=Bound(Outcome.WIN, plies), score=None,
                           depth=plies, pv=(move,), nodes=search.nodes, start=start)
        moves = search.ordered_moves(-1, 0)
        lost = {**proven_replies(position), **book_refuted}  # known to lose
        if lost and all(move in lost for move in moves):
            doomed, lost = lost, {}  # every move loses: the search picks the best try
    # Deepen until _SEARCH_SHARE of the budget. Once an iteration of _SCREEN_DEPTH plies is done,
    # the root moves are screened, best first, for the opponent's forced wins by
    # continuous threats until one passes (the losing ones are dropped from the
    # search); the last part of the budget checks the final choice the same way.
    # the second player defends by proof too (measured in Qubic, where it is lost)
    defend = (_DEFENCE_SHARE > 0 and not theirs and len(moves) > 1
              and position.to_move != position.first)
    search.budget = whole.share(_SEARCH_SHARE - (_DEFENCE_SHARE if defend else 0.0))
    guard = _Guard(search, whole)
    guard.refuted.update(lost)  # known losses: the guard keeps to the other moves
    root_moves = len(moves)
    best_move, best_score, depth_done = moves[0], None, 0
    scores: dict[int, int] = {}
    for depth, score, move, scores in _deepening(search, moves):
        best_move, best_score, depth_done = move, score, depth
        if abs(score) >= MATE_BOUND or (len(moves) == 1 and depth >= 4):
            break
        if depth == _SCREEN_DEPTH and len(moves) > 1 and not theirs:
            guard.screen(moves, whole.share(_SCREEN_SHARE).deadline)
            if guard.safe:  # the refuted moves need no deeper search
                moves[:] = [m for m in moves if m not in guard.refuted]
                if best_move in guard.refuted:
                    best_move, best_score = _best_safe(moves, guard.safe, scores)
    value = None if best_score is None else _proven(best_score, search.root_marks)
    note = ""
    if value is None and len(moves) > 1 and not theirs:
        if best_move not in guard.safe and best_move not in guard.refuted:
            guard.check(best_move, whole.deadline)
        while best_move in guard.refuted and not guard.safe:  # look for a safe move
            unchecked = [m for m in moves if m not in guard.refuted]
            if not unchecked or not guard.check(unchecked[0], whole.deadline):
                break
        if best_move in guard.refuted:
            if guard.safe:
                best_move, best_score = _best_safe(moves, guard.safe, scores)
            elif len(guard.refuted) == root_moves:
                slowest = max(guard.refuted, key=lambda c: guard.refuted[c])
                best_move, best_score = slowest, None
                value = Bound(Outcome.LOSS, guard.refuted[slowest])
                note = (f"Every move loses to a chain of threats; this one lasts longest "
                        f"(the win after it takes {guard.refuted[slowest]} plies).")
    defence = None
    if defend and value is None and len(moves) > 1:
        best_move, best_score, value, defence = _defended(
            position, moves, best_move, best_score, scores, guard, search, whole, root_moves)
        if value is not None and value.outcome is Outcome.LOSS:
            note = _hardest_note(position, best_move, defence, "the proof search refutes each")
    if doomed and (value is None or value.outcome is not Outcome.LOSS):
        value = Bound(Outcome.LOSS, doomed[best_move])  # the strategy's bound
        note = _hardest_note(position, best_move, defence, "the shipped strategy wins "
                             "against each")
    # big boards search the cells near the marks only (a forced block excepted)
    partial = not theirs and root_moves < len(position.legal_moves)
    if value is not None and value.outcome is Outcome.LOSS and partial:
        value = None  # a far move was not searched: no proof of a loss
    pv = search.principal_variation(best_move, max(depth_done, 1))
    return _result(position, best_move, value=value, score=best_score, depth=depth_done,
                   pv=pv, nodes=search.nodes, start=start, note=note if value else "")


def _booked(position: Position, booked: BookMove, start: float, nodes: int) -> MoveChoice:
    """The O book's reply, with the strategy's proof of the loss where it has one
    (``nodes``: what its check took)."""
    move = booked.move
    after = position.play(move)
    found = None if after.is_over else strategy_move(after)
    value = None if found is None else Bound(Outcome.LOSS, 1 + found.plies)
    why = (f"the reply that did best in the games it was built from ({booked.score:g} "
           f"points in {booked.games} games)" if booked.games else
           "a reply after which a deep proof search, run offline, found no forced win for X")
    note = f"From O's opening book: {why}."
    return _result(position, move, value=value, score=None, depth=0, pv=(move,), nodes=nodes,
                   start=start, note=note)


def _hardest_note(position: Position, move: int, defence: ProofDefence | None,
                  proof: str) -> str:
    """The words for a move chosen among moves that are all proven lost (``proof``
    says how): why this one is the hardest to refute."""
    them = "O" if position.to_move == "X" else "X"
    head = f"Every move is proven lost ({proof}); "
    if defence is not None and move in defence.effort:
        return (head + f"this one is the hardest to refute: {them}'s win after it took "
                f"the largest proof search ({defence.effort[move]:,} positions).")
    if defence is not None and move in defence.unrefuted:
        return (head + f"this one is the hardest to refute: the proof search found no "
                f"win of {them} after it within its {defence.check_nodes:,} positions.")
    if defence is not None and defence.refuted:
        return (head + "this one is the search's best try of those the proof search did "
                "not refute within the move's budget.")
    return head + "this one is the search's best try."


def _misere_move(position: Position, style: Style, whole: Limit) -> MoveChoice:
    """The misère game's move (:mod:`noughts.search.misere`): no threats to exploit,
    no proof-number stage; iterative deepening by the misère terminal rule."""
    search = MisereSearch(position, style=style, budget=whole)
    moves = search.safe_moves()
    if not moves:  # every cell completes a line of ours
        move = min(position.legal_moves)
        return _result(position, move, value=Value(Outcome.LOSS, 1), score=None, depth=1,
                       pv=(move,), nodes=0, start=whole.start)
    best_move, best_score, depth_done = moves[0], None, 0
    for depth, score, move, _ in _deepening(search, moves):
        best_move, best_score, depth_done = move, score, depth
        if abs(score) >= MATE_BOUND:  # (a single safe move is searched on: to value it)
            break
    value = None if best_score is None else _proven(best_score, search.root_marks)
    if value is not None and value.outcome is Outcome.LOSS and search.restricted:
        value = None  # far moves were not searched: no proof of a loss
    pv = search.principal_variation(best_move, max(depth_done, 1))
    return _result(position, best_move, value=value, score=best_score, depth=depth_done,
                   pv=pv, nodes=search.nodes, start=whole.start)


_SEARCH_SHARE = 0.93
"""The deepening stops at this share of the budget; the rest checks the final choice
(a check usually takes a few milliseconds: the screening has done most of the work)."""
_SCREEN_DEPTH = 4
"""The iteration after which the root moves are screened for the opponent's forced wins."""
_SCREEN_SHARE = 0.6
"""The screening after that iteration stops at this share of the budget."""
_REFUTE_THREATS = 12
"""How many forcing moves the opponent's chains may have in the screening."""


BOOK_CHECK_NODES = 2_000
"""The proof positions the check of a move from O's book may take before it is played.
A book kept by games can hold a move after which X has a short forced win that the
games' players missed; the proof search finds those in a few dozen positions (7 to 56
for the ones the family benchmark's games met), and 2,000 take about 30 ms. A refuted
book move is dropped and the position searched as any other."""


_DEFENCE_SHARE = 0.25
"""The share of the budget kept from the deepening for the proof checks of the chosen
move and the next best (:class:`~noughts.search.defence.ProofDefence`); they end at
:data:`_SEARCH_SHARE` of the budget."""


def _defended(position: Position, moves: list[int], best_move: int, best_score: int | None,
              scores: dict[int, int], guard: _Guard, search: AnytimeSearch, whole: Limit,
              root_moves: int
              ) -> tuple[int, int | None, Value | None, ProofDefence]:
    """The best move, best first, after which the proof search finds no forced win for
    the opponent within the defence's budget; when it proves a win after every move
    checked, the hardest to refute (see :meth:`ProofDefence.choose`), a proven loss if
    every legal move was refuted."""
    defence = ProofDefence(position, whole.share(_SEARCH_SHARE))
    order = [best_move] + [m for m in moves if m != best_move and m not in guard.refuted]
    move = defence.choose(order, search.nodes)
    search.nodes += defence.nodes
    if move not in defence.refuted:
        return move, scores.get(move, best_score), None, defence
    refuted = {**guard.refuted, **defence.refuted}
    value = Bound(Outcome.LOSS, refuted[move]) if len(refuted) == root_moves else None
    return move, None, value, defence


def _deepening(search: AnytimeSearch, moves: list[int]
               ) -> Iterator[tuple[int, int, int, dict[int, int]]]:
    """Iterative deepening over ``moves``: after each depth searched whole, ``moves`` is
    sorted best first and ``(depth, score, best move, every move's score)`` is yielded;
    the generator ends when the budget runs out or no depth is left (the caller stops
    earlier by leaving the loop)."""
    for depth in range(1, search.board.empty.bit_count() + 1):
        try:
            score, move, scores = search.root(depth, moves)
        except BudgetExhausted:
            return
        moves.sort(key=lambda m: -scores[m])
        yield depth, score, move, scores


def _best_safe(moves: list[int], safe: set[int], scores: dict[int, int]) -> tuple[int, int | None]:
    """The best-scored move that passed the screening."""
    move = next(m for m in moves if m in safe)
    return move, scores.get(move)


class _Guard:
    """Defend in time: which root moves leave the opponent a forced win by continuous
    threats (``refuted``: move -> plies to the loss) and which do not (``safe``). One
    threat search serves every check, so its table of failed positions is shared."""

    def __init__(self, search: AnytimeSearch, budget: Limit) -> None:
        self.search = search
        self.budget = budget
        self.threats = ThreatSearch(search.board.tables.geometry, budget=budget)
        self.safe: set[int] = set()
        self.refuted: dict[int, int] = {}

    def screen(self, moves: list[int], deadline: float | None) -> None:
        """Check each of ``moves`` not checked yet, in order, until the budget
        (``deadline``; the search's node budget) runs out."""
        for cell in moves:
            if cell not in self.safe and cell not in self.refuted and not self.check(
                cell, deadline
            ):
                return

    def check(self, cell: int, deadline: float | None) -> bool:
        """Check one move; ``False`` when the budget ran out first."""
        search = self.search
        board = search.board
        threats = self.threats
        node_limit = self.budget.node_limit
        remaining = None if node_limit is None else node_limit - search.nodes
        if remaining is not None and remaining <= 0:
            return False
        if self.budget.cancelled or (deadline is not None and time.perf_counter() >= deadline):
            return False  # (a check that ends within 128 nodes never looks at the clock)
        threats.budget = self.budget.limited(
            deadline=deadline, node_limit=None if remaining is None else threats.nodes + remaining
        )
        before = threats.nodes
        board.play(cell)
        try:
            line = threats.refute(board.bits[board.stm], board.bits[1 - board.stm],
                                  _REFUTE_THREATS)
        finally:
            board.undo(cell)
        search.nodes += threats.nodes - before
        if line is not None:
            self.refuted[cell] = len(line) + 1
            return True
        if threats.exhausted():
            return False
        self.safe.add(cell)
        return True


def _forced_win(search: AnytimeSearch, budget: Limit) -> list[int] | None:
    """A continuous-threat win for the side to move, spending at most a quarter of the
    budget."""
    board = search.board
    threats = ThreatSearch(board.tables.geometry, budget=budget.share(0.25))
    line = threats.find(board.bits[board.stm], board.bits[1 - board.stm])
    search.nodes += threats.nodes
    return line


_PROOF_SHARE = 0.1
"""The share of the budget the proof-number search gets to prove a win by quiet moves
(after the threat search found none)."""


def _proof_win(position: Position, search: AnytimeSearch, budget: Limit
               ) -> tuple[int, int] | None:
    """A proven win for the side to move that needs quiet moves, within a share of the
    budget (from now)."""
    share = budget.share(_PROOF_SHARE)
    if share.deadline is not None:
        share = share.limited(deadline=time.perf_counter() + share.deadline - share.start,
                              node_limit=share.node_limit)
    win = find_win(position, budget=share)
    return win


@_timed
def anytime_evaluate(
    position: Position,
    limit: Limit | None = None,
    *,
    time_limit: float | None = None,
    nodes: int | None = None,
    style: Style = "strong",
    budget: Limit | None = None,
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it, proven or heuristic.

    Each move gets a full-window search, deepened one ply at a time over all moves
    until the budget runs out (so the values of one call come from at most two depths).

    >>> from noughts.position import Position
    >>> evals = anytime_evaluate(Position("XXX.OOO." + "." * 56, "qubic"), time_limit=0.2)
    >>> [(e.move, e.outcome, e.plies) for e in evals if e.proven][:3]
    [(3, 'win', 1), (8, 'loss', 2), (9, 'loss', 2)]
    """
    check_playable(position)
    whole = _search_limit(one_limit(limit, time_limit, nodes, budget=budget))
    misere = not position.game.rules.threat_search
    search = (MisereSearch if misere else AnytimeSearch)(position, style=style, budget=whole)
    board = search.board
    side = board.stm
    marks = board.marks
    values: dict[int, Value | int] = {}
    # a completing cell wins at once, or loses at once by the misère rule
    done = Value(Outcome.LOSS, 1) if misere else Value(Outcome.WIN, 1)
    for cell in board.threats[side]:
        values[cell] = done
    if not values and not misere:  # the strategy's winning moves, and its wins against these
        for cell, plies in proven_moves(position).items():
            values[cell] = Bound(Outcome.WIN, plies)
    blocks = {} if misere else board.threats[1 - side]  # (misère: a threat forces nothing)
    lost = {} if values or misere else proven_replies(position)
    pending: list[int] = []
    static: dict[int, int] = {}
    for cell in position.legal_moves:
        if cell in values:
            continue
        if blocks and (len(blocks) >= 2 or cell not in blocks):
            values[cell] = Value(Outcome.LOSS, 2)  # the opponent wins next move
            continue
        if cell in lost:
            values[cell] = Bound(Outcome.LOSS, lost[cell])
            continue
        board.play(cell)
        values[cell] = static[cell] = -board.evaluation()
        board.undo(cell)
        pending.append(cell)
    pending.sort(key=lambda c: -static[c])
    try:
        for depth in range(1, board.empty.bit_count()):
            for cell in list(pending):
                board.play(cell)
                try:
                    score = -search.negamax(depth - 1, -INF, INF, 1)
                finally:
                    board.undo(cell)
                proven = _proven(score, marks)
                values[cell] = proven if proven is not None else score
                if proven is not None:
                    pending.remove(cell)
            if not pending:
                break
    except BudgetExhausted:
        pass
    game = position.game
    result = []
    for cell in position.legal_moves:
        value = values[cell]
        if isinstance(value, Value):
            result.append(MoveEval(cell, game, value))
        else:
            result.append(MoveEval(cell, game, estimate=_estimate(value)))
    return result

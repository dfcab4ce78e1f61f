"""The anytime search's answers, for boards too large to solve on the spot.

The engine's plan (:mod:`noughts.engine.plan`) asks here for what only a search can
give, each within the limit, or the share of it, that the plan hands over:

* :func:`shortest_win` -- the shortest forced win by continuous threats
  (:mod:`noughts.search.threats`), deepened one threat at a time;
* :func:`search_move` -- the move of the iterative deepening of the principal-variation
  search (:mod:`noughts.search.pvs`), guarded: after each depth of
  :data:`_SCREEN_DEPTH` plies the root moves are screened, best first, for the
  opponent's forced wins by continuous threats, and the last part of the limit checks the
  final choice the same way. The second player then checks its choice, and the next
  best moves in turn, with the proof-number search from the opponent's side
  (:mod:`noughts.search.defence`, in its share of the limit; the checks deepen until it
  runs out; with ``NOUGHTS_CHECKS_ALONGSIDE=1``, under a time limit on two cores, they
  run alongside the deepening, on its order of the moment), and plays the
  first after which no forced win is found; when every move is refuted it plays the one
  hardest to refute, and the answer is a proven loss (so too where the deepening itself
  proves every move lost: the checks still pick the move, not the slowest loss).
  Misère games deepen the same search by the misère rule (:mod:`noughts.search.pvs`),
  where threats force nothing; the plan's :class:`Shares` say how it divides its limit;
* :func:`evaluate_all` -- every legal move's value.

Proven outcomes are exact for a win next move or a loss to a double threat, and
otherwise a :class:`~noughts.results.Bound` (the most the game can last, from the proof).
Moves known to lose before the search starts (a stored strategy's wins against them, a
book move a check refuted) come in as ``lost``; the search keeps to the other moves while
there are any.

>>> from noughts.position import Position
>>> won = Position("XXX./OOO./..../....|" + "|".join(["..../..../..../...."] * 3), "qubic")
>>> shortest_win(won, Limit.within(nodes=100))
([3], 0)
>>> shares = Shares(search=0.93, screen=0.6, defence=0.6, final=0.1)
>>> choice = search_move(Position("X" + "." * 63, "qubic"), Limit.within(nodes=3_000), shares)
>>> choice.method, choice.proven, 0 < choice.nodes <= 3_000
('anytime', False, True)
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple, ParamSpec, TypeVar

from noughts.budget import BudgetExhausted, Limit
from noughts.geometry import scan_forward
from noughts.position import Position, check_playable
from noughts.results import Bound, Estimate, MoveChoice, MoveEval, Outcome, Scale, Value
from noughts.search import ties
from noughts.search.core import Searcher, anytime_search, core_module, threat_search
from noughts.search.defence import ChecksAlongside, ProofDefence, alongside
from noughts.search.evaluate import Style
from noughts.search.pvs import MATE, MATE_BOUND

if TYPE_CHECKING:
    from noughts.knowledge.learned import LearnedEval

__all__ = [
    "Shares",
    "shortest_win",
    "search_move",
    "evaluate_all",
    "choice",
    "deepening",
    "MATE",
    "MATE_BOUND",
]

_SCREEN_DEPTH = 4
"""The iteration after which the root moves are screened for the opponent's forced wins."""
_REFUTE_THREATS = 12
"""How many forcing moves the opponent's chains may have in the screening."""


class Shares(NamedTuple):
    """How :func:`search_move` divides its limit (the engine's plan sets them:
    :func:`~noughts.engine.plan.search_shares`)."""

    search: float
    """The deepening stops at this share of the limit; the rest checks the final choice."""
    screen: float
    """The screening after the :data:`_SCREEN_DEPTH` iteration stops at this share."""
    defence: float
    """The share kept from the deepening for the second player's proof checks (none
    at 0); they end at the ``search`` share."""
    final: float
    """With the checks alongside the deepening (on a second core under a time limit:
    :func:`~noughts.search.defence.alongside`), the share kept from the deepening for
    the final choice among the moves they checked."""


# -- the answer --------------------------------------------------------------------------------
def choice(position: Position, move: int, limit: Limit, *, value: Value | None = None,
           score: int | None = None, depth: int = 0, pv: tuple[int, ...] = (),
           nodes: int = 0, note: str = "") -> MoveChoice:
    """An anytime answer: ``move`` with its proven ``value`` or its search ``score``,
    timed from ``limit``'s start."""
    return MoveChoice(
        move=move,
        game=position.game,
        value=value,
        estimate=None if value is not None or score is None else _estimate(score),
        depth=depth,
        pv=pv or (move,),
        nodes=nodes,
        elapsed_ms=(time.perf_counter() - limit.start) * 1000,
        method="anytime",
        note=note,
    )


def _estimate(score: int) -> Estimate:
    return Estimate(float(score), Scale.SEARCH)


def _proven(score: int, root_marks: int) -> Value | None:
    """The proven outcome (for the root's side to move) a mate score gives, if it is
    one; its plies bound the game (the search proves, it does not find the fastest)."""
    if score >= MATE_BOUND:
        return Bound(Outcome.WIN, MATE - score - root_marks)
    if score <= -MATE_BOUND:
        return Bound(Outcome.LOSS, MATE + score - root_marks)
    return None


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


def _sides(position: Position) -> tuple[int, int]:
    """The side to move's marks and the other side's."""
    return (position.x, position.o) if position.to_move == "X" else (position.o, position.x)


# -- proven wins ------------------------------------------------------------------------------
def shortest_win(position: Position, limit: Limit) -> tuple[list[int] | None, int]:
    """The shortest forced win by continuous threats for the side to move (both sides'
    moves, the winning one last) within ``limit``, or ``None``; and the threat search's
    positions. Normal play only (in misère a threat forces nothing)."""
    if not position.game.rules.threat_search:
        return None, 0
    threats = threat_search(position.game)
    line = threats.find(*_sides(position), limit=limit)
    return line, threats.nodes


# -- the deepening search -----------------------------------------------------------------------
@_timed
def search_move(
    position: Position,
    limit: Limit,
    shares: Shares,
    *,
    lost: dict[int, int] | None = None,
    spent: int = 0,
    style: Style = "strong",
    learned: LearnedEval | None = None,
    seed: int | None = None,
) -> MoveChoice:
    """The deepening search's move (see the module) within ``limit`` (the stages' limit,
    :func:`~noughts.engine.plan.search_limit`), divided by ``shares``: the move comes back
    within its deadline plus a few milliseconds, and cancelling it stops the search, which
    still answers with its best move so far. ``lost`` maps moves known to lose to the
    plies of the opponent's win; ``spent`` counts the nodes earlier stages spent (the
    node limit covers them too); ``style`` and ``learned`` pick the evaluation
    (:func:`~noughts.search.evaluate.search_weights`); a game ``seed`` picks among equally
    good moves (:mod:`noughts.search.ties`)."""
    check_playable(position)
    if not position.game.rules.threat_search:
        return _misere_move(position, limit, style, learned, seed)
    search = anytime_search(position, style=style, learned=learned)
    search.nodes = spent
    theirs = search.threat_cells(1 if position.to_move == "X" else 0)
    if theirs & (theirs - 1):  # two threats: one stays open
        first, second = list(scan_forward(theirs))[:2]
        return choice(position, first, limit, value=Value(Outcome.LOSS, 2), depth=2,
                      pv=(first, second), nodes=search.nodes)
    doomed: dict[int, int] = {}
    known = dict(lost or {})
    if theirs:
        moves = [theirs.bit_length() - 1]  # the block is forced; search it only to value it
        known = {}
    else:
        moves = search.ordered_moves(-1, 0)
        if known and all(move in known for move in moves):
            doomed, known = known, {}  # every move loses: the search picks the best try
    # the second player defends by proof too (measured in Qubic, where it is lost)
    defend = (shares.defence > 0 and not theirs and len(moves) > 1
              and position.to_move != position.first)
    checks = (ChecksAlongside(position, limit.share(shares.search))
              if defend and alongside(limit, core_module(None, position.geometry) is not None)
              else None)
    kept = 0.0 if not defend else shares.defence if checks is None else shares.final
    searching = limit.share(shares.search - kept)
    guard = _Guard(position, search, limit)
    guard.refuted.update(known)  # known losses: the guard keeps to the other moves
    root_moves = len(moves)
    best_move, best_score, depth_done = moves[0], None, 0
    scores: dict[int, int] = {}
    try:
        for depth, score, move, scores in deepening(search, moves, searching):
            best_move, best_score, depth_done = move, score, depth
            if abs(score) >= MATE_BOUND or (len(moves) == 1 and depth >= 4):
                break
            if depth == _SCREEN_DEPTH and len(moves) > 1 and not theirs:
                guard.screen(moves, limit.share(shares.screen).deadline)
                if guard.safe:  # the refuted moves need no deeper search
                    moves[:] = [m for m in moves if m not in guard.refuted]
                    if best_move in guard.refuted:
                        best_move, best_score = _best_safe(moves, guard.safe, scores)
            if checks is not None:  # the move the seed would pick is checked first
                head = best_move
                if seed is not None and _seed_picks(bool(doomed), score, search.root_marks):
                    head = ties.pick(position, scores, best_move, moves, seed, style=style,
                                     learned=learned)
                checks.follow(_checking_order(head, moves, guard.refuted))
    finally:
        if checks is not None:
            checks.finish()
    value = None if best_score is None else _proven(best_score, search.root_marks)
    searched_loss = value is not None and value.outcome is Outcome.LOSS
    if seed is not None and _seed_picks(bool(doomed), best_score, search.root_marks):
        # (the pick is then checked below like the search's own move)
        best_move = ties.pick(position, scores, best_move, moves, seed, style=style,
                              learned=learned)
        best_score = scores.get(best_move, best_score)
    note = ""
    if value is None and len(moves) > 1 and not theirs:
        if best_move not in guard.safe and best_move not in guard.refuted:
            guard.check(best_move, limit.deadline)
        while best_move in guard.refuted and not guard.safe:  # look for a safe move
            unchecked = [m for m in moves if m not in guard.refuted]
            if not unchecked or not guard.check(unchecked[0], limit.deadline):
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
    if defend and len(moves) > 1 and (value is None or searched_loss):
        # a loss the search proves is still played where it is hardest to find
        best_move, best_score, checked, defence = _defended(
            position, moves, best_move, best_score, scores, guard, search,
            limit.share(shares.search), root_moves, None if checks is None else checks.defence)
        value = checked or value
        if value is not None and value.outcome is Outcome.LOSS:
            note = _hardest_note(position, best_move, defence, "the proof search refutes each"
                                 if checked else "the search proves it")
    if doomed and (value is None or value.outcome is not Outcome.LOSS):
        value = Bound(Outcome.LOSS, doomed[best_move])  # the strategy's bound
        note = _hardest_note(position, best_move, defence,
                             "the shipped strategy wins against each")
    # big boards search the cells near the marks only (a forced block excepted)
    partial = not theirs and root_moves < len(position.legal_moves)
    if value is not None and value.outcome is Outcome.LOSS and partial:
        value = None  # a far move was not searched: no proof of a loss
    pv = search.principal_variation(best_move, max(depth_done, 1))
    return choice(position, best_move, limit, value=value, score=best_score, depth=depth_done,
                  pv=pv, nodes=search.nodes, note=note if value else "")


def _seed_picks(doomed: bool, score: int | None, root_marks: int) -> bool:
    """Whether a game seed picks among the moves as good as the best, after a depth
    whose best scored ``score``: never a proven value, nor where every move is known to
    lose (``doomed``: the search picks the best try)."""
    return not doomed and score is not None and _proven(score, root_marks) is None


def _checking_order(first: int, moves: list[int], refuted: dict[int, int]) -> list[int]:
    """The order the proof checks take: ``first``, then the other ``moves`` the guard
    has not refuted, in their order."""
    return [first] + [m for m in moves if m != first and m not in refuted]


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
                "not refute within the move's limit.")
    return head + "this one is the search's best try."


def _misere_move(position: Position, limit: Limit, style: Style,
                 learned: LearnedEval | None, seed: int | None = None) -> MoveChoice:
    """The misère game's move (:mod:`noughts.search.pvs`): no threats to exploit,
    no proof-number stage; iterative deepening by the misère terminal rule."""
    search = anytime_search(position, style=style, learned=learned, misere=True)
    moves = search.safe_moves()
    if not moves:  # every cell completes a line of ours
        move = min(position.legal_moves)
        return choice(position, move, limit, value=Value(Outcome.LOSS, 1), depth=1)
    best_move, best_score, depth_done = moves[0], None, 0
    scores: dict[int, int] = {}
    for depth, score, move, found in deepening(search, moves, limit):
        best_move, best_score, depth_done, scores = move, score, depth, found
        if abs(score) >= MATE_BOUND:  # (a single safe move is searched on: to value it)
            break
    value = None if best_score is None else _proven(best_score, search.root_marks)
    if seed is not None and value is None and best_score is not None:
        best_move = ties.pick(position, scores, best_move, moves, seed, style=style,
                              learned=learned)
        best_score = scores.get(best_move, best_score)
    if value is not None and value.outcome is Outcome.LOSS and search.restricted:
        value = None  # far moves were not searched: no proof of a loss
    pv = search.principal_variation(best_move, max(depth_done, 1))
    return choice(position, best_move, limit, value=value, score=best_score, depth=depth_done,
                  pv=pv, nodes=search.nodes)


def _defended(position: Position, moves: list[int], best_move: int, best_score: int | None,
              scores: dict[int, int], guard: _Guard, search: Searcher, limit: Limit,
              root_moves: int, checked: ProofDefence | None = None
              ) -> tuple[int, int | None, Value | None, ProofDefence]:
    """The best move, best first, after which the proof search finds no forced win for
    the opponent within the defence's ``limit``; when it proves a win after every move
    checked, the hardest to refute (see :meth:`ProofDefence.choose`), a proven loss if
    every legal move was refuted. ``checked``: the defence whose checks ran alongside
    the deepening (its findings stand; its choice is made here, in the final share)."""
    defence = checked if checked is not None else ProofDefence(position, limit, deepen=True)
    move = defence.choose(_checking_order(best_move, moves, guard.refuted), search.nodes)
    search.nodes += defence.nodes
    if move not in defence.refuted:
        return move, scores.get(move, best_score), None, defence
    refuted = {**guard.refuted, **defence.refuted}
    value = Bound(Outcome.LOSS, refuted[move]) if len(refuted) == root_moves else None
    return move, None, value, defence


def deepening(search: Searcher, moves: list[int], limit: Limit
              ) -> Iterator[tuple[int, int, int, dict[int, int]]]:
    """Iterative deepening over ``moves`` within ``limit``: after each depth searched
    whole, ``moves`` is sorted best first and ``(depth, score, best move, every move's
    score)`` is yielded; the generator ends when the limit runs out or no depth is left
    (the caller stops earlier by leaving the loop).

    >>> from noughts.budget import Limit
    >>> from noughts.search.core import anytime_search
    >>> search = anytime_search(Position("", "3x3"))
    >>> moves = search.ordered_moves(-1, 0)
    >>> [depth for depth, *_ in deepening(search, moves, Limit(node_limit=2_000))][:3]
    [1, 2, 3]
    """
    for depth in range(1, search.empty_count() + 1):
        try:
            score, move, scores = search.root(depth, moves, limit)
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

    def __init__(self, position: Position, search: Searcher, limit: Limit) -> None:
        self.search = search
        self.limit = limit
        self.threats = threat_search(position.game)
        self.mover, self.waiting = _sides(position)
        self.safe: set[int] = set()
        self.refuted: dict[int, int] = {}

    def screen(self, moves: list[int], deadline: float | None) -> None:
        """Check each of ``moves`` not checked yet, in order, until the limit
        (``deadline``; the search's node limit) runs out."""
        for cell in moves:
            if cell not in self.safe and cell not in self.refuted and not self.check(
                cell, deadline
            ):
                return

    def check(self, cell: int, deadline: float | None) -> bool:
        """Check one move; ``False`` when the limit ran out first."""
        search = self.search
        threats = self.threats
        node_limit = self.limit.node_limit
        remaining = None if node_limit is None else node_limit - search.nodes
        if remaining is not None and remaining <= 0:
            return False
        if self.limit.cancelled or (deadline is not None and time.perf_counter() >= deadline):
            return False  # (a check that ends within 128 nodes never looks at the clock)
        checking = self.limit.limited(
            deadline=deadline, node_limit=None if remaining is None else threats.nodes + remaining
        )
        before = threats.nodes  # the opponent attacks the position after our move
        line = threats.refute(self.waiting, self.mover | 1 << cell, _REFUTE_THREATS, checking)
        search.nodes += threats.nodes - before
        if line is not None:
            self.refuted[cell] = len(line) + 1
            return True
        if threats.exhausted():
            return False
        self.safe.add(cell)
        return True


# -- every move's value -------------------------------------------------------------------------
@_timed
def evaluate_all(
    position: Position,
    limit: Limit,
    *,
    wins: dict[int, int] | None = None,
    lost: dict[int, int] | None = None,
    style: Style = "strong",
    learned: LearnedEval | None = None,
) -> list[MoveEval]:
    """Every legal move's value for the player who makes it, proven or heuristic,
    within ``limit`` (the stages' limit, :func:`~noughts.engine.plan.search_limit`).
    ``wins`` and ``lost`` map moves already known to win or to lose (a stored strategy's)
    to their plies bound.

    Each move gets a full-window search, deepened one ply at a time over all moves
    until the limit runs out (so the values of one call come from at most two depths).

    >>> a_fifth = Limit.within(seconds=0.19)
    >>> evals = evaluate_all(Position("XXX.OOO." + "." * 56, "qubic"), a_fifth)
    >>> [(e.move, e.outcome, e.plies) for e in evals if e.proven][:3]
    [(3, 'win', 1), (8, 'loss', 2), (9, 'loss', 2)]
    """
    check_playable(position)
    misere = not position.game.rules.threat_search
    search = anytime_search(position, style=style, learned=learned, misere=misere)
    side = 0 if position.to_move == "X" else 1
    marks = position.ply
    values: dict[int, Value | int] = {}
    # a completing cell wins at once, or loses at once by the misère rule
    done = Value(Outcome.LOSS, 1) if misere else Value(Outcome.WIN, 1)
    for cell in scan_forward(search.threat_cells(side)):
        values[cell] = done
    if not values and not misere:
        values.update((cell, Bound(Outcome.WIN, plies)) for cell, plies in (wins or {}).items())
    blocks = 0 if misere else search.threat_cells(1 - side)  # (misère: nothing forced)
    known_lost = {} if values or misere else (lost or {})
    pending: list[int] = []
    static: dict[int, int] = {}
    for cell in position.legal_moves:
        if cell in values:
            continue
        if blocks and (blocks & (blocks - 1) or not blocks >> cell & 1):
            values[cell] = Value(Outcome.LOSS, 2)  # the opponent wins next move
            continue
        if cell in known_lost:
            values[cell] = Bound(Outcome.LOSS, known_lost[cell])
            continue
        values[cell] = static[cell] = search.move_value(cell, 0, limit)
        pending.append(cell)
    pending.sort(key=lambda c: -static[c])
    try:
        for depth in range(1, search.empty_count()):
            for cell in list(pending):
                score = search.move_value(cell, depth, limit)
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

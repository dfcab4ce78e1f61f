"""Search traces: minimax and alpha-beta deciding, node by node, as data to show a student.

One walk both counts and records. Every position the search enters is counted; the
first ``max_stored`` of them (in the order they are entered) are kept as
:class:`TraceNode` records: the move that led there, the alpha-beta window on entry,
the value returned, and any cut-off with its reason. The kept nodes always form a
connected top of the tree, so a drawing of them is honest, and :attr:`Trace.truncated`
says when more were counted than kept.

Values are seen from the side to move at the root (the *maximizer*, as in the
tutorial seed): a win ``d`` plies from the root scores ``win - d``, a loss ``d - win``,
a draw 0, with ``win`` one more than the board's cells (the scale of
:func:`noughts.teaching.tutorial.negamax`). So a node's window ``(alpha, beta)`` reads the
same at every depth, and a cut-off is always "alpha >= beta". The root's value in the
shared vocabulary of :mod:`noughts.results` is :meth:`Trace.exact_value` (a
:class:`~noughts.results.Value`) or, where the heuristic scored the horizon,
:meth:`Trace.estimate` (an :class:`~noughts.results.Estimate`); ``value_text`` is its words.

The algorithms (:data:`ALGORITHMS`):

* ``minimax``: every move of every position, to the end of the game.
* ``alphabeta``: the same walk, skipping moves that cannot change the root's choice.
* ``ordered``: alpha-beta trying the moves that look best first (the line-count
  heuristic of :mod:`noughts.search.evaluate`), so cut-offs come sooner.
* ``transposition``: alpha-beta remembering each position's value (or bound) in a
  table, so a position reached by another order of moves is not searched again.
* ``symmetry``: the table keyed by the canonical form (:mod:`noughts.symmetries`), so
  rotations and reflections of a searched position are found there too.
* ``depth-limited``: alpha-beta that stops ``depth`` plies from the root and scores the
  horizon with the line-count heuristic (as the 4x4x4 seed did), so its values are
  estimates there.

A walk polls the :class:`~noughts.budget.Limit` it is given (its deadline, its
cancellation) every thousand or so positions, as every search does.

The tutorial seed's counts come out of this walk when it counts the tutorial's way
(``tutorial=True``: every root move gets a fresh window, and alpha-beta's root is not a
call):

>>> from noughts.position import Position
>>> centre = Position(".../.X./...")
>>> trace(centre, "minimax", tutorial=True, max_stored=0).counted
55505
>>> trace(centre, "alphabeta", tutorial=True, max_stored=0).counted
8465
>>> small = trace(Position("XX./OO./..."), "alphabeta", max_stored=3)
>>> small.value_text, small.best_move, small.nodes, len(small.stored), small.truncated
('win in 1', 2, 36, 3, True)
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from noughts.budget import Limit
from noughts.errors import GameOverError, NoughtsError, TooLargeError
from noughts.geometry import Bitboard, scan_forward
from noughts.notation import format_board
from noughts.position import Mark, Position, other
from noughts.results import Estimate, Outcome, Scale, Value
from noughts.search.evaluate import Style, evaluate_marks, line_weights
from noughts.symmetries import SymmetryKeys
from noughts.variants import variant as parse_variant

__all__ = [
    "Algorithm",
    "ALGORITHMS",
    "DESCRIPTIONS",
    "Bound",
    "Cutoff",
    "TraceNode",
    "Trace",
    "AlgorithmCount",
    "TraceTooLargeError",
    "DEFAULT_MAX_STORED",
    "DEFAULT_DEPTH",
    "DEFAULT_STYLE",
    "trace",
    "compare",
]

Algorithm = Literal["minimax", "alphabeta", "ordered", "transposition", "symmetry", "depth-limited"]
ALGORITHMS: tuple[Algorithm, ...] = (
    "minimax",
    "alphabeta",
    "ordered",
    "transposition",
    "symmetry",
    "depth-limited",
)

DESCRIPTIONS: dict[Algorithm, str] = {
    "minimax": "plain minimax: every move of every position, to the end of the game",
    "alphabeta": "alpha-beta: skips moves that cannot change the choice above",
    "ordered": "alpha-beta, the moves that look best tried first",
    "transposition": "alpha-beta with a table of positions already searched",
    "symmetry": "alpha-beta with the table keyed by the position's canonical symmetric form",
    "depth-limited": "alpha-beta to a fixed depth, the line-count heuristic at the horizon",
}

Bound = Literal["exact", "lower", "upper"]
"""What a returned value means: the value itself, or only a bound on it (after a cut-off
or when it fell outside the window)."""

DEFAULT_MAX_STORED = 2_000
"""Nodes kept (and drawn) by default; every node is counted whatever this bound."""

DEFAULT_DEPTH = 2
"""The depth-limited search's horizon, in plies from the root, unless given."""

DEFAULT_STYLE: Style = "balanced"
"""The heuristic at the horizon and for move ordering: the 4x4x4 seed's line counts."""

_POLL_NODES = 1024
"""A walk polls its budget every this many positions."""

_EXACT, _LOWER, _UPPER = 0, 1, 2
_BOUNDS: tuple[Bound, ...] = ("exact", "lower", "upper")


class TraceTooLargeError(TooLargeError):
    """The walk would enter more positions than the caller allowed."""


@dataclass(frozen=True)
class Cutoff:
    """Where a node stopped early: after ``after`` the window closed (``alpha >= beta``).

    ``skipped`` are the moves never tried; ``reason`` says why in words.
    """

    after: int
    alpha: int
    beta: int
    skipped: tuple[int, ...]
    reason: str


@dataclass(slots=True)
class TraceNode:
    """One position the search entered, with what it saw and what it returned.

    ``id`` is the entry order (the root is 0), ``parent`` the id of the node above.
    ``alpha`` and ``beta`` are the window on entry; ``value`` the value returned, all
    from the root player's view; ``bound`` says whether it is exact or only a bound (a
    finished game and the horizon are always exact: only a search stopped early bounds).
    ``why`` is how the value was found: ``"searched"``, ``"X wins"``/``"O wins"``,
    ``"draw"``, ``"horizon"`` (the heuristic) or ``"table"`` (a transposition).
    ``subtree`` counts the positions entered below and at this node; ``enter`` and
    ``exit`` are its steps in playback order (kept nodes only). The walk fills in the
    fields after ``enter`` as it leaves the node.
    """

    id: int
    parent: int | None
    depth: int
    move: int | None
    board: str
    maximizing: bool
    alpha: int
    beta: int
    enter: int
    value: int = 0
    bound: Bound = "exact"
    best_move: int | None = None
    why: str = "searched"
    cutoff: Cutoff | None = None
    subtree: int = 1
    exit: int = 0


@dataclass(frozen=True)
class Trace:
    """A search of one position: its answer, what it cost, and the kept nodes.

    ``nodes`` counts every position entered (the root included); ``counted`` is the
    number the algorithm reports by its own convention, explained in ``counting``.
    ``win`` is the score of a win at the root (a win ``d`` plies away scores
    ``win - d``), ``infinity`` the edge of the initial window. ``pv`` is the principal
    variation; it ends early where a value came from the transposition table.
    """

    algorithm: Algorithm
    variant: str
    board: str
    to_move: Mark
    depth: int | None
    style: Style | None
    tutorial: bool
    value: int
    value_text: str
    best_move: int
    pv: tuple[int, ...]
    nodes: int
    counted: int
    counting: str
    cutoffs: int
    table_hits: int
    elapsed_ms: float
    win: int
    infinity: int
    max_stored: int
    stored: tuple[TraceNode, ...] = field(repr=False)

    @property
    def truncated(self) -> bool:
        """True when more positions were entered than kept."""
        return self.nodes > len(self.stored)

    def to_json(self) -> dict[str, Any]:
        """The trace as plain JSON data (what ``noughts explain --json`` prints).

        >>> data = trace(Position("XX./OO./..."), max_stored=2).to_json()
        >>> data["best_move"], data["truncated"], len(data["stored"]), data["stored"][1]["move"]
        (2, True, 2, 2)
        """
        data = asdict(self)
        data["truncated"] = self.truncated
        data["description"] = DESCRIPTIONS[self.algorithm]
        return data

    def exact_value(self) -> Value | None:
        """The root value as an exact :class:`~noughts.results.Value`, if it is one.

        A depth-limited value from the heuristic is an estimate: ``None``.

        >>> trace(Position("XX./OO./..."), "minimax").exact_value()
        Value(outcome=<Outcome.WIN: 'win'>, plies=1)
        """
        root = self._root_value()
        return root if isinstance(root, Value) else None

    def estimate(self) -> Estimate | None:
        """The root value as a heuristic :class:`~noughts.results.Estimate` (the line
        weights of :mod:`noughts.search.evaluate`, for the side to move) when the
        horizon's heuristic gave it; ``None`` for an exact value.

        >>> trace(Position(), "depth-limited", depth=2).estimate()
        Estimate(score=4, scale=<Scale.SEARCH: 'search'>)
        """
        root = self._root_value()
        return root if isinstance(root, Estimate) else None

    def _root_value(self) -> Value | Estimate:
        empty = parse_variant(self.variant).cells - _marks(self.board)
        return _root_value(self.value, self.win, empty, horizon=self.depth)


@dataclass(frozen=True)
class AlgorithmCount:
    """One row of the comparison table: an algorithm's answer and effort on a position.

    ``finished`` is False when the walk passed the node limit: ``nodes`` is then the
    limit it passed, and there is no value or move.
    """

    algorithm: Algorithm
    finished: bool
    value: int | None
    value_text: str
    best_move: int | None
    nodes: int
    counted: int
    cutoffs: int
    table_hits: int
    elapsed_ms: float


def _marks(board: str) -> int:
    return sum(1 for char in board if char in "XO")


def _exact(value: int, win: int, empty: int) -> Value | None:
    if value == 0:
        return Value(Outcome.DRAW, empty)
    plies = win - abs(value)
    if not 0 < plies <= empty:
        return None
    return Value(Outcome.WIN if value > 0 else Outcome.LOSS, plies)


def _root_value(value: int, win: int, empty: int, *, horizon: int | None) -> Value | Estimate:
    """A root value in the shared vocabulary: exact, or the heuristic's estimate.

    A 0 is a proven draw unless a horizon short of the board's end may have scored it.
    """
    exact = _exact(value, win, empty)
    if exact is None or (
        exact.outcome is Outcome.DRAW and horizon is not None and horizon < empty
    ):
        return Estimate(value, Scale.SEARCH)
    return exact


class _Walk:
    """One traced search; :meth:`search` is minimax/alpha-beta over bitboards.

    ``mine`` holds the root player's marks and ``theirs`` the opponent's, so the
    maximizer moves into ``mine``.
    """

    def __init__(
        self,
        position: Position,
        algorithm: Algorithm,
        *,
        depth: int | None,
        style: Style,
        max_stored: int,
        node_limit: int | None,
        tutorial: bool,
        limit: Limit | None,
    ) -> None:
        geometry = position.geometry
        self.position = position
        self.geometry = geometry
        self.me: Mark = position.to_move
        self.misere = position.game.misere  # whoever completes a line loses
        self.pruning = algorithm != "minimax"
        self.ordered = algorithm == "ordered"
        self.horizon = depth if algorithm == "depth-limited" else None
        self.style = style
        self.tutorial = tutorial
        self.max_stored = max_stored
        self.node_limit = node_limit
        self.use_table = algorithm in ("transposition", "symmetry")
        self.keys: SymmetryKeys | None = (
            geometry.symmetry_group.keys if algorithm == "symmetry" else None
        )
        self.limit = limit
        self.table: dict[int, tuple[int, int]] = {}
        win = geometry.cells + 1
        if self.horizon is not None:
            win += _heuristic_limit(position, style)
        self.win = win
        self.infinity = win + 1
        self.nodes = 0
        self.cutoffs = 0
        self.table_hits = 0
        self.steps = 0
        self.kept: list[TraceNode] = []
        self.pv: list[list[int]] = [[] for _ in range(geometry.cells + 2)]

    # -- helpers ----------------------------------------------------------------------
    def _board(self, mine: Bitboard, theirs: Bitboard) -> str:
        x, o = (mine, theirs) if self.me == "X" else (theirs, mine)
        return format_board(x, o, self.geometry)

    def _heuristic(self, mine: Bitboard, theirs: Bitboard) -> int:
        x, o = (mine, theirs) if self.me == "X" else (theirs, mine)
        return evaluate_marks(self.geometry, x, o, self.me, self.style)

    def _moves(self, mine: Bitboard, theirs: Bitboard, maximizing: bool) -> list[int]:
        empty = self.geometry.full & ~(mine | theirs)
        moves = list(scan_forward(empty))
        if not self.ordered:
            return moves
        # The heuristic of the position after each move, best for the mover first.
        scored = []
        for cell in moves:
            bit = 1 << cell
            if maximizing:
                score = self._heuristic(mine | bit, theirs)
                won = self.geometry.wins_after(mine | bit, cell)
            else:
                score = -self._heuristic(mine, theirs | bit)
                won = self.geometry.wins_after(theirs | bit, cell)
            scored.append((not won, -score, cell))
        scored.sort()
        return [cell for *_, cell in scored]

    def _key(self, mine: Bitboard, theirs: Bitboard) -> int:
        if self.keys is not None:
            return self.keys.key(mine, theirs)
        return mine | theirs << self.geometry.cells

    @staticmethod
    def _to_table(value: int, depth: int) -> int:
        """A value from the root as seen from the node: plies counted from the node."""
        return value + depth if value > 0 else value - depth if value < 0 else 0

    @staticmethod
    def _from_table(value: int, depth: int) -> int:
        return value - depth if value > 0 else value + depth if value < 0 else 0

    # -- the search -------------------------------------------------------------------
    def search(
        self,
        mine: Bitboard,
        theirs: Bitboard,
        move: int | None,
        depth: int,
        alpha: int,
        beta: int,
        parent: int | None,
    ) -> int:
        """The minimax value of the node for the root player, fail-soft inside the window.

        A value inside ``(alpha, beta)`` is exact; at or below ``alpha`` it is an upper
        bound, at or above ``beta`` a lower bound.
        """
        node_id = self.nodes
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise TraceTooLargeError(
                f"the trace would enter more than {self.node_limit:,} positions "
                "(the bound on a trace's nodes): choose a position with fewer empty cells, "
                "alpha-beta instead of minimax, or a depth limit"
            )
        if self.limit is not None and not self.nodes % _POLL_NODES:
            self.limit.check(self.nodes)
        maximizing = depth % 2 == 0
        record: TraceNode | None = None
        if len(self.kept) < self.max_stored:
            record = TraceNode(
                node_id, parent, depth, move, self._board(mine, theirs), maximizing,
                alpha, beta, self.steps,
            )  # fmt: skip
            self.kept.append(record)
            self.steps += 1
        self.pv[depth] = []
        why, best_move, cutoff = "searched", None, None
        value = self._leaf(mine, theirs, move, depth, maximizing)
        if value is not None:
            why = self._leaf_reason(value, depth)
        else:
            key = self._key(mine, theirs) if self.use_table else 0
            value = self._probe(key, depth, alpha, beta) if self.use_table else None
            if value is not None:
                why = "table"
                self.table_hits += 1
            else:
                value, best_move, cutoff = self._children(
                    mine, theirs, depth, alpha, beta, maximizing, node_id
                )
                if self.use_table:
                    flag = _UPPER if value <= alpha else _LOWER if value >= beta else _EXACT
                    self.table[key] = (self._to_table(value, depth), flag)
        if record is not None:
            record.value = value
            # a finished game or the horizon is scored outright: its value is exact
            # wherever it falls against the window (only a search stopped early bounds)
            inside = why not in ("searched", "table") or alpha < value < beta
            record.bound = _BOUNDS[_EXACT if inside else _UPPER if value <= alpha else _LOWER]
            record.best_move = best_move
            record.why = why
            record.cutoff = cutoff
            record.subtree = self.nodes - node_id
            record.exit = self.steps
            self.steps += 1
        return value

    def _leaf(
        self, mine: Bitboard, theirs: Bitboard, move: int | None, depth: int, maximizing: bool
    ) -> int | None:
        """The value of a finished game or of the horizon, else ``None``."""
        if move is not None:
            mover = theirs if maximizing else mine  # the player who just moved
            if self.geometry.wins_after(mover, move):
                completed = depth - self.win if maximizing else self.win - depth
                return -completed if self.misere else completed
        if not self.geometry.full & ~(mine | theirs):
            return 0
        if self.horizon is not None and depth >= self.horizon:
            return self._heuristic(mine, theirs)
        return None

    def _leaf_reason(self, value: int, depth: int) -> str:
        if self.horizon is not None and depth >= self.horizon and abs(value) < self.win - depth:
            return "horizon"
        if value == 0:
            return "draw"
        return f"{self.me if value > 0 else other(self.me)} wins"

    def _probe(self, key: int, depth: int, alpha: int, beta: int) -> int | None:
        entry = self.table.get(key)
        if entry is None:
            return None
        stored, flag = entry
        value = self._from_table(stored, depth)
        if (
            flag == _EXACT
            or (flag == _LOWER and value >= beta)
            or (flag == _UPPER and value <= alpha)
        ):
            return value
        return None

    def _children(
        self,
        mine: Bitboard,
        theirs: Bitboard,
        depth: int,
        alpha: int,
        beta: int,
        maximizing: bool,
        node_id: int,
    ) -> tuple[int, int, Cutoff | None]:
        """Search the moves in turn: the best value, its move, and any cut-off."""
        moves = self._moves(mine, theirs, maximizing)
        fresh = self.tutorial and depth == 0  # the tutorial's next_move: a window per move
        best = -self.infinity if maximizing else self.infinity
        best_move = moves[0]
        pv = self.pv
        for index, cell in enumerate(moves):
            bit = 1 << cell
            low, high = (-self.infinity, self.infinity) if fresh else (alpha, beta)
            if maximizing:
                value = self.search(mine | bit, theirs, cell, depth + 1, low, high, node_id)
                better = value > best
            else:
                value = self.search(mine, theirs | bit, cell, depth + 1, low, high, node_id)
                better = value < best
            if better:
                best, best_move = value, cell
                pv[depth] = [cell, *pv[depth + 1]]
            if not self.pruning or fresh:
                continue
            if maximizing:
                alpha = max(alpha, best)
            else:
                beta = min(beta, best)
            if alpha >= beta and index + 1 < len(moves):
                self.cutoffs += 1
                side = (
                    "the minimizer above will never allow this"
                    if maximizing
                    else ("the maximizer above already has something better")
                )
                reason = f"alpha {alpha} >= beta {beta}: {side}"
                return best, best_move, Cutoff(cell, alpha, beta, tuple(moves[index + 1 :]), reason)
        return best, best_move, None


def _heuristic_limit(position: Position, style: Style) -> int:
    """More than any heuristic sum on this geometry: proven results score beyond it."""
    geometry = position.geometry
    largest = fork = 0
    for second in (False, True):
        weights = line_weights(geometry.k, style, second=second)
        largest = max(largest, *weights.own, *weights.opp)
        fork = max(fork, weights.fork * geometry.cells)
    return len(geometry.lines) * largest + fork


def _counting(algorithm: Algorithm, tutorial: bool) -> tuple[bool, str]:
    """Whether the root is counted, and the convention in words."""
    if not tutorial:
        return True, "every position entered, the root included"
    if algorithm == "minimax":
        return True, (
            "the tutorial's way: minimax is first called on the current board, so the "
            "root is counted with every position below it"
        )
    return False, (
        "the tutorial's way: its next_move plays each move itself and searches the result "
        "in a fresh window, so the root is not a call and is not counted"
    )


def trace(
    position: Position,
    algorithm: Algorithm = "alphabeta",
    *,
    depth: int | None = None,
    style: Style = DEFAULT_STYLE,
    max_stored: int = DEFAULT_MAX_STORED,
    node_limit: int | None = None,
    tutorial: bool = False,
    limit: Limit | None = None,
) -> Trace:
    """Search ``position`` with ``algorithm``, counting every node and keeping the first
    ``max_stored`` of them.

    ``depth`` is the depth-limited search's horizon (default :data:`DEFAULT_DEPTH`;
    other algorithms search to the end and refuse it). ``node_limit`` raises
    :class:`TraceTooLargeError` as soon as the walk would enter more positions.
    ``tutorial`` counts the tutorial seed's way (see the module docstring). The walk
    polls ``limit`` and raises :class:`~noughts.budget.BudgetExhausted` when it runs out.

    >>> t = trace(Position("XOX/OO./X.."), "alphabeta")
    >>> t.best_move, t.value_text, t.pv, t.nodes
    (5, 'loss in 2', (5, 7), 9)
    >>> [(n.move, n.alpha, n.beta, n.value, n.bound) for n in t.stored if n.depth == 1]
    [(5, -11, 11, -8, 'exact'), (7, -8, 11, -8, 'upper'), (8, -8, 11, -8, 'upper')]
    >>> cut = t.stored[5].cutoff
    >>> cut.after, cut.skipped, cut.reason
    (5, (8,), 'alpha -8 >= beta -8: the maximizer above already has something better')
    >>> trace(Position(), "depth-limited", depth=2).value_text
    'heuristic score +4'
    """
    if algorithm not in ALGORITHMS:
        raise NoughtsError(f"unknown algorithm {algorithm!r}: expected one of {ALGORITHMS}")
    if depth is not None and algorithm != "depth-limited":
        raise NoughtsError(f"a depth applies to the depth-limited search, not to {algorithm}")
    if algorithm == "depth-limited":
        depth = DEFAULT_DEPTH if depth is None else depth
        if depth < 1:
            raise NoughtsError(f"the depth must be at least 1 ply, not {depth}")
    if max_stored < 0:
        raise NoughtsError(f"max_stored cannot be negative, not {max_stored}")
    if position.is_over:
        raise GameOverError("the game is over: there is no search to trace")
    walk = _Walk(
        position, algorithm, depth=depth, style=style, max_stored=max_stored,
        node_limit=node_limit, tutorial=tutorial, limit=limit,
    )  # fmt: skip
    me = position.to_move
    mine, theirs = position.marks(me), position.marks(other(me))
    start = time.perf_counter()
    value = walk.search(mine, theirs, None, 0, -walk.infinity, walk.infinity, None)
    elapsed_ms = (time.perf_counter() - start) * 1000
    pv = tuple(walk.pv[0])
    root_counted, counting = _counting(algorithm, tutorial)
    empty = position.empty.bit_count()
    return Trace(
        algorithm=algorithm,
        variant=position.variant,
        board=position.board,
        to_move=me,
        depth=depth,
        style=style if algorithm in ("depth-limited", "ordered") else None,
        tutorial=tutorial,
        value=value,
        value_text=str(_root_value(value, walk.win, empty, horizon=depth)),
        best_move=pv[0],
        pv=pv,
        nodes=walk.nodes,
        counted=walk.nodes if root_counted else walk.nodes - 1,
        counting=counting,
        cutoffs=walk.cutoffs,
        table_hits=walk.table_hits,
        elapsed_ms=round(elapsed_ms, 3),
        win=walk.win,
        infinity=walk.infinity,
        max_stored=max_stored,
        stored=tuple(walk.kept),
    )


def compare(
    position: Position,
    algorithms: tuple[Algorithm, ...] = ALGORITHMS,
    *,
    depth: int | None = None,
    style: Style = DEFAULT_STYLE,
    node_limit: int | None = None,
    tutorial: bool = False,
    limit: Limit | None = None,
) -> tuple[AlgorithmCount, ...]:
    """Each algorithm's answer, node count and time on ``position`` (nothing kept).

    ``node_limit`` stops a walk that would pass it; its row says so (``finished`` False).
    Every walk polls ``limit`` (one budget for the whole table).

    >>> [(row.algorithm, row.nodes) for row in compare(Position("XOX/OO./X.."))][:3]
    [('minimax', 12), ('alphabeta', 9), ('ordered', 9)]
    >>> compare(Position(), ("minimax",), node_limit=1000)[0].value_text
    'more than 1,000 positions: stopped'
    """
    rows = []
    for algorithm in algorithms:
        start = time.perf_counter()
        try:
            result = trace(
                position,
                algorithm,
                depth=depth if algorithm == "depth-limited" else None,
                style=style,
                max_stored=0,
                node_limit=node_limit,
                tutorial=tutorial,
                limit=limit,
            )
        except TraceTooLargeError:
            assert node_limit is not None
            elapsed_ms = round((time.perf_counter() - start) * 1000, 3)
            text = f"more than {node_limit:,} positions: stopped"
            rows.append(
                AlgorithmCount(
                    algorithm, False, None, text, None, node_limit, node_limit, 0, 0, elapsed_ms
                )
            )
            continue
        rows.append(
            AlgorithmCount(
                algorithm,
                True,
                result.value,
                result.value_text,
                result.best_move,
                result.nodes,
                result.counted,
                result.cutoffs,
                result.table_hits,
                result.elapsed_ms,
            )
        )
    return tuple(rows)

"""Defence by proof: drop a candidate move after which the opponent has a forced win
that the proof-number search finds within a slice of the move's limit.

The anytime search (:mod:`noughts.search.anytime`) uses it for the second player (O in
Qubic, lost against perfect play, must leave a fallible first player no win it can
find). The search's own guard catches the opponent's wins by continuous threats. Many
of the wins a fallible searcher finds against the second player in Qubic start with a
quiet move instead (one that makes no threat but sets up two), and the threat search
alone misses them. The proof search
(:mod:`noughts.search.proof`) finds such wins quickly once they are a few moves deep:
in the O games lost to the 4x4x4 seed's bot, X's win was proven within 20,000 of its
positions a move or two before the bot played it.

:class:`ProofDefence` checks the candidates best first, from the opponent's side on the
position after each, with one table for every check (sibling positions share most of
their proofs), and counts its positions into the search's node count at
:data:`PROOF_NODE_COST` search nodes each, so that the move's node limit (and its
clock) cover both searches.

>>> from noughts.position import Position
>>> from noughts.budget import Limit
>>> # X has two lines of two crossing on cell 2 (0, 1 and 6, 10): O must take it
>>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
...                             sum(1 << c for c in (12, 15, 60)), "qubic")
>>> defence = ProofDefence(p, Limit(node_limit=100_000))
>>> defence.check(63), defence.refuted[63] > 0
(False, True)
>>> defence.check(2)
True
"""

from __future__ import annotations

import os
import threading

from noughts.budget import Limit
from noughts.orientation import Orientation
from noughts.position import Position
from noughts.search.core import ProofTable, proof_search

__all__ = ["ProofDefence", "ChecksAlongside", "PROOF_NODE_COST", "CHECK_NODES", "DEEPEN",
           "MAX_CHECK_NODES", "ANALYSIS_NODES", "ROOT_NODES", "ALONGSIDE_VARIABLE",
           "alongside", "proven_loss", "killing_reply"]

PROOF_NODE_COST = 8
"""Search nodes one proof-search position counts as (a proof position, with its threat
search at the leaves, costs from 5 to 40 search nodes in CPU time, about 8 in the middle game)."""

CHECK_NODES = 20_000
"""The proof positions of a candidate's first check."""

DEEPEN = 4
"""How many times deeper each round of :meth:`ProofDefence.choose`'s checks goes."""

MAX_CHECK_NODES = 1 << 26
"""The deepest check :meth:`ProofDefence.choose` makes (about 67 million positions: far
past any move's limit; the limit ends it first)."""


ANALYSIS_NODES = 3_000_000
"""Proof positions of the engine's analysis of a position: about what a second of the
compiled core's proof search searches in Qubic's middle game (3 to 7 million on a shared
2-core machine). :func:`proven_loss` and :func:`killing_reply` take it by default."""
ROOT_NODES = 3_000_000
"""Proof positions of :func:`killing_reply`'s search for the opponent's reply."""

ALONGSIDE_VARIABLE = "NOUGHTS_CHECKS_ALONGSIDE"
"""Set to ``1`` in the environment, it runs the defence's checks alongside the
deepening on a second core under time limits: see :func:`alongside`. Off by default:
through the service it won more Qubic games as O and made more visible blunders
(docs/qubic-o-results.md)."""


def alongside(limit: Limit, compiled: bool) -> bool:
    """Whether a move under ``limit`` checks its candidates alongside the deepening, on
    a second core (:class:`ChecksAlongside`): under a time limit alone, on the compiled
    core (``compiled``: the board's searches run on it, without holding the
    interpreter's lock), with two cores or more for this process, when the environment
    sets :data:`ALONGSIDE_VARIABLE` to ``1``. A node limit keeps the checks after the
    deepening, on one core, so that its answer is the same on every path.

    >>> alongside(Limit.within(nodes=1_000), compiled=True)
    False
    >>> alongside(Limit.within(1.0), compiled=False)
    False
    """
    return (limit.node_limit is None and limit.deadline is not None and compiled
            and os.environ.get(ALONGSIDE_VARIABLE, "0") == "1" and _cores() > 1)


def _cores() -> int:
    """The cores this process may run on (where the system says; else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def proven_loss(position: Position, nodes: int | None = None) -> int | None:
    """The most plies the opponent's win lasts if the proof search from the opponent's
    side proves, within ``nodes`` positions (:data:`ANALYSIS_NODES` unless told), that
    every move of the side to move loses; ``0`` if the opponent has won; else ``None``.
    It searches the position's canonical image (:mod:`noughts.orientation`), as the
    engine answers, so the answer is the same however the board is turned.

    >>> from noughts.position import Position
    >>> proven_loss(Position("XX./OO./...", "3x3")) is None  # X to move wins: X is not lost
    True
    >>> proven_loss(Position("XX./O../..O", "3x3").play(2))  # X has won
    0
    >>> proven_loss(Position("XX./.O./X.O", "3x3"))  # O to move, two X lines open
    2
    """
    if position.is_over:
        return None if position.winner in (None, position.to_move) else 0
    attacker = 1 if position.to_move == "X" else 0
    search = proof_search(Orientation.of(position).canonical, attacker)
    proof, _ = search.run(Limit(), nodes=nodes or ANALYSIS_NODES)
    return search.plies() if proof == 0 else None


def killing_reply(after: Position, nodes: int | None = None, *,
                  root_nodes: int | None = None, exhaustive: bool = False
                  ) -> tuple[int, int] | None:
    """A move of the side to move in ``after`` after which :func:`proven_loss` proves the
    other side lost (within ``nodes`` positions), and the plies the win lasts at most
    from ``after``; ``None`` if none is found.

    The replies tried: the immediate wins, then the move a proof search from the side
    to move's side holds best after ``root_nodes`` positions (:data:`ROOT_NODES`: it
    looks at every reply and works on the likeliest); with ``exhaustive`` also every
    move that makes a new threat, then every other move (about fifty times the cost).
    This is how the engine's analysis looks one move ahead: what it finds, the engine's
    own analysis proves once the reply is on the board. Like :func:`proven_loss` it
    searches canonical images, and gives the reply on the board as given.

    >>> from noughts.position import Position
    >>> # X to move: 0 and 1 with 6 and 10 make two lines of two crossing on cell 2
    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
    ...                             sum(1 << c for c in (12, 15, 60, 63)), "qubic")
    >>> killing_reply(p, 20_000, root_nodes=20_000)
    (2, 3)
    """
    if after.is_over:
        return None
    view = Orientation.of(after)
    for reply in _replies(view.canonical, root_nodes, exhaustive):
        plies = proven_loss(view.canonical.play(reply), nodes)
        if plies is not None:
            return view.to_original(reply), 1 + plies
    return None


def _replies(after: Position, root_nodes: int | None, exhaustive: bool) -> list[int]:
    """The side to move's replies :func:`killing_reply` tries, likeliest first, each once."""
    geometry, empty = after.geometry, after.empty
    mine = after.x if after.to_move == "X" else after.o
    first = geometry.completing(mine, empty)  # wins at once
    root = proof_search(after, 0 if after.to_move == "X" else 1)
    _, disproof = root.run(Limit(), nodes=root_nodes or ROOT_NODES)
    if disproof == 0 and not first:
        return []  # no win at all
    best = root.best_move()
    replies = [*first, *([] if best is None else [best])]
    if exhaustive:
        open_now = set(first)
        replies += [cell for cell in after.legal_moves  # a new cell to complete
                    if set(geometry.completing(mine | 1 << cell, empty & ~(1 << cell)))
                    - open_now]
        replies += list(after.legal_moves)
    return list(dict.fromkeys(replies))


class ProofDefence:
    """Proof checks of the side to move's candidate moves in ``position``.

    ``refuted`` maps a move to the most plies the opponent's proven win lasts after it,
    ``effort`` to the proof positions it took to find that win (how hard the move is to
    refute);
    ``unrefuted`` holds the moves checked with no win found; ``cleared`` maps those that
    a deeper check may still refute to the proof positions their deepest whole check
    searched (the others: the opponent has no win at all). A check takes
    ``check_nodes`` proof positions (:data:`CHECK_NODES` by default) unless told; with
    ``deepen``, :meth:`choose` checks deeper and deeper while the limit lasts.
    ``limit`` counts search nodes (a check stops at its node limit or deadline);
    :attr:`nodes` is what the checks spent, in search nodes. A check searches the
    canonical image of the position after the move, as :func:`killing_reply` does.
    """

    def __init__(self, position: Position, limit: Limit, *,
                 check_nodes: int | None = None, deepen: bool = False) -> None:
        self.position = position
        self.limit = limit
        self.check_nodes = CHECK_NODES if check_nodes is None else check_nodes
        self.opponent = 1 if position.to_move == "X" else 0
        self.table: ProofTable | None = None  # the first check's, shared by the rest
        self.refuted: dict[int, int] = {}
        self.effort: dict[int, int] = {}
        self.deepen = deepen
        self.unrefuted: set[int] = set()
        self.cleared: dict[int, int] = {}
        self.searched: dict[int, int] = {}  # proof positions each move's checks took
        self.nodes = 0

    def exhausted(self, spent: int = 0) -> bool:
        """True once the limit is spent (``spent``: search nodes outside the checks)."""
        return self.limit.expired(spent + self.nodes)

    def check(self, move: int, spent: int = 0, nodes: int | None = None) -> bool:
        """Whether ``move`` survives: ``False`` when the opponent's win after it is
        proven (then it is in :attr:`refuted`), ``True`` when none was found within
        ``nodes`` more proof positions (the check's :attr:`check_nodes` by default) and
        the limit (``spent``: the search nodes counted so far). A move checked before
        is searched on where its last check stopped (the table keeps it), if
        ``nodes`` exceeds what that check cleared."""
        if move in self.refuted:
            return False
        wanted = self.check_nodes if nodes is None else nodes
        if move in self.unrefuted and self.cleared.get(move, wanted) >= wanted:
            return True
        after = self.position.play(move)
        if after.is_over:
            self.unrefuted.add(move)
            return True
        limit = wanted
        if self.limit.node_limit is not None:
            left = (self.limit.node_limit - spent - self.nodes) // PROOF_NODE_COST
            limit = max(0, min(limit, left))
        if limit <= 0 or self.limit.expired(spent + self.nodes):
            return True  # no limit left: nothing was proven
        search = proof_search(Orientation.of(after).canonical, self.opponent, table=self.table)
        self.table = search.table
        proof, disproof = search.run(self.limit.limited(deadline=self.limit.deadline,
                                                         node_limit=None), nodes=limit)
        self.nodes += search.nodes * PROOF_NODE_COST
        self.searched[move] = self.searched.get(move, 0) + search.nodes
        if proof == 0:
            self.refuted[move] = 1 + search.plies()
            self.effort[move] = self.searched[move]
            return False
        if disproof == 0:
            self.unrefuted.add(move)  # no win at all for the opponent
            self.cleared.pop(move, None)
        elif limit == wanted and not self.limit.expired(spent + self.nodes):
            self.unrefuted.add(move)  # (a check cut short may be tried again)
            self.cleared[move] = wanted
        return True

    def choose(self, moves: list[int], spent: int = 0) -> int:
        """The first of ``moves`` (best first) that survives its check, checked in turn
        while the limit lasts (``spent``: search nodes counted outside the checks).

        With :attr:`deepen`, the checks deepen: once a move survives a check of
        :attr:`check_nodes` positions, it is checked again with :data:`DEEPEN` times as
        many, and so on while the limit lasts; a deeper check that refutes it sends the
        choice on to the next moves, each checked as deep. So the whole limit goes to making sure of
        the move played (on the compiled core a first check takes a few milliseconds).
        When the limit runs out, the first not refuted is played; when every one is
        refuted, the hardest to refute: the one whose refutation took the largest proof
        search, then the slowest loss.
        """
        depth = self.check_nodes
        while True:
            survivor = None
            for move in moves:
                if self.exhausted(spent):
                    break
                if self.check(move, spent, depth):
                    survivor = move
                    break
            if (not self.deepen or survivor is None or depth >= MAX_CHECK_NODES
                    or self.cleared.get(survivor, 0) < depth):
                break  # every move refuted, one safe, or the limit ran out
            depth *= DEEPEN
        unrefuted = [move for move in moves if move not in self.refuted]
        if unrefuted:
            return unrefuted[0]
        return max(moves, key=lambda m: (self.effort.get(m, 0), self.refuted[m]))


class ChecksAlongside:
    """A :class:`ProofDefence`'s checks on a thread of their own while the deepening
    search runs on the caller's: :meth:`follow` hands over the deepening's order of
    moves after each depth, and when its first move changes the checks start again on
    the new order (what they found is kept: refutations, clearances and the table).
    :meth:`finish` stops them; the caller then makes the final choice with
    :meth:`ProofDefence.choose` on :attr:`defence`, which finds most checks made. The
    checks stop at ``limit``'s deadline, or when it is cancelled.

    >>> from noughts.position import Position
    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
    ...                             sum(1 << c for c in (12, 15, 60)), "qubic")
    >>> checks = ChecksAlongside(p, Limit.within(0.5))
    >>> checks.follow([63, 2]); checks.finish()
    >>> checks.defence.choose([63, 2])
    2
    """

    def __init__(self, position: Position, limit: Limit) -> None:
        self.defence = ProofDefence(position, limit, deepen=True)
        self._limit = limit
        self._order: list[int] = []
        self._version = 0  # how many times the first move changed
        self._round: Limit | None = None  # the running checks' limit (cancelled to restart)
        self._stopping = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="noughts-checks", daemon=True)

    def follow(self, order: list[int]) -> None:
        """Check ``order`` (best first) from now on; restart the checks if its first
        move is new."""
        with self._changed:
            if self._stopping:
                return
            same = bool(self._order) and self._order[0] == order[0]
            self._order = list(order)
            if same:
                return
            self._version += 1
            if self._round is not None:
                self._round.cancel()
            self._changed.notify()
        if self._version == 1:
            self._thread.start()

    def finish(self) -> None:
        """Stop the checks and wait for them; :attr:`defence` is the caller's again
        (its limit back to the one it was made with)."""
        with self._changed:
            self._stopping = True
            if self._round is not None:
                self._round.cancel()
            self._changed.notify()
        if self._thread.is_alive():
            self._thread.join()
        self.defence.limit = self._limit

    def _run(self) -> None:
        seen = 0
        while True:
            with self._changed:
                while not self._stopping and self._version == seen:
                    self._changed.wait()
                if self._stopping or self._limit.cancelled:
                    return
                seen = self._version
                order = list(self._order)
                # a limit of its own, so that a restart cancels these checks only
                self._round = Limit(deadline=self._limit.deadline)
                self.defence.limit = self._round
            self.defence.choose(order)

"""The exact search core: negamax with alpha-beta over ``(me, opp)`` bitboards.

Scores are *absolute*: a win for the side to move that ends the game with ``N`` marks on
the board scores ``WIN_SCORE - N``, the matching loss ``N - WIN_SCORE``, a draw ``0``.
So the winner hurries, the loser delays, and a stored score is valid from any root.

Per node the search carries, besides the two bitboards, the lines still open to each
side (bit sets over line numbers) and the cells that would complete a line for each
side; all four are updated from the lines through the cell just played, so no node
scans the whole board. That gives cheap immediate wins, forced blocks, double-threat
losses, dead draws (no line open to anyone) and bounds from the clock.

The transposition table maps keys to packed ``(score, flag, best move)`` ints and lives
as long as the :class:`ExactSearch` does. Near the root keys are canonical (shared by all
symmetric images), deeper down they are the raw position, which is cheaper and loses
little: symmetric twins are mostly cut off near the root already.

The search runs on the compiled core where :mod:`noughts.search.core` says it runs (a
port of :meth:`ExactSearch._negamax` node for node: the same values, best moves, node
counts and table), on this module's Python otherwise; ``core=`` asks for one.

>>> from noughts.variants import variant
>>> search = ExactSearch(variant("3x3"))
>>> search.value(0, 0)  # the empty board: a draw
0
>>> search.value(0b000000011, 0b000011000) == WIN_SCORE - 5  # XX./OO./... X wins now
True
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable
from typing import Protocol

from noughts.budget import Limit
from noughts.exact.book import Book
from noughts.geometry import Bitboard, Geometry, check_marks, scan_forward
from noughts.results import WIN_SCORE
from noughts.search.core import Core, ExactCore, exact_search
from noughts.symmetries import SymmetryKeys
from noughts.variants import Variant, variant

__all__ = ["ExactSearch", "WIN_SCORE", "DEFAULT_MAX_ENTRIES", "TranspositionTable"]

DEFAULT_MAX_ENTRIES = 1_500_000
"""The table is emptied when it grows past this many entries (about 150 MB on the Python
core, 105 MB on the compiled one)."""

_EXACT, _LOWER, _UPPER = 0, 1, 2
_OFFSET = 4096  # packed score = (score + _OFFSET) << 12 | (move + 1) << 2 | flag
_MOVE_MASK = 1023

_POLL_NODES = 1024
"""The limit is polled every this many nodes."""


class TranspositionTable(Protocol):
    """A search's table as its users see it: keys to packed entries (a dict on the
    Python core, the compiled core's own table there)."""

    def __len__(self) -> int: ...

    def get(self, key: int, /) -> int | None: ...

    def clear(self) -> None: ...

    def items(self) -> ItemsView[int, int] | Iterable[tuple[int, int]]: ...


class ExactSearch:
    """Exact negamax over one game; its transposition table lives with the object.
    Normal play by default; :class:`noughts.exact.misere.MisereSearch` plays the misère
    rule with the same search (the rule's branches are in :meth:`_negamax`).

    ``book`` (exact scores of early positions) is consulted for positions with at most
    ``book.max_marks`` marks. ``canonical_marks`` is the most marks a position may have
    to be stored under its canonical key (default: a third of the cells). ``core``
    (``"python"`` or ``"compiled"``) asks for a core; by default the one
    :mod:`noughts.search.core` picks runs.
    """

    completion_wins = True
    """Completing a line wins (the rule this search plays by)."""

    def __init__(
        self,
        game: Variant | Geometry,
        *,
        book: Book | None = None,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        canonical_marks: int | None = None,
        core: Core | None = None,
    ) -> None:
        self.game = variant(game)
        geometry = self.geometry = self.game.geometry
        self.book = book
        self._max_entries = max_entries
        self._table: dict[int, int] = {}
        self._nodes = 0
        self._next_poll = _POLL_NODES
        cells = geometry.cells
        self._cells = cells
        self._full = geometry.full
        lines = geometry.lines
        through: list[list[tuple[int, Bitboard]]] = [[] for _ in range(cells)]
        for index, line in enumerate(lines):
            for cell in scan_forward(line):
                through[cell].append((1 << index, line))
        self._through = tuple(tuple(pairs) for pairs in through)
        self._line_bits = tuple(sum(bit for bit, _ in pairs) for pairs in through)
        self._lines = lines
        self._order = tuple(sorted(range(cells), key=lambda c: (-len(through[c]), c)))
        self._misere = not self.completion_wins
        sign = -1 if self._misere else 1
        self._weights = tuple(sign * (1 + 4**marks) for marks in range(geometry.k + 1))
        """Move ordering's line weights (negated in misère: the quietest first)."""
        self._dynamic_empties = 4
        self._keys: SymmetryKeys | None = None
        if self.game.symmetry.exact_keys:
            self._keys = geometry.symmetry_group.keys
        if self._keys is None:
            self._canonical_marks = self._book_marks = -1
        else:
            self._book_marks = book.max_marks if book is not None else -1
            if canonical_marks is None:
                canonical_marks = cells // 3
            self._canonical_marks = max(canonical_marks, self._book_marks)
        self._compiled: ExactCore | None = exact_search(
            geometry,
            misere=self._misere,
            order=self._order,
            perms=(
                (tuple(range(cells)),)
                if self._keys is None
                else geometry.symmetry_group.perms[: self._keys.count]
            ),
            canonical_marks=self._canonical_marks,
            book=None if book is None or self._keys is None else book.columns(),
            book_marks=self._book_marks,
            max_entries=max_entries,
            dynamic_empties=self._dynamic_empties,
            core=core,
        )

    # -- public -----------------------------------------------------------------------
    @property
    def core(self) -> Core:
        """The core this search runs on: ``compiled`` or ``python``."""
        return "python" if self._compiled is None else "compiled"

    @property
    def nodes(self) -> int:
        """Nodes searched so far (table and book answers cost none)."""
        return self._nodes if self._compiled is None else self._compiled.nodes

    @property
    def canonical_marks(self) -> int:
        """The most marks a position may have to be keyed by its canonical image (-1:
        none is)."""
        return self._canonical_marks

    @property
    def table(self) -> TranspositionTable:
        """The transposition table: keys (:meth:`key`) to packed entries."""
        return self._table if self._compiled is None else self._compiled

    @property
    def max_entries(self) -> int:
        """The table is emptied when it has grown to this many entries."""
        return self._max_entries

    @max_entries.setter
    def max_entries(self, entries: int) -> None:
        self._max_entries = entries
        if self._compiled is not None:
            self._compiled.max_entries = entries

    @property
    def dynamic_empties(self) -> int:
        """Nodes with more empty cells than this order their moves by line weights."""
        return self._dynamic_empties

    @dynamic_empties.setter
    def dynamic_empties(self, empties: int) -> None:
        self._dynamic_empties = empties
        if self._compiled is not None:
            self._compiled.dynamic_empties = empties

    def _poll(self, polled: tuple[Limit, int] | None) -> None:
        self._next_poll = self._nodes + _POLL_NODES
        if polled is not None:
            limit, start = polled
            limit.check(self._nodes - start)
            if limit.node_limit is not None:
                self._next_poll = min(self._next_poll, start + limit.node_limit)

    def value(self, me: Bitboard, opp: Bitboard, limit: Limit | None = None,
              start: int | None = None) -> int:
        """Exact absolute score for the side to move owning ``me``, within ``limit`` (see
        :meth:`search`).

        The position must be unfinished: no completed line, at least one empty cell.
        """
        return self.search(me, opp, -WIN_SCORE, WIN_SCORE, limit, start)

    def search(self, me: Bitboard, opp: Bitboard, alpha: int, beta: int,
               limit: Limit | None = None, start: int | None = None) -> int:
        """Fail-soft alpha-beta: the exact score if it lies strictly inside
        ``(alpha, beta)``, else an upper bound ``<= alpha`` or a lower bound ``>= beta``.

        ``limit`` bounds the call (polled from its first node; it raises
        :class:`~noughts.budget.BudgetExhausted` when it runs out, the table keeping
        whatever the search had finished); its node limit counts :attr:`nodes` from
        ``start``, by default their count when the call begins (several calls share one
        budget by passing the same ``start``). Each call's limit is its own: threads
        share the search, each with its limit.
        """
        check_marks(me, opp, self._full)
        start = self.nodes if start is None else start
        compiled = self._compiled
        if compiled is None:
            self._next_poll = self._nodes + 1
            polled = None if limit is None else (limit, start)
            return self._negamax(polled, me, opp, *self._state(me, opp), alpha, beta)
        return compiled.search(me, opp, alpha, beta, limit, start)

    def wins(self, me: Bitboard, opp: Bitboard, limit: Limit | None = None,
             start: int | None = None) -> bool:
        """True if the side to move (``me``) wins with best play (a null-window test),
        within ``limit`` (see :meth:`search`)."""
        return self.search(me, opp, 0, 1, limit, start) > 0

    def book_entry(self, me: Bitboard, opp: Bitboard) -> tuple[int, int] | None:
        """``(score, losing moves)`` from the book, if the position is in it."""
        if self.book is None or (me | opp).bit_count() > self._book_marks:
            return None
        assert self._keys is not None
        key = self._keys.key(me, opp)
        score = self.book.get(key)
        if score is None:
            return None
        losing = self.book.losing_moves(key)
        assert losing is not None
        return score, losing

    def key(self, me: Bitboard, opp: Bitboard) -> int:
        """The table key this search uses for a position."""
        if self._keys is not None and (me | opp).bit_count() <= self._canonical_marks:
            return self._keys.key(me, opp)
        return me | opp << self._cells

    def best_stored_move(self, me: Bitboard, opp: Bitboard) -> int | None:
        """The best move the table remembers for a position, if any."""
        marks = (me | opp).bit_count()
        symmetry = 0
        if self._keys is not None and marks <= self._canonical_marks:
            key, symmetry = self._keys.key_and_symmetry(me, opp)
        else:
            key = me | opp << self._cells
        entry = self.table.get(key)
        if entry is None:
            return None
        move = (entry >> 2 & _MOVE_MASK) - 1
        if move < 0:
            return None
        if self._keys is not None and marks <= self._canonical_marks:
            move = self._keys.invert(symmetry, move)
        return move

    def line_score(self, marks: int) -> int:
        """The absolute score, for the player who makes it, of a move that completes a
        line when ``marks`` marks are on the board (that player wins at once)."""
        return WIN_SCORE - marks - 1

    def completes_line(self, marks: Bitboard, cell: int) -> bool:
        """True if ``marks`` plus ``cell`` complete a line through ``cell``."""
        marks |= 1 << cell
        return any(line & marks == line for _, line in self._through[cell])

    def _ordered(
        self, me: Bitboard, opp: Bitboard, my_live: int, opp_live: int, cells: Bitboard
    ) -> list[int]:
        """``cells``, most promising first: threats we make, threats we spoil (with the
        weights negated, as misère orders: least added to our lines and theirs first)."""
        weights = self._weights
        scored = []
        for cell in self._order:
            if cells >> cell & 1:
                value = 0
                for line_bit, line in self._through[cell]:
                    if my_live & line_bit:
                        value += weights[(line & me).bit_count()]
                    if opp_live & line_bit:
                        value += weights[(line & opp).bit_count()]
                scored.append((-value, cell))
        scored.sort()
        return [cell for _, cell in scored]

    # -- the search -------------------------------------------------------------------
    def _state(self, me: Bitboard, opp: Bitboard) -> tuple[int, int, int, int, int]:
        """marks, lines open to me, lines open to opp, my winning cells, opp's."""
        my_live = opp_live = my_wins = opp_wins = 0
        for index, line in enumerate(self._lines):
            if not line & opp:
                my_live |= 1 << index
                rest = line & ~me
                if rest and not rest & (rest - 1):
                    my_wins |= rest
            if not line & me:
                opp_live |= 1 << index
                rest = line & ~opp
                if rest and not rest & (rest - 1):
                    opp_wins |= rest
        return (me | opp).bit_count(), my_live, opp_live, my_wins, opp_wins

    def _negamax(
        self,
        polled: tuple[Limit, int] | None,
        me: Bitboard,
        opp: Bitboard,
        marks: int,
        my_live: int,
        opp_live: int,
        my_wins: Bitboard,
        opp_wins: Bitboard,
        alpha: int,
        beta: int,
    ) -> int:
        """Fail-soft negamax; see :meth:`search` for the contract. ``polled`` is the call's
        limit and the node count its node limit counts from. ``my_wins`` and ``opp_wins``
        are the cells that would complete a line of that side: a win in normal play, a
        loss in misère (there they are the cells the side must not play).
        """
        self._nodes += 1
        if self._nodes >= self._next_poll:
            self._poll(polled)
        misere = self._misere
        if misere:
            if marks == self._cells:
                return 0
            safe = self._full & ~(me | opp) & ~my_wins
            if not safe:
                return marks + 1 - WIN_SCORE  # every cell completes a line of ours
        elif my_wins:
            return WIN_SCORE - marks - 1
        elif marks == self._cells:
            return 0
        elif opp_wins & (opp_wins - 1):
            return marks + 2 - WIN_SCORE  # two threats: one is blocked, the other wins
        if not my_live | opp_live:
            return 0  # no line is open to anyone: a certain draw
        # Bounds from the clock. Normal play: no win before our second move, no loss
        # before theirs. Misère: no win before their move, no loss before our next one.
        if misere:
            upper = WIN_SCORE - marks - 2 if opp_live else 0
            lower = marks + 3 - WIN_SCORE if my_live else 0
        else:
            upper = WIN_SCORE - marks - 3 if my_live else 0
            lower = marks + 4 - WIN_SCORE if opp_live else 0
        if upper <= alpha:
            return upper
        if lower >= beta:
            return lower
        if beta > upper:
            beta = upper
        if alpha < lower:
            alpha = lower

        keys = self._keys
        canonical = marks <= self._canonical_marks
        symmetry = 0
        if canonical:
            assert keys is not None
            key, symmetry = keys.key_and_symmetry(me, opp)
            if marks <= self._book_marks:
                assert self.book is not None
                known = self.book.get(key)
                if known is not None:
                    return known
        else:
            key = me | opp << self._cells
        table = self._table
        entry = table.get(key)
        tt_move = -1
        if entry is not None:
            stored = (entry >> 12) - _OFFSET
            flag = entry & 3
            if flag == _EXACT:
                return stored
            if flag == _LOWER:
                if stored >= beta:
                    return stored
                if stored > alpha:
                    alpha = stored
            elif stored <= alpha:
                return stored
            elif stored < beta:
                beta = stored
            tt_move = (entry >> 2 & _MOVE_MASK) - 1
            if canonical and tt_move >= 0:
                assert keys is not None
                tt_move = keys.invert(symmetry, tt_move)

        if opp_wins and not misere:
            moves: list[int] | tuple[int, ...] = (opp_wins.bit_length() - 1,)  # forced block
        else:
            if not misere:
                safe = self._full & ~(me | opp)
            if self._cells - marks > self._dynamic_empties:
                moves = self._ordered(me, opp, my_live, opp_live, safe)
            else:
                moves = [c for c in self._order if safe >> c & 1]
            if tt_move >= 0 and tt_move != moves[0]:
                moves.remove(tt_move)
                moves.insert(0, tt_move)

        window_alpha = alpha
        best = -WIN_SCORE
        best_move = -1
        through = self._through
        line_bits = self._line_bits
        child_marks = marks + 1
        for cell in moves:
            bit = 1 << cell
            mine = me | bit
            threats = my_wins  # (none in normal play: a win was taken above)
            for line_bit, line in through[cell]:
                if my_live & line_bit:
                    rest = line & ~mine
                    if not rest & (rest - 1):
                        threats |= rest
            score = -self._negamax(
                polled,
                opp,
                mine,
                child_marks,
                opp_live & ~line_bits[cell],
                my_live,
                opp_wins & ~bit,
                threats,
                -beta,
                -alpha,
            )
            if score > best:
                best = score
                best_move = cell
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break

        if best <= window_alpha:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        if canonical:
            assert keys is not None
            best_move = keys.apply(symmetry, best_move)
        if len(table) >= self._max_entries:
            table.clear()
        table[key] = (best + _OFFSET) << 12 | (best_move + 1) << 2 | flag
        return best

"""Proof-number search on a board played in place: the pure-Python reference of the
compiled core's.

Depth-first proof-number search (df-pn, Nagai 2002) with the 1+epsilon threshold
trick (Pawlewicz and Lew 2007). One side is the *attacker*: the search proves that it
wins by force, or that it cannot (a draw or a loss is a failure to the attacker). A
win for the side to move is proven with that side as attacker, a loss with its
opponent as attacker; when both fail the position is a proven draw
(:func:`noughts.search.proof.prove` runs both).

What makes it practical for Qubic:

* **Forced moves are free**: a side that can complete a line wins, a side facing two
  threats loses, a side facing one threat has one move (the block).
* **Threat-space search at the leaves**: every new position with the attacker to move
  is first tried with the continuous-threat search of
  :mod:`noughts.search.threat_search`; a chain found there proves the node at once.
* **The defender's replies narrowed by threats**: when the defender is to move and the
  attacker would win by a chain if it could move again, only the replies that can
  stop that chain are searched (:func:`noughts.search.threat_search.defences`); every
  other reply loses to the same chain, which the strategy checker verifies on its own.
* **Proof numbers from threats**: a defender facing a threat has one move, so such a
  node starts with proof number 1; other new positions start with numbers that fall
  as the attacker's potential grows (lines one mark short of a threat, and fork points
  where two of them cross), so forcing and promising lines are tried first.
* **A transposition table on canonical keys**: the Zobrist hash of the least image of
  the position under all the board's symmetries (192 for Qubic), so a position met in
  any orientation, by any route, is searched once. Moves are stored in the canonical
  orientation and mapped back when read. (A plain hash past the opening would be
  cheaper, but a proof walked in another orientation than it was searched in would
  then miss its own positions.)

The search polls its own :class:`~noughts.budget.Limit` (a deadline, a node limit, a
cancel switch) and can be resumed: a :class:`ProofSearch` keeps its table between calls
to :meth:`ProofSearch.run`.

>>> from noughts.position import Position
>>> search = ProofSearch(Position("XO./.X./..."), 0)  # O must block at 8, then X forks
>>> search.run(), search.plies(), search.moves()
((0, 1099511627776), 4, [8])

The compiled core (:mod:`noughts.search.core`) runs a port of this module, node for
node: :func:`noughts.search.core.proof_search` gives the search of the core that runs.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from noughts.budget import BudgetExhausted, Limit
from noughts.geometry import Bitboard
from noughts.position import Position
from noughts.search.board import tables_for
from noughts.search.threat_search import DEFAULT_MAX_THREATS, ThreatSearch, defences

__all__ = [
    "widen",
    "INFINITY",
    "ProofSearch",
    "Entry",
    "LEAF_THREAT_NODES",
]

INFINITY = 1 << 40
"""A proof or disproof number that says: settled (the other number is 0)."""

EPSILON = 0.25
"""The 1+epsilon trick: a child is searched until its number passes the second best
child's by this share, so the search does not switch back and forth between siblings."""

LEAF_THREAT_NODES = 2_000
"""Positions the threat-space search may visit when a new attacker node is first met
(and when a defender's node is expanded, to narrow its replies)."""

OPEN_PROOF = 10
"""The proof number of a new attacker position without threat potential; each two pot
cells (empty cells on the attacker's lines one mark short of a threat) take one off and
each fork point :data:`FORK_BONUS` (down to 1)."""

QUIET_PROOF = 30
"""The proof number of a new defender position that faces no threat, less the
attacker's potential (down to 2). A defender facing a threat starts at 1; one facing a
threat *chain* (the attacker would win by continuous threats if it moved again) at 2
plus half the chain's length: it must answer the chain, with one of few replies.
Measured on 16 Qubic positions four plies in (X on a corner, one move each more), 30 s
of CPU each: with the chain test 15 proven in 126 s of CPU in all, without it (20 less
the potential) 12 in 191 s; numbering by the count of defences instead proved 15 in
180 s. (Earlier, on twelve positions 4-8 plies deep within 300,000 nodes, numbers from
the potential proved 9 of 10 where the mobility numbers, 1 for the attacker and the
replies for the defender, proved 4.)"""

FORK_BONUS = 3
"""How many pot cells a fork point counts as in the initial proof numbers."""

# A table entry: [proof number, disproof number, move in the key's orientation or -1,
# plies of the threat chain that settles the node (an attacker's node proven by one, or
# the chain a defender's unsearched replies lose to) or 0, the node's moves in the key's
# orientation once it has been expanded, else None, and their positions' keys once all
# were looked at (a node searched again finds its children without playing them)].
Entry = list[Any]
_PN, _DN, _MOVE, _CHAIN, _MOVES, _KEYS = 0, 1, 2, 3, 4, 5


class _Board:
    """The position under proof, as the attacker's threats see it, played in place.

    Besides the two sides' bitboards and the symmetric Zobrist hashes of
    :func:`noughts.search.board.tables_for`, it keeps what the rules and the threat
    search need, move by move: the attacker's two-lines (lines holding ``k-2`` of its
    marks and none of the defender's) and, for each side, the cells that would complete
    one of its lines. (The anytime search's board keeps an evaluation as well; this one
    keeps only that, which makes a proof search's moves about twice as cheap.)
    """

    def __init__(self, position: Position, attacker: int) -> None:
        geometry = position.geometry
        tables = tables_for(geometry)
        self.geometry = geometry
        self.game = position.game
        self.k = position.game.rules.k
        self.full = geometry.full
        self.lines = geometry.lines
        self.through = geometry.lines_through
        self.zobrist = tables.zobrist
        self.hash_bytes = tables.hash_bytes
        self.perms = tables.perms
        self.inverse = tables.inverse
        self.attacker = attacker
        self.bits = [position.x, position.o]
        self.stm = 0 if position.to_move == "X" else 1
        hashes = 0
        for side, marks in enumerate(self.bits):
            for cell in range(geometry.cells):
                if marks >> cell & 1:
                    hashes ^= self.zobrist[side][cell]
        self.hashes = hashes
        mine, theirs = self.bits[attacker], self.bits[1 - attacker]
        self.twos: list[Bitboard] = [
            line for line in self.lines
            if not line & theirs and (line & mine).bit_count() == self.k - 2
        ]
        self.wins = [self._completions(side) for side in (0, 1)]
        self._saved: list[tuple[list[Bitboard], int, int]] = []

    def _completions(self, side: int) -> Bitboard:
        mine, theirs = self.bits[side], self.bits[1 - side]
        result = 0
        for line in self.lines:
            if not line & theirs and (line & mine).bit_count() == self.k - 1:
                result |= line & ~mine
        return result

    @property
    def attacking(self) -> bool:
        return self.stm == self.attacker

    def empty(self) -> Bitboard:
        return self.full & ~(self.bits[0] | self.bits[1])

    def play(self, cell: int) -> None:
        side = self.stm
        bit = 1 << cell
        self._saved.append((self.twos, self.wins[0], self.wins[1]))
        self.bits[side] |= bit
        self.hashes ^= self.zobrist[side][cell]
        self.stm = 1 - side
        mine, theirs = self.bits[side], self.bits[1 - side]
        k = self.k
        made = self.wins[side] & ~bit
        for line in self.through[cell]:
            if not line & theirs and (line & mine).bit_count() == k - 1:
                made |= line & ~mine
        self.wins[side] = made
        self.wins[1 - side] &= ~bit
        twos = [line for line in self.twos if not line & bit]
        if side == self.attacker:
            for line in self.through[cell]:
                if not line & theirs and (line & mine).bit_count() == k - 2:
                    twos.append(line)
        self.twos = twos

    def undo(self, cell: int) -> None:
        side = 1 - self.stm
        self.bits[side] ^= 1 << cell
        self.hashes ^= self.zobrist[side][cell]
        self.stm = side
        self.twos, self.wins[0], self.wins[1] = self._saved.pop()

    def key(self) -> tuple[int, int]:
        """The table key (the same for every symmetric image of the position) and the
        symmetry that maps the position onto the key's orientation."""
        packed = self.hashes.to_bytes(self.hash_bytes, sys.byteorder)
        values = memoryview(packed).cast("Q").tolist()
        best = min(values)
        return best, values.index(best)

    def distinct(self, cells: list[int]) -> list[int]:
        """``cells`` less those a symmetry of the position maps onto an earlier one
        (symmetric moves lead to the same position, up to symmetry)."""
        packed = self.hashes.to_bytes(self.hash_bytes, sys.byteorder)
        values = memoryview(packed).cast("Q").tolist()
        best = min(values)
        mapping = [index for index, value in enumerate(values) if value == best]
        if len(mapping) == 1:
            return cells
        back = self.inverse[mapping[0]]
        images = [self.perms[index] for index in mapping]
        kept: list[int] = []
        seen: set[int] = set()
        for cell in cells:
            if cell in seen:
                continue
            kept.append(cell)
            seen.update(back[image[cell]] for image in images)
        return kept

    def plain_key(self) -> int:
        """The table key alone (cheaper than :meth:`key`)."""
        return min(memoryview(self.hashes.to_bytes(self.hash_bytes, sys.byteorder)).cast("Q"))

    def potential(self) -> int:
        """The attacker's threat potential: two pot cells count one, a fork point
        :data:`FORK_BONUS`."""
        free = ~(self.bits[0] | self.bits[1])
        seen = forks = 0
        for line in self.twos:
            cells = line & free
            forks |= seen & cells
            seen |= cells
        return len(self.twos) + FORK_BONUS * forks.bit_count()

    def ordered(self, cells: Bitboard) -> list[int]:
        """``cells`` for the side to move, the most useful first: lines it extends
        (more for lines nearer complete) and lines of the opponent's it blocks."""
        mine, theirs = self.bits[self.stm], self.bits[1 - self.stm]
        through = self.through
        scored = []
        while cells:
            low = cells & -cells
            cells ^= low
            cell = low.bit_length() - 1
            score = 0
            for line in through[cell]:
                if not line & theirs:
                    score += 4 ** (line & mine).bit_count()
                elif not line & mine:
                    score += 2 ** (line & theirs).bit_count()
            scored.append((-score, cell))
        scored.sort()
        return [cell for _, cell in scored]


class ProofSearch:
    """df-pn for ``attacker`` (0 = X, 1 = O) from ``position``.

    ``table`` maps keys to entries; pass one in to share it between searches of the
    same attacker on the same board (the strategy builder does). The position under
    search moves with :meth:`play` and :meth:`undo`: the reading methods
    (:meth:`best_move`, :meth:`children`, :meth:`proof`, ...) read the table at the
    position played to.
    """

    def __init__(
        self,
        position: Position,
        attacker: int,
        *,
        table: dict[int, Entry] | None = None,
        leaf_threat_nodes: int = LEAF_THREAT_NODES,
        max_threats: int = DEFAULT_MAX_THREATS,
    ) -> None:
        if attacker not in (0, 1):
            raise ValueError(f"the attacker is 0 (X) or 1 (O), not {attacker!r}")
        if leaf_threat_nodes < 0 or max_threats < 0:
            raise ValueError("leaf_threat_nodes and max_threats are at least 0")
        self.board = _Board(position, attacker)
        self.attacker = attacker
        self.table: dict[int, Entry] = {} if table is None else table
        self.threats = ThreatSearch(position.game)
        self.leaf_threat_nodes = leaf_threat_nodes
        self.max_threats = max_threats
        self.nodes = 0
        self._limit = Limit()
        self._played: list[int] = []

    # -- the position ------------------------------------------------------------------
    def play(self, cell: int) -> None:
        """Play ``cell`` (an empty cell) for the side to move."""
        board = self.board
        if not 0 <= cell < board.geometry.cells or not board.empty() >> cell & 1:
            raise ValueError(f"move {cell} is not an empty cell")
        board.play(cell)
        self._played.append(cell)

    def undo(self, cell: int) -> None:
        """Take back ``cell``, the last move :meth:`play` made."""
        if not self._played or self._played[-1] != cell:
            raise ValueError(f"move {cell} is not the last move played")
        self._played.pop()
        self.board.undo(cell)

    # -- driving -----------------------------------------------------------------------
    def run(self, limit: Limit | None = None, *, nodes: int | None = None,
            thresholds: tuple[int, int] = (INFINITY, INFINITY)) -> tuple[int, int]:
        """Search until the root is proven or disproven, its proof number reaches the
        first of ``thresholds`` or its disproof number the second, the ``limit`` runs
        out, or ``nodes`` more positions are searched; return the root's ``(proof
        number, disproof number)``. Can be called again to go on where it stopped."""
        outer = limit if limit is not None else Limit()
        most = None if nodes is None else self.nodes + nodes
        if outer.node_limit is not None:  # the limit counts this search's positions
            most = outer.node_limit if most is None else min(most, outer.node_limit)
        self._limit = outer.limited(deadline=outer.deadline, node_limit=most)
        try:
            entry = self._entry()
        except BudgetExhausted:
            return 1, 1  # not even the root could be looked at
        with contextlib.suppress(BudgetExhausted):
            self._mid(*thresholds, entry)
        return entry[_PN], entry[_DN]

    def _entry(self) -> Entry:
        """The table entry of the board's position, evaluated as a leaf if new."""
        key, _ = self.board.key()
        entry = self.table.get(key)
        if entry is None:
            entry = self._leaf()
            self.table[key] = entry
        return entry

    def _chain(self, block: Bitboard) -> list[int] | None:
        """The attacker's threat chain from the board (as if it were to move), within
        :attr:`leaf_threat_nodes` positions. Raises :class:`BudgetExhausted` when the
        search's own limit ran out meanwhile (a chain cut short proves nothing, and
        its failure must not be stored as the position's)."""
        board = self.board
        threats = self.threats
        before = threats.nodes
        cap = before + self.leaf_threat_nodes
        if self._limit.node_limit is not None:  # nor past the search's own node limit
            cap = min(cap, before + max(0, self._limit.node_limit - self.nodes))
        shared = self._limit.limited(deadline=self._limit.deadline, node_limit=cap)
        attacker = self.attacker
        line = threats.chain(board.bits[attacker], board.bits[1 - attacker], board.twos,
                             block.bit_length() - 1, self.max_threats, shared)
        self.nodes += threats.nodes - before
        if line is None:
            self._limit.check(self.nodes)
        return line

    # -- the rules of a node -------------------------------------------------------------
    def _leaf(self) -> Entry:
        """A new position's entry: settled by the rules or a threat chain, else initial
        proof numbers from the attacker's threat potential."""
        board = self.board
        attacker = self.attacker
        mine, theirs = board.wins[attacker], board.wins[1 - attacker]
        full = not board.empty()
        if board.attacking:
            if mine:
                return [0, INFINITY, self._oriented(mine.bit_length() - 1), 1, None, None]
            if theirs & (theirs - 1) or full:
                return [INFINITY, 0, -1, 0, None, None]
            line = self._chain(theirs)
            if line is not None:
                return [0, INFINITY, self._oriented(line[0]), len(line), None, None]
            return [max(1, OPEN_PROOF - board.potential() // 2),
                    board.empty().bit_count(), -1, 0, None, None]
        if theirs or full:  # the defender completes a line, or the board is full
            return [INFINITY, 0, -1, 0, None, None]
        if mine & (mine - 1):
            return [0, INFINITY, -1, 2, None, None]  # two threats: one stays open
        if mine:  # the defender has one move: the block
            return [1, 1, -1, 0, None, None]
        line = self._chain(0)
        if line is not None:  # the attacker threatens a chain: the defender must answer it
            return [max(2, 2 + len(line) // 2), 1, -1, 0, None, None]
        return [max(2, QUIET_PROOF - board.potential()), 1, -1, 0, None, None]

    def _oriented(self, cell: int) -> int:
        return self.board.perms[self.board.key()[1]][cell]

    def moves(self, entry: Entry | None = None, key_symmetry: int | None = None) -> list[int]:
        """The moves worth searching for the side to move: the block when the opponent
        has one threat; for the defender, the replies that can stop the attacker's
        chain when it has one; else every empty cell, the most promising first.
        ``entry`` is the position's (looked up if not given), ``key_symmetry`` the
        symmetry of its key (computed if not given)."""
        board = self.board
        if entry is None:
            entry = self._entry()
        if key_symmetry is None:
            key_symmetry = board.key()[1]
        cached = entry[_MOVES]
        if cached is not None:
            inverse = board.inverse[key_symmetry]
            return [inverse[cell] for cell in cached]
        side = board.stm
        theirs = board.wins[1 - side]
        if theirs:
            result = [theirs.bit_length() - 1]
        else:
            cells = board.empty()
            if not board.attacking:
                line = self._chain(0)
                if line is not None:
                    attacker = self.attacker
                    cells = defences(board.game, board.bits[attacker],
                                     board.bits[1 - attacker], line) & cells
                    entry[_CHAIN] = len(line)
            result = board.distinct(board.ordered(cells))
        forward = board.perms[key_symmetry]
        entry[_MOVES] = [forward[cell] for cell in result]
        return result

    # -- the search --------------------------------------------------------------------
    def _mid(self, th_pn: int, th_dn: int, entry: Entry) -> None:
        """Search the board's position until its proof number reaches ``th_pn`` or its
        disproof number ``th_dn`` (or it is settled), updating ``entry`` in place."""
        if entry[_PN] >= th_pn or entry[_DN] >= th_dn or not entry[_PN] or not entry[_DN]:
            return
        self.nodes += 1
        self._limit.check(self.nodes)
        board = self.board
        table = self.table
        attacking = board.attacking
        symmetry = board.key()[1]
        to_key = board.perms[symmetry]
        children: list[tuple[int, Entry]] = []
        moves = self.moves(entry, symmetry)
        keys = entry[_KEYS]
        if keys is not None:
            children = [(cell, table[key]) for cell, key in zip(moves, keys, strict=True)]
        else:
            keys = []
            for cell in moves:
                board.play(cell)
                try:
                    key = board.plain_key()
                    child = table.get(key)
                    if child is None:
                        child = self._leaf()
                        table[key] = child
                finally:
                    board.undo(cell)
                children.append((cell, child))
                keys.append(key)
                if (attacking and not child[_PN]) or (not attacking and not child[_DN]):
                    break  # settled: the node is not searched again
            else:
                entry[_KEYS] = keys
        while True:
            # an attacker node is an OR node: proven by one child, disproven by all
            if attacking:
                pn, dn, best, second = INFINITY, 0, 0, INFINITY
                for index, (_, child) in enumerate(children):
                    dn += child[_DN]
                    value = child[_PN]
                    if value < pn:
                        second, pn, best = pn, value, index
                    elif value < second:
                        second = value
            else:
                pn, dn, best, second = 0, INFINITY, 0, INFINITY
                for index, (_, child) in enumerate(children):
                    pn += child[_PN]
                    value = child[_DN]
                    if value < dn:
                        second, dn, best = dn, value, index
                    elif value < second:
                        second = value
            pn = min(pn, INFINITY)
            dn = min(dn, INFINITY)
            entry[_PN], entry[_DN] = pn, dn
            if children:
                entry[_MOVE] = to_key[children[best][0]]
            if pn >= th_pn or dn >= th_dn or not pn or not dn:
                return
            cell, child = children[best]
            if attacking:
                child_pn = min(th_pn, widen(second))
                child_dn = th_dn if th_dn >= INFINITY else th_dn - dn + child[_DN]
            else:
                child_dn = min(th_dn, widen(second))
                child_pn = th_pn if th_pn >= INFINITY else th_pn - pn + child[_PN]
            board.play(cell)
            try:
                self._mid(child_pn, child_dn, child)
            finally:
                board.undo(cell)

    # -- reading the table ---------------------------------------------------------------
    def best_move(self) -> int | None:
        """The move the table holds for the board's position (winning, if proven)."""
        key, symmetry = self.board.key()
        entry = self.table.get(key)
        if entry is None or entry[_MOVE] < 0:
            return None
        return self.board.inverse[symmetry][entry[_MOVE]]

    def children(self) -> list[tuple[int, int, int]]:
        """``(move, proof number, disproof number)`` of each searched move of the
        board's position, as the table holds them (none before it is expanded)."""
        board = self.board
        entry = self.table.get(board.key()[0])
        if entry is None or entry[_MOVES] is None:
            return []
        result = []
        for cell in self.moves(entry):
            board.play(cell)
            child = self.table.get(board.key()[0])
            board.undo(cell)
            if child is not None:
                result.append((cell, child[_PN], child[_DN]))
        return result

    def defence_chain(self) -> int:
        """At a defender's expanded node: the plies of the threat chain that every
        reply left out of its moves loses to (0 if none were left out)."""
        entry = self.table.get(self.board.key()[0])
        return 0 if entry is None or self.board.attacking else entry[_CHAIN]

    def proof(self, seen: set[int] | None = None) -> list[tuple[int, int, int, bool, int]]:
        """Walk the proof of the board's position (which must be proven): the
        ``(x, o, move, chain, plies)`` of every attacker position of the strategy once
        (up to symmetry): ``x``/``o`` its bitboards, ``move`` the attacker's move there,
        ``chain`` true where the move starts a threat chain (or wins at once), so the
        rest of the way is forced, and ``plies`` the most plies the strategy lets the
        game last from there. ``seen`` (keys already walked) lets several walks skip
        each other's positions."""
        self._limit = Limit()  # reading the table: the search's limit is spent
        memo: dict[int, int] = {}
        found: list[tuple[int, int, int, bool, int]] = []
        self._walk(set() if seen is None else seen, memo, found)
        return found

    def _walk(self, seen: set[int], memo: dict[int, int],
              found: list[tuple[int, int, int, bool, int]]) -> None:
        board = self.board
        key, symmetry = board.key()
        if key in seen:
            return
        seen.add(key)
        entry = self.table.get(key)
        if entry is None or entry[_PN]:
            raise ValueError("the position is not proven")
        if board.attacking:
            if entry[_MOVE] < 0:
                raise ValueError("the position is not proven")
            move = board.inverse[symmetry][entry[_MOVE]]
            chain = entry[_CHAIN] > 0
            found.append((board.bits[0], board.bits[1], move, chain, self._plies(memo)))
            if chain:
                return
            board.play(move)
            try:
                self._walk(seen, memo, found)
            finally:
                board.undo(move)
            return
        if entry[_CHAIN] == 2 and entry[_MOVES] is None:
            return  # the defender cannot block two threats: nothing to walk
        for cell in self.moves(entry):
            board.play(cell)
            try:
                self._walk(seen, memo, found)
            finally:
                board.undo(cell)

    def plies(self) -> int:
        """The most plies the proven strategy lets the game last (a bound on the
        distance to the win, not its exact value)."""
        self._limit = Limit()  # reading the table: the search's limit is spent
        memo: dict[int, int] = {}
        return self._plies(memo)

    def resisting_move(self) -> int | None:
        """In a proven loss of the side to move (a defender's position the attacker's
        win is proven in), the move whose proof lets the game last longest (the first
        of equals in :meth:`moves`' order); ``None`` if it has no move."""
        self._limit = Limit()  # reading the table: the search's limit is spent
        board = self.board
        best: tuple[int, int] | None = None
        memo: dict[int, int] = {}  # shared: the replies' proofs overlap
        for cell in self.moves():  # the replies left out lose to a chain at once
            board.play(cell)
            try:
                size = self._plies(memo)
            finally:
                board.undo(cell)
            if best is None or size > best[0]:
                best = (size, cell)
        return None if best is None else best[1]

    def _plies(self, memo: dict[int, int]) -> int:
        board = self.board
        key, symmetry = board.key()
        known = memo.get(key)
        if known is not None:
            return known
        entry = self.table.get(key)
        if entry is None:  # a reply to a position the rules settled without expanding
            entry = self.table[key] = self._leaf()
        if board.attacking:
            if entry[_CHAIN]:
                result = int(entry[_CHAIN])
            else:
                if entry[_MOVE] < 0:
                    raise ValueError("the position is not proven")
                move = board.inverse[symmetry][entry[_MOVE]]
                board.play(move)
                try:
                    result = 1 + self._plies(memo)
                finally:
                    board.undo(move)
        elif entry[_CHAIN] == 2 and entry[_MOVES] is None:
            result = 2  # any move, then the attacker completes a line
        else:
            moves = self.moves(entry)
            # the replies left out lose to the chain the defences were drawn from
            result = 1 + int(entry[_CHAIN]) if len(moves) < board.empty().bit_count() else 0
            for cell in moves:
                board.play(cell)
                try:
                    result = max(result, 1 + self._plies(memo))
                finally:
                    board.undo(cell)
        memo[key] = result
        return result


def widen(second: int) -> int:
    """The 1+epsilon threshold a child is searched to, given its best sibling's number."""
    if second >= INFINITY:
        return INFINITY
    return int(second * (1 + EPSILON)) + 1

"""Threat-space search on bitboards: the pure-Python reference of the compiled core's.

A *threat* is a line holding ``k-1`` marks of one side and an empty last cell. A side
that makes a threat forces the reply (block it, or lose at once, unless the defender
can win first); a chain of such forcing moves that ends in a double threat (a fork:
two threats the defender cannot both block) wins. Because every defending move in the
chain is forced, a chain found here is a proof, not a guess. A defender's forced block
that makes a threat of its own must be blocked in turn, and that block must threaten
again for the chain to go on.

The search works on the two sides' bitboards and the geometry's lines, and keeps only
what a threat needs: the attacker's *two-lines* (lines holding ``k-2`` of its marks and
none of the defender's), whose empty cells are the moves that threaten. A position
costs a few line tests, so a proof search can run it at every leaf.

>>> from noughts.variants import variant
>>> x = sum(1 << c for c in (0, 1, 6, 10))  # two lines of two cross on the empty cell 2
>>> o = sum(1 << c for c in (12, 15, 60, 63))
>>> ThreatSearch(variant("qubic")).find(x, o)
[2, 3, 14]

When a chain exists, :func:`defences` narrows the defender's useful replies to the
cells that can stop it: every other reply is answered by the same chain.

The compiled core (:mod:`noughts.search.core`) runs a port of this module, node for
node; :func:`noughts.search.core.threat_search` gives the search of the core that runs,
and :func:`noughts.search.threats.find_forced_win` asks it for a position's win.
"""

from __future__ import annotations

from noughts.budget import BudgetExhausted, Limit
from noughts.geometry import Bitboard, Geometry, check_marks
from noughts.variants import Variant, variant

__all__ = ["ThreatSearch", "defences", "chain_survives", "DEFAULT_MAX_THREATS"]

DEFAULT_MAX_THREATS = 12
"""How many forcing moves a chain may have by default."""


class ThreatSearch:
    """Continuous-threat search for one game (its board and rules), on bitboards.

    Each call takes the ``limit`` that bounds it (none by default; its node limit counts
    this search's positions, :attr:`nodes`). Positions shown not to win are
    remembered (with the number of threats tried) across calls, and the attacker's
    moves of the last chain found are tried first (:attr:`hint`): sibling positions
    are often won by the same chain.
    """

    def __init__(self, game: Variant | Geometry) -> None:
        game = variant(game)  # (a geometry names its normal-play game)
        self.k = game.rules.k
        self.lines = game.lines
        self.through: tuple[tuple[Bitboard, ...], ...] = tuple(
            tuple(lines) for lines in game.lines_through
        )
        self.shift = game.cells
        self.full = game.full
        self._limit = Limit()
        self.nodes = 0
        self.failed: dict[int, int] = {}
        self.hint: Bitboard = 0
        self._most_nodes = 0

    @property
    def failed_entries(self) -> int:
        """How many positions the table of failed positions holds."""
        return len(self.failed)

    def find(self, attacker: Bitboard, defender: Bitboard,
             max_threats: int = DEFAULT_MAX_THREATS, limit: Limit | None = None
             ) -> list[int] | None:
        """The shortest forced line for ``attacker`` (to move) against ``defender``
        (deepening one threat at a time), or ``None`` if there is none within
        ``max_threats`` forcing moves or ``limit`` ran out. The line holds both
        sides' moves, the winning one last."""
        self._check(attacker, defender, max_threats)
        for depth in range(max_threats + 1):
            line = self.refute(attacker, defender, depth, limit)
            if line is not None or self.exhausted():
                return line
        return None

    def refute(self, attacker: Bitboard, defender: Bitboard,
               max_threats: int = DEFAULT_MAX_THREATS, limit: Limit | None = None
               ) -> list[int] | None:
        """Any forced line of at most ``max_threats`` forcing moves (depth first, not
        necessarily the shortest): the cheap way to check many sibling positions.
        ``None`` if there is none or ``limit`` ran out (see :meth:`exhausted`)."""
        self._check(attacker, defender, max_threats)
        self._limit = limit if limit is not None else Limit()
        win, block, twos = self._setup(attacker, defender)
        if win >= 0:
            return [win]
        if block == -2:
            return None
        return self.chain(attacker, defender, twos, block, max_threats, self._limit)

    def chain(self, attacker: Bitboard, defender: Bitboard, twos: list[Bitboard], block: int,
              max_threats: int = DEFAULT_MAX_THREATS, limit: Limit | None = None
              ) -> list[int] | None:
        """:meth:`refute` for a caller that keeps the attacker's two-lines itself
        (``twos``: lines holding ``k-2`` of its marks and none of the defender's) and
        knows it cannot complete a line now; ``block`` is the defender's one cell that
        would complete a line (the attacker must take it), or -1."""
        limit = self._limit = limit if limit is not None else Limit()
        self._most_nodes = limit.node_limit if limit.node_limit is not None else 1 << 62
        if limit.cancelled:
            return None
        try:
            line = self._search(attacker, defender, twos, block, max_threats)
        except BudgetExhausted:
            return None
        if line is not None:
            hint = 0
            for cell in line[::2]:
                hint |= 1 << cell
            self.hint = hint
        return line

    def _check(self, attacker: Bitboard, defender: Bitboard, max_threats: int) -> None:
        """A clear error for marks off the board or on both sides, or a negative depth."""
        check_marks(attacker, defender, self.full)
        if max_threats < 0:
            raise ValueError("max_threats must be at least 0")

    def exhausted(self) -> bool:
        """True once the last call's limit has run out (or was cancelled)."""
        return self._limit.expired(self.nodes)

    def _setup(self, attacker: Bitboard, defender: Bitboard) -> tuple[int, int, list[Bitboard]]:
        """``(win, block, twos)``: a cell completing the attacker's line or -1; the
        defender's one completing cell (the attacker must block it), -1 for none, -2
        for two or more; the attacker's two-lines."""
        k = self.k
        win = -1
        blocks = 0
        twos = []
        for line in self.lines:
            if line & defender:
                if not line & attacker and (line & defender).bit_count() == k - 1:
                    blocks |= line & ~defender
                continue
            count = (line & attacker).bit_count()
            if count == k - 1:
                win = (line & ~attacker).bit_length() - 1
            elif count == k - 2:
                twos.append(line)
        if blocks & (blocks - 1):
            return win, -2, twos
        return win, blocks.bit_length() - 1, twos

    def _search(self, att: Bitboard, dfn: Bitboard, twos: list[Bitboard], block: int,
                depth: int) -> list[int] | None:
        """A chain from this position (attacker to move, no line of its own one mark
        short; ``block`` the defender's one such cell or -1) of at most ``depth``
        single threats and then a double threat."""
        self.nodes += 1
        if self.nodes >= self._most_nodes:
            raise BudgetExhausted
        if self.nodes & 127 == 0 and self._limit.expired(self.nodes):
            raise BudgetExhausted
        free = ~(att | dfn)
        options: list[tuple[Bitboard, Bitboard]]  # (the threat, the forced reply)
        if block >= 0:  # the defender threatens: block, and the block must threaten
            bit = 1 << block
            hits = [line for line in twos if line & bit]
            if len(hits) >= 2:
                return [block, ((hits[0] & free) ^ bit).bit_length() - 1,
                        ((hits[1] & free) ^ bit).bit_length() - 1]
            if not hits or not depth:
                return None
            options = [(bit, (hits[0] & free) ^ bit)]
        else:
            seen = 0
            hint = self.hint
            first: list[tuple[Bitboard, Bitboard]] = []
            rest: list[tuple[Bitboard, Bitboard]] = []
            for line in twos:
                cells = line & free
                fork = seen & cells
                if fork:  # a cell on two two-lines: playing it makes two threats
                    fork &= -fork  # (both of this line's cells may be such cells)
                    hits = [other for other in twos if other & fork]
                    return [fork.bit_length() - 1, ((hits[0] & free) ^ fork).bit_length() - 1,
                            ((hits[1] & free) ^ fork).bit_length() - 1]
                seen |= cells
                low = cells & -cells
                high = cells ^ low
                (first if low & hint else rest).append((low, high))
                (first if high & hint else rest).append((high, low))
            if not depth:
                return None
            options = first + rest if first else rest
        key = (att << self.shift) | dfn
        failed = self.failed
        if failed.get(key, -1) >= depth:
            return None
        k = self.k
        through = self.through
        for threat, reply in options:
            att2 = att | threat
            dfn2 = dfn | reply
            cell = reply.bit_length() - 1
            counter = 0  # cells where the forced reply makes the defender threaten
            for line in through[cell]:
                if not line & att2 and (line & dfn2).bit_count() == k - 1:
                    counter |= line & ~dfn2
            if counter & (counter - 1):
                continue  # two counter-threats: the chain breaks
            gone = threat | reply
            after = [line for line in twos if not line & gone]
            move = threat.bit_length() - 1
            for line in through[move]:
                if not line & dfn2 and (line & att2).bit_count() == k - 2:
                    after.append(line)
            found = self._search(att2, dfn2, after, counter.bit_length() - 1, depth - 1)
            if found is not None:
                return [move, cell, *found]
        failed[key] = depth
        return None


def defences(game: Variant | Geometry, attacker: Bitboard, defender: Bitboard,
             line: list[int]) -> Bitboard:
    """The defender's moves (it is to move) that may stop ``line``, a chain the
    attacker would win by if it were to move: the chain's cells, and the empty cells
    where a defender's mark could make a threat of its own along the way (a cell on a
    line free of the attacker's marks that the defender's marks and forced replies
    fill but for ``k-2`` cells), less those after which :func:`chain_survives`. Any
    other reply loses to the same chain.

    >>> from noughts.variants import variant
    >>> g = variant("qubic")
    >>> x = sum(1 << c for c in (0, 1, 6, 10))
    >>> o = sum(1 << c for c in (12, 15, 60, 63))
    >>> cells = defences(g, x, o, [2, 3, 14])  # the chain's cells, and O's own threats
    >>> [cell for cell in range(64) if cells >> cell & 1]
    [2, 3, 13, 14, 28, 29, 30, 31, 44, 45, 46, 47, 61, 62]
    """
    occupied = attacker | defender
    cells = 0
    for cell in line:
        cells |= 1 << cell
    replies = defender
    for cell in line[1::2]:
        replies |= 1 << cell
    game = variant(game)
    k = game.rules.k
    counters = 0
    for each in game.lines:
        if not each & attacker and (each & replies).bit_count() >= k - 2:
            counters |= each & ~occupied
    result = cells
    rest = counters & ~cells
    while rest:
        low = rest & -rest
        rest ^= low
        if not chain_survives(game, attacker, defender | low, low.bit_length() - 1, line):
            result |= low
    return result


def chain_survives(game: Variant | Geometry, attacker: Bitboard, defender: Bitboard,
                   move: int, line: list[int]) -> bool:
    """Whether the attacker's chain ``line`` still wins after the defender's ``move``
    (already in ``defender``): each threat still forces the same reply, and no reply
    (nor ``move``) gives the defender a threat the chain does not answer."""
    game = variant(game)
    k = game.rules.k
    through = game.lines_through
    counter = 0
    for each in through[move]:
        if not each & attacker and (each & defender).bit_count() == k - 1:
            counter |= each & ~defender
    occupied = attacker | defender
    for index in range(0, len(line), 2):
        bit = 1 << line[index]
        if bit & occupied or (counter and counter != bit):
            return False  # the cell is taken, or the defender's threat goes unanswered
        counter = 0
        attacker |= bit
        occupied |= bit
        made = 0
        for each in through[line[index]]:
            if not each & defender:
                marks = (each & attacker).bit_count()
                if marks == k:
                    return True
                if marks == k - 1:
                    made |= each & ~attacker
        if not made:
            return False
        if made & (made - 1):
            return True  # a double threat, and the defender has no line to complete
        if index + 1 >= len(line) or made != 1 << line[index + 1]:
            return False
        reply = line[index + 1]
        defender |= made
        occupied |= made
        for each in through[reply]:
            if not each & attacker and (each & defender).bit_count() == k - 1:
                counter |= each & ~defender
        if counter & (counter - 1):
            return False
    return False

"""A mutable board for search: line counts, threats, fork points, evaluation and hashes
kept up to date move by move (play/undo), so a node costs a few line updates, not a scan.

Sides are numbers: ``0`` is X, ``1`` is O. For each side the board knows

* ``threat_cells[side]``: the empty cells that would complete a line now, as a bitboard
  (``threat_count[side][cell]``: through how many lines);
* ``pot_cells[side]``: the empty cells on lines holding ``k-2`` of the side's marks and
  none of the other's (``pot_count[side][cell]``: how many such lines); a cell on two
  such lines is a *fork point*: playing it makes two threats at once (``forks[side]``
  counts them);
* ``score``: the line-weight evaluation from X's point of view, and ``tempo`` what a
  learned evaluation adds to it for the side to move (see :meth:`SearchBoard.evaluation`);
* ``hashes``: one 64-bit Zobrist hash per board symmetry, packed into one ``int`` (a
  move costs one big-int XOR): ``key()`` is the plain hash, ``canonical_key()`` the
  least of them, the same for every symmetric image of a position.

>>> from noughts.position import Position
>>> from noughts.search.evaluate import line_weights
>>> b = SearchBoard(Position("XX./.O./...", "3x3"), line_weights(3, "balanced"), 0)
>>> b.stm, bin(b.threat_cells[0]), b.threat_cells[1]
(1, '0b100', 0)
>>> b.play(2); b.stm, bin(b.threat_cells[1])
(0, '0b1000000')
>>> b.undo(2); bin(b.threat_cells[0]), b.score
('0b100', 12)
>>> a = SearchBoard(Position("X" + "." * 63, "qubic"), line_weights(4), 0)
>>> b = SearchBoard(Position("." * 63 + "X", "qubic"), line_weights(4), 0)
>>> a.canonical_key()[0] == b.canonical_key()[0], a.key() == b.key()
(True, False)
"""

from __future__ import annotations

import random
import sys
from array import array
from functools import lru_cache
from typing import NamedTuple

from noughts.errors import TooLargeError
from noughts.geometry import Bitboard, Geometry, scan_forward
from noughts.position import Position
from noughts.search.evaluate import HEURISTIC_LIMIT, LineWeights
from noughts.symmetries import box_symmetries, invert
from noughts.variants import variant

__all__ = ["SearchBoard", "Tables", "tables_for", "LineValues", "line_values"]

_MASK64 = (1 << 64) - 1


class Tables:
    """Per-geometry constant tables: lines, lines through each cell, symmetry hashes."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.k = geometry.k
        self.cells = geometry.cells
        self.full = geometry.full
        self.lines: tuple[Bitboard, ...] = geometry.lines
        index = {line: i for i, line in enumerate(self.lines)}
        self.through: tuple[tuple[int, ...], ...] = tuple(
            tuple(index[line] for line in geometry.lines_through[cell])
            for cell in range(self.cells)
        )
        self.line_cells: tuple[tuple[int, ...], ...] = tuple(
            tuple(scan_forward(line)) for line in self.lines
        )
        self.perms: tuple[tuple[int, ...], ...] = _symmetries(geometry)
        group = geometry.symmetry_group
        self.inverse: tuple[tuple[int, ...], ...] = (  # the group's own when they are its
            group.inverses if self.perms is group.perms else tuple(map(invert, self.perms)))
        rng = random.Random(0x5EED ^ self.cells ^ (self.k << 16))
        base = [[rng.getrandbits(63) for _ in range(self.cells)] for _ in range(2)]
        self.base: tuple[tuple[int, ...], tuple[int, ...]] = (tuple(base[0]), tuple(base[1]))
        """Each side's key by cell (the identity's; the compiled core builds the rest)."""
        # zobrist[side][cell]: the keys of ``side`` on the image of ``cell`` under every
        # symmetry s, packed 64 bits apiece (s = 0, the identity, in the low bits).
        images = list(zip(*self.perms, strict=True))  # images[cell]: under every symmetry
        self.zobrist: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                int.from_bytes(array("Q", map(base[side].__getitem__, images[cell])),
                               sys.byteorder)
                for cell in range(self.cells)
            )
            for side in range(2)
        )
        self.hash_bytes = 8 * len(self.perms)
        self.near: tuple[Bitboard, ...] = _neighbourhoods(geometry)


def _symmetries(geometry: Geometry) -> tuple[tuple[int, ...], ...]:
    """The symmetries to hash: all of them up to 4x4x4, the box's rotations and
    reflections in 2-D (the general search for symmetries is slow on big boards), none
    in 5x5x5 (finding its symmetries would cost more than they save)."""
    identity = tuple(range(geometry.cells))
    if geometry.dims == 3:
        policy = variant(geometry).symmetry
        if not policy.hashed(()):
            return (identity,)
        perms = geometry.symmetry_group.perms
        return perms if policy.hashed(perms) else (identity,)
    boxed = box_symmetries(geometry)
    return (identity, *(perm for perm in boxed if perm != identity))


def _neighbourhoods(geometry: Geometry) -> tuple[Bitboard, ...]:
    """For big 2-D boards: cells within two steps of each cell (candidate moves)."""
    if geometry.dims != 2 or geometry.cells <= 64:
        return ()
    rows, cols = geometry.shape
    result = []
    for cell in range(geometry.cells):
        r, c = divmod(cell, cols)
        mask = 0
        for dr in range(-2, 3):
            for dc in range(-2, 3):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    mask |= 1 << (rr * cols + cc)
        result.append(mask)
    return tuple(result)


@lru_cache(maxsize=16)
def tables_for(geometry: Geometry) -> Tables:
    """The shared constant tables of ``geometry`` (built once per process)."""
    return Tables(geometry)


class LineValues(NamedTuple):
    """A search's line weights as the board uses them, by side (0 = X, 1 = O).

    ``value[side][m]``: a line holding ``m`` marks of ``side`` only, from X's point of
    view (O's negative); ``fork_value[side]``: one of its fork points, the same way;
    ``tempo_value[side][m]``: what such a line adds to the evaluation of the side to
    move; ``to_move``: what the move itself is worth; ``contrib[side][mine][theirs]``:
    one line's share of a cell's evaluation gain for ``side`` (zero without gains).
    """

    value: tuple[tuple[int, ...], tuple[int, ...]]
    fork_value: tuple[int, int]
    tempo_value: tuple[tuple[int, ...], tuple[int, ...]]
    to_move: int
    contrib: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


@lru_cache(maxsize=64)
def line_values(tables: Tables, weights: LineWeights, player: int, *,
                track_gains: bool = True) -> LineValues:
    """``weights`` (seen from ``player``: ``weights.own`` scores that side's lines) as the
    board of ``tables`` uses them; :class:`TooLargeError` where a heuristic sum over
    every line could reach a proven result's score."""
    k = tables.k
    own, opp = weights.own, weights.opp
    # lines still open hold fewer than k marks (a line of k ends the game)
    live = max(own[:k] + opp[:k])
    most = live * len(tables.lines) + max(weights.fork, weights.their_fork) * tables.cells
    if most >= HEURISTIC_LIMIT:
        raise TooLargeError(
            f"{k} in a row on a board of {tables.cells} cells is too large for the "
            "heuristic search"
        )
    x_weights, o_weights = (own, opp) if player == 0 else (opp, own)
    value = (tuple(x_weights), tuple(-w for w in o_weights))
    x_fork, o_fork = ((weights.fork, weights.their_fork) if player == 0
                      else (weights.their_fork, weights.fork))
    size = k + 1
    own_tempo = weights.tempo or (0,) * size
    opp_tempo = weights.opp_tempo or (0,) * size
    tempo_value = (own_tempo, opp_tempo) if player == 0 else (opp_tempo, own_tempo)

    def contribution(side: int, mine: int, theirs: int) -> int:
        # valued as after side's move: its lines waiting, the other's to move
        if not track_gains or mine >= k or theirs > k:
            return 0
        if theirs == 0:
            return (abs(value[side][mine + 1]) - tempo_value[side][mine + 1]
                    - abs(value[side][mine]) + tempo_value[side][mine])
        if mine == 0:
            return abs(value[1 - side][theirs]) + tempo_value[1 - side][theirs]
        return 0

    contrib = tuple(tuple(tuple(contribution(side, a, b) for b in range(k + 2))
                          for a in range(k + 2)) for side in range(2))
    return LineValues(value, (x_fork, -o_fork), tempo_value, weights.to_move,
                      (contrib[0], contrib[1]))


class SearchBoard:
    """The position under search, updated in place by :meth:`play` and :meth:`undo`.

    ``weights`` are seen from ``player`` (0 = X, 1 = O): ``weights.own`` scores that
    side's lines. ``score`` is always from X's point of view. ``track_gains=False``
    leaves ``gain`` at zero (a proof search needs no move ordering by it, and plays
    about twice as fast without it).
    """

    def __init__(
        self, position: Position, weights: LineWeights, player: int, *, track_gains: bool = True
    ) -> None:
        tables = tables_for(position.geometry)
        self.tables = tables
        self.k = tables.k
        self.through = tables.through
        self.lines = tables.lines
        self.zobrist = tables.zobrist
        self.near = tables.near
        self.hash_bytes = tables.hash_bytes
        self.bits = [position.x, position.o]
        self.occupied = position.x | position.o
        self.empty = tables.full & ~self.occupied
        self.marks = self.occupied.bit_count()
        self.stm = 0 if position.to_move == "X" else 1
        values = line_values(tables, weights, player, track_gains=track_gains)
        self.value = values.value
        self.fork_value = values.fork_value
        self.tempo_value = values.tempo_value
        self.tempo = values.to_move
        self.contrib = values.contrib
        n_lines = len(self.lines)
        cells = tables.cells
        self.counts = [[0] * n_lines, [0] * n_lines]
        self.threat_cells = [0, 0]
        self.threat_count = ([0] * cells, [0] * cells)
        self.pot_cells = [0, 0]
        self.pot_count = ([0] * cells, [0] * cells)
        self.forks = [0, 0]
        self.gain = [[0] * cells, [0] * cells]
        self.line_cells = tables.line_cells
        self.score = 0
        self.hashes = 0
        self._build(position)

    def _build(self, position: Position) -> None:
        k = self.k
        for side, marks in enumerate((position.x, position.o)):
            keys = self.zobrist[side]
            for cell in scan_forward(marks):
                self.hashes ^= keys[cell]
        for i, line in enumerate(self.lines):
            x = (line & position.x).bit_count()
            o = (line & position.o).bit_count()
            self.counts[0][i] = x
            self.counts[1][i] = o
            share_x, share_o = self.contrib[0][x][o], self.contrib[1][o][x]
            for cell in self.line_cells[i]:
                self.gain[0][cell] += share_x
                self.gain[1][cell] += share_o
            empty = line & ~self.occupied
            for side, (mine, theirs) in enumerate(((x, o), (o, x))):
                if theirs:
                    continue
                if mine:
                    self.score += self.value[side][mine]
                    self.tempo += self.tempo_value[side][mine]
                if mine == k - 1:
                    for cell in scan_forward(empty):
                        self._add_threat(side, cell)
                elif k >= 3 and mine == k - 2:
                    for cell in scan_forward(empty):
                        self._add_pot(side, cell)

    def _add_threat(self, side: int, cell: int) -> None:
        counts = self.threat_count[side]
        counts[cell] += 1
        if counts[cell] == 1:
            self.threat_cells[side] |= 1 << cell

    def _remove_threat(self, side: int, cell: int) -> None:
        counts = self.threat_count[side]
        counts[cell] -= 1
        if not counts[cell]:
            self.threat_cells[side] &= ~(1 << cell)

    def _add_pot(self, side: int, cell: int) -> None:
        counts = self.pot_count[side]
        count = counts[cell] + 1
        counts[cell] = count
        if count == 1:
            self.pot_cells[side] |= 1 << cell
        elif count == 2:
            self.forks[side] += 1
            self.score += self.fork_value[side]

    def _remove_pot(self, side: int, cell: int) -> None:
        counts = self.pot_count[side]
        count = counts[cell] - 1
        counts[cell] = count
        if not count:
            self.pot_cells[side] &= ~(1 << cell)
        elif count == 1:
            self.forks[side] -= 1
            self.score -= self.fork_value[side]

    # -- moves ------------------------------------------------------------------------
    def play(self, cell: int) -> None:
        """The side to move marks ``cell`` (which must be empty)."""
        side = self.stm
        other = 1 - side
        bit = 1 << cell
        self.bits[side] |= bit
        occupied = self.occupied | bit
        self.occupied = occupied
        self.empty ^= bit
        self.marks += 1
        self.stm = other
        self.hashes ^= self.zobrist[side][cell]
        k = self.k
        mine = self.counts[side]
        theirs = self.counts[other]
        my_value = self.value[side]
        their_value = self.value[other]
        lines = self.lines
        delta = 0
        my_contrib = self.contrib[side]
        their_contrib = self.contrib[other]
        my_gain = self.gain[side]
        their_gain = self.gain[other]
        line_cells = self.line_cells
        my_tempo = self.tempo_value[side]
        their_tempo = self.tempo_value[other]
        tempo = self.tempo
        for i in self.through[cell]:
            a = mine[i]
            b = theirs[i]
            mine[i] = a + 1
            d_mine = my_contrib[a + 1][b] - my_contrib[a][b]
            d_theirs = their_contrib[b][a + 1] - their_contrib[b][a]
            if d_mine or d_theirs:
                for c in line_cells[i]:
                    my_gain[c] += d_mine
                    their_gain[c] += d_theirs
            if b == 0:
                delta += my_value[a + 1] - my_value[a]
                tempo += my_tempo[a + 1] - my_tempo[a]
                if a == k - 1:
                    self._remove_threat(side, cell)
                elif a == k - 2:
                    self._add_threat(side, (lines[i] & ~occupied).bit_length() - 1)
                    if k >= 3:
                        rest = (lines[i] & ~occupied) | bit
                        while rest:
                            low = rest & -rest
                            rest ^= low
                            self._remove_pot(side, low.bit_length() - 1)
                elif a == k - 3:
                    rest = lines[i] & ~occupied
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        self._add_pot(side, low.bit_length() - 1)
            elif a == 0:
                delta -= their_value[b]
                tempo -= their_tempo[b]
                if b == k - 1:
                    self._remove_threat(other, cell)
                elif b == k - 2:
                    rest = (lines[i] & ~occupied) | bit
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        self._remove_pot(other, low.bit_length() - 1)
        self.score += delta  # the fork updates above already adjusted self.score
        self.tempo = tempo

    def undo(self, cell: int) -> None:
        """Take back the last move, which was ``cell``."""
        other = self.stm
        side = 1 - other
        bit = 1 << cell
        occupied = self.occupied
        self.hashes ^= self.zobrist[side][cell]
        k = self.k
        mine = self.counts[side]
        theirs = self.counts[other]
        my_value = self.value[side]
        their_value = self.value[other]
        lines = self.lines
        delta = 0
        my_contrib = self.contrib[side]
        their_contrib = self.contrib[other]
        my_gain = self.gain[side]
        their_gain = self.gain[other]
        line_cells = self.line_cells
        my_tempo = self.tempo_value[side]
        their_tempo = self.tempo_value[other]
        tempo = self.tempo
        for i in self.through[cell]:
            a = mine[i] - 1
            b = theirs[i]
            mine[i] = a
            d_mine = my_contrib[a][b] - my_contrib[a + 1][b]
            d_theirs = their_contrib[b][a] - their_contrib[b][a + 1]
            if d_mine or d_theirs:
                for c in line_cells[i]:
                    my_gain[c] += d_mine
                    their_gain[c] += d_theirs
            if b == 0:
                delta -= my_value[a + 1] - my_value[a]
                tempo -= my_tempo[a + 1] - my_tempo[a]
                if a == k - 1:
                    self._add_threat(side, cell)
                elif a == k - 2:
                    self._remove_threat(side, (lines[i] & ~occupied).bit_length() - 1)
                    if k >= 3:
                        rest = (lines[i] & ~occupied) | bit
                        while rest:
                            low = rest & -rest
                            rest ^= low
                            self._add_pot(side, low.bit_length() - 1)
                elif a == k - 3:
                    rest = lines[i] & ~occupied
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        self._remove_pot(side, low.bit_length() - 1)
            elif a == 0:
                delta += their_value[b]
                tempo += their_tempo[b]
                if b == k - 1:
                    self._add_threat(other, cell)
                elif b == k - 2:
                    rest = (lines[i] & ~occupied) | bit
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        self._add_pot(other, low.bit_length() - 1)
        self.bits[side] ^= bit
        self.occupied = occupied ^ bit
        self.empty |= bit
        self.marks -= 1
        self.stm = side
        self.score += delta
        self.tempo = tempo

    # -- queries ----------------------------------------------------------------------
    def key(self) -> int:
        """The Zobrist hash of the position as it stands (cheap)."""
        return self.hashes & _MASK64

    def canonical_key(self) -> tuple[int, int]:
        """A hash shared by all symmetric images of the position, and a symmetry ``s``
        such that the key is the plain hash of the image under ``s`` (about 20 us)."""
        packed = self.hashes.to_bytes(self.hash_bytes, sys.byteorder)
        values = memoryview(packed).cast("Q").tolist()
        best = min(values)
        return best, values.index(best)

    def evaluation(self) -> int:
        """The evaluation from the side to move's point of view (with its tempo)."""
        return (self.score if self.stm == 0 else -self.score) + self.tempo

    def waiting_evaluation(self) -> int:
        """The evaluation from the side to move's point of view as if the other side
        were to move (the base that :attr:`gain` adds to: the value after a move)."""
        return (self.score if self.stm == 0 else -self.score) - self.tempo

    def gains(self, cells: Bitboard) -> list[tuple[int, int]]:
        """``(gain, cell)`` for each of ``cells``: how much the line-weight evaluation
        (side to move's view) rises if the side to move plays there, fork points left
        aside. Costs a table lookup per line instead of a play and an undo."""
        side = self.stm
        mine = self.counts[side]
        theirs = self.counts[1 - side]
        sign = 1 if side == 0 else -1
        my_value = self.value[side]
        their_value = self.value[1 - side]
        through = self.through
        result = []
        while cells:
            low = cells & -cells
            cells ^= low
            cell = low.bit_length() - 1
            gain = 0
            for i in through[cell]:
                b = theirs[i]
                if b == 0:
                    a = mine[i]
                    gain += my_value[a + 1] - my_value[a]
                elif mine[i] == 0:
                    gain -= their_value[b]
            result.append((gain * sign, cell))
        return result

    def position(self, geometry: Geometry, first: str) -> Position:
        """The current position as an immutable :class:`Position`."""
        return Position.from_bitboards(self.bits[0], self.bits[1], geometry,
                                       first="X" if first == "X" else "O")

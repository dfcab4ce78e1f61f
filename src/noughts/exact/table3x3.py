"""The complete 3x3 table: every one of the 5,478 positions with its exact score.

Loaded on first use from the package's ``data/table-3x3.bin`` (written by
``scripts/build_book.py``; checked against a fresh build by ``tests/test_solver.py``), or
built by one memoised pass over the game when that file is missing. Positions are keyed
by their *word* ``me | opp << 9`` (``me`` = the side to move), so the table serves games
that either player started. Scores are absolute, as in :mod:`noughts.exact.negamax`:
``WIN_SCORE - N`` for a win of the side to move ending with ``N`` marks, ``0`` for a draw;
a finished position scores ``N - WIN_SCORE`` (lost, no move left) or ``0`` (full board).

Alongside each unfinished position the table counts its *losing moves* (moves after
which the opponent wins), so the trap preference of the best move costs one lookup.

>>> table = Table3x3.get()
>>> len(table.scores), table.score(0, 0)
(5478, 0)
>>> table.losing_moves(0, 0b000010000)  # O to move after X took the centre: 4 edges lose
4
"""

from __future__ import annotations

import sys
from array import array

from noughts.geometry import Bitboard
from noughts.results import WIN_SCORE

__all__ = ["Table3x3", "LINES_3X3", "FULL_3X3", "table_path"]

LINES_3X3 = (0x7, 0x38, 0x1C0, 0x49, 0x92, 0x124, 0x111, 0x54)
"""The eight lines of 3x3: rows, columns, diagonals (``0 1 2 / 3 4 5 / 6 7 8``)."""

FULL_3X3 = 0x1FF

_MAGIC = b"noughts-table3x3 1\n"



def _line_table() -> tuple[bool, ...]:
    """``table[marks]``: do these nine-bit ``marks`` hold a line?"""
    table = [False] * 512
    for line in LINES_3X3:
        for marks in range(512):
            if line & marks == line:
                table[marks] = True
    return tuple(table)


class Table3x3:
    """Exact scores and losing-move counts of every 3x3 position (one shared instance)."""

    _instance: Table3x3 | None = None

    __slots__ = ("scores", "_losing", "_has_line")

    def __init__(self, scores: dict[int, int] | None = None, losing: dict[int, int] | None = None):
        """The table from its two maps (as read from its file), else built from scratch."""
        self._has_line = _line_table()
        self.scores: dict[int, int] = {} if scores is None else scores
        self._losing: dict[int, int] = {} if losing is None else losing
        if scores is None:
            self._fill(0, 0, 0)

    @classmethod
    def get(cls) -> Table3x3:
        """The process-wide table, loaded (or built) on first use."""
        if cls._instance is None:
            cls._instance = cls.load() or cls()
        return cls._instance

    @classmethod
    def load(cls, path: str | None = None) -> Table3x3 | None:
        """The table from its file (default: the shipped one), ``None`` if absent or bad."""
        try:
            with open(path or table_path(), "rb") as file:
                return cls.from_bytes(file.read())
        except (OSError, ValueError):
            return None

    def to_bytes(self) -> bytes:
        """The file image: the words ascending, their scores, their losing-move counts
        (``-1`` for a finished position), little-endian."""
        words = sorted(self.scores)
        keys, scores = array("I", words), array("h", (self.scores[w] for w in words))
        losing = array("b", (self._losing.get(w, -1) for w in words))
        if sys.byteorder == "big":  # pragma: no cover - files are little-endian
            keys.byteswap()
            scores.byteswap()
        return _MAGIC + keys.tobytes() + scores.tobytes() + losing.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Table3x3:
        """Read a file image written by :meth:`to_bytes`."""
        if not data.startswith(_MAGIC) or (len(data) - len(_MAGIC)) % 7:
            raise ValueError("not a noughts 3x3 table file")
        size = (len(data) - len(_MAGIC)) // 7
        start = len(_MAGIC)
        keys, scores, losing = array("I"), array("h"), array("b")
        keys.frombytes(data[start : start + 4 * size])
        scores.frombytes(data[start + 4 * size : start + 6 * size])
        losing.frombytes(data[start + 6 * size :])
        if sys.byteorder == "big":  # pragma: no cover
            keys.byteswap()
            scores.byteswap()
        return cls(
            dict(zip(keys, scores, strict=True)),
            {w: n for w, n in zip(keys, losing, strict=True) if n >= 0},
        )

    def score(self, me: Bitboard, opp: Bitboard) -> int:
        """The exact absolute score of a position for the side to move (``me``)."""
        return self.scores[me | opp << 9]

    def losing_moves(self, me: Bitboard, opp: Bitboard) -> int:
        """How many of the side to move's moves let the opponent win (0 if finished)."""
        return self._losing.get(me | opp << 9, 0)

    def is_unfinished(self, me: Bitboard, opp: Bitboard) -> bool:
        """True if the position is in the table and its game goes on."""
        return me | opp << 9 in self._losing

    def move_scores(self, me: Bitboard, opp: Bitboard) -> list[tuple[int, int]]:
        """``(cell, score)`` of every move of an unfinished position, for the mover."""
        scores = self.scores
        empty = FULL_3X3 & ~(me | opp)
        return [
            (cell, -scores[opp | (me | 1 << cell) << 9])
            for cell in range(9)
            if empty >> cell & 1
        ]

    def losing_replies(self, me: Bitboard, opp: Bitboard, cell: int) -> int:
        """After ``me`` plays ``cell``: how many of the opponent's replies lose."""
        return self._losing.get(opp | (me | 1 << cell) << 9, 0)

    def principal_variation(self, me: Bitboard, opp: Bitboard, first: int) -> list[int]:
        """Best play from move ``first`` of ``me`` to the end (lowest cells among equals)."""
        scores = self.scores
        line = [first]
        while True:
            mine = me | 1 << line[-1]
            if self._has_line[mine] or mine | opp == FULL_3X3:
                return line
            me, opp = opp, mine
            target = scores[me | opp << 9]
            empty = FULL_3X3 & ~(me | opp)
            line.append(
                next(
                    cell
                    for cell in range(9)
                    if empty >> cell & 1 and -scores[opp | (me | 1 << cell) << 9] == target
                )
            )

    def _fill(self, me: Bitboard, opp: Bitboard, marks: int) -> int:
        """Score every position reachable from ``(me, opp)``; return its score."""
        word = me | opp << 9
        known = self.scores.get(word)
        if known is not None:
            return known
        scores = self.scores
        has_line = self._has_line
        if has_line[opp]:
            scores[word] = marks - WIN_SCORE
            return marks - WIN_SCORE
        if marks == 9:
            scores[word] = 0
            return 0
        best = -WIN_SCORE
        losing = 0
        empty = FULL_3X3 & ~(me | opp)
        after = marks + 1
        while empty:
            bit = empty & -empty
            empty ^= bit
            mine = me | bit
            child = opp | mine << 9
            if has_line[mine]:
                scores[child] = after - WIN_SCORE
                score = WIN_SCORE - after
            else:
                known = scores.get(child)
                score = -(known if known is not None else self._fill(opp, mine, after))
                if score < 0:
                    losing += 1
            if score > best:
                best = score
        scores[word] = best
        self._losing[word] = losing
        return best


def table_path() -> str:
    """Where the 3x3 table lives in the installed package."""
    from noughts.knowledge.data import shipped_path

    return shipped_path("table-3x3.bin")

"""Opening books: exact scores of every early position of a variant, shipped as package data.

A book holds, for each canonical key (see :mod:`noughts.symmetries`) of a
position with at most ``max_marks`` marks and no finished game, the exact absolute score
of that position for the side to move (see :mod:`noughts.exact.negamax`) and how many
of its moves lose (so the best move's trap preference needs no search either). The file
is three arrays (keys ascending, scores, losing-move counts) looked up by bisection, so
loading costs one read and no parsing: cold starts stay instant.
``scripts/build_book.py`` writes the files; ``tests/test_solver.py`` checks them.

>>> book = Book.from_items({5: (990, 2), 3: (0, 0)}, variant="demo", max_marks=1)
>>> book.get(3), book.get(5), book.get(4), book.losing_moves(5), len(book)
(0, 990, None, 2, 2)
>>> Book.from_bytes(book.to_bytes()).items()
[(3, 0, 0), (5, 990, 2)]
"""

from __future__ import annotations

import os
import sys
from array import array
from bisect import bisect_left
from collections.abc import Mapping

from noughts.geometry import Geometry
from noughts.variants import Variant, variant

__all__ = ["Book", "book_path", "load_book"]

_MAGIC = b"noughts-book"
_VERSION = 1

class Book:
    """Exact scores of canonical early positions, looked up by bisection."""

    __slots__ = ("variant", "max_marks", "_keys", "_scores", "_losing")

    def __init__(
        self,
        variant: str,
        max_marks: int,
        keys: array[int],
        scores: array[int],
        losing: array[int],
    ) -> None:
        if not len(keys) == len(scores) == len(losing):
            raise ValueError("a book needs one score and one losing-move count per key")
        self.variant = variant
        self.max_marks = max_marks
        self._keys = keys
        self._scores = scores
        self._losing = losing

    @classmethod
    def from_items(
        cls, items: Mapping[int, tuple[int, int]], *, variant: str, max_marks: int
    ) -> Book:
        """A book from a ``{key: (score, losing moves)}`` mapping."""
        ordered = sorted(items)
        return cls(
            variant,
            max_marks,
            array("Q", ordered),
            array("h", (items[key][0] for key in ordered)),
            array("B", (items[key][1] for key in ordered)),
        )

    def __len__(self) -> int:
        return len(self._keys)

    def get(self, key: int) -> int | None:
        """The exact score stored for ``key``, or ``None``."""
        keys = self._keys
        index = bisect_left(keys, key)
        if index < len(keys) and keys[index] == key:
            return self._scores[index]
        return None

    def losing_moves(self, key: int) -> int | None:
        """How many moves of the position ``key`` lose, or ``None`` if it is not here."""
        keys = self._keys
        index = bisect_left(keys, key)
        if index < len(keys) and keys[index] == key:
            return self._losing[index]
        return None

    def columns(self) -> tuple[array[int], array[int]]:
        """The keys (ascending) and their scores, as the arrays the book holds (for the
        compiled search, which looks them up itself)."""
        return self._keys, self._scores

    def items(self) -> list[tuple[int, int, int]]:
        """Every ``(key, score, losing moves)``, keys ascending."""
        return list(zip(self._keys, self._scores, self._losing, strict=True))

    # -- files ------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The file image: a one-line header, then little-endian keys and scores."""
        header = f"{_MAGIC.decode()} {_VERSION} {self.variant} {self.max_marks} {len(self)}\n"
        keys, scores = array("Q", self._keys), array("h", self._scores)
        if sys.byteorder == "big":  # pragma: no cover - files are little-endian
            keys.byteswap()
            scores.byteswap()
        return header.encode() + keys.tobytes() + scores.tobytes() + self._losing.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes) -> Book:
        """Read a file image written by :meth:`to_bytes`."""
        end = data.index(b"\n")
        magic, version, variant, max_marks, count = data[:end].decode().split()
        if magic.encode() != _MAGIC or int(version) != _VERSION:
            raise ValueError("not a noughts book file")
        size = int(count)
        keys, scores, losing = array("Q"), array("h"), array("B")
        start = end + 1
        keys.frombytes(data[start : start + 8 * size])
        scores.frombytes(data[start + 8 * size : start + 10 * size])
        losing.frombytes(data[start + 10 * size : start + 11 * size])
        if sys.byteorder == "big":  # pragma: no cover
            keys.byteswap()
            scores.byteswap()
        if len(losing) != size:
            raise ValueError("truncated noughts book file")
        return cls(variant, int(max_marks), keys, scores, losing)


def book_path(variant: str) -> str:
    """Where the book of ``variant`` lives in the installed package."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(package, "data", f"book-{variant}.bin")


def load_book(game: Variant | Geometry) -> Book | None:
    """The shipped book of ``game``, or ``None`` if its record names none
    (:attr:`Variant.book_marks`; a :class:`Geometry` stands for its normal-play game)."""
    game = variant(game)
    if not game.book_marks:
        return None
    try:
        with open(book_path(game.name), "rb") as file:
            return Book.from_bytes(file.read())
    except FileNotFoundError:
        return None

"""The second player's opening book for Qubic: O's first moves, chosen by games.

Qubic is lost for O against perfect play (:mod:`noughts.knowledge.strategy` holds X's
proof), so no reply can be proven good: the book holds the replies that did best in
games against fallible X players (built offline by :mod:`noughts.builders.o_book`, never
against the players O is measured on) and, deeper, replies that deep proof searches
could not refute (:mod:`noughts.builders.o_book_deepen`). The engine's plan consults it
for O before searching (:class:`~noughts.knowledge.shipped.Knowledge`), and checks each
book move with a short proof search before it plays it.

Positions are stored up to symmetry (a :class:`~noughts.knowledge.canonical.CanonicalTable`),
so a position reached in any orientation is found, and answered alike. A shipped book
is a file in ``noughts/data`` named by the variant record
(:attr:`~noughts.variants.Variant.o_book`), read the first time it is asked for. The file
is gzip-compressed JSON: ``{"format": 1, "variant": "4x4x4", "built": {...}, "entries":
[[x, o, move, games, score], ...]}`` with ``score`` O's points in the ``games`` the
builder played with the kept reply (a win 1, a draw 1/2; no games for a reply kept by
proof). What the shipped book holds, and how strong O plays with it, is in
docs/qubic-o.md.

>>> from noughts.position import Position
>>> book = OBook("4x4x4")
>>> book.add(Position("X" + "." * 63, "qubic"), 21, games=4, score=3.0)
>>> moved = Position("..." + "X" + "." * 60, "qubic")  # X on another corner
>>> book.lookup(moved).move in {22, 25, 26, 37, 38, 41, 42}  # a centre cell
True
>>> OBook.from_bytes(book.to_bytes()).entries == book.entries
True
"""

from __future__ import annotations

import functools
import gzip
import json
from typing import TYPE_CHECKING, Any, NamedTuple

from noughts.errors import NoughtsError
from noughts.knowledge.canonical import CanonicalTable
from noughts.knowledge.data import shipped_bytes
from noughts.position import Position
from noughts.variants import variant

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["BookEntry", "BookMove", "OBook", "shipped_o_book"]

FORMAT = 1
"""The file's format number."""


class BookEntry(NamedTuple):
    """A stored reply (in the canonical orientation) and its self-play record: the
    games the builder played with it and O's points in them."""

    move: int
    games: int
    score: float


class BookMove(NamedTuple):
    """A position found in the book: the reply in the position's own orientation and
    its self-play record."""

    move: int
    games: int
    score: float


class OBook(CanonicalTable[BookEntry]):
    """O's replies for the positions of the book, keyed by canonical form."""

    def __init__(self, variant_name: str, built: dict[str, Any] | None = None) -> None:
        super().__init__(variant_name)
        self.variant = variant(variant_name).name
        self.built: dict[str, Any] = dict(built or {})

    def add(self, position: Position, move: int, *, games: int, score: float) -> None:
        """Store ``move`` (in ``position``'s orientation) for ``position``."""
        key, stored = self.to_canonical(position, move)
        self.store(key, BookEntry(stored, games, score))

    def lookup(self, position: Position) -> BookMove | None:
        """The stored reply for ``position`` in its own orientation, or ``None``."""
        if (position.x | position.o).bit_count() > self.most_marks:
            return None
        key, symmetry = self.key(position)
        entry = self.entries.get(key)
        if entry is None:
            return None
        return BookMove(self.from_canonical(symmetry, entry.move), entry.games, entry.score)

    # -- the file ----------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The file form: gzip-compressed JSON, entries sorted, no time stamp in the
        gzip header (equal books give equal bytes)."""
        rows = [[x, o, e.move, e.games, e.score] for (x, o), e in sorted(self.entries.items())]
        text = json.dumps({"format": FORMAT, "variant": self.variant, "built": self.built,
                           "entries": rows}, sort_keys=True, separators=(",", ":"))
        return gzip.compress(text.encode(), compresslevel=9, mtime=0)

    @classmethod
    def from_bytes(cls, data: bytes) -> OBook:
        """Read the file form back, checking its shape: a damaged or ill-formed file
        raises :class:`NoughtsError`.

        >>> OBook.from_bytes(b"junk")
        Traceback (most recent call last):
        ...
        noughts.errors.NoughtsError: damaged O book: not gzip-compressed JSON
        """
        try:
            record = json.loads(gzip.decompress(data))
        except (OSError, EOFError, ValueError):
            raise NoughtsError("damaged O book: not gzip-compressed JSON") from None
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise NoughtsError(f"not an O book of format {FORMAT}")
        book = cls(str(record.get("variant")), record.get("built") or {})
        cells = book.geometry.cells
        for row in record.get("entries", []):
            if type(row) is not list or len(row) != 5:
                raise NoughtsError(f"O book: bad entry {row!r}")
            x, o, move, games, score = row
            if not (type(x) is type(o) is type(move) is type(games) is int
                    and type(score) in (int, float)):
                raise NoughtsError(f"O book: bad entry {row!r}")
            taken = x | o
            if (x & o or taken >> cells or not 0 <= move < cells or taken >> move & 1
                    or x.bit_count() != o.bit_count() + 1 or not 0 <= score <= games):
                raise NoughtsError(f"O book: entry {row!r} is no O-to-move position and reply")
            book.entries[(x, o)] = BookEntry(move, games, float(score))
        return book

    @classmethod
    def load(cls, path: Path) -> OBook:
        """Read a book file (:meth:`from_bytes` checks its shape)."""
        return cls.from_bytes(path.read_bytes())


@functools.cache
def shipped_o_book(variant_name: str) -> OBook | None:
    """The O book shipped for ``variant_name`` (its record's
    :attr:`~noughts.variants.Variant.o_book`), read the first time it is asked for;
    ``None`` if the variant has none.

    >>> shipped_o_book("3x3") is None, len(shipped_o_book("qubic")) > 0
    (True, True)
    """
    name = variant(variant_name).o_book
    if name is None:
        return None
    data = shipped_bytes(name)
    return None if data is None else OBook.from_bytes(data)

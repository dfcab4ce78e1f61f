"""A first player's winning strategy stored as package data: for each position the
strategy meets with that player to move, the move to play there.

A :class:`Strategy` maps positions, up to the board's symmetries, to a move and a
status. A *proven* entry's move wins by force: every reply of the opponent leads to
another proven entry or to a position won by a chain of continuous threats (which
:mod:`noughts.builders.strategy_check` checks with simple code of its own). An *open*
entry is part of a strategy still being built: its move is the builder's choice, not
yet proven; nothing reports it as proven.

Positions are stored up to symmetry, as in every
:class:`~noughts.knowledge.canonical.CanonicalTable`: a position reached by any route, in
any orientation, is found.

The file: the magic ``NQS1``, the variant's name (a length byte and the name), then
zlib-compressed records of 23 bytes: ``x`` and ``o`` as 64-bit little-endian integers,
the move, a status byte (1 proven, 0 open), the most plies the strategy lets the game
last from there (0 when open), and a 32-bit count of milliseconds of search spent on the
entry. The builder writes 0 there: it keeps the job time per node of its proof tree
instead (the checkpoint; ``noughts build-book --status`` reports it).

>>> from noughts.position import Position
>>> book = Strategy("4x4x4")
>>> book.add(Position("", "4x4x4"), 0, proven=False)
>>> book.lookup(Position("", "4x4x4")).move in {0, 3, 12, 15, 48, 51, 60, 63}
True
>>> Strategy.from_bytes(book.to_bytes()).entries == book.entries
True
"""

from __future__ import annotations

import functools
import struct
import zlib
from itertools import starmap
from operator import or_
from typing import TYPE_CHECKING, NamedTuple

from noughts.errors import NoughtsError
from noughts.knowledge.canonical import CanonicalTable
from noughts.knowledge.data import shipped_bytes
from noughts.position import Position

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "Entry",
    "Found",
    "Strategy",
    "shipped_strategy",
    "strategy_move",
    "proven_moves",
    "proven_replies",
    "STRATEGY_FILE",
]

STRATEGY_FILE = "qubic-strategy.bin"
"""The shipped Qubic strategy, in ``noughts/data``."""

_MAGIC = b"NQS1"
_RECORD = struct.Struct("<QQBBBI")
_BOARDS = struct.Struct(f"<QQ{_RECORD.size - 16}x")  # a record's two boards alone
PROVEN, OPEN = 1, 0


class Entry(NamedTuple):
    """A stored decision: the move (in the canonical orientation), whether it is
    proven to win, the most plies the strategy lets the game last from there (0 when
    open), and the search time recorded for it (milliseconds; the builder leaves it 0 and
    keeps job time in its proof tree)."""

    move: int
    proven: bool
    plies: int = 0
    effort_ms: int = 0


class Found(NamedTuple):
    """A position found in a strategy: the move in the position's own orientation,
    whether it is proven, and the plies bound (see :class:`Entry`)."""

    move: int
    proven: bool
    plies: int


class Strategy(CanonicalTable[Entry]):
    """Moves for the positions a strategy meets, keyed by canonical form."""

    def __init__(self, variant_name: str, packed: bytes = b"") -> None:
        super().__init__(variant_name)
        self.variant = variant_name
        self._packed = packed
        if packed:  # records sorted by key, as the file holds them: read on demand
            self._entries = None

    def _unpack(self) -> dict[tuple[int, int], Entry]:
        return {(x, o): Entry(move, status == PROVEN, plies, effort)
                for x, o, move, status, plies, effort in _RECORD.iter_unpack(self._packed)}

    @functools.cached_property
    def most_marks(self) -> int:
        """The most marks on any stored position's board (read without unpacking)."""
        if self._entries is not None:
            return super().most_marks
        boards = _BOARDS.iter_unpack(self._packed)  # (x, o) of each record, read in C
        return max(map(int.bit_count, starmap(or_, boards)), default=0)

    def _get_packed(self, key: tuple[int, int]) -> Entry | None:
        """Binary search of the packed records for ``key``."""
        packed, size = self._packed, _RECORD.size
        low, high = 0, len(packed) // size
        while low < high:
            middle = (low + high) // 2
            x, o, move, status, plies, effort = _RECORD.unpack_from(packed, middle * size)
            if (x, o) == key:
                return Entry(move, status == PROVEN, plies, effort)
            if (x, o) < key:
                low = middle + 1
            else:
                high = middle
        return None

    @property
    def proven_count(self) -> int:
        """How many entries are proven."""
        return sum(1 for entry in self.entries.values() if entry.proven)

    def add(
        self, position: Position, move: int, *, proven: bool, plies: int = 0, effort_ms: int = 0
    ) -> None:
        """Store ``move`` (in ``position``'s orientation) for ``position``."""
        key, stored = self.to_canonical(position, move)
        self.store(key, Entry(stored, proven, plies if proven else 0, effort_ms))

    def lookup(self, position: Position) -> Found | None:
        """The stored move for ``position`` in its own orientation, or ``None``."""
        return self.found_at(*self.key(position))

    def found_at(self, key: tuple[int, int], symmetry: int) -> Found | None:
        """:meth:`lookup` for a position whose :meth:`key` is already known."""
        entry = self.get(key)
        if entry is None:
            return None
        return Found(self.from_canonical(symmetry, entry.move), entry.proven, entry.plies)

    # -- the file ----------------------------------------------------------------------
    def records(self) -> bytes:
        """The entries as the file's records (23 bytes each, see the module docstring):
        the file's own while none is unpacked, else packed sorted by key, so a binary
        search finds an entry as :meth:`get` does."""
        if self._entries is None:
            return self._packed
        return self._pack()

    def _pack(self) -> bytes:
        return b"".join(
            _RECORD.pack(x, o, e.move, PROVEN if e.proven else OPEN, e.plies,
                         min(e.effort_ms, 2**32 - 1))
            for (x, o), e in sorted(self.entries.items())
        )

    def to_bytes(self) -> bytes:
        """The compressed file form (records sorted, so equal strategies give equal
        bytes)."""
        name = self.variant.encode()
        return _MAGIC + bytes([len(name)]) + name + zlib.compress(self._pack(), 9)

    @classmethod
    def from_bytes(cls, data: bytes) -> Strategy:
        """Read the file form back; a damaged file raises :class:`NoughtsError`."""
        if not data.startswith(_MAGIC) or len(data) < len(_MAGIC) + 1:
            raise NoughtsError("not a noughts strategy file")
        size = data[len(_MAGIC)]
        start = len(_MAGIC) + 1
        name = data[start : start + size].decode()
        try:
            body = zlib.decompress(data[start + size :])
        except zlib.error as error:
            raise NoughtsError(f"damaged strategy file: {error}") from None
        if len(body) % _RECORD.size:
            raise NoughtsError("damaged strategy file: truncated record")
        return cls(name, body)

    def save(self, path: Path) -> bool:
        """Write the file atomically, unless it already holds these bytes; True if it
        was written."""
        from noughts.runtime.atomic import write_if_changed  # (a cold move reads, never writes)

        return write_if_changed(path, self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> Strategy:
        """Read a strategy file."""
        return cls.from_bytes(path.read_bytes())


@functools.cache
def shipped_strategy() -> Strategy | None:
    """The strategy shipped with the package for Qubic, or ``None`` if there is none."""
    data = shipped_bytes(STRATEGY_FILE)
    return None if data is None else Strategy.from_bytes(data)


def strategy_move(position: Position, strategy: Strategy | None) -> Found | None:
    """``strategy``'s proven move for ``position`` (any orientation, any route), or
    ``None`` when the position is not a proven entry of it (or there is no strategy).

    >>> empty = Position("", "4x4x4")
    >>> strategy_move(empty, shipped_strategy()).plies, strategy_move(empty, None)
    (57, None)
    """
    if strategy is None:
        return None
    found = strategy.lookup(position)
    return found if found is not None and found.proven else None


def proven_moves(position: Position, strategy: Strategy | None) -> dict[int, int]:
    """The first player's moves in ``position`` that ``strategy`` proves winning: its
    stored move and every move a symmetry of the position maps onto it, each with the
    strategy's plies bound (see :func:`strategy_move`).

    >>> from noughts.notation import square_name
    >>> empty, shipped = Position("", "4x4x4"), shipped_strategy()
    >>> sorted(square_name(empty.geometry, m) for m in proven_moves(empty, shipped))[:4]
    ['1a1', '1a4', '1d1', '1d4']
    >>> len(proven_moves(empty, shipped))  # corners and centres: one class under symmetry
    16
    """
    found = strategy_move(position, strategy)
    if found is None or strategy is None:
        return {}
    target = strategy.key(position.play(found.move))[0]
    return {move: found.plies for move in position.legal_moves
            if strategy.key(position.play(move))[0] == target}


def proven_replies(position: Position, strategy: Strategy | None) -> dict[int, int]:
    """The second player's moves in ``position`` after which ``strategy`` proves the
    first player's win, each with the most plies the strategy lets the game last from
    the reply on (the reply included): the replies a defender avoids while it has
    another.

    >>> corner = Position("X" + "." * 63, "qubic")
    >>> len(proven_replies(corner, shipped_strategy())), proven_replies(corner, None)
    (63, {})
    """
    if (strategy is None or position.to_move == position.first or position.is_over
            or position.ply + 1 > strategy.most_marks):
        return {}
    # The keys of the positions after each reply, from the images the replies share
    # (one pass over the symmetries a reply); a reply that ends the game has no entry.
    geometry = position.geometry
    side = 0 if position.to_move == "X" else 1
    marks = position.o if side else position.x
    key_after = geometry.symmetry_group.child_canonical(position.x, position.o, side)
    last = position.ply + 1 == geometry.cells
    replies = {}
    for move in position.legal_moves:
        if last or geometry.wins_after(marks | 1 << move, move):
            continue
        x, o, _ = key_after(move)
        entry = strategy.get((x, o))
        if entry is not None and entry.proven:
            replies[move] = 1 + entry.plies
    return replies

"""A table of moves keyed by positions up to the board's symmetries.

Positions are stored in their canonical form (:meth:`noughts.symmetries.Symmetries.canonical`:
the least image under the board's symmetries), with the move in that image's
orientation, so a position reached by any route, in any orientation, is found, and
answered alike. X's winning strategy (:mod:`noughts.knowledge.strategy`) and O's opening
book (:mod:`noughts.knowledge.obook`) are such tables, each with entries of its own kind.

>>> from noughts.position import Position
>>> table: CanonicalTable[int] = CanonicalTable("4x4x4")
>>> key, move = table.to_canonical(Position("X" + "." * 63, "qubic"), 21)
>>> table.store(key, move)
>>> (_, symmetry) = table.key(Position("..." + "X" + "." * 60, "qubic"))  # another corner
>>> table.from_canonical(symmetry, table.entries[key]) in {22, 25, 26, 37, 38, 41, 42}
True
>>> table.most_marks
1
"""

from __future__ import annotations

import functools
from typing import Generic, TypeVar

from noughts.position import Position
from noughts.variants import variant

__all__ = ["CanonicalTable"]

E = TypeVar("E")

Key = tuple[int, int]
"""A canonical position: its X and O bitboards."""


class CanonicalTable(Generic[E]):
    """Entries of type ``E`` keyed by canonical position; a move in an entry is in
    the key's orientation (:meth:`to_canonical`, :meth:`from_canonical`).

    A table read from a file may keep its entries packed until something asks for them
    all (:attr:`entries`): :meth:`get` then finds one without unpacking the rest (a
    subclass gives :meth:`_unpack` and :meth:`_get_packed`), so a move read from a big
    table costs no parse of it.
    """

    def __init__(self, variant_name: str) -> None:
        self.geometry = variant(variant_name).geometry
        self._entries: dict[Key, E] | None = {}

    @property
    def entries(self) -> dict[Key, E]:
        """Every entry, by key (unpacked on first use)."""
        if self._entries is None:
            self._entries = self._unpack()
        return self._entries

    def get(self, key: Key) -> E | None:
        """The entry stored under ``key``, if any."""
        if self._entries is None:
            return self._get_packed(key)
        return self._entries.get(key)

    def _unpack(self) -> dict[Key, E]:
        return {}

    def _get_packed(self, key: Key) -> E | None:
        return self.entries.get(key)

    def __len__(self) -> int:
        return len(self.entries)

    @functools.cached_property
    def most_marks(self) -> int:
        """The most marks on any stored position's board (no position with more is
        stored, so lookups past it can be skipped)."""
        return max(((x | o).bit_count() for x, o in self.entries), default=0)

    def key(self, position: Position) -> tuple[Key, int]:
        """The canonical key of ``position`` and the symmetry that maps it there."""
        x, o, symmetry = self.geometry.symmetry_group.canonical(position.x, position.o)
        return (x, o), symmetry

    def to_canonical(self, position: Position, move: int) -> tuple[Key, int]:
        """The key of ``position`` and ``move`` (in ``position``'s orientation) mapped
        into the key's orientation."""
        key, symmetry = self.key(position)
        return key, self.geometry.symmetries[symmetry][move]

    def from_canonical(self, symmetry: int, move: int) -> int:
        """A stored ``move`` mapped back into the orientation of the position that
        ``symmetry`` mapped onto its key."""
        return self.geometry.symmetry_group.inverses[symmetry][move]

    def store(self, key: Key, entry: E) -> None:
        """Store ``entry`` under ``key`` (keeping :attr:`most_marks` true)."""
        self.entries[key] = entry
        self.__dict__.pop("most_marks", None)  # the cached bound may have grown

"""The image of a position that the engine answers on, and the way back to the board.

The engine (:func:`noughts.engine.choose_move`, :func:`noughts.engine.evaluation`)
answers every position on its *canonical* image under its board's symmetries (the least
one, :meth:`~noughts.symmetries.Symmetries.canonical`, the image the move cache is keyed
by) and maps the answer back to the board as given. So one position gets one answer,
whichever way the board is turned and whoever asks (the library, the command line, the
service and its cache, any worker process). A game seed's random picks (among equally
good moves, or a level's mistakes) are made on that image too, so the same seed gives the
same move in every orientation.

Boards whose symmetry policy leaves their symmetries out
(:attr:`~noughts.variants.SymmetryPolicy.canonical` false: large or degenerate boards)
are answered as given.

>>> from noughts.position import Position
>>> view = Orientation.of(Position("..X/.../..."))
>>> view.canonical.board, view.to_original(0), view.to_canonical(2)
('X../.../...', 2, 0)
>>> Orientation.of(Position("X../.../...")).identity  # already canonical
True
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING

from noughts.position import Position
from noughts.results import MoveEval

if TYPE_CHECKING:
    from collections.abc import Iterable

    from noughts.results import MoveChoice

__all__ = ["Orientation"]

Perm = tuple[int, ...]


class Orientation:
    """A position (``original``), its canonical image, and the cell maps between them.
    (A plain class: 3x3's cold path imports no dataclasses.)"""

    __slots__ = ("original", "canonical", "_in", "_out")

    def __init__(self, original: Position, canonical: Position | None = None,
                 maps: tuple[Perm, Perm] | None = None) -> None:
        self.original = original
        self.canonical = original if canonical is None else canonical
        # the cell maps original -> canonical and back; None for the identity
        self._in: Perm | None = None if maps is None else maps[0]
        self._out: Perm | None = None if maps is None else maps[1]

    @classmethod
    def of(cls, position: Position) -> Orientation:
        """The orientation the engine answers ``position`` in (see the module).

        >>> from noughts.position import Position
        >>> Orientation.of(Position("X" + "." * 63, "8x8")).identity  # no symmetries kept
        True
        """
        if not position.game.symmetry.canonical:
            return cls(position)
        group = position.geometry.symmetry_group
        symmetry = group.canonical(position.x, position.o)[2]
        if not symmetry:
            return cls(position)
        perm = group.perms[symmetry]
        return cls(position, position.mapped(perm), (perm, group.inverses[symmetry]))

    @property
    def identity(self) -> bool:
        """True if the canonical image is the board as given."""
        return self._out is None

    def to_canonical(self, cell: int) -> int:
        """The canonical image's cell for a cell of the original board."""
        return cell if self._in is None else self._in[cell]

    def to_original(self, cell: int) -> int:
        """The original board's cell for a cell of the canonical image."""
        return cell if self._out is None else self._out[cell]

    # -- answers --------------------------------------------------------------------------
    def original_choice(self, choice: MoveChoice) -> MoveChoice:
        """An answer found on the canonical image (by the engine, or kept by the move
        cache), on the original board: its move, its line and its per-move values."""
        return choice if self._out is None else _mapped(choice, self._out)

    def original_evals(self, moves: Iterable[MoveEval]) -> list[MoveEval]:
        """Per-move values found on the canonical image, on the original board, lowest
        cell first."""
        return list(moves) if self._out is None else _mapped_evals(moves, self._out)

    def canonical_choice(self, choice: MoveChoice) -> MoveChoice:
        """An answer on the original board, on the canonical image (as the move cache
        keeps it)."""
        return choice if self._in is None else _mapped(choice, self._in)

    def canonical_evals(self, moves: Iterable[MoveEval]) -> tuple[MoveEval, ...]:
        """Per-move values on the original board, on the canonical image."""
        return tuple(moves if self._in is None else _mapped_evals(moves, self._in))


def _mapped_evals(moves: Iterable[MoveEval], perm: Perm) -> list[MoveEval]:
    """``moves`` with their cells mapped by ``perm``, lowest cell first."""
    mapped = [MoveEval(perm[m.move], m.game, m.value, m.estimate) for m in moves]
    mapped.sort(key=_MOVE)
    return mapped


_MOVE = itemgetter(0)
"""A move value's cell (the first field of :class:`MoveEval`)."""


def _mapped(choice: MoveChoice, perm: Perm) -> MoveChoice:
    cells = len(perm)
    return choice._replace(
        move=perm[choice.move],
        pv=tuple([perm[c] if 0 <= c < cells else c for c in choice.pv]),
        moves=tuple(_mapped_evals(choice.moves, perm)) if choice.moves else (),
    )

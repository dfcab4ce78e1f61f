"""The image of a position that the engine answers on, and the way back to the board.

The engine (:func:`noughts.engine.choose_move`, :func:`noughts.engine.evaluation`)
answers every position on one image of it under its board's symmetries, chosen here,
and maps the answer back to the board as given. So one position gets one answer,
whichever way the board is turned and whoever asks (the library, the command line, the
service and its cache, any worker process):

- without a seed, the *canonical* image: the least one
  (:meth:`~noughts.symmetries.Symmetries.canonical`), the image the move cache is keyed
  by;
- with a game ``seed``, the image of the canonical one under a symmetry that the seed
  and the position pick. The search breaks ties between equally good moves by the order
  of the cells it is given, so a seed picks among them, and the same seed gives the same
  move in every orientation.

Boards whose symmetry policy leaves their symmetries out
(:attr:`~noughts.variants.SymmetryPolicy.canonical` false: large or degenerate boards)
are answered as given.

>>> from noughts.position import Position
>>> view = Orientation.of(Position("..X/.../..."))
>>> view.image.board, view.to_original(0), view.to_image(2)
('X../.../...', 2, 0)
>>> view.image is view.canonical
True
>>> seeded = Orientation.of(Position("..X/.../..."), seed=3)
>>> seeded.canonical.board, seeded.to_original(seeded.to_image(2))
('X../.../...', 2)
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
    """A position (``original``), its canonical image, the image answered on
    (``image``: the canonical one, or a seeded image of it), and the cell maps between
    them. (A plain class: 3x3's cold path imports no dataclasses.)"""

    __slots__ = ("original", "canonical", "image", "_in", "_out", "_forth", "_back")

    def __init__(self, original: Position, canonical: Position | None = None,
                 maps: tuple[Perm, Perm] | None = None, image: Position | None = None,
                 turns: tuple[Perm, Perm] | None = None) -> None:
        self.original = original
        self.canonical = original if canonical is None else canonical
        self.image = self.canonical if image is None else image
        # cell maps, None for the identity: original <-> canonical, original <-> image
        self._in: Perm | None = None if maps is None else maps[0]
        self._out: Perm | None = None if maps is None else maps[1]
        self._forth, self._back = self._in, self._out
        if turns is not None:
            turn, unturn = turns
            self._forth = turn if self._in is None else tuple(turn[c] for c in self._in)
            self._back = unturn if self._out is None else tuple(self._out[c] for c in unturn)

    @classmethod
    def of(cls, position: Position, seed: int | None = None) -> Orientation:
        """The orientation the engine answers ``position`` in (see the module).

        >>> from noughts.position import Position
        >>> Orientation.of(Position("X" + "." * 63, "8x8")).identity  # no symmetries kept
        True
        """
        game = position.game
        if not game.symmetry.canonical:
            return cls(position)
        group = position.geometry.symmetry_group
        symmetry = group.canonical(position.x, position.o)[2]
        canonical, maps = position, None
        if symmetry:
            maps = (group.perms[symmetry], group.inverses[symmetry])
            canonical = position.mapped(maps[0])
        if seed is None:
            return cls(position, canonical, maps)
        turn = _seeded_symmetry(canonical, seed, group.count)
        if not turn:
            return cls(position, canonical, maps)
        turns = (group.perms[turn], group.inverses[turn])
        return cls(position, canonical, maps, canonical.mapped(turns[0]), turns)

    @property
    def identity(self) -> bool:
        """True if the image is the board as given."""
        return self._back is None

    def to_canonical(self, cell: int) -> int:
        """The canonical image's cell for a cell of the original board."""
        return cell if self._in is None else self._in[cell]

    def from_canonical(self, cell: int) -> int:
        """The original board's cell for a cell of the canonical image."""
        return cell if self._out is None else self._out[cell]

    def to_image(self, cell: int) -> int:
        """The image's cell for a cell of the original board."""
        return cell if self._forth is None else self._forth[cell]

    def to_original(self, cell: int) -> int:
        """The original board's cell for a cell of the image."""
        return cell if self._back is None else self._back[cell]

    # -- answers --------------------------------------------------------------------------
    def original_choice(self, choice: MoveChoice) -> MoveChoice:
        """An answer found on the image, on the original board (its move, its line and
        its per-move values)."""
        return choice if self._back is None else _mapped(choice, self._back)

    def original_evals(self, moves: Iterable[MoveEval]) -> list[MoveEval]:
        """Per-move values found on the image, on the original board, lowest cell first."""
        return list(moves) if self._back is None else _mapped_evals(moves, self._back)

    def canonical_choice(self, choice: MoveChoice) -> MoveChoice:
        """An answer on the original board, on the canonical image (as the move cache
        keeps it)."""
        return choice if self._in is None else _mapped(choice, self._in)

    def choice_from_canonical(self, choice: MoveChoice) -> MoveChoice:
        """An answer on the canonical image, on the original board (a cache hit)."""
        return choice if self._out is None else _mapped(choice, self._out)

    def canonical_evals(self, moves: Iterable[MoveEval]) -> tuple[MoveEval, ...]:
        """Per-move values on the original board, on the canonical image."""
        return tuple(moves if self._in is None else _mapped_evals(moves, self._in))

    def evals_from_canonical(self, moves: Iterable[MoveEval]) -> list[MoveEval]:
        """Per-move values on the canonical image, on the original board, lowest cell
        first."""
        return list(moves) if self._out is None else _mapped_evals(moves, self._out)


def _seeded_symmetry(canonical: Position, seed: int, count: int) -> int:
    """The symmetry (a number below ``count``) that ``seed`` picks for ``canonical``:
    one pick per seed and position, the same in every process."""
    import random

    return random.Random(f"{seed} {canonical.x} {canonical.o} {canonical.first}").randrange(
        count)


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

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

from typing import TYPE_CHECKING

from noughts.position import Position
from noughts.results import MoveEval

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from noughts.results import MoveChoice

__all__ = ["Orientation"]

Perm = tuple[int, ...]


class Orientation:
    """A position (``original``), its canonical image, the image answered on
    (``image``: the canonical one, or a seeded image of it), and the cell maps between
    them. (A plain class: 3x3's cold path imports no dataclasses.)"""

    __slots__ = ("original", "canonical", "image", "_in", "_out", "_turn", "_unturn")

    def __init__(self, original: Position, canonical: Position | None = None,
                 maps: tuple[Perm, Perm] | None = None, image: Position | None = None,
                 turns: tuple[Perm, Perm] | None = None) -> None:
        self.original = original
        self.canonical = original if canonical is None else canonical
        self.image = self.canonical if image is None else image
        self._in: Perm | None = None if maps is None else maps[0]  # original -> canonical
        self._out: Perm | None = None if maps is None else maps[1]  # and back
        self._turn: Perm | None = None if turns is None else turns[0]  # canonical -> image
        self._unturn: Perm | None = None if turns is None else turns[1]  # and back

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
        return self._in is None and self._turn is None

    def to_canonical(self, cell: int) -> int:
        """The canonical image's cell for a cell of the original board."""
        return cell if self._in is None else self._in[cell]

    def from_canonical(self, cell: int) -> int:
        """The original board's cell for a cell of the canonical image."""
        return cell if self._out is None else self._out[cell]

    def to_image(self, cell: int) -> int:
        """The image's cell for a cell of the original board."""
        cell = self.to_canonical(cell)
        return cell if self._turn is None else self._turn[cell]

    def to_original(self, cell: int) -> int:
        """The original board's cell for a cell of the image."""
        return self.from_canonical(cell if self._unturn is None else self._unturn[cell])

    # -- answers --------------------------------------------------------------------------
    def original_choice(self, choice: MoveChoice) -> MoveChoice:
        """An answer found on the image, on the original board (its move, its line and
        its per-move values)."""
        return choice if self.identity else _mapped(choice, self.to_original)

    def original_evals(self, moves: Iterable[MoveEval]) -> list[MoveEval]:
        """Per-move values found on the image, on the original board, lowest cell first."""
        return list(moves) if self.identity else _mapped_evals(moves, self.to_original)

    def canonical_choice(self, choice: MoveChoice) -> MoveChoice:
        """An answer on the original board, on the canonical image (as the move cache
        keeps it)."""
        return choice if self._in is None else _mapped(choice, self.to_canonical)

    def choice_from_canonical(self, choice: MoveChoice) -> MoveChoice:
        """An answer on the canonical image, on the original board (a cache hit)."""
        return choice if self._out is None else _mapped(choice, self.from_canonical)

    def canonical_evals(self, moves: Iterable[MoveEval]) -> tuple[MoveEval, ...]:
        """Per-move values on the original board, on the canonical image."""
        return tuple(moves if self._in is None else _mapped_evals(moves, self.to_canonical))

    def evals_from_canonical(self, moves: Iterable[MoveEval]) -> list[MoveEval]:
        """Per-move values on the canonical image, on the original board, lowest cell
        first."""
        return list(moves) if self._out is None else _mapped_evals(moves, self.from_canonical)


def _seeded_symmetry(canonical: Position, seed: int, count: int) -> int:
    """The symmetry (a number below ``count``) that ``seed`` picks for ``canonical``:
    one pick per seed and position, the same in every process."""
    import random

    return random.Random(f"{seed} {canonical.x} {canonical.o} {canonical.first}").randrange(
        count)


def _mapped_evals(moves: Iterable[MoveEval], cell_map: Callable[[int], int]) -> list[MoveEval]:
    """``moves`` with their cells mapped, lowest cell first."""
    mapped = [MoveEval(cell_map(m.move), m.game, m.value, m.estimate) for m in moves]
    mapped.sort(key=_move_of)
    return mapped


def _move_of(evaluation: MoveEval) -> int:
    return evaluation.move


def _mapped(choice: MoveChoice, cell_map: Callable[[int], int]) -> MoveChoice:
    cells = choice.game.cells
    return choice._replace(
        move=cell_map(choice.move),
        pv=tuple([cell_map(c) if 0 <= c < cells else c for c in choice.pv]),
        moves=tuple(_mapped_evals(choice.moves, cell_map)) if choice.moves else (),
    )

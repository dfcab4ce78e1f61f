"""Positions: immutable, hashable X/O bitboards on a geometry, with the side to move.

Bit ``i`` of ``x`` (or ``o``) is cell ``i``, numbered row-major; in 3-D
``cell = layer*n*n + row*n + col``::

    3x3:  0 1 2      4x4:   0  1  2  3      4x4x4, layer 1:  16 17 18 19
          3 4 5             4  5  6  7                       20 21 22 23
          6 7 8             8  9 10 11                       24 25 26 27
                           12 13 14 15                       28 29 30 31

>>> p = Position("X.O/.X./...")
>>> p.to_move
'O'
>>> p = p.play(8)
>>> p.winner, p.is_over
(None, False)
>>> p.play(6).play(0)
Traceback (most recent call last):
...
noughts.errors.IllegalMoveError: cell 0 is occupied by X
>>> Position("XXX/OO./...").winner
'X'
>>> Position("XXX/OO./...").play(8)
Traceback (most recent call last):
...
noughts.errors.GameOverError: the game is over: X has won
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from noughts.errors import BoardError, GameOverError, IllegalMoveError
from noughts.geometry import Bitboard, Geometry, scan_forward
from noughts.notation import check_bitmasks, draw_grid, format_board, parse_board
from noughts.results import GameResult, Mark
from noughts.variants import Variant
from noughts.variants import variant as parse_variant

__all__ = ["Mark", "Position", "LegalMoves", "GameResult", "other", "check_playable"]


def other(mark: Mark) -> Mark:
    """The opponent of ``mark``.

    >>> other("X")
    'O'
    """
    return "O" if mark == "X" else "X"


class LegalMoves:
    """A lazy view of the legal moves: supports ``in``, ``len`` and iteration (lowest first).

    >>> moves = Position("XO./.../...").legal_moves
    >>> len(moves), 0 in moves, 2 in moves, list(moves)[:3]
    (7, False, True, [2, 3, 4])
    """

    __slots__ = ("mask",)

    def __init__(self, mask: Bitboard) -> None:
        self.mask = mask

    def __contains__(self, cell: object) -> bool:
        return isinstance(cell, int) and cell >= 0 and bool(self.mask >> cell & 1)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __iter__(self) -> Iterator[int]:
        return scan_forward(self.mask)

    def __repr__(self) -> str:
        return f"LegalMoves({list(self)})"


class Position:
    """A position of a tic-tac-toe-family game.

    Build one from a board string (``Position("X.O/.X./...", "3x3")``), from bitboards
    (:meth:`from_bitboards`) or from the seed backend's masks (:meth:`from_bitmasks`).
    X moves first unless ``first="O"``; with equal counts the first player is to move.
    Impossible positions raise :class:`~noughts.errors.BoardError` naming the problem.
    """

    __slots__ = ("game", "geometry", "x", "o", "first", "_hash")

    game: Variant
    """The game this is a position of: its board, rules and data (:mod:`noughts.variants`)."""
    geometry: Geometry
    x: Bitboard
    o: Bitboard
    first: Mark
    _hash: int

    def __init__(
        self, board: str = "", variant: str | Variant | Geometry = "3x3", *, first: Mark = "X"
    ) -> None:
        game = parse_variant(variant)
        geometry = game.geometry
        x, o = parse_board(board, geometry) if board else (0, 0)
        _validate(geometry, x, o, first)
        _init(self, game, x, o, first)

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def from_bitboards(
        cls,
        x: Bitboard,
        o: Bitboard,
        variant: str | Variant | Geometry = "3x3",
        *,
        first: Mark = "X",
    ) -> Position:
        """A validated position from X and O bitboards.

        >>> Position.from_bitboards(3, 3, "3x3")
        Traceback (most recent call last):
        ...
        noughts.errors.BoardError: overlapping marks: cell(s) 0, 1 hold both X and O
        """
        game = parse_variant(variant)
        geometry = game.geometry
        check_bitmasks(x, o, geometry)
        _validate(geometry, x, o, first)
        return _make(game, x, o, first)

    @classmethod
    def from_bitmasks(
        cls,
        num_x: int,
        num_o: int,
        variant: str | Variant | Geometry = "4x4k3",
        *,
        x_to_move: bool | None = None,
    ) -> Position:
        """The 4x4 backend seed's ``numX``/``numO`` (bit ``row*cols + col``), any geometry.

        ``x_to_move`` settles who moves when counts are equal (the seed's ``isX``): X to
        move there means X started. With unequal counts the side with fewer marks moves.

        >>> Position.from_bitmasks(0b1, 0b10, "4x4k3", x_to_move=False).first
        'O'
        """
        game = parse_variant(variant)
        geometry = game.geometry
        check_bitmasks(num_x, num_o, geometry)
        first = _first_player(num_x.bit_count(), num_o.bit_count(), x_to_move)
        _validate(geometry, num_x, num_o, first)
        return _make(game, num_x, num_o, first)

    # -- identity -----------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.x == other.x
            and self.o == other.o
            and self.first == other.first
            and self.game == other.game
        )

    def __hash__(self) -> int:
        return self._hash

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable; use play() for a new position")

    def __reduce__(self) -> tuple[Callable[..., Position], tuple[object, ...]]:
        """Pickled by value (its marks, its game, who started), so an object holding
        positions pickles and deep-copies.

        >>> import copy, pickle
        >>> p = Position("X../.O./...", first="X")
        >>> pickle.loads(pickle.dumps(p)) == p, copy.deepcopy(p) is p
        (True, True)
        """
        return (_make, (self.game, self.x, self.o, self.first))

    def __copy__(self) -> Position:
        return self  # immutable: a copy is itself

    def __deepcopy__(self, memo: dict[int, object]) -> Position:
        return self

    def __repr__(self) -> str:
        args = [repr(self.board)]
        if self.game.name != "3x3":
            args.append(f"{self.game.name!r}")
        if self.first != "X":
            args.append("first='O'")
        return f"Position({', '.join(args)})"

    def __str__(self) -> str:
        return draw_grid(self.x, self.o, self.geometry)

    # -- state --------------------------------------------------------------------------
    @property
    def board(self) -> str:
        """The board string, e.g. ``'X.O/.X./...'``."""
        return format_board(self.x, self.o, self.geometry)

    @property
    def variant(self) -> str:
        """The canonical variant name (``game.name``)."""
        return self.game.name

    @property
    def occupied(self) -> Bitboard:
        return self.x | self.o

    @property
    def empty(self) -> Bitboard:
        return self.geometry.full & ~(self.x | self.o)

    @property
    def ply(self) -> int:
        """Number of marks on the board."""
        return (self.x | self.o).bit_count()

    @property
    def to_move(self) -> Mark:
        """The side to move (also defined once the game is over)."""
        return _to_move(self.x, self.o, self.first)

    @property
    def last_mover(self) -> Mark:
        return other(self.to_move)

    def marks(self, mark: Mark) -> Bitboard:
        """The bitboard of ``mark``."""
        return self.x if mark == "X" else self.o

    @property
    def winning_line(self) -> Bitboard:
        """The union of the completed lines (0 if none; in misère, the loser's lines)."""
        marks = self.marks(self.last_mover)
        line = 0
        for completed in self.geometry.completed_lines(marks):
            line |= completed
        return line

    @property
    def winner(self) -> Mark | None:
        """Who won, if anyone: only the last mover can have completed a line, which wins
        it the game (in misère, loses it).

        >>> Position("XXX/OO./...", "3x3-misere").winner
        'O'
        """
        mover = self.last_mover
        if not self.geometry.has_line(self.x if mover == "X" else self.o):
            return None
        return other(mover) if self.game.misere else mover

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self.empty == 0

    @property
    def result(self) -> GameResult | None:
        """How the game ended, or ``None`` while it goes on.

        >>> Position("XOX/XOO/OXX").result
        GameResult(winner=None, line=0)
        """
        winner = self.winner
        if winner is not None:
            return GameResult(winner, self.winning_line)
        if self.empty == 0:
            return GameResult(None, 0)
        return None

    @property
    def legal_moves(self) -> LegalMoves:
        """The empty cells, or none once the game is over."""
        return LegalMoves(0 if self.winner is not None else self.empty)

    # -- moves --------------------------------------------------------------------------
    def play(self, move: int) -> Position:
        """The position after the side to move marks cell ``move``."""
        geometry = self.geometry
        if isinstance(move, bool) or not isinstance(move, int):
            raise IllegalMoveError(f"a move is a cell index, not {move!r}")
        if not 0 <= move < geometry.cells:
            raise IllegalMoveError(
                f"cell {move} is off the board ({geometry.name} has cells 0-{geometry.cells - 1})"
            )
        winner = self.winner
        if winner is not None:
            raise GameOverError(f"the game is over: {winner} has won")
        bit = 1 << move
        if (self.x | self.o) & bit:
            if not self.empty:
                raise GameOverError("the game is over: a draw, the board is full")
            holder = "X" if self.x & bit else "O"
            raise IllegalMoveError(f"cell {move} is occupied by {holder}")
        if self.to_move == "X":
            return _make(self.game, self.x | bit, self.o, self.first)
        return _make(self.game, self.x, self.o | bit, self.first)

    def transform(self, symmetry: int) -> Position:
        """The image of this position under symmetry number ``symmetry`` of its geometry."""
        geometry = self.geometry
        return _make(
            self.game,
            geometry.transform(self.x, symmetry),
            geometry.transform(self.o, symmetry),
            self.first,
        )

    def mapped(self, perm: Sequence[int]) -> Position:
        """The image of this position under ``perm`` (``perm[cell]`` is the cell's image),
        a symmetry of its board (not checked: the image of a valid position is valid).

        >>> Position("X../.O./...").mapped((2, 1, 0, 5, 4, 3, 8, 7, 6)).board
        '..X/.O./...'
        """
        return _make(self.game, _mapped(self.x, perm), _mapped(self.o, perm), self.first)

    def coords(self, cell: int) -> tuple[int, ...]:
        """Coordinates of ``cell`` on this board."""
        return self.geometry.coords(cell)


_set = object.__setattr__


def _init(position: Position, game: Variant, x: Bitboard, o: Bitboard, first: Mark) -> None:
    _set(position, "game", game)
    _set(position, "geometry", game.geometry)
    _set(position, "x", x)
    _set(position, "o", o)
    _set(position, "first", first)
    _set(position, "_hash", hash((game.key, x, o, first)))


def _make(game: Variant, x: Bitboard, o: Bitboard, first: Mark) -> Position:
    position = Position.__new__(Position)
    _init(position, game, x, o, first)
    return position


def _mapped(bb: Bitboard, perm: Sequence[int]) -> Bitboard:
    image = 0
    while bb:
        low = bb & -bb
        image |= 1 << perm[low.bit_length() - 1]
        bb ^= low
    return image


def _to_move(x: Bitboard, o: Bitboard, first: Mark) -> Mark:
    if x.bit_count() == o.bit_count():
        return first
    return other(first)


def _first_player(count_x: int, count_o: int, x_to_move: bool | None) -> Mark:
    if count_x == count_o:
        return "O" if x_to_move is False else "X"
    return "X" if count_x > count_o else "O"


def _validate(geometry: Geometry, x: Bitboard, o: Bitboard, first: Mark) -> None:
    """Raise :class:`BoardError` unless ``x``/``o`` can arise in a game ``first`` started."""
    if first not in ("X", "O"):
        raise BoardError(f"first player must be 'X' or 'O', not {first!r}")
    overlap = x & o
    if overlap:
        cells = ", ".join(str(c) for c in scan_forward(overlap))
        raise BoardError(f"overlapping marks: cell(s) {cells} hold both X and O")
    count_x, count_o = x.bit_count(), o.bit_count()
    first_count, second_count = (count_x, count_o) if first == "X" else (count_o, count_x)
    if first_count - second_count not in (0, 1):
        second = other(first)
        raise BoardError(
            f"impossible counts: {count_x} X and {count_o} O; {first} moved first, so {first} "
            f"has as many marks as {second} or one more"
        )
    x_line = geometry.has_line(x)
    o_line = geometry.has_line(o)
    if x_line and o_line:
        raise BoardError("both players have a line")
    if not (x_line or o_line):
        return
    winner: Mark = "X" if x_line else "O"
    mover = other(_to_move(x, o, first))
    if winner != mover:
        raise BoardError(f"{winner} has a line but {mover} moved after it")
    common = geometry.full
    for line in geometry.completed_lines(x if winner == "X" else o):
        common &= line
    if not common:
        raise BoardError(f"{winner} has lines that no single last move could complete")


def check_playable(position: Position) -> None:
    """Raise :class:`GameOverError` naming why, if the game of ``position`` is over.

    >>> check_playable(Position("XXX/OO./..."))
    Traceback (most recent call last):
    ...
    noughts.errors.GameOverError: the game is over: X has won
    """
    result = position.result
    if result is not None:
        reason = f"{result.winner} has won" if result.winner else "the board is full"
        raise GameOverError(f"the game is over: {reason}")

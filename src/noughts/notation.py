"""Board notation: board strings and the 4x4 backend seed's ``numX``/``numO`` bitmasks.

A board string lists cells row-major with ``X``, ``O`` and ``.``; ``/`` between rows,
``|`` between layers and whitespace are accepted and ignored on input. The seed's
``numX``/``numO`` masks set bit ``row*cols + col`` (``layer*n*n + row*n + col`` in 3-D)::

    board "X.O/.X./..O"      cells   0 1 2      numX = bits 0, 4    = 17
           X . O                     3 4 5      numO = bits 2, 8    = 260
           . X .                     6 7 8
           . . O

>>> from noughts.variants import variant
>>> g = variant("3x3")
>>> x, o = parse_board("X.O/.X./..O", g)
>>> x, o
(17, 260)
>>> format_board(x, o, g)
'X.O/.X./..O'
>>> to_bitmasks(x, o) == {"numX": 17, "numO": 260}
True
"""

from __future__ import annotations

import re

from noughts.errors import BoardError
from noughts.geometry import Bitboard, Geometry, scan_forward

__all__ = [
    "parse_board",
    "format_board",
    "draw_grid",
    "check_bitmasks",
    "to_bitmasks",
    "FILES",
    "square_name",
    "parse_square",
]

_IGNORED = set("/|") | set(" \t\r\n")
_MARKS = {"X": "x", "O": "o", ".": "empty"}


def parse_board(text: str, geometry: Geometry) -> tuple[Bitboard, Bitboard]:
    """The X and O bitboards of a board string (no check of counts or lines here).

    >>> from noughts.variants import variant
    >>> parse_board("xo", variant("3x3"))
    Traceback (most recent call last):
    ...
    noughts.errors.BoardError: board 'xo' has 2 cells but 3x3 has 9
    """
    if not isinstance(text, str):
        raise BoardError(f"a board must be a string, not {type(text).__name__}")
    x = o = 0
    cell = 0
    for char in text:
        if char in _IGNORED:
            continue
        upper = char.upper()
        if upper not in _MARKS:
            raise BoardError(
                f"unexpected character {char!r} in board {_short(text)!r}: use X, O and ."
            )
        if cell < geometry.cells:
            if upper == "X":
                x |= 1 << cell
            elif upper == "O":
                o |= 1 << cell
        cell += 1
    if cell != geometry.cells:
        raise BoardError(
            f"board {_short(text)!r} has {cell} cells but {geometry.name} has {geometry.cells}"
        )
    return x, o


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_board(x: Bitboard, o: Bitboard, geometry: Geometry) -> str:
    """The board string: rows joined by ``/``, 3-D layers by ``|``.

    >>> from noughts.variants import variant
    >>> format_board(1, 2, variant("2x2x2"))
    'XO/..|../..'
    """
    rows_per_layer = geometry.shape[-2]
    cols = geometry.shape[-1]
    rows = []
    for start in range(0, geometry.cells, cols):
        cells = range(start, start + cols)
        rows.append("".join("X" if x >> c & 1 else "O" if o >> c & 1 else "." for c in cells))
    if geometry.dims == 2:
        return "/".join(rows)
    layers = [
        "/".join(rows[i : i + rows_per_layer]) for i in range(0, len(rows), rows_per_layer)
    ]
    return "|".join(layers)


def draw_grid(x: Bitboard, o: Bitboard, geometry: Geometry) -> str:
    """A plain-text grid, one row a line; 3-D layers side by side.

    >>> from noughts.variants import variant
    >>> print(draw_grid(0b100010001, 0b000000110, variant("3x3")))
    X O O
    . X .
    . . X
    """
    layers = format_board(x, o, geometry).split("|")
    grids = [[" ".join(row) for row in layer.split("/")] for layer in layers]
    return "\n".join("   ".join(parts) for parts in zip(*grids, strict=True))


def check_bitmasks(num_x: int, num_o: int, geometry: Geometry) -> None:
    """Raise :class:`BoardError` unless both masks are non-negative ints inside the board.

    >>> from noughts.variants import variant
    >>> check_bitmasks(1 << 9, 0, variant("3x3"))
    Traceback (most recent call last):
    ...
    noughts.errors.BoardError: bits outside the board: numX has bit 9 set but 3x3 has cells 0-8
    """
    for label, value in (("numX", num_x), ("numO", num_o)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise BoardError(f"{label} must be an integer bitmask, not {value!r}")
        if value < 0:
            raise BoardError(f"{label} must be a non-negative bitmask, got {value}")
        outside = value & ~geometry.full
        if outside:
            bit = next(scan_forward(outside))
            raise BoardError(
                f"bits outside the board: {label} has bit {bit} set but "
                f"{geometry.name} has cells 0-{geometry.cells - 1}"
            )
    overlap = num_x & num_o
    if overlap:
        cells = ", ".join(str(c) for c in scan_forward(overlap))
        raise BoardError(f"overlapping marks: cell(s) {cells} hold both X and O")


def to_bitmasks(x: Bitboard, o: Bitboard) -> dict[str, int]:
    """The seed backend's request fields for a position's marks."""
    return {"numX": x, "numO": o}


# -- cell names ----------------------------------------------------------------------------
FILES = "abcdefghijklmnopqrstuvwxyz"
"""Column letters, leftmost column first."""

_SQUARE = re.compile(r"^(\d*)([a-z])(\d+)$")


def square_name(geometry: Geometry, cell: int) -> str:
    """The name of cell index ``cell``, as on a chess board: column letter + row number.

    Columns run ``a``, ``b``, ... from the left; **row 1 is the bottom row** of the board
    as drawn (the last row of the board string). On a 3-D board the layer number comes
    first, layer 1 being the first layer of the board string: ``2b3`` is layer 2,
    column b, row 3. Every board, 3x3 included, uses this one scheme::

        3x3:  a3 b3 c3      cells  0 1 2
              a2 b2 c2             3 4 5
              a1 b1 c1             6 7 8

    >>> from noughts.variants import variant
    >>> square_name(variant("3x3"), 0), square_name(variant("3x3"), 8)
    ('a3', 'c1')
    >>> square_name(variant("4x4"), 15), square_name(variant("qubic"), 16 + 4 + 1)
    ('d1', '2b3')
    """
    if not 0 <= cell < geometry.cells:
        raise BoardError(f"cell {cell} is off the board ({geometry.name})")
    coords = geometry.coords(cell)
    row, col = coords[-2], coords[-1]
    square = f"{FILES[col]}{geometry.shape[-2] - row}"
    return f"{coords[0] + 1}{square}" if geometry.dims == 3 else square


def parse_square(geometry: Geometry, text: str) -> int:
    """The cell index of a square name (see :func:`square_name`; case and spaces ignored).

    >>> from noughts.variants import variant
    >>> parse_square(variant("3x3"), "B2"), parse_square(variant("qubic"), "2b3")
    (4, 21)
    >>> parse_square(variant("4x4"), "e1")
    Traceback (most recent call last):
    ...
    noughts.errors.BoardError: e1 is off the board: files run a-d
    """
    name = "".join(text.split()).lower()
    match = _SQUARE.match(name)
    if match is None or bool(match.group(1)) != (geometry.dims == 3):
        example = "2b3" if geometry.dims == 3 else "b3"
        raise BoardError(f"{text.strip()!r} is not a square name like {example}")
    rows, cols = geometry.shape[-2], geometry.shape[-1]
    col, rank = FILES.index(match.group(2)), int(match.group(3))
    if col >= cols:
        raise BoardError(f"{name} is off the board: files run a-{FILES[cols - 1]}")
    if not 1 <= rank <= rows:
        raise BoardError(f"{name} is off the board: ranks run 1-{rows}")
    if geometry.dims == 3:
        layer = int(match.group(1))
        if not 1 <= layer <= geometry.shape[0]:
            raise BoardError(f"{name} is off the board: layers run 1-{geometry.shape[0]}")
        return geometry.cell((layer - 1, rows - rank, col))
    return geometry.cell((rows - rank, col))

"""Cell names people type: ``b3`` on 2-D boards, ``2b3`` on cubes, and ``5`` on 3x3.

The names are the engine's square names (:func:`noughts.notation.square_name`), the same
in the CLI's text, the API's ``square`` and the page. Two schemes, chosen by the board
(:func:`scheme_of`):

* ``chess`` -- 2-D boards: a file letter for the column (``a`` on the left) and a rank
  number for the row, **counted from the bottom as in chess**. On 3x3 the top-left cell
  is ``a3`` and the centre ``b2``; on 4x4 the top-left cell is ``a4`` and the
  bottom-right ``d1``. Boards of at most 9 cells (3x3) also take a keypad number,
  1-9 row by row from the top left, as in the seed games::

      a3 b3 c3     1 2 3
      a2 b2 c2     4 5 6
      a1 b1 c1     7 8 9

* ``layers`` -- 3-D boards (Qubic): the layer number (1 = cell indices 0..n*n-1, drawn
  leftmost) before the chess name of the square inside the layer, so ``2b3`` is layer 2,
  file b, rank 3.

Parsing ignores case and spaces; a bad name raises :class:`~noughts.errors.IllegalMoveError`
saying what is wrong.

>>> from noughts.variants import variant
>>> cell_name(variant("3x3"), 4), parse_cell(variant("3x3"), "b2"), parse_cell(variant("3x3"), "5")
('b2', 4, 4)
>>> cell_name(variant("4x4"), 0), cell_name(variant("4x4"), 15), parse_cell(variant("4x4"), "B3")
('a4', 'd1', 5)
>>> cell_name(variant("qubic"), 16 + 4 + 1), parse_cell(variant("qubic"), "2b3")
('2b3', 21)
>>> parse_cell(variant("4x4"), "e1")
Traceback (most recent call last):
...
noughts.errors.IllegalMoveError: e1 is off the board: files run a-d
"""

from __future__ import annotations

import re
from typing import Literal

from noughts.errors import BoardError, IllegalMoveError
from noughts.geometry import Geometry
from noughts.notation import FILES, parse_square, square_name

__all__ = [
    "Scheme",
    "scheme_of",
    "takes_keypad_numbers",
    "cell_name",
    "parse_cell",
    "describe_scheme",
    "FILES",
]

Scheme = Literal["chess", "layers"]
"""How cells are named on a board."""

KEYPAD_CELLS = 9
"""2-D boards of at most this many cells (3x3) also take keypad numbers 1-9."""

_NUMBER = re.compile(r"^\d+$")
_SQUARE = re.compile(r"^[a-z]\d+$")
_LAYERED = re.compile(r"^\d[a-z]\d+$")


def scheme_of(geometry: Geometry) -> Scheme:
    """The naming scheme of a board.

    >>> from noughts.variants import variant
    >>> [scheme_of(variant(v)) for v in ("3x3", "4x4k3", "7x6k4", "4x4x4")]
    ['chess', 'chess', 'chess', 'layers']
    """
    return "layers" if geometry.dims == 3 else "chess"


def takes_keypad_numbers(geometry: Geometry) -> bool:
    """Whether cells may also be typed as numbers 1-9 from the top left (3x3 and smaller).

    >>> from noughts.variants import variant
    >>> takes_keypad_numbers(variant("3x3")), takes_keypad_numbers(variant("4x4"))
    (True, False)
    """
    return geometry.dims == 2 and geometry.cells <= KEYPAD_CELLS


def cell_name(geometry: Geometry, cell: int) -> str:
    """The name of cell index ``cell`` (row-major, top-left first): its square name.

    >>> from noughts.variants import variant
    >>> [cell_name(variant("4x4k3"), c) for c in (0, 3, 12)]
    ['a4', 'd4', 'a1']
    >>> cell_name(variant("3x3"), 0), cell_name(variant("3x3x3"), 26)
    ('a3', '3c1')
    """
    try:
        return square_name(geometry, cell)
    except BoardError as error:
        raise IllegalMoveError(str(error)) from None


def describe_scheme(geometry: Geometry) -> str:
    """How to name a cell on ``geometry``, for help texts and error messages.

    >>> from noughts.variants import variant
    >>> describe_scheme(variant("3x3"))  # doctest: +ELLIPSIS
    'a square like b3 (file a-c, rank 1-3 ...) or a number 1-9 from the top left'
    >>> describe_scheme(variant("4x4"))
    'a square like b3 (file a-d, rank 1-4 counted from the bottom)'
    >>> describe_scheme(variant("qubic"))
    'a layer and square like 2b3 (layer 1-4, file a-d, rank 1-4 counted from the bottom)'
    """
    rows, cols = geometry.shape[-2], geometry.shape[-1]
    squares = f"file a-{FILES[cols - 1]}, rank 1-{rows} counted from the bottom"
    if scheme_of(geometry) == "layers":
        return f"a layer and square like 2b3 (layer 1-{geometry.shape[0]}, {squares})"
    text = f"a square like b3 ({squares})"
    if takes_keypad_numbers(geometry):
        text += f" or a number 1-{geometry.cells} from the top left"
    return text


def parse_cell(geometry: Geometry, text: str) -> int:
    """The cell index named by ``text`` (case and spaces ignored).

    Raises :class:`IllegalMoveError` with a one-line reason for a name that is not a
    cell name at all or that lies off the board. Whether the cell is free is the
    position's business, not this function's.

    >>> from noughts.variants import variant
    >>> parse_cell(variant("3x3"), "10")
    Traceback (most recent call last):
    ...
    noughts.errors.IllegalMoveError: 10 is off the board: cells are numbered 1-9 ...
    >>> parse_cell(variant("qubic"), "b3")
    Traceback (most recent call last):
    ...
    noughts.errors.IllegalMoveError: 'b3' is not a move: type a layer and square like 2b3 ...
    """
    name = "".join(text.split()).lower()
    scheme = scheme_of(geometry)
    if takes_keypad_numbers(geometry) and _NUMBER.match(name):
        number = int(name)
        if not 1 <= number <= geometry.cells:
            raise IllegalMoveError(
                f"{name} is off the board: cells are numbered 1-{geometry.cells} "
                f"from the top left (or named like b3)"
            )
        return number - 1
    if (scheme == "chess" and _SQUARE.match(name)) or (
        scheme == "layers" and _LAYERED.match(name)
    ):
        try:
            return parse_square(geometry, name)
        except BoardError as error:
            raise IllegalMoveError(str(error)) from None
    shown = text.strip()
    raise IllegalMoveError(f"{shown!r} is not a move: type {describe_scheme(geometry)}")

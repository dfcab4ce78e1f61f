"""The board drawn with Rich: chess-style m x n (3x3 included), Qubic layers side by side.

The drawing carries its highlights in the characters as well as in colour, so it reads
the same in a pipe (where Rich writes no ANSI codes): the last move stands in brackets
``[X]`` and the cells of a winning line between stars ``*X*``.

>>> from noughts.position import Position
>>> print(board_text(Position("XO./.X./..."), last_move=4, unicode=False).plain)
   a  b  c
3  X  O  .  3
2  . [X] .  2
1  .  .  .  1
   a  b  c
>>> print(board_text(Position("XXXX/OOO./..../....", "4x4"), last_move=3).plain)
   a  b  c  d
4 *X**X**X**X* 4
3  O  O  O  ·  3
2  ·  ·  ·  ·  2
1  ·  ·  ·  ·  1
   a  b  c  d
"""

from __future__ import annotations

from rich.text import Text

from noughts.geometry import Bitboard
from noughts.play.coordinates import FILES, scheme_of
from noughts.position import Position

__all__ = ["board_text", "MARK_STYLES", "LAYER_GAP"]

MARK_STYLES = {"X": "bold cyan", "O": "bold magenta"}
"""Colours of the two marks."""

_LAST_STYLE = "reverse"
_WIN_STYLE = "bold black on green"
_EMPTY_STYLE = "dim"
_LABEL_STYLE = "dim"

LAYER_GAP = 4
"""Spaces between two layers of a 3-D board drawn side by side."""


def board_text(
    position: Position, *, last_move: int | None = None, unicode: bool = True, width: int = 80
) -> Text:
    """The board of ``position`` as Rich text, ``last_move`` and any winning line marked.

    ``unicode`` chooses box-drawing characters (off for plain ASCII terminals); ``width``
    is the space available, used to wrap the layers of a 3-D board into rows.
    """
    win_cells = position.winning_line
    scheme = scheme_of(position.geometry)
    if scheme == "chess":
        lines = _chess_grid(position, 0, last_move, win_cells, unicode, footer=True)
    else:
        lines = _layers(position, last_move, win_cells, unicode, width)
    return Text("\n").join(lines)


def _cell(
    position: Position, cell: int, last_move: int | None, win_cells: Bitboard, empty: str
) -> Text:
    """A three-character cell: `` X ``, ``[X]`` (last move) or ``*X*`` (winning line)."""
    bit = 1 << cell
    if position.x & bit:
        mark = "X"
    elif position.o & bit:
        mark = "O"
    else:
        return Text.assemble((f"{empty:^3}", _EMPTY_STYLE))
    if win_cells & bit:
        return Text.assemble((f"*{mark}*", _WIN_STYLE))
    if cell == last_move:
        return Text.assemble("[", (mark, f"{MARK_STYLES[mark]} {_LAST_STYLE}"), "]")
    return Text.assemble(" ", (mark, MARK_STYLES[mark]), " ")


def _chess_grid(
    position: Position,
    layer: int,
    last_move: int | None,
    win_cells: Bitboard,
    unicode: bool,
    *,
    footer: bool,
) -> list[Text]:
    """One 2-D board (or one layer of a cube): files along the top, ranks at both sides."""
    rows, cols = position.geometry.shape[-2], position.geometry.shape[-1]
    base = layer * rows * cols
    empty = "·" if unicode else "."
    label_width = len(str(rows))
    files = Text()
    files.append(" " * (label_width + 1) + "".join(f" {f} " for f in FILES[:cols]), _LABEL_STYLE)
    lines = [files]
    for row in range(rows):
        rank = str(rows - row)
        line = Text()
        line.append(f"{rank:>{label_width}} ", style=_LABEL_STYLE)
        for col in range(cols):
            line.append_text(_cell(position, base + row * cols + col, last_move, win_cells, empty))
        if footer:
            line.append(f" {rank}", style=_LABEL_STYLE)
        lines.append(line)
    if footer:
        lines.append(files.copy())
    for line in lines:
        line.rstrip()
    return lines


def _layers(
    position: Position, last_move: int | None, win_cells: Bitboard, unicode: bool, width: int
) -> list[Text]:
    """The layers of a cube side by side, wrapped into as many rows as ``width`` needs."""
    count, rows, cols = position.geometry.shape
    block_width = len(str(rows)) + 1 + 3 * cols  # the same whatever the marks
    blocks = []
    for layer in range(count):
        grid = _chess_grid(position, layer, last_move, win_cells, unicode, footer=False)
        title = Text()
        title.append(f"layer {layer + 1}".center(block_width), style="bold")
        blocks.append([title, *grid])
    per_row = max(1, (width + LAYER_GAP) // (block_width + LAYER_GAP))
    lines: list[Text] = []
    for start in range(0, count, per_row):
        group = blocks[start : start + per_row]
        if start:
            lines.append(Text())
        for parts in zip(*group, strict=True):
            line = Text()
            for index, part in enumerate(parts):
                if index:
                    line.append(" " * LAYER_GAP)
                padded = part.copy()
                padded.pad_right(block_width - part.cell_len)
                line.append_text(padded)
            line.rstrip()
            lines.append(line)
    return lines

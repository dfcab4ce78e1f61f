"""O's moves decided by the engine's look one X move ahead, for the O book's sweep.

:func:`first_cleared` finds the first of some moves after which the look ahead
(:func:`~noughts.search.defence.killing_reply`) finds X no winning reply;
:func:`extend` decides O's move that way in a position the book does not hold, as the
sweep's extension (:mod:`noughts.builders.o_book_sweep`) and its look two X moves ahead
(:mod:`noughts.builders.o_book_ahead`) record it. :func:`extent` and
:func:`extent_text` read and write the ``MARKS[:TOP]`` of their steps, by which their
records are named, and :func:`x_likeliest` ranks the X moves those steps follow.
"""

from __future__ import annotations

import time
from typing import Any

from noughts.builders.o_book import ranked
from noughts.builders.o_book_deepen import forced_move
from noughts.orientation import Orientation
from noughts.position import Position
from noughts.search.defence import killing_reply

__all__ = ["extend", "extent", "extent_text", "first_cleared", "x_likeliest"]


def first_cleared(position: Position, moves: list[int], nodes: int,
                  known: list[list[int | None]] | None = None
                  ) -> tuple[int | None, list[list[int | None]]]:
    """The first of ``moves`` after which :func:`killing_reply` (``nodes`` positions)
    finds the opponent no winning reply (``None`` if it finds one after each), and the
    checks made: each move with the winning reply found after it (``None``: none).
    ``known`` holds checks made before, reused.

    >>> from noughts.position import Position
    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
    ...                             sum(1 << c for c in (12, 15, 60)), "qubic")
    >>> first_cleared(p, [63, 3], 20_000)
    (3, [[63, 2], [3, None]])
    """
    made = {move: reply for move, reply in known or [] if move is not None}
    checks: list[list[int | None]] = []
    for move in moves:
        if move in made:
            reply = made[move]
        else:
            found = killing_reply(position.play(move), nodes, root_nodes=nodes)
            reply = None if found is None else found[0]
        checks.append([move, reply])
        if reply is None:
            return move, checks
    return None, checks


def extend(position: Position, nodes: int, o_nodes: int) -> dict[str, Any]:
    """The record of O's move in ``position``, a position the book does not hold: ``kept``,
    the first move in the engine's order after which :func:`killing_reply` finds X no
    win (``None`` if it finds one after every move, or if O's move is forced: a win or a
    block, :func:`~noughts.builders.o_book_deepen.forced_move`, which the engine plays
    anyway), and ``checks``.

    >>> from noughts.position import Position
    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
    ...                             sum(1 << c for c in (12, 15, 60)), "qubic")
    >>> extend(p, 20_000, 2_000)["kept"]
    3
    """
    start = time.perf_counter()
    kept: int | None = None
    checks: list[list[int | None]] = []
    if forced_move(position) is None:
        kept, checks = first_cleared(position, ranked(position, o_nodes), nodes)
    return {"kept": kept, "checks": checks, "seconds": round(time.perf_counter() - start, 1)}


def extent(text: str) -> tuple[int, int | None]:
    """``MARKS[:TOP]`` of ``--extend``.

    >>> extent("5"), extent("7:3")
    ((5, None), (7, 3))
    """
    marks, _, top = text.partition(":")
    return int(marks), int(top) if top else None


def extent_text(marks: int, top: int | None) -> str:
    """The words of an extent, as ``--extend`` takes them and the records are named.

    >>> extent_text(5, None), extent_text(7, 3)
    ('5', '7:3')
    """
    return str(marks) if top is None else f"{marks}:{top}"


def x_likeliest(after: Position, nodes: int, top: int) -> list[int]:
    """X's ``top`` likeliest moves in ``after`` (X to move) by the short search of
    ``nodes`` nodes that orders O's moves, run from X's side, one of each class, on the
    canonical image of ``after`` (its cells, as the steps' records hold them).

    >>> from noughts.position import Position
    >>> after = Position.from_bitboards(1 << 0, 1 << 21, "qubic")
    >>> len(x_likeliest(after, 2_000, 2))
    2
    """
    return ranked(Orientation.of(after).canonical, nodes)[:top]

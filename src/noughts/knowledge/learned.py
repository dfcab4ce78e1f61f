"""A learned evaluation for the anytime search: line and fork weights fitted to the
results of self-play games, shipped as package data and loaded the first time a
search asks for them.

The features are the ones the search board keeps up to date move by move
(:mod:`noughts.search.board`), so the learned evaluation costs the search nothing
more than the hand-written one: for each side the lines it holds alone with 1, 2 or 3
marks, and its *fork points* (empty cells on two lines one mark short of a threat).
``scripts/train_qubic_eval.py`` plays the games (noughts' own search as X without the
strategy against its search as O, with random openings) and fits the weights by
logistic regression of the game's result on the quiet positions of those games (the
positions the search evaluates: no threat on the board, no fork for the side to move).

The weights depend on whose move it is: a line of two marks is worth about twice as
much to its owner with the move as without (the owner can make a threat at once), so
the search board keeps a *tempo* sum beside its score (:class:`~noughts.search.board.SearchBoard`).
A variant's record names its file (:attr:`noughts.variants.Variant.learned_eval`); the
second player's search there keeps the hand-written line weights and takes from the
learned ones only how much whose move it is changes a line's worth (see
:func:`noughts.search.evaluate.with_tempo`): the learned weights on their own are flat
(a line of two worth a few lines of one, a fork point nothing) and lost to the
strongest X players.

>>> from noughts.position import Position
>>> features(Position.from_bitboards(0b11, 1 << 63, "qubic"))  # X on 0 and 1, O on 63
(8, 1, 0, 6, 0, 0, 0, 0)
>>> weights = learned_eval("4x4x4")
>>> weights is not None and len(weights.x_move) == 5
True
>>> learned_eval("3x3") is None
True
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, NamedTuple

from noughts.errors import NoughtsError
from noughts.knowledge.data import shipped_bytes
from noughts.position import Position
from noughts.variants import Variant, variant

__all__ = [
    "FEATURES",
    "LearnedEval",
    "features",
    "parse_learned",
    "learned_eval",
]

FEATURES = ("x1", "x2", "x3", "o1", "o2", "o3", "x_forks", "o_forks")
"""The feature names, in the order of :func:`features`: X's lines of 1, 2 and 3 marks
(with no O), O's, then each side's fork points."""


class LearnedEval(NamedTuple):
    """Learned weights, each a value to the side it belongs to, by whose move it is.

    ``x_move[m]`` is a line holding ``m`` X marks and no O when X is to move,
    ``x_wait[m]`` when O is (index 0 to ``k``; 0 and ``k`` unused); ``o_move`` and
    ``o_wait`` the same for O. ``x_fork`` and ``o_fork`` value one fork point of a side
    that waits (one of the side to move is a win the search sees). ``to_move`` is what
    having the move is worth besides. X is the first player: where O starts, the ``x_``
    weights are O's.
    """

    x_move: tuple[int, ...]
    x_wait: tuple[int, ...]
    o_move: tuple[int, ...]
    o_wait: tuple[int, ...]
    x_fork: int
    o_fork: int
    to_move: int


def features(position: Position) -> tuple[int, ...]:
    """The feature counts of ``position`` (:data:`FEATURES`), for a board of 4 in a row.

    Scans every line: meant for training and tests (the search keeps the same sums
    up to date move by move).
    """
    geometry = position.geometry
    k = geometry.k
    x, o = position.x, position.o
    counts = [0] * 8
    pots: tuple[dict[int, int], dict[int, int]] = ({}, {})
    empty_cells = geometry.full & ~(x | o)
    for line in geometry.lines:
        xs, os = (line & x).bit_count(), (line & o).bit_count()
        for side, (mine, theirs) in enumerate(((xs, os), (os, xs))):
            if theirs or not 0 < mine < k:
                continue
            counts[3 * side + min(mine, 3) - 1] += 1
            if mine == k - 2:
                rest = line & empty_cells
                while rest:
                    low = rest & -rest
                    rest ^= low
                    pots[side][low] = pots[side].get(low, 0) + 1
    for side in range(2):
        counts[6 + side] = sum(1 for count in pots[side].values() if count >= 2)
    return tuple(counts)


_LINES = ("x_move", "x_wait", "o_move", "o_wait")


def parse_learned(data: Any, k: int) -> LearnedEval:
    """Check the shape of a learned-evaluation record and build it; raise
    :class:`~noughts.errors.NoughtsError` naming what is wrong.

    >>> lines = [0, 10, 50, 300, 0]
    >>> parse_learned({"x_move": lines, "x_wait": lines, "o_move": lines, "o_wait": lines,
    ...                "x_fork": 9, "o_fork": 8, "to_move": -5}, 4).to_move
    -5
    >>> parse_learned({"x_move": [0, 1], "x_wait": lines, "o_move": lines, "o_wait": lines,
    ...                "x_fork": 9, "o_fork": 8, "to_move": 0}, 4)
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: learned evaluation: x_move must be 5 non-negative integers
    """
    if not isinstance(data, dict):
        raise NoughtsError("learned evaluation: expected an object")
    lines: list[tuple[int, ...]] = []
    for name in _LINES:
        values = data.get(name)
        if (not isinstance(values, list) or len(values) != k + 1
                or not all(type(v) is int and v >= 0 for v in values)):
            raise NoughtsError(f"learned evaluation: {name} must be {k + 1} non-negative integers")
        lines.append(tuple(values))
    forks: list[int] = []
    for name in ("x_fork", "o_fork"):
        value = data.get(name)
        if type(value) is not int or value < 0:
            raise NoughtsError(f"learned evaluation: {name} must be a non-negative integer")
        forks.append(value)
    to_move = data.get("to_move")
    if type(to_move) is not int:
        raise NoughtsError("learned evaluation: to_move must be an integer")
    x_move, x_wait, o_move, o_wait = lines
    return LearnedEval(x_move, x_wait, o_move, o_wait, forks[0], forks[1], to_move)


@lru_cache(maxsize=8)
def _load(file: str, k: int) -> LearnedEval:
    raw = shipped_bytes(file)
    if raw is None:
        raise NoughtsError(f"learned evaluation {file!r} is missing from the package")
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise NoughtsError(f"learned evaluation {file!r} is not JSON: {error}") from None
    return parse_learned(data.get("weights") if isinstance(data, dict) else None, k)


def learned_eval(game: Variant | str) -> LearnedEval | None:
    """The learned evaluation shipped for the variant ``game`` (a record or a name), if
    its record names one."""
    record = variant(game) if isinstance(game, str) else game
    if record.learned_eval is None:
        return None
    return _load(record.learned_eval, record.k)

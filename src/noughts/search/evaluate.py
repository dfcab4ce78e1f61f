"""Line-count heuristics: how promising a position is when it cannot be searched to the end.

A line (``k`` cells in a row) held by one side only is worth something to that side; a
line holding both marks is dead. The 4x4x4 seed scores a line with ``m`` marks ``4**m``
for either side (*balanced*); its *defensive* variant weighs the opponent's lines
``m * 4**m`` (block before building) and the *aggressive* one weighs its own lines that
way (build before blocking). Our own evaluation (*strong*) grows much faster with the
marks, has the second player weigh the opponent's lines a little more while it is not
behind on the strongest cells, and adds the points where two lines one mark short of a
threat cross: whoever plays there makes two threats at once.

>>> from noughts.position import Position
>>> weights = line_weights(4, "balanced")
>>> weights.own, weights.opp
((0, 4, 16, 64, 256), (0, 4, 16, 64, 256))
>>> line_weights(4, "defensive").opp
(0, 4, 32, 192, 1024)
>>> p = Position("X..." + "." * 60, "qubic")
>>> evaluate(p, "X", "balanced")  # a corner lies on 7 lines
28
>>> evaluate(p, "O", "balanced")
-28
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Literal, NamedTuple

from noughts.errors import NoughtsError
from noughts.geometry import Bitboard, Geometry
from noughts.position import Mark, Position
from noughts.search.openings import strong_cells

if TYPE_CHECKING:
    from noughts.knowledge.learned import LearnedEval

__all__ = [
    "Style",
    "STYLES",
    "LineWeights",
    "line_weights",
    "evaluate",
    "evaluate_marks",
    "FORK_WEIGHT",
    "OPPONENT_WEIGHT",
    "defends",
    "HEURISTIC_LIMIT",
    "search_weights",
]

Style = Literal["balanced", "aggressive", "defensive", "strong"]
STYLES: tuple[Style, ...] = ("balanced", "aggressive", "defensive", "strong")

FORK_WEIGHT = 3
"""In the strong style: a fork point (two lines of ``k-2`` crossing on an empty cell) is
worth ``FORK_WEIGHT / 2`` threat lines' weight to its owner."""

STEEP_BASE = 24
"""In the strong style a line with ``m`` marks is worth ``STEEP_BASE**m``: one more mark
in a line outweighs many lines with fewer. Tuned in Qubic against the 4x4x4 seed's bot
(``benchmarks/bench_qubic.py``): steeper bases won more games as O than ``6``."""

OPPONENT_WEIGHT = (3, 2)
"""In the strong style the second player (O) weighs the opponent's lines ``3/2`` of its
own while X holds no more of the strongest cells than O (see :func:`defends`): the
first player wins Qubic, so the second blocks a little before building. Tuned in Qubic
as O against the 4x4x4 seed's bot: on the 48 weak-cell openings the tilt won 165 of
166 games (even weights: about 87%); on strong-cell openings, where X is a strongest
cell ahead, it did worse than even weights (44 of 86 against 46 of 66), hence the
condition. As X the tilt lost 5 of 100 games that even weights win."""

WEIGHT_CAP = 1 << 30
"""Largest even weight of a line one mark short of ``k`` (the second player's tilt adds
half to the opponent's): the base shrinks for long lines so that a heuristic sum over
every line of any board stays far below a proven result's score."""


HEURISTIC_LIMIT = 1 << 46
"""Every heuristic score stays below this; proven results score beyond it."""


class LineWeights(NamedTuple):
    """Value of a line held only by one side, by its number of marks (index 0..k).

    ``own`` scores the evaluating player's lines, ``opp`` the opponent's (subtracted);
    ``fork`` scores each fork point (``0`` outside the strong style), the opponent's
    too unless ``opp_fork`` is given (a learned evaluation weighs them apart).

    A learned evaluation also knows whose move it is (:mod:`noughts.knowledge.learned`):
    a line is worth ``tempo[m]`` more to its owner when the owner is to move, and as
    much less when the owner waits (``opp_tempo`` for the opponent's lines), and the
    side to move gets ``to_move`` on top. The hand-written styles leave them out.
    """

    own: tuple[int, ...]
    opp: tuple[int, ...]
    fork: int = 0
    opp_fork: int | None = None
    tempo: tuple[int, ...] | None = None
    opp_tempo: tuple[int, ...] | None = None
    to_move: int = 0

    @property
    def their_fork(self) -> int:
        """The value of one of the opponent's fork points."""
        return self.fork if self.opp_fork is None else self.opp_fork


@lru_cache(maxsize=256)  # a few (k, style, second) in use; the weights never change
def line_weights(k: int, style: Style = "strong", *, second: bool = False) -> LineWeights:
    """The line weights of ``style`` for lines of ``k`` cells.

    ``second``: the weights of the second player (O) when it defends (see
    :func:`defends`); in the strong style its opponent's lines weigh
    :data:`OPPONENT_WEIGHT` of its own.

    >>> line_weights(3, "aggressive").own
    (0, 4, 32, 192)
    >>> line_weights(4, "strong").own
    (0, 24, 576, 13824, 331776)
    >>> line_weights(4, "strong").opp == line_weights(4, "strong").own
    True
    >>> line_weights(4, "strong", second=True).opp
    (0, 36, 864, 20736, 497664)
    >>> line_weights(4, "strong").fork
    20736
    >>> line_weights(9, "strong").own[8] <= WEIGHT_CAP
    True
    """
    if style not in STYLES:
        raise NoughtsError(f"unknown evaluation style {style!r}: expected one of {STYLES}")
    seed = tuple(0 if m == 0 else 4**m for m in range(k + 1))
    weighted = tuple(m * 4**m for m in range(k + 1))
    if style == "balanced":
        return LineWeights(seed, seed)
    if style == "aggressive":
        return LineWeights(weighted, seed)
    if style == "defensive":
        return LineWeights(seed, weighted)
    # strong: steep growth (a line with one more mark outweighs many with fewer), the
    # second player's opponent weighed a little more, fork points worth 1.5 threats.
    base = STEEP_BASE
    while k >= 2 and base > 2 and base ** (k - 1) > WEIGHT_CAP:
        base -= 1
    steep = tuple(0 if m == 0 else base**m for m in range(k + 1))
    threat = steep[k - 1] if k >= 2 else 1
    numerator, denominator = OPPONENT_WEIGHT if second else (1, 1)
    opponent = tuple(w * numerator // denominator for w in steep)
    return LineWeights(steep, opponent, FORK_WEIGHT * threat // 2 if k >= 3 else 0)


def search_weights(position: Position, style: Style = "strong",
                   learned: LearnedEval | None = None) -> LineWeights:
    """The weights the anytime search of the side to move uses in ``style``: the
    style's, with the second player's tilt when it defends (:func:`defends`), and on the
    boards whose record says so (:attr:`Variant.even_first_player`) the even weights
    for the first player; the second player's get the tempo of the ``learned``
    evaluation on top (:func:`with_tempo`), where one is given.

    >>> from noughts.knowledge.learned import learned_eval
    >>> from noughts.position import Position
    >>> search_weights(Position("", "qubic")).own
    (0, 4, 16, 64, 256)
    >>> o_to_move = Position("X" + "." * 63, "qubic")
    >>> search_weights(o_to_move, learned=learned_eval("qubic")).tempo is not None
    True
    >>> search_weights(o_to_move).tempo is None, search_weights(o_to_move).own[1]
    (True, 24)
    """
    player = position.to_move
    if style == "strong" and player == position.first and (
            position.game.even_first_player):
        return line_weights(position.geometry.k, "balanced")
    hand = line_weights(position.geometry.k, style, second=defends(position, player))
    if style == "strong" and player != position.first and learned is not None:
        return with_tempo(hand, learned)  # (its x_ weights are the first player's)
    return hand


@lru_cache(maxsize=16)
def with_tempo(hand: LineWeights, learned: LearnedEval) -> LineWeights:
    """The second player's hand-written weights ``hand`` with the learned evaluation's
    tempo on top: each line keeps its hand-written value on average over whose move it
    is and gains (loses) the learned share of it with its owner to move (waiting),
    ``(move - wait) / (move + wait)``; the move itself is worth the learned ``to_move``
    in lines of two (the learned scale to the hand-written one by a line of two).

    >>> from noughts.knowledge.learned import LearnedEval
    >>> learned = LearnedEval((0, 1, 3, 9, 0), (0, 1, 1, 9, 0), (0, 1, 3, 9, 0),
    ...                       (0, 1, 1, 9, 0), 0, 0, 1)
    >>> weights = with_tempo(line_weights(4), learned)
    >>> weights.own == line_weights(4).own, weights.tempo, weights.to_move
    (True, (0, 0, 288, 0, 0), 288)
    """
    def tempo(values: tuple[int, ...], move: tuple[int, ...],
              wait: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(v * (a - b) // (a + b) if a + b else 0
                     for v, a, b in zip(values, move, wait, strict=True))

    two = learned.o_move[2] + learned.o_wait[2]
    to_move = learned.to_move * 2 * hand.own[2] // two if two else 0
    return hand._replace(tempo=tempo(hand.own, learned.o_move, learned.o_wait),
                   opp_tempo=tempo(hand.opp, learned.x_move, learned.x_wait),
                   to_move=to_move)


def _fork_points(geometry: Geometry, mine: int, theirs: int) -> int:
    """Empty cells lying on two or more lines that hold ``k-2`` of ``mine`` and no ``theirs``."""
    k = geometry.k
    if k < 3:
        return 0
    seen: dict[int, int] = {}
    occupied = mine | theirs
    for line in geometry.lines:
        if line & theirs or (line & mine).bit_count() != k - 2:
            continue
        empty = line & ~occupied
        while empty:
            low = empty & -empty
            seen[low] = seen.get(low, 0) + 1
            empty ^= low
    return sum(1 for count in seen.values() if count >= 2)


def defends(position: Position, player: Mark) -> bool:
    """True if ``player`` evaluates ``position`` with the second player's weights.

    That is O, while X holds no more of the strongest cells (those on the most lines:
    Qubic's corners and centres) than O does.

    >>> corner, edge = Position("X" + "." * 63, "qubic"), Position(".X" + "." * 62, "qubic")
    >>> defends(corner, "O"), defends(edge, "O"), defends(edge, "X")
    (False, True, False)
    """
    return _defends(position.geometry, position.x, position.o, player)


def _defends(geometry: Geometry, x: Bitboard, o: Bitboard, player: Mark) -> bool:
    if player != "O":
        return False
    strongest = 0
    for cell in strong_cells(geometry):
        strongest |= 1 << cell
    return (x & strongest).bit_count() <= (o & strongest).bit_count()


def evaluate(position: Position, player: Mark, style: Style = "strong") -> int:
    """Heuristic value of ``position`` for ``player`` (positive: good for ``player``).

    Sums the line weights of every line held by one side only; the strong style also
    counts fork points. Scans every line, so it is meant for display and tests; the
    searches keep the same sum up to date move by move.
    """
    return evaluate_marks(position.geometry, position.x, position.o, player, style)


def evaluate_marks(
    geometry: Geometry, x: Bitboard, o: Bitboard, player: Mark, style: Style = "strong"
) -> int:
    """:func:`evaluate` of the marks ``x`` and ``o`` on ``geometry``, with no
    :class:`~noughts.position.Position` built (for walks over bitboards, such as the
    teaching traces).

    >>> from noughts.variants import variant
    >>> evaluate_marks(variant("qubic"), 0b1, 0, "X", "balanced")
    28
    """
    weights = line_weights(geometry.k, style, second=_defends(geometry, x, o, player))
    mine, theirs = (x, o) if player == "X" else (o, x)
    total = 0
    for line in geometry.lines:
        own = (line & mine).bit_count()
        opp = (line & theirs).bit_count()
        if own and not opp:
            total += weights.own[own]
        elif opp and not own:
            total -= weights.opp[opp]
    if weights.fork or weights.their_fork:
        total += (weights.fork * _fork_points(geometry, mine, theirs)
                  - weights.their_fork * _fork_points(geometry, theirs, mine))
    return total

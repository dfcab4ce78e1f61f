"""Baseline bots written from the seed projects' descriptions, and a random bot.

Each bot has a ``name`` and ``choose(position) -> cell``; randomness comes from
``random.Random(seed)``, so a seeded bot replays the same game.

* :class:`SeedQubicBot` plays as the 4x4x4 seed's bot does, move for move: win now,
  else block, else (on the empty board) a random first move, else alpha-beta over the
  root move and ``depth`` (the seed's ``AI_DEPTH``) more plies, whose leaves score
  every line held by one side only ``4**marks`` (balanced); the defensive style
  weighs the opponent's lines ``marks * 4**marks``, the aggressive style its own.
  Terminal scores are ``±(100000 + plies left)``, so faster wins count more; ties go
  to the lowest cell. It picks the seed's cell on all 81 positions of
  ``tests/data/qubic_seed_bot_moves.json`` (games against the seed's own code). It
  opens as the seed's code does, on a random cell among the first 16 (see
  :data:`Opening`; ``opening="strong"`` for the corner or centre the seed meant), and
  ``ties="random"`` breaks its ties at random (seeded) instead of by the lowest cell.
  :class:`LegacySeedQubicBot` is our first, one ply shallower copy, kept for the
  results measured against it.
* :class:`SeedRegionsBot` plays like the 4x4 backend seed on 4x4 with 3 in a row: win
  now, else the cell of best utility, where a cell's utility sums over the four
  overlapping 3x3 regions the minimax value of the region after the move (regions
  holding the cell) or with the opponent to move (regions not holding it). A region's
  value is its outcome (+1 X wins, -1 O wins, 0 draw) times ``3**(cells left empty at
  the end)``: the README asks that faster results count more, so we read its "3 ^
  number of moves" as the moves *saved*. Works on any 2-D board with k = 3 (every 3x3
  window is a region).
* :class:`RandomBot` plays a uniformly random legal move.
* :class:`RulesBot` looks one ply ahead: it completes a line if it can, else blocks the
  opponent's, else plays at random (the batched learning environment's ``"rules"``
  opponent, one board at a time; the usual game only, not misère).

>>> from noughts.position import Position
>>> p = Position("XX.." + "." * 12 + "|" + "OO.." + "." * 12 + "|" + "." * 16 + "|" + "." * 16,
...              "qubic")
>>> bot = SeedQubicBot(depth=2, seed=1)
>>> bot.name, bot.choose(p.play(2).play(18))
('seed-qubic:2', 3)
>>> SeedRegionsBot().choose(Position("XX../OO../..../....", "4x4k3"))
2
>>> RandomBot(seed=3).choose(Position("XO./.../...")) in range(2, 9)
True
>>> rules = RulesBot(seed=1)
>>> rules.choose(Position("XX./OO./...")), rules.choose(Position("XX./O../..."))  # win, block
(2, 2)
"""

from __future__ import annotations

import random
import time
from functools import lru_cache
from typing import Literal

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.geometry import scan_forward
from noughts.players.choice import choice_of
from noughts.position import Position
from noughts.results import MoveChoice
from noughts.search.board import SearchBoard
from noughts.search.evaluate import Style, line_weights
from noughts.search.openings import strong_cells

__all__ = [
    "Bot",
    "SeedQubicBot",
    "LegacySeedQubicBot",
    "Opening",
    "OPENINGS",
    "Ties",
    "TIES",
    "SeedRegionsBot",
    "RandomBot",
    "RulesBot",
    "SEED_WIN",
]

SEED_WIN = 100_000
"""The 4x4x4 seed's terminal score (plus the depth left)."""


class Bot:
    """A reference bot: ``choose(position) -> cell``, played through the player protocol
    (``move(position, limit) -> MoveChoice``; the seeds' bots keep no clock)."""

    name: str = "bot"

    def choose(self, position: Position) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        """The bot's move as a :class:`~noughts.results.MoveChoice`."""
        started = time.perf_counter()
        return choice_of(position, self.choose(position), started=started)


def _check(position: Position) -> None:
    if position.is_over:
        raise NoughtsError("the game is over: there is no move to choose")


class RandomBot(Bot):
    """A uniformly random legal move."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = random.Random(seed)

    def choose(self, position: Position) -> int:
        _check(position)
        return self.rng.choice(list(position.legal_moves))


class RulesBot(Bot):
    """Complete a line if it can, else block the opponent's, else a random legal move
    (ties at random too); refuses a misère game, whose lines it would read backwards."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "rules"
        self.rng = random.Random(seed)

    def choose(self, position: Position) -> int:
        _check(position)
        if position.game.misere:
            raise NoughtsError("the rules player plays the usual game, not misère")
        geometry, empty = position.geometry, position.empty
        mine = position.marks(position.to_move)
        theirs = (position.x | position.o) & ~mine
        for marks in (mine, theirs):
            cells = geometry.completing(marks, empty)
            if cells:
                return self.rng.choice(cells)
        return self.rng.choice(list(position.legal_moves))


Opening = Literal["first16", "strong"]
"""How :class:`SeedQubicBot` opens an empty board: ``"first16"`` (the default), a random
cell among the first 16 of the board (cells 0-15, the face ``x = 0``: 4 corners, 8 edge
cells and 4 face centres), what the seed's code does, whose "random optimal first move"
draws an index below 16 (the number of corners and centres) into the list of all 64
cells; ``"strong"``, a random corner or centre, what the seed meant."""

OPENINGS: tuple[Opening, ...] = ("first16", "strong")

Ties = Literal["lowest", "random"]
"""How :class:`SeedQubicBot` breaks ties between equally good cells: ``"lowest"`` (the
default), the lowest cell, as the seed's code does; ``"random"``, a cell drawn from
the bot's seeded generator (the same seed, the same choices)."""

TIES: tuple[Ties, ...] = ("lowest", "random")

_INFINITY = SEED_WIN * 10


class SeedQubicBot(Bot):
    """The 4x4x4 seed's bot, move for move: ``depth`` is the seed's ``AI_DEPTH``.

    Its rules come first: win now, else block (the seed takes the first cell its scan of
    the 76 lines meets, an order the fixture does not show; here the lowest: any win
    wins, and against two threats every block loses), else on an empty board a random
    first move
    (see :data:`Opening`), else alpha-beta minimax over the root move and ``depth``
    more plies, leaves scored by the seed's line counts and wins by
    ``±(100000 + plies left)``. Among equally good moves the lowest cell wins: the seed
    tries cells in board order and keeps a later one only if it scores strictly more.
    The search here tries likely moves first (fewer nodes, the same values) and gives
    a cell below the best so far the window ``(best - 1, +inf)``, so that a tie comes
    back exact and the lower cell takes it: the same choice as the seed's. With
    ``ties="random"`` every cell gets that window and the bot draws among the tied
    cells (see :data:`Ties`).

    >>> from noughts.position import Position
    >>> bot = SeedQubicBot(depth=3)
    >>> bot.name, bot.plies
    ('seed-qubic:3', 4)
    >>> tied = Position("X" + "." * 41 + "O" + "." * 21, "qubic")  # 6 cells tie
    >>> bot.choose(tied)
    3
    >>> SeedQubicBot(seed=2).choose(Position("", "qubic")) < 16
    True
    >>> SeedQubicBot(seed=2, ties="random").choose(tied) == SeedQubicBot(
    ...     seed=2, ties="random").choose(tied)
    True
    """

    def __init__(
        self,
        depth: int = 3,
        style: Style = "balanced",
        seed: int | None = None,
        *,
        opening: Opening = "first16",
        ties: Ties = "lowest",
    ) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < self._min_depth:
            raise NoughtsError(
                f"depth must be an integer from {self._min_depth} up, not {depth!r}"
            )
        if style not in ("balanced", "aggressive", "defensive"):
            raise NoughtsError(
                f"unknown seed style {style!r}: expected balanced, aggressive or defensive"
            )
        if opening not in OPENINGS:
            raise NoughtsError(f"unknown seed opening {opening!r}: expected first16 or strong")
        if ties not in TIES:
            raise NoughtsError(f"unknown seed ties {ties!r}: expected lowest or random")
        self.depth = depth
        self.style: Style = style
        self.opening: Opening = opening
        self.ties: Ties = ties
        self.rng = random.Random(seed)
        self.name = self._name()
        self.nodes = 0

    _min_depth = 0
    _prefix = "seed-qubic"
    _default_opening: Opening = "first16"

    @property
    def plies(self) -> int:
        """Plies searched: the root move and ``depth`` more."""
        return self.depth + 1

    def _name(self) -> str:
        name = f"{self._prefix}:{self.depth}"
        if self.style != "balanced":
            name += f":{self.style}"
        if self.opening != self._default_opening:
            name += f":{self.opening}"
        if self.ties != "lowest":
            name += f":{self.ties}"
        return name

    def choose(self, position: Position) -> int:
        _check(position)
        me = 0 if position.to_move == "X" else 1
        board = SearchBoard(position, line_weights(position.geometry.k, self.style), me)
        for side in (me, 1 - me):  # win now, else block (the lowest such cell)
            cells = board.threat_cells[side]
            if cells:
                return (cells & -cells).bit_length() - 1
        if position.ply == 0:
            return self._first_move(position)
        return self._root(board, me)

    def _first_move(self, position: Position) -> int:
        if self.opening == "first16":
            return self.rng.choice(range(min(16, position.geometry.cells)))
        return self.rng.choice(strong_cells(position.geometry))

    def _root(self, board: SearchBoard, me: int) -> int:
        """The lowest of the best-scoring cells (the seed's choice), or with random ties
        one of them drawn from the bot's generator."""
        exact_ties = self.ties == "random"
        best, best_score = -1, -_INFINITY
        tied: list[int] = []
        for cell in _ordered(board):
            if best < 0:
                alpha = -_INFINITY
            elif cell < best or exact_ties:
                alpha = best_score - 1  # a tie must come back exact: the lower cell wins it
            else:
                alpha = best_score
            score = self._after(board, cell, self.plies - 1, alpha, _INFINITY, me)
            if best < 0 or score > best_score:
                best, best_score, tied = cell, score, [cell]
            elif score == best_score:
                tied.append(cell)
                best = min(best, cell)
        if exact_ties and len(tied) > 1:
            return self.rng.choice(sorted(tied))
        return best

    def _after(
        self, board: SearchBoard, cell: int, depth: int, alpha: int, beta: int, me: int
    ) -> int:
        """Value (for ``me``) of the side to move playing ``cell``, ``depth`` plies left."""
        mover = board.stm
        if board.threat_cells[mover] >> cell & 1:
            return SEED_WIN + depth if mover == me else -SEED_WIN - depth
        board.play(cell)
        try:
            return self._minimax(board, depth, alpha, beta, me)
        finally:
            board.undo(cell)

    def _minimax(self, board: SearchBoard, depth: int, alpha: int, beta: int, me: int) -> int:
        """Alpha-beta (fail-soft): exact inside ``(alpha, beta)``, else a bound beyond it."""
        self.nodes += 1
        if not board.empty:
            return 0
        if depth == 0:
            return board.score if me == 0 else -board.score
        if depth == 1:
            return self._frontier(board, me)
        maximizing = board.stm == me
        best = -_INFINITY if maximizing else _INFINITY
        for cell in _ordered(board):
            score = self._after(board, cell, depth - 1, alpha, beta, me)
            if maximizing:
                best = max(best, score)
                alpha = max(alpha, best)
            else:
                best = min(best, score)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    def _frontier(self, board: SearchBoard, me: int) -> int:
        """Exact value of a node one ply above the leaves, no move played: a win now
        scores ``SEED_WIN``, else the best leaf is the score plus the largest gain
        (the seed's styles have no fork weight, so the board's gains are exact)."""
        mover = board.stm
        self.nodes += board.empty.bit_count()
        if board.threat_cells[mover]:
            return SEED_WIN if mover == me else -SEED_WIN
        gains = board.gain[mover]
        best_gain = max(gains[cell] for cell in scan_forward(board.empty))
        value = (board.score if mover == 0 else -board.score) + best_gain
        return value if mover == me else -value


class LegacySeedQubicBot(SeedQubicBot):
    """Our first copy of the seed's bot, kept because measured results cite it.

    It searches ``depth`` plies in all (one fewer than the seed's ``AI_DEPTH`` means),
    breaks ties by its own move order rather than by the lowest cell, and opens on a
    random corner or centre. Player ``seed-qubic-legacy:D[:STYLE]``.

    >>> LegacySeedQubicBot(depth=3).plies, SeedQubicBot(depth=3).plies
    (3, 4)
    """

    def __init__(self, depth: int = 3, style: Style = "balanced", seed: int | None = None) -> None:
        super().__init__(depth, style, seed, opening="strong")

    _min_depth = 1
    _prefix = "seed-qubic-legacy"
    _default_opening: Opening = "strong"

    @property
    def plies(self) -> int:
        return self.depth

    def _root(self, board: SearchBoard, me: int) -> int:
        """The first best-scoring cell in the search's own move order."""
        best, best_score = -1, -_INFINITY
        alpha = -_INFINITY
        for cell in _ordered(board):
            score = self._after(board, cell, self.plies - 1, alpha, _INFINITY, me)
            if score > best_score or best < 0:
                best, best_score = cell, score
            alpha = max(alpha, score)
        return best


def _ordered(board: SearchBoard) -> list[int]:
    """Empty cells, likeliest best first (the seed's "future work": the value found is
    the same as in board order, only faster)."""
    side = board.stm
    mine, theirs = board.pot_count[side], board.pot_count[1 - side]
    threats = board.threat_cells[side]
    through = board.through
    scored = []
    empty = board.empty
    while empty:
        low = empty & -empty
        empty ^= low
        cell = low.bit_length() - 1
        value = len(through[cell]) + 16 * mine[cell] + 12 * theirs[cell]
        if threats >> cell & 1:
            value += 1000
        scored.append((-value, cell))
    scored.sort()
    return [cell for _, cell in scored]


class SeedRegionsBot(Bot):
    """The 4x4 backend seed's bot: per-cell utilities summed over 3x3 regions."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "seed-4x4"
        self.rng = random.Random(seed)

    def choose(self, position: Position) -> int:
        _check(position)
        geometry = position.geometry
        if geometry.dims != 2 or geometry.k != 3 or min(geometry.shape) < 3:
            raise NoughtsError(
                f"the 4x4 backend seed's bot plays 2-D boards with 3 in a row, not {geometry.name}"
            )
        x_moves = position.to_move == "X"
        mine = position.x if x_moves else position.o
        winning = geometry.completing(mine, position.empty)
        if winning:
            return winning[0]
        rows, cols = geometry.shape
        regions = [
            [(r + dr) * cols + (c + dc) for dr in range(3) for dc in range(3)]
            for r in range(rows - 2)
            for c in range(cols - 2)
        ]
        still = [_region_value(*_sub(position, region), not x_moves) for region in regions]
        best, best_utility = -1, 0
        for cell in position.legal_moves:
            utility = 0
            for index, region in enumerate(regions):
                if cell in region:
                    x, o = _sub(position, region)
                    bit = 1 << region.index(cell)
                    x, o = (x | bit, o) if x_moves else (x, o | bit)
                    utility += _region_value(x, o, not x_moves)
                else:
                    utility += still[index]
            signed = utility if x_moves else -utility
            if best < 0 or signed > best_utility:
                best, best_utility = cell, signed
        return best


def _sub(position: Position, region: list[int]) -> tuple[int, int]:
    """The 3x3 sub-board of ``region``: X and O as 9-bit masks."""
    x = o = 0
    for index, cell in enumerate(region):
        if position.x >> cell & 1:
            x |= 1 << index
        elif position.o >> cell & 1:
            o |= 1 << index
    return x, o


_LINES_3X3 = (0b111, 0b111000, 0b111000000, 0b1001001, 0b10010010, 0b100100100,
              0b100010001, 0b1010100)


@lru_cache(maxsize=1 << 16)
def _region_value(x: int, o: int, x_to_move: bool) -> int:
    """Minimax value of a 3x3 region: outcome times 3**(empty cells at the end)."""
    empty = 0b111111111 & ~(x | o)
    weight: int = 3 ** empty.bit_count()
    if any(line & x == line for line in _LINES_3X3):
        return weight
    if any(line & o == line for line in _LINES_3X3):
        return -weight
    if not empty:
        return 0
    values = []
    while empty:
        low = empty & -empty
        empty ^= low
        if x_to_move:
            values.append(_region_value(x | low, o, False))
        else:
            values.append(_region_value(x, o | low, True))
    return max(values) if x_to_move else min(values)

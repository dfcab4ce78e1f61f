"""Counting positions and games of small variants exactly (X moves first, play stops at a win).

The keys, with their 3x3 values:

* ``positions`` (5,478): the positions reachable in play, the empty board included.
* ``positions_up_to_symmetry`` (765): the same, positions that a symmetry of the board
  maps onto each other counted once (Burnside's lemma over the symmetry group).
* ``terminal_positions`` (958): the positions where the game is over (a line or a full board).
* ``games`` (255,168): the move sequences from the empty board to the end of the game.
* ``games_up_to_symmetry`` (26,830): the games when, at every turn, moves that lead to
  symmetric positions count as one move: the number of paths from the empty board to an
  end in the graph of positions up to symmetry. (This is the classic figure; it is not
  the number of orbits of move sequences under the group, which Burnside's lemma gives
  as 255,168 / 8 = 31,896 on 3x3, since no symmetry but the identity fixes a whole game.)
* ``full_tree_boards`` (1,972,819): the 3x3 web-game seed's full tree: every sequence of
  moves, either player starting, play going on past a win until the board is full, the
  empty board (shared by both starts) counted once: ``2 * sum(N!/(N-k)!) - 1``.

The counts work on sets of cells as ``int`` masks (cell layout as in :mod:`noughts.geometry`,
e.g. ``0 1 2 / 3 4 5 / 6 7 8``): a position is reachable exactly when its mark counts fit
the turn, at most the last mover has a line, and some last move completed all of that
player's lines (removing it leaves no line). So the counts come from tables over all
``2**cells`` masks (which masks hold a line, and the line-free subsets of every mask by
size), not from walking the game tree; only ``games_up_to_symmetry`` walks the positions,
up to symmetry, ply by ply as sets of packed ints.

>>> counts = count_variant("3x3")
>>> counts["positions"], counts["positions_up_to_symmetry"], counts["terminal_positions"]
(5478, 765, 958)
>>> counts["games"], counts["games_up_to_symmetry"], counts["full_tree_boards"]
(255168, 26830, 1972819)
"""

from __future__ import annotations

from collections.abc import Iterable
from math import factorial, perm

from noughts.errors import NoughtsError, TooLargeError
from noughts.geometry import Bitboard, Geometry, scan_forward
from noughts.variants import Variant
from noughts.variants import variant as parse_variant

__all__ = ["COUNT_KEYS", "MAX_TABLE_CELLS", "MAX_WALK_CELLS", "count_variant", "CountTables"]

COUNT_KEYS = (
    "positions",
    "positions_up_to_symmetry",
    "terminal_positions",
    "games",
    "games_up_to_symmetry",
    "full_tree_boards",
)
"""Every count :func:`count_variant` can give, in output order."""

MAX_TABLE_CELLS = 20
"""Largest board (in cells) for the table-based counts (tables of ``2**cells`` entries)."""

MAX_WALK_CELLS = 16
"""Largest board for ``games_up_to_symmetry``, which walks every position up to symmetry."""

_SLOT = 24
"""Bits per coefficient in the packed size polynomials (enough for C(20, 10))."""
_SLOT_MASK = (1 << _SLOT) - 1


def count_variant(
    variant: str | Variant | Geometry, *, only: Iterable[str] | None = None
) -> dict[str, int]:
    """The counts of ``variant`` named by ``only`` (all of :data:`COUNT_KEYS` by default).

    >>> count_variant("2x2", only=["positions", "games"])
    {'positions': 29, 'games': 24}
    """
    geometry = parse_variant(variant).geometry  # (misère games end as normal ones do)
    wanted = list(COUNT_KEYS) if only is None else list(only)
    unknown = [key for key in wanted if key not in COUNT_KEYS]
    if unknown:
        raise NoughtsError(
            f"unknown count {unknown[0]!r}: choose from {', '.join(COUNT_KEYS)}"
        )
    result: dict[str, int] = {}
    tables: CountTables | None = None
    for key in COUNT_KEYS:
        if key not in wanted:
            continue
        if key == "full_tree_boards":
            result[key] = full_tree_boards(geometry.cells)
            continue
        if key == "games_up_to_symmetry":
            result[key] = games_up_to_symmetry(geometry)
            continue
        if tables is None:
            tables = CountTables(geometry)
        result[key] = getattr(tables, key)()
    return result


def full_tree_boards(cells: int) -> int:
    """Boards in the full move tree, either player starting, no stop at a win.

    >>> full_tree_boards(9)
    1972819
    """
    return 2 * sum(perm(cells, placed) for placed in range(cells + 1)) - 1


class CountTables:
    """Tables over every mask of a board's cells, and the counts read off them."""

    def __init__(self, geometry: Geometry) -> None:
        if geometry.cells > MAX_TABLE_CELLS:
            raise TooLargeError(
                f"{geometry.name} has {geometry.cells} cells; counting is limited to boards "
                f"of at most {MAX_TABLE_CELLS} cells"
            )
        self.geometry = geometry
        cells = geometry.cells
        self.cells = cells
        self.full = geometry.full
        size = 1 << cells
        # has_line[m]: mask m covers a whole line (built from m minus its lowest cell).
        has_line = bytearray(size)
        completes = geometry.wins_after
        for mask in range(1, size):
            low = mask & -mask
            if has_line[mask ^ low] or completes(mask, low.bit_length() - 1):
                has_line[mask] = 1
        self.has_line = has_line
        # free_subsets[m]: the line-free subsets of m, as a polynomial in their size
        # packed into one int (coefficient of size s at bits s*_SLOT...).
        subsets = [0 if has_line[m] else 1 << (_SLOT * m.bit_count()) for m in range(size)]
        for bit in range(cells):
            step = 1 << bit
            subsets = [
                value + subsets[m ^ step] if m & step else value
                for m, value in enumerate(subsets)
            ]
        self.free_subsets = subsets

    # -- helpers ------------------------------------------------------------------------
    def free_count(self, within: Bitboard, size: int) -> int:
        """How many line-free sets of ``size`` cells lie inside ``within``."""
        return (self.free_subsets[within] >> (_SLOT * size)) & _SLOT_MASK

    def last_moves(self, marks: Bitboard) -> int:
        """How many cells of ``marks`` could have been the move that completed its lines."""
        has_line = self.has_line
        return sum(1 for cell in scan_forward(marks) if not has_line[marks ^ (1 << cell)])

    def _line_free_masks(self) -> list[Bitboard]:
        return [m for m in range(1 << self.cells) if not self.has_line[m]]

    def _winning_masks(self) -> list[tuple[Bitboard, int]]:
        """Masks holding a line that one last move completed, with how many such moves."""
        result = []
        has_line = self.has_line
        for mask in range(1 << self.cells):
            if has_line[mask]:
                moves = self.last_moves(mask)
                if moves:
                    result.append((mask, moves))
        return result

    # -- counts -------------------------------------------------------------------------
    def positions(self) -> int:
        """Every position reachable with X moving first."""
        full = self.full
        total = 0
        for o in self._line_free_masks():  # neither player has a line
            size = o.bit_count()
            total += self.free_count(full ^ o, size) + self.free_count(full ^ o, size + 1)
        return total + self._wins(weighted=False)

    def terminal_positions(self) -> int:
        """Positions where the game has ended: a line, or a full board."""
        return self._wins(weighted=False) + len(self._draws())

    def games(self) -> int:
        """Move sequences from the empty board to the end of a game."""
        draws = sum(
            factorial(x.bit_count()) * factorial(self.cells - x.bit_count())
            for x in self._draws()
        )
        return draws + self._wins(weighted=True)

    def _draws(self) -> list[Bitboard]:
        """The X masks of full boards without a line."""
        full, has_line = self.full, self.has_line
        x_size = (self.cells + 1) // 2
        return [
            x
            for x in self._line_free_masks()
            if x.bit_count() == x_size and not has_line[full ^ x]
        ]

    def _wins(self, *, weighted: bool) -> int:
        """Won positions, or (``weighted``) the games that end in them.

        A game ending in a won position is an order of its marks: the winner's last
        move is one of the cells that completed the lines, everything before it may come
        in any order (subsets of line-free sets are line-free).
        """
        full = self.full
        total = 0
        for marks, last_moves in self._winning_masks():
            size = marks.bit_count()
            for winner_is_x in (True, False):
                other_size = size - 1 if winner_is_x else size  # X moved first
                others = self.free_count(full ^ marks, other_size)
                if not others:
                    continue
                if weighted:
                    orders = last_moves * factorial(size - 1) * factorial(other_size)
                    total += others * orders
                else:
                    total += others
        return total

    def positions_up_to_symmetry(self) -> int:
        """Positions up to symmetry, by Burnside's lemma: the average number of positions
        each symmetry leaves unchanged (such a position is a union of the symmetry's cycles)."""
        _require_whole_group(self.geometry)
        symmetries = self.geometry.symmetry_group.perms
        total = self.positions()
        for permutation in symmetries[1:]:
            total += self._fixed_positions(_cycles(permutation))
        return total // len(symmetries)

    def _fixed_positions(self, cycles: list[Bitboard]) -> int:
        count = 0
        valid = self._valid

        def assign(index: int, x: Bitboard, o: Bitboard) -> None:
            nonlocal count
            if index == len(cycles):
                count += valid(x, o)
                return
            cycle = cycles[index]
            assign(index + 1, x, o)
            assign(index + 1, x | cycle, o)
            assign(index + 1, x, o | cycle)

        assign(0, 0, 0)
        return count

    def _valid(self, x: Bitboard, o: Bitboard) -> bool:
        """True if ``(x, o)`` is reachable with X moving first."""
        x_count, o_count = x.bit_count(), o.bit_count()
        if x_count - o_count not in (0, 1):
            return False
        x_line, o_line = self.has_line[x], self.has_line[o]
        if x_line and o_line:
            return False
        if x_line:
            return x_count == o_count + 1 and self.last_moves(x) > 0
        if o_line:
            return x_count == o_count and self.last_moves(o) > 0
        return True


def _require_whole_group(geometry: Geometry) -> None:
    if not geometry.symmetries_complete:
        raise TooLargeError(
            f"{geometry.name} has more than {len(geometry.symmetries)} symmetries; counts up "
            "to symmetry need the whole group"
        )


def _cycles(permutation: tuple[int, ...]) -> list[Bitboard]:
    seen = 0
    cycles = []
    for start in range(len(permutation)):
        if seen >> start & 1:
            continue
        cycle = 0
        cell = start
        while not cycle >> cell & 1:
            cycle |= 1 << cell
            cell = permutation[cell]
        seen |= cycle
        cycles.append(cycle)
    return cycles


def games_up_to_symmetry(geometry: Geometry) -> int:
    """Paths from the empty board to an end through positions up to symmetry.

    >>> games_up_to_symmetry(parse_variant("3x3"))
    26830
    """
    return walk_up_to_symmetry(geometry)[0]


def walk_up_to_symmetry(geometry: Geometry) -> tuple[int, int]:
    """``(games up to symmetry, positions up to symmetry)`` by walking the positions.

    Walks ply by ply with a dict from a canonical position to the number of paths
    reaching it; the positions count is a check on Burnside. A position packs as
    ``just_moved | to_move << cells`` (the marks of the player who just moved, and of
    the player to move), and its canonical form is the least packed image. All children
    of a position share the high part (the parent's waiting player's marks), so its
    least image and the few symmetries reaching it are found once per parent.

    >>> walk_up_to_symmetry(parse_variant("3x3"))
    (26830, 765)
    """
    cells = geometry.cells
    if cells > MAX_WALK_CELLS:
        raise TooLargeError(
            f"{geometry.name} has {cells} cells; games up to symmetry are limited to "
            f"boards of at most {MAX_WALK_CELLS} cells"
        )
    _require_whole_group(geometry)
    tables = geometry.symmetry_group.mask_images()
    full = geometry.full
    lines_through = geometry.lines_through

    level: dict[int, int] = {0: 1}
    total = 0
    positions = 0
    while level:
        following: dict[int, int] = {}
        finished: set[int] = set()  # canonical positions where the game just ended
        for packed, paths in level.items():
            waiting, mover = packed & full, packed >> cells
            empty = full & ~(waiting | mover)
            images = [table[waiting] for table in tables]
            least = min(images)
            high = least << cells
            best_tables = [tables[i] for i, image in enumerate(images) if image == least]
            children: set[int] = set()
            ended: set[int] = set()
            for cell in scan_forward(empty):
                bit = 1 << cell
                marks = mover | bit
                child = high | min([table[marks] for table in best_tables])
                if empty == bit or any(line & marks == line for line in lines_through[cell]):
                    ended.add(child)
                else:
                    children.add(child)
            total += paths * len(ended)
            finished |= ended
            for child in children:
                following[child] = following.get(child, 0) + paths
        positions += len(level) + len(finished)
        level = following
    return total, positions

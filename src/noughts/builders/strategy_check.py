"""Check a stored strategy with code of its own: nothing here uses the builder's search.

:func:`threat_win` is a plain forced-win checker: the side to move wins by a chain of
continuous threats (each attacking move makes a line one mark short of complete, the
defender's only answer is to block it, and the chain ends in a double threat or a
threat the defender cannot block while a block of the defender's own threat must
itself threaten). It works on bitboards and the list of lines, nothing more.

:func:`verify_strategy` walks the strategy from a position with the first player to
move: at each of its positions it checks the stored move is legal, then tries every
reply of the opponent; each must lead to a stored position or to one that
:func:`threat_win` proves. A proven entry whose subtree reaches an open entry or an
unproven position is a failure; open entries are counted as the frontier.

>>> from noughts.variants import variant
>>> g = variant("4x4x4")
>>> x = sum(1 << c for c in (0, 1, 6, 10))  # two lines of two cross on the empty cell 2
>>> o = sum(1 << c for c in (12, 15, 60, 63))
>>> threat_win(g.lines, g.k, x, o, x | o)
True
>>> threat_win(g.lines, g.k, 1, 0, 1)  # a lone mark threatens nothing
False
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from noughts.geometry import Bitboard
from noughts.knowledge.strategy import Found, Strategy
from noughts.position import Position

__all__ = ["threat_win", "verify_strategy", "check_entries", "Report", "CHECK_THREATS"]

CHECK_THREATS = 12
"""The most single threats the plain checker plays before the double threat that ends a
chain (as the threat search counts them)."""


def _completions(lines: tuple[Bitboard, ...], k: int, mine: Bitboard, theirs: Bitboard) -> set[int]:
    """The empty cells that would complete one of ``mine``'s lines."""
    cells = set()
    for line in lines:
        if not line & theirs and (line & mine).bit_count() == k - 1:
            cells.add((line & ~mine).bit_length() - 1)
    return cells


def threat_win(
    lines: tuple[Bitboard, ...],
    k: int,
    mine: Bitboard,
    theirs: Bitboard,
    occupied: Bitboard,
    depth: int = CHECK_THREATS,
    failed: set[tuple[int, int, int]] | None = None,
) -> bool:
    """Whether the side to move (``mine``) wins by at most ``depth`` continuous single
    threats and then a double threat (or a threat the defender cannot block) against
    ``theirs``. ``failed`` remembers positions already shown not to win."""
    if _completions(lines, k, mine, theirs):
        return True
    blocks = _completions(lines, k, theirs, mine)
    return _chain(lines, _lines_through(lines), k, mine, theirs, blocks, depth,
                  set() if failed is None else failed)


def _chain(
    lines: tuple[Bitboard, ...],
    through: dict[int, list[Bitboard]],
    k: int,
    mine: Bitboard,
    theirs: Bitboard,
    blocks: set[int],
    depth: int,
    failed: set[tuple[int, int, int]],
) -> bool:
    """:func:`threat_win` once the side to move is known to complete no line now;
    ``blocks`` are the cells that would complete one of the defender's."""
    if len(blocks) >= 2:
        return False
    if (mine, theirs, depth) in failed:
        return False
    candidates = blocks or _threatening_cells(lines, k, mine, theirs)
    for cell in candidates:
        if blocks - {cell}:
            continue  # the defender completes a line first
        after = mine | 1 << cell
        # the side to move completed no line before: only lines through the cell can now
        made = {(line & ~after).bit_length() - 1 for line in through[cell]
                if not line & theirs and (line & after).bit_count() == k - 1}
        if not made:
            continue
        if len(made) >= 2:
            return True  # a double threat ends the chain, however long it was
        if depth == 0:
            continue
        reply = next(iter(made))
        replied = theirs | 1 << reply
        # the defender's lines one short now: the cell took any it had, the reply may add
        threats = {(line & ~replied).bit_length() - 1 for line in through[reply]
                   if not line & after and (line & replied).bit_count() == k - 1}
        if _chain(lines, through, k, after, replied, threats, depth - 1, failed):
            return True
    failed.add((mine, theirs, depth))
    return False


@cache
def _lines_through(lines: tuple[Bitboard, ...]) -> dict[int, list[Bitboard]]:
    """For each cell, the lines through it."""
    through: dict[int, list[Bitboard]] = {}
    for line in lines:
        rest = line
        while rest:
            low = rest & -rest
            rest ^= low
            through.setdefault(low.bit_length() - 1, []).append(line)
    return through


def _threatening_cells(
    lines: tuple[Bitboard, ...], k: int, mine: Bitboard, theirs: Bitboard
) -> set[int]:
    """Empty cells on a line holding ``k-2`` of ``mine`` and none of ``theirs``."""
    cells = set()
    for line in lines:
        if not line & theirs and (line & mine).bit_count() == k - 2:
            rest = line & ~mine
            while rest:
                low = rest & -rest
                rest ^= low
                cells.add(low.bit_length() - 1)
    return cells


@dataclass
class Report:
    """What a verification met: positions of the strategy checked, leaves proven by
    threats, open entries and unsolved positions (the frontier), and failures."""

    checked: int = 0
    threat_leaves: int = 0
    open_entries: int = 0
    unsolved: int = 0
    failures: list[str] = field(default_factory=list)
    root_proven: bool = False
    by_plies: dict[int, list[int]] = field(default_factory=dict)
    """plies played -> [positions met, positions won] (first player to move, up to
    symmetry)."""

    @property
    def ok(self) -> bool:
        """No proven claim failed."""
        return not self.failures

    def as_json(self) -> dict[str, object]:
        """The report as plain JSON values."""
        return {
            "ok": self.ok, "complete": self.root_proven and self.ok, "checked": self.checked,
            "threat_leaves": self.threat_leaves, "open_entries": self.open_entries,
            "unsolved": self.unsolved, "failures": self.failures[:20],
            "by_plies": {str(ply): {"positions": met, "won": won}
                         for ply, (met, won) in sorted(self.by_plies.items())},
        }


def verify_strategy(
    strategy: Strategy,
    root: Position | None = None,
    *,
    progress: Callable[[Report], None] | None = None,
) -> Report:
    """Walk ``strategy`` from ``root`` (the empty board by default) through every reply
    of the opponent; see the module docstring."""
    geometry = strategy.geometry
    start = root if root is not None else Position("", geometry)
    report = Report()
    seen: dict[tuple[int, int], bool] = {}
    found = strategy.lookup(start)
    report.root_proven = bool(found and found.proven)
    _walk(strategy, start, report, seen, claimed=False, progress=progress)
    return report


def _walk(
    strategy: Strategy,
    position: Position,
    report: Report,
    seen: dict[tuple[int, int], bool],
    *,
    claimed: bool,
    progress: Callable[[Report], None] | None,
    placed: tuple[tuple[int, int], int] | None = None,
) -> bool:
    """Check the position (first player to move) once; True if it is proven won.
    ``placed`` is its :meth:`Strategy.key`, when the caller has it already."""
    (x, o), symmetry = placed if placed is not None else strategy.key(position)
    if (x, o) in seen:
        return seen[(x, o)]
    seen[(x, o)] = False
    found = strategy.found_at((x, o), symmetry)
    won = _check(strategy, position, found, report, claimed=claimed,
                 visit=lambda child, claim, at: _walk(strategy, child, report, seen,
                                                      claimed=claim, progress=progress,
                                                      placed=at))
    if found is not None and progress is not None and report.checked % 100 == 0:
        progress(report)
    seen[(x, o)] = won
    counts = report.by_plies.setdefault(position.ply, [0, 0])
    counts[0] += 1
    counts[1] += won
    return won


def _check(
    strategy: Strategy,
    position: Position,
    found: Found | None,
    report: Report,
    *,
    claimed: bool,
    visit: Callable[[Position, bool, tuple[tuple[int, int], int]], bool],
) -> bool:
    """Whether the position (first player to move) is won: by a threat chain if it is
    not stored, else by its stored move, every reply (one per symmetry class) going to
    ``visit(child, claimed, its strategy key)``."""
    geometry = strategy.geometry
    lines, k = geometry.lines, geometry.k
    me, them = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
    if found is None:
        if threat_win(lines, k, me, them, me | them):
            report.threat_leaves += 1
            return True
        report.unsolved += 1
        if claimed:
            report.failures.append(f"{position.board}: not stored and no threat win")
        return False
    report.checked += 1
    if not found.proven:
        report.open_entries += 1
    if found.move not in position.legal_moves:
        report.failures.append(f"{position.board}: stored move {found.move} is illegal")
        return False
    after = position.play(found.move)
    if after.winner is not None:
        return True
    if after.is_over:
        report.failures.append(f"{position.board}: stored move {found.move} draws")
        return False
    won = True
    replies: set[tuple[int, int]] = set()
    for reply in after.legal_moves:
        child = after.play(reply)
        if child.is_over:
            if found.proven or claimed:
                report.failures.append(
                    f"{position.board}: after {found.move}, {reply} ends the game"
                )
            won = False
            continue
        placed = strategy.key(child)
        if placed[0] in replies:
            continue
        replies.add(placed[0])
        if not visit(child, claimed or found.proven, placed):
            won = False
    if found.proven and not won:
        report.failures.append(f"{position.board}: stored as proven, but not every reply is won")
    return won


def check_entries(strategy: Strategy, count: int, seed: int = 0) -> Report:
    """Check ``count`` proven entries drawn at random, each one step deep: its move is
    legal and every reply leads to a stored proven entry or a threat win."""
    rng = random.Random(seed)
    proven = [key for key, entry in strategy.entries.items() if entry.proven]
    report = Report()
    geometry = strategy.geometry

    def one_step(child: Position, claimed: bool, placed: tuple[tuple[int, int], int]) -> bool:
        stored = strategy.found_at(*placed)
        if stored is not None and stored.proven:
            return stored.move in child.legal_moves
        return _check(strategy, child, None, report, claimed=claimed, visit=one_step)

    for x, o in rng.sample(proven, min(count, len(proven))):
        position = Position.from_bitboards(x, o, geometry)
        _check(strategy, position, strategy.lookup(position), report, claimed=True,
               visit=one_step)
    return report

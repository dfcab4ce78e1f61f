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

The compiled core (:mod:`noughts.search.core`) holds a port of this checker, its walk
and its threat checker, written apart from the searches it checks. Where the compiled
core runs, :func:`verify_strategy` and :func:`check_entries` run that port (``core=``
asks for one); it gives the same :class:`Report`, and the Python code here stays the
reference.

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
from functools import cache, lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

from noughts.errors import NoughtsError
from noughts.geometry import Bitboard, Geometry
from noughts.knowledge.strategy import Found, Strategy
from noughts.notation import format_board
from noughts.position import Position

if TYPE_CHECKING:
    from noughts.search.core import Core

__all__ = ["threat_win", "verify_strategy", "check_entries", "Report", "CHECK_THREATS"]

CHECK_THREATS = 12
"""The most single threats the plain checker plays before the double threat that ends a
chain (as the threat search counts them)."""


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
    return bool(_winning_moves(lines, k, mine, theirs, depth, failed))


def _winning_moves(
    lines: tuple[Bitboard, ...],
    k: int,
    mine: Bitboard,
    theirs: Bitboard,
    depth: int = CHECK_THREATS,
    failed: set[tuple[int, int, int]] | None = None,
    first: Bitboard = 0,
) -> Bitboard:
    """:func:`threat_win`'s chain: the cells the side to move plays in it (0 for none).
    Threats on the cells of ``first`` are tried first (which changes only how soon a
    chain is found)."""
    blocks = 0  # the cells that would complete one of the defender's lines
    twos = []  # the attacker's lines one mark short of a threat
    for line in lines:
        if line & theirs:
            if not line & mine and (line & theirs).bit_count() == k - 1:
                blocks |= line & ~theirs
            continue
        marks = (line & mine).bit_count()
        if marks == k - 1:
            return line & ~mine  # the side to move completes a line now
        if marks == k - 2:
            twos.append(line)
    return _chain(_lines_through(lines), k, mine, theirs, twos, blocks, depth,
                  set() if failed is None else failed, first)


def _chain(
    through: dict[Bitboard, list[Bitboard]],
    k: int,
    mine: Bitboard,
    theirs: Bitboard,
    twos: list[Bitboard],
    blocks: Bitboard,
    depth: int,
    failed: set[tuple[int, int, int]],
    first: Bitboard,
) -> Bitboard:
    """:func:`_winning_moves` once the side to move is known to complete no line now:
    ``twos`` are its lines one mark short of a threat (``k - 2`` of ``mine``, none of
    ``theirs``), ``blocks`` the cells that would complete one of the defender's."""
    if blocks & (blocks - 1):
        return 0  # the defender completes a line first
    if (mine, theirs, depth) in failed:
        return 0
    # each cell a threat can be made on, and the cells its new threats would complete
    partners: dict[Bitboard, Bitboard] = {}
    for line in twos:
        cells = line & ~mine
        if blocks and not cells & blocks:
            continue  # the defender threatens: the attacker must block it
        low = cells & -cells
        partners[low] = partners.get(low, 0) | cells ^ low
        partners[cells ^ low] = partners.get(cells ^ low, 0) | low
    if blocks:
        partners = {blocks: partners[blocks]} if blocks in partners else {}
    for move, made in partners.items():
        if made & (made - 1):
            return move  # a double threat ends the chain, however long it was
    if depth:
        moves = [move for move in partners if move & first]
        moves += [move for move in partners if not move & first]
        for move in moves:
            reply = partners[move]
            after, replied = mine | move, theirs | reply
            # the defender's lines one short now: the move took any it had, the reply
            # may add some
            threats = 0
            for line in through[reply]:
                if not line & after and (line & replied).bit_count() == k - 1:
                    threats |= line & ~replied
            if threats & (threats - 1):
                continue
            # the attacker's lines one short of a threat: those the two moves left
            # alone, and those the move brought there
            gone = move | reply
            kept = [line for line in twos if not line & gone]
            kept += [line for line in through[move]
                     if not line & replied and (line & after).bit_count() == k - 2]
            chain = _chain(through, k, after, replied, kept, threats, depth - 1, failed, first)
            if chain:
                return chain | move
    failed.add((mine, theirs, depth))
    return 0


@cache
def _lines_through(lines: tuple[Bitboard, ...]) -> dict[Bitboard, list[Bitboard]]:
    """For each cell (as its bit), the lines through it."""
    through: dict[Bitboard, list[Bitboard]] = {}
    for line in lines:
        rest = line
        while rest:
            low = rest & -rest
            rest ^= low
            through.setdefault(low, []).append(line)
    return through


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
    core: Core | None = None,
) -> Report:
    """Walk ``strategy`` from ``root`` (the empty board by default) through every reply
    of the opponent; see the module docstring. ``progress`` gets the report so far after
    every hundredth stored position checked. ``core`` picks the checker (by default the
    compiled one where the compiled core runs)."""
    start = root if root is not None else Position("", strategy.geometry)
    walk = _Walk(strategy, Report(), start.to_move, progress)
    me, them = start.marks(start.to_move), start.marks(start.last_mover)
    placed = walk.key(me, them)
    found = walk.found(*placed)
    legal = 0 if start.winner is not None else start.empty
    root_proven = bool(found and found.proven)
    compiled = _compiled_checker(core, strategy.geometry)
    if compiled is None:
        walk.report.root_proven = root_proven
        walk.walk(me, them, False, placed, legal)
        return walk.report
    module, tables = compiled

    def report_progress(so_far: _CompiledReport) -> None:
        assert progress is not None
        progress(_report(strategy.geometry, so_far, root_proven=root_proven))

    result = module.verify_strategy(tables, strategy.records(), start.x, start.o,
                                    start.to_move == "X", legal, CHECK_THREATS,
                                    None if progress is None else report_progress)
    return _report(strategy.geometry, result, root_proven=root_proven)


def check_entries(strategy: Strategy, count: int, seed: int = 0, *,
                  core: Core | None = None) -> Report:
    """Check ``count`` proven entries drawn at random, each one step deep: its move is
    legal and every reply leads to a stored proven entry or a threat win. ``core`` as
    for :func:`verify_strategy`."""
    rng = random.Random(seed)
    proven = [key for key, entry in strategy.entries.items() if entry.proven]
    positions = [Position.from_bitboards(x, o, strategy.geometry)
                 for x, o in rng.sample(proven, min(count, len(proven)))]
    compiled = _compiled_checker(core, strategy.geometry)
    if compiled is None:
        report = Report()
        for position in positions:
            _check_one_step(strategy, position, report)
        return report
    module, tables = compiled
    result = module.check_entries(
        tables, strategy.records(),
        [(position.x, position.o, position.to_move == "X",
          0 if position.winner is not None else position.empty) for position in positions],
        CHECK_THREATS)
    return _report(strategy.geometry, result)


def _check_one_step(strategy: Strategy, position: Position, report: Report) -> None:
    """Check ``position``'s entry: its move is legal and every reply leads to a stored
    proven entry (whose move is legal) or a threat win."""
    walk = _Walk(strategy, report, position.to_move)
    full = walk.full

    def one_step(me: Bitboard, them: Bitboard, claimed: bool, placed: tuple[Key, int]) -> bool:
        stored = walk.found(*placed)
        if stored is not None and stored.proven:
            return bool((full & ~(me | them)) >> stored.move & 1)
        return walk.check(me, them, None, claimed, one_step)

    me, them = position.marks(position.to_move), position.marks(position.last_mover)
    walk.check(me, them, walk.found(*walk.key(me, them)), True, one_step,
               0 if position.winner is not None else position.empty)


Key = tuple[int, int]
Visit = Callable[[Bitboard, Bitboard, bool, tuple[Key, int]], bool]
"""What :meth:`_Walk.check` does with a reply: ``visit(me, them, claimed, (key,
symmetry))`` for the position after it, True if that position is won."""

_FAILURES = (
    "not stored and no threat win",
    "stored move {move} is illegal",
    "stored move {move} draws",
    "after {move}, {reply} ends the game",
    "stored as proven, but not every reply is won",
)
"""What a failure says after the board, by kind (the compiled checker gives the kind's
number)."""
NOT_STORED, ILLEGAL, DRAWS, ENDS, NOT_EVERY_REPLY = range(len(_FAILURES))


def _failure(geometry: Geometry, x: Bitboard, o: Bitboard, kind: int, move: int = -1,
             reply: int = -1) -> str:
    """A failure's line: the board, then what failed there."""
    return f"{format_board(x, o, geometry)}: {_FAILURES[kind].format(move=move, reply=reply)}"


class _Walk:
    """One check of a strategy, filling ``report``. A position is two bitboards: the
    marks of the side the strategy plays (``mover``, always to move) and the other's."""

    def __init__(
        self, strategy: Strategy, report: Report, mover: str,
        progress: Callable[[Report], None] | None = None,
    ) -> None:
        geometry = strategy.geometry
        self.strategy, self.report, self.progress = strategy, report, progress
        self.geometry, self.lines, self.k = geometry, geometry.lines, geometry.k
        self.full = geometry.full
        self.through = _lines_through(geometry.lines)
        self.group = geometry.symmetry_group
        self.x_moves = mover == "X"
        self.seen: dict[Key, bool] = {}
        self.hint: Bitboard = 0
        """The cells of the last threat chain found: tried first in the next one."""

    def key(self, me: Bitboard, them: Bitboard) -> tuple[Key, int]:
        """The position's :meth:`Strategy.key` and the symmetry that maps it there."""
        x, o, symmetry = self.group.canonical(*((me, them) if self.x_moves else (them, me)))
        return (x, o), symmetry

    def reply_keys(self, me: Bitboard, them: Bitboard) -> Callable[[int], tuple[Key, int]]:
        """:meth:`key` of the positions after the opponent's replies, by reply."""
        each = self.group.child_canonical(*((me, them, 1) if self.x_moves else (them, me, 0)))

        def key(reply: int) -> tuple[Key, int]:
            x, o, symmetry = each(reply)
            return (x, o), symmetry

        return key

    def found(self, key: Key, symmetry: int) -> Found | None:
        """:meth:`Strategy.found_at`, but a stored move off the board (a damaged file)
        stays as stored, an illegal move, instead of failing to map."""
        entry = self.strategy.get(key)
        if entry is None:
            return None
        move = entry.move
        if move < self.geometry.cells:
            move = self.strategy.from_canonical(symmetry, move)
        return Found(move, entry.proven, entry.plies)

    def fail(self, me: Bitboard, them: Bitboard, kind: int, move: int = -1,
             reply: int = -1) -> None:
        """Record a failure of ``kind`` at the position."""
        x, o = (me, them) if self.x_moves else (them, me)
        self.report.failures.append(_failure(self.geometry, x, o, kind, move, reply))

    def completes(self, marks: Bitboard, bit: Bitboard) -> bool:
        """Whether ``marks`` complete a line through the cell ``bit``."""
        return any(line & marks == line for line in self.through[bit])

    def walk(self, me: Bitboard, them: Bitboard, claimed: bool, placed: tuple[Key, int],
             legal: Bitboard | None = None) -> bool:
        """Check the position once (``placed`` is its key and symmetry); True if it is
        proven won. ``legal``: its legal moves when they are not its empty cells."""
        key, symmetry = placed
        seen = self.seen
        if key in seen:
            return seen[key]
        seen[key] = False
        found = self.found(key, symmetry)
        won = self.check(me, them, found, claimed, self.walk, legal)
        report = self.report
        if found is not None and self.progress is not None and report.checked % 100 == 0:
            self.progress(report)
        seen[key] = won
        counts = report.by_plies.setdefault((me | them).bit_count(), [0, 0])
        counts[0] += 1
        counts[1] += won
        return won

    def check(self, me: Bitboard, them: Bitboard, found: Found | None, claimed: bool,
              visit: Visit, legal: Bitboard | None = None) -> bool:
        """Whether the position is won: by a threat chain if it is not stored, else by
        its stored move, every reply (one per symmetry class) going to ``visit``."""
        report = self.report
        if found is None:
            chain = _winning_moves(self.lines, self.k, me, them, first=self.hint)
            if chain:
                self.hint = chain
                report.threat_leaves += 1
                return True
            report.unsolved += 1
            if claimed:
                self.fail(me, them, NOT_STORED)
            return False
        report.checked += 1
        if not found.proven:
            report.open_entries += 1
        move = found.move
        empty = self.full & ~(me | them)
        if not (empty if legal is None else legal) >> move & 1:
            self.fail(me, them, ILLEGAL, move)
            return False
        played = 1 << move
        after = me | played
        if self.completes(after, played):
            return True
        empty ^= played
        if not empty:
            self.fail(me, them, DRAWS, move)
            return False
        claim = claimed or found.proven
        won = True
        replies: set[Key] = set()
        reply_key = self.reply_keys(after, them)
        rest = empty
        while rest:
            bit = rest & -rest
            rest ^= bit
            replied = them | bit
            if bit == empty or self.completes(replied, bit):  # the reply ends the game
                if claim:
                    self.fail(me, them, ENDS, move, bit.bit_length() - 1)
                won = False
                continue
            placed = reply_key(bit.bit_length() - 1)
            if placed[0] in replies:
                continue
            replies.add(placed[0])
            if not visit(after, replied, claim, placed):
                won = False
        if found.proven and not won:
            self.fail(me, them, NOT_EVERY_REPLY)
        return won


# -- the compiled checker ----------------------------------------------------------------
_CompiledReport = tuple[int, int, int, int, list[tuple[int, int, int, int, int]],
                        dict[int, list[int]]]
"""What the compiled checker gives: checked, threat_leaves, open_entries, unsolved, the
failures as (x, o, kind, move, reply), by_plies."""
def _compiled_checker(core: Core | None, geometry: Geometry) -> tuple[ModuleType, object] | None:
    """The compiled core and its tables of ``geometry`` for the checker, or ``None`` for
    the Python checker: where the compiled core does not run (or ``core`` is
    ``"python"``), on boards it does not take (:func:`~noughts.search.core.fits_compiled`,
    and more symmetries than its ``MAX_SYMMETRIES``), and where its build predates the
    checker (``core="compiled"`` then raises :class:`NoughtsError`)."""
    from noughts.search.core import core_module

    module = core_module(core, geometry)
    if module is None:
        return None
    if not hasattr(module, "verify_strategy"):
        if core == "compiled":
            raise NoughtsError("the compiled core was built without the strategy checker: "
                               "build it again")
        return None
    if geometry.symmetry_group.count > module.MAX_SYMMETRIES:
        return None
    return module, _checker_tables(geometry)


@lru_cache(maxsize=8)
def _checker_tables(geometry: Geometry) -> object:
    """The compiled core's tables of ``geometry`` with every symmetry of its group, in
    the group's order (the strategy's keys are made with them all)."""
    from noughts.search.core import built

    module = built()
    assert module is not None
    index = {line: i for i, line in enumerate(geometry.lines)}
    through = tuple(tuple(index[line] for line in geometry.lines_through[cell])
                    for cell in range(geometry.cells))
    unhashed = (0,) * geometry.cells  # (the checker hashes nothing)
    return module.Tables(geometry.cells, geometry.k, geometry.lines, through,
                         geometry.symmetry_group.perms, unhashed, unhashed)


def _report(geometry: Geometry, result: _CompiledReport, *, root_proven: bool = False) -> Report:
    """The compiled checker's report as a :class:`Report`."""
    checked, threat_leaves, open_entries, unsolved, failures, by_plies = result
    return Report(checked=checked, threat_leaves=threat_leaves, open_entries=open_entries,
                  unsolved=unsolved, root_proven=root_proven, by_plies=by_plies,
                  failures=[_failure(geometry, *failure) for failure in failures])

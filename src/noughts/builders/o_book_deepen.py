"""Deepen the Qubic O book: check its later moves by deep proof searches, answer more of
X's third moves by proof, and decide O's moves on the lines of games against X players.

It runs on the builder's book (:mod:`noughts.builders.o_book`) and decides these
positions:

- every book position with at least ``--from-marks`` marks (5: O's third move on);
- with ``--x-moves K``, the positions after X's K likeliest third moves (by X's own
  short search without the strategy, ``--x-nodes`` nodes) in each line after O's second
  book move, for X's first cells of ``--firsts`` (0 a corner or centre, 1 another cell);
- with ``--line-players``, the positions O meets in games against those X players
  (never a member of the family benchmark or of the players outside it), X's first mark
  on each of ``--line-cells``, up to ``--line-plies`` plies: O plays the book, then each
  position's decision, made as a game reaches it (a forced move, a win or a block, is
  played, not decided); from ply ``--line-branch-from`` on, X's ``--line-branch``
  likeliest moves are followed, not only its player's. Every decided move on these
  lines is stored (with ``--line-unrefuted``, only those no check refuted or games
  chose), so that O at a second a move follows the lines that were checked.

In each position the first candidate is the book's move or, where the book has none,
the engine's own (``--own-nodes`` nodes, about its move in play); then every class of
reply in the engine's order (a short search of ``--o-nodes`` nodes). Each is checked by
a proof search from X's side of at most ``--check`` positions, and the first with no
forced win of X's found is kept (:meth:`noughts.search.defence.ProofDefence.choose`).
The first candidate is replaced only if its refutation took at most
``--replace-within`` proof positions: the fallible players O meets seldom find a deeper
one. Where the ``--max-checks`` candidates are all refuted, ``--lost-checks N`` checks
the rest (up to N in all) for a reply no proof refutes. Where every reply checked is
lost, the hardest to refute is kept or, with ``--lost-games G``, the first candidate and
the hardest others to refute (``--lost-candidates`` in all) are ranked by the builder's
games against the X players its book was built against (G each, the best two G more;
kept in the ``lost_games`` part of the checkpoint, or in ``--lost-checkpoint``). A book
move that stays keeps its games; a move chosen by proof has none (O's note says so);
where the engine's own move stands, nothing is stored, but on the lines. Entries that
no line of the book reaches any more are dropped.

Resumable and deterministic (node budgets only): every decision, X player's move and
ranking of X's moves goes to the ``deep`` part of ``--checkpoint`` as it is made
(checks made before are reused), and a new run decides only what is not there.

The shipped book: the builder's command (in :mod:`noughts.builders.o_book`) writes the
builder's book to ``src/noughts/data/qubic-o-book.json.gz``; then, from the
repository's root, with the records in the default checkpoint, this command writes the
shipped book over it in seconds, every decision recalled::

    python scripts/deepen_o_book.py --x-moves 10 --workers 2 --line-unrefuted \
        --line-players level:10:no-strategy@10000,level:10:no-strategy@50000,\
level:10:no-strategy@200000 --lost-games 12 --lost-checks 64

The steps that led to these options, and the books built with others, are in
docs/qubic-o-results.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from pathlib import Path
from typing import Any, NamedTuple

from noughts.arena.family import member_player
from noughts.budget import Limit
from noughts.builders.checkpoint import SAVE_EVERY, Checkpoint
from noughts.builders.o_book import (
    BOOK,
    CHECKPOINT,
    NO_O_BOOK,
    Builder,
    canonical,
    classes,
    key_text,
    numbers,
    ranked,
    refuse_measured,
)
from noughts.builders.o_book import parser as builder_parser
from noughts.engine import choose_move
from noughts.geometry import scan_forward
from noughts.knowledge.obook import OBook
from noughts.position import Position
from noughts.runtime.atomic import write_if_changed
from noughts.search.defence import ProofDefence

PART = "deep"
"""The checkpoint's part that holds the deep step's decisions."""
LOST_PART = "lost_games"
"""The checkpoint's part that holds the games that rank the replies of lost positions."""


Check = list[Any]
"""A check's record: the move, the plies of X's proven win after it (``None``: no win
found) and the proof positions that found it."""


def decide(position: Position, book_reply: int | None, args: argparse.Namespace,
           known: list[Check] | None = None) -> dict[str, Any]:
    """O's reply in ``position`` by proof, and the record of its checks (``known``:
    checks made before, reused by the class of position they lead to).

    The candidates are the book's move or, with none, the engine's own (``--own-nodes``
    nodes), then the engine's order; the first after which the proof search finds no
    forced win for X is kept, the hardest to refute when every one is refuted
    (:meth:`ProofDefence.choose`). Where the book has no move and the engine's own
    stands, no move is kept (``None``): the engine plays it in play anyway.
    """
    start = time.perf_counter()
    own = None
    if book_reply is None:
        own = choose_move(position, nodes=args.own_nodes, seed=1, knowledge=NO_O_BOOK).move
        first = own
    else:
        first = book_reply
    every = classes(position, [first, *ranked(position, args.o_nodes)])
    candidates = every[: args.max_checks]
    defence = ProofDefence(position, Limit(), check_nodes=args.check)
    made = {canonical(position.play(move)): (plies, effort)
            for move, plies, effort in known or []}
    for move in every[: max(args.max_checks, args.lost_checks)]:
        plies, effort = made.get(canonical(position.play(move)), (0, 0))
        if plies is None:
            defence.unrefuted.add(move)
        elif plies:
            defence.refuted[move], defence.effort[move] = plies, effort
    kept: int | None = defence.choose(candidates)

    def made_checks(moves: list[int]) -> list[Check]:
        return [[move, defence.refuted.get(move), defence.effort.get(move, 0)]
                for move in moves if move in defence.refuted or move in defence.unrefuted]

    record: dict[str, Any] = {"book": book_reply, "own": own, "checks": made_checks(candidates)}
    if kept in defence.refuted and args.lost_checks > len(candidates):
        more = every[len(candidates): args.lost_checks]  # a way out among the rest?
        escape = defence.choose(more) if more else kept
        record.update(more_checks=made_checks(more), lost_checks=args.lost_checks)
        if escape not in defence.refuted:
            kept = escape
    if kept == own:
        kept = None  # the engine's own move stands: nothing to store
    return {"move": kept, **record, "seconds": round(time.perf_counter() - start, 1)}


def _decide(job: tuple[int, int, int | None, list[Check] | None, argparse.Namespace]
            ) -> tuple[str, dict[str, Any]]:
    """A worker's decision (X's and O's bitboards, the book's reply, checks made before,
    the settings)."""
    x, o, book_reply, known, args = job
    position = Position.from_bitboards(x, o, "qubic")
    return key_text(position), decide(position, book_reply, args, known)


def _x_ranked(job: tuple[int, int, int]) -> tuple[int, int, list[int]]:
    """A worker's ranking of X's moves (X's and O's bitboards, nodes)."""
    x, o, nodes = job
    return x, o, ranked(Position.from_bitboards(x, o, "qubic"), nodes)


def line_key(position: Position, nodes: int) -> str:
    """The key of X's ranking of its moves in ``position`` by a short search of ``nodes``
    nodes: the position as played (the ranking's moves are in its orientation).

    >>> line_key(Position("", "qubic").play(0).play(42), 300_000)
    '1 40000000000@300000'
    """
    return f"{position.x:x} {position.o:x}@{nodes}"


def scope(book: OBook, args: argparse.Namespace, pool: Any,
          line_ranks: dict[str, list[int]]) -> list[Position]:
    """The positions to decide, each in its canonical orientation (so that a decision's
    moves are in its key's): the book's from ``--from-marks`` marks on, then those
    after X's ``--x-moves`` likeliest third moves (by line, X's likeliest first). X's
    rankings of its third moves are kept in ``line_ranks`` (those missing made first)."""
    positions = {key: Position.from_bitboards(*key, "qubic") for key in book.entries
                 if (key[0] | key[1]).bit_count() >= args.from_marks}
    empty = Position("", "qubic")
    lines: list[Position] = []  # X to move after O's second book move
    for first in classes(empty, list(range(64))):
        if first not in args.firsts:
            continue
        opened = empty.play(first)
        reply = book.lookup(opened)
        if reply is None:
            continue
        answered = opened.play(reply.move)
        for second in classes(answered, list(answered.legal_moves)):
            before = answered.play(second)
            again = book.lookup(before)
            if again is not None:
                lines.append(before.play(again.move))
    if not args.x_moves:
        lines = []
    jobs = [(p.x, p.o, args.x_nodes) for p in lines
            if line_key(p, args.x_nodes) not in line_ranks]
    line_ranks.update((line_key(Position.from_bitboards(x, o, "qubic"), args.x_nodes), order)
                      for x, o, order in pool.imap(_x_ranked, jobs))
    for rank in range(args.x_moves):
        for line in lines:
            order = line_ranks[line_key(line, args.x_nodes)]
            if rank < len(order):
                after = line.play(order[rank])
                if not after.is_over:
                    key = canonical(after)
                    positions.setdefault(key, Position.from_bitboards(*key, "qubic"))
    return list(positions.values())


def lost(record: dict[str, Any]) -> bool:
    """Whether a decision's checks refuted every reply they tried (``more_checks``, those
    of ``--lost-checks``, included)."""
    return all(plies is not None for _, plies, _ in all_checks(record))


def all_checks(record: dict[str, Any]) -> list[Check]:
    """A decision's checks: its first candidates', then those of ``--lost-checks``."""
    return [*record["checks"], *record.get("more_checks", [])]


def checks_current(record: dict[str, Any] | None, lost_checks: int) -> bool:
    """Whether a decision was made with the checks asked for: not if there is none (or
    one of an older kind, with no engine's own move), nor if every reply it checked is
    lost and ``--lost-checks`` now asks for more than it made.

    >>> record = {"own": 5, "checks": [[5, 9, 100]]}
    >>> checks_current(record, 0), checks_current(record, 20)
    (True, False)
    >>> checks_current({**record, "lost_checks": 20}, 20)
    True
    """
    if record is None or "own" not in record:
        return False
    return not lost(record) or record.get("lost_checks", 0) >= lost_checks


def games_candidates(position: Position, record: dict[str, Any], size: int) -> list[int]:
    """Where every reply checked is lost, the replies games rank: the first candidate
    (the book's move, else the engine's own) and the others hardest to refute, ``size``
    classes in all."""
    first = record["own"] if record["book"] is None else record["book"]
    hardest = [check[0] for check in sorted(record["checks"], key=lambda check: -check[2])]
    return classes(position, [first, *hardest])[:size]


def games_current(position: Position, record: dict[str, Any], size: int,
                  margin: float = 0.0) -> bool:
    """Whether games ranked a lost decision's :func:`games_candidates` (``position`` in
    its canonical orientation) by the builder's rule with ``margin``
    (:func:`~noughts.builders.o_book.kept_reply`): not if they ranked none, or other
    candidates, or by another margin."""
    return ("games" in record
            and record["games"]["candidates"] == games_candidates(position, record, size)
            and record["games"].get("margin", 0.0) == margin)


def games_margin(book: OBook) -> float:
    """The ``--margin`` the builder's book was ranked by (0 unless it says), which the
    games that rank lost positions follow too."""
    return float(book.built.get("margin", 0.0))


def by_games(builder: Builder, position: Position, record: dict[str, Any],
             size: int) -> dict[str, Any]:
    """The :func:`games_candidates` ranked by ``builder``'s games against its fallible
    X players (its rule: a reply its short check refutes drops out if another survives
    it): the move kept, the candidates, and the games the kept move played and O's
    points in them."""
    candidates = games_candidates(position, record, size)
    builder.keep_moves(key_text(position), position, candidates)
    move = builder.decide(position, every_class=False)
    builder.save()  # (its last games' records)
    entry = builder.book.lookup(position)
    assert move is not None and entry is not None
    ranked = {"move": move, "candidates": candidates, "games": entry.games,
              "score": entry.score}
    return ranked | ({"margin": builder.args.margin} if builder.args.margin > 0 else {})


def stored_games(record: dict[str, Any], games: bool) -> tuple[int, float]:
    """The games and O's points a decision's move is stored with: with ``games``, those
    of the games that chose it, if games ranked the replies; else none (chosen by
    proof: O's note says so).

    >>> stored_games({"games": {"move": 5, "games": 24, "score": 17.5}}, True)
    (24, 17.5)
    >>> stored_games({"games": {"move": 5, "games": 24, "score": 17.5}}, False)
    (0, 0.0)
    """
    if games and "games" in record:
        return int(record["games"]["games"]), float(record["games"]["score"])
    return 0, 0.0


def chosen(record: dict[str, Any], replace_within: int, games: bool = False) -> int | None:
    """The move a decision keeps: with ``games``, where games ranked the replies (every
    one checked lost), the games' choice; else its first candidate (the book's move,
    else the engine's own) unless that was refuted within ``replace_within`` proof
    positions, then the move the checks chose; where the first candidates were all
    refuted and ``--lost-checks`` found a reply no proof refutes, that reply."""
    if games and "games" in record:
        return int(record["games"]["move"])
    first: int | None = record["own"] if record["book"] is None else record["book"]
    _, plies, effort = record["checks"][0]
    escaped = "more_checks" in record and not lost(record)
    if not escaped and (record["move"] is None or (plies is not None
                                                   and effort > replace_within)):
        return first  # standing, or refuted only by a deep proof: kept
    return int(record["move"])


def refuted(record: dict[str, Any], move: int | None) -> bool:
    """Whether a decision's checks found a forced win for X after ``move``.

    >>> refuted({"checks": [[2, 9, 600_000], [7, None, 0]]}, 2)
    True
    >>> refuted({"checks": [[2, 9, 600_000], [7, None, 0]]}, 7)
    False
    """
    return any(check[0] == move and check[1] is not None for check in all_checks(record))


def forced_move(position: Position) -> int | None:
    """The cell the side to move must take, if any: where it completes a line, else
    where the opponent would.

    >>> forced_move(Position.from_bitboards(0b111 | 1 << 20, 0b110000 | 1 << 16, "qubic"))
    3
    >>> forced_move(Position.from_bitboards(0b111 | 1 << 20 | 1 << 21, 0b1110000 | 1 << 8,
    ...                                     "qubic"))  # O wins on 7 rather than block 3
    7
    """
    mine, theirs = ((position.x, position.o) if position.to_move == "X"
                    else (position.o, position.x))
    for marks in (mine, theirs):
        finishing = position.geometry.completing(marks, position.empty)
        if finishing:
            return finishing[0]
    return None


class Walk(NamedTuple):
    """What a walk of the lines met: the X players' moves, X's rankings and the O
    decisions it waits for (each by its key), and the positions where O played a
    decision."""

    x_moves: dict[str, tuple[str, int, int]]
    x_ranks: dict[str, tuple[int, int]]
    o_positions: dict[str, Position]
    met: list[Position]


class Lines:
    """Games of O against X players (``--line-players``, X's first mark on each of
    ``--line-cells``) up to ``--line-plies`` plies: O plays the book's first moves, then
    the decisions (a position not yet decided stops its line until it is), X its
    player's move (kept in ``x_moves``, so a replay is free) and, from ply
    ``--line-branch-from`` on, X's next likeliest moves too (by X's short search,
    ``x_ranks``), up to ``--line-branch`` moves a position."""

    def __init__(self, book: OBook, decisions: dict[str, dict[str, Any]],
                 x_moves: dict[str, int], args: argparse.Namespace,
                 x_ranks: dict[str, list[int]] | None = None) -> None:
        self.book, self.decisions, self.x_moves, self.args = book, decisions, x_moves, args
        self.x_ranks = {} if x_ranks is None else x_ranks
        self.games = [(spec, cell) for spec in args.line_players.split(",") if spec
                      for cell in args.line_cells]

    def o_move(self, position: Position) -> int | None:
        """O's move in ``position`` by the book or a decision (``None``: undecided)."""
        record = self.decisions.get(key_text(position))
        if record is not None and self.args.lost_games and lost(record) and not games_current(
                Position.from_bitboards(*canonical(position), "qubic"), record,
                self.args.lost_candidates, games_margin(self.book)):
            return None  # every reply lost: it waits for the games that rank them
        if record is not None and not checks_current(record, self.args.lost_checks):
            return None  # it waits for the checks --lost-checks asks for
        if record is None:
            booked = self.book.lookup(position)
            early = (position.x | position.o).bit_count() < self.args.from_marks
            return booked.move if booked is not None and early else None
        move = chosen(record, self.args.replace_within, bool(self.args.lost_games))
        assert move is not None
        _, symmetry = self.book.key(position)
        return self.book.from_canonical(symmetry, move)  # decided in the canonical form

    def branches(self, position: Position) -> bool:
        """Whether X's moves in ``position`` branch beyond its player's."""
        branch: int = self.args.line_branch
        start: int = self.args.line_branch_from
        return branch > 1 and position.ply >= start

    def x_followed(self, spec: str, position: Position, walk: Walk) -> list[int]:
        """X's moves followed from ``position`` (none yet: ``walk`` notes what is missing)."""
        move = self.x_moves.get(x_key(spec, position))
        if move is None:
            walk.x_moves[x_key(spec, position)] = (spec, position.x, position.o)
            return []
        if not self.branches(position):
            return [move]
        order = self.x_ranks.get(key_text(position))
        if order is None:
            walk.x_ranks[key_text(position)] = canonical(position)
            return []
        _, symmetry = self.book.key(position)
        likeliest = [self.book.from_canonical(symmetry, m) for m in order]  # ranked canonically
        return classes(position, [move, *likeliest])[: self.args.line_branch]

    def walk(self) -> Walk:
        """Follow every line as far as the moves known go (a position met again on a
        branching line is followed once)."""
        walk = Walk({}, {}, {}, [])
        met: dict[str, Position] = {}
        seen: set[tuple[str, int, int]] = set()
        todo = [(spec, Position("", "qubic").play(cell)) for spec, cell in self.games]
        while todo:
            spec, position = todo.pop()
            if position.ply >= self.args.line_plies or position.is_over:
                continue
            x, o = canonical(position) if self.branches(position) else (position.x,
                                                                             position.o)
            if (spec, x, o) in seen:
                continue
            seen.add((spec, x, o))
            if position.to_move == "X":
                moves = self.x_followed(spec, position, walk)
            else:
                move = forced_move(position)
                if move is None:
                    move = self.o_move(position)
                    if move is None:
                        walk.o_positions[key_text(position)] = Position.from_bitboards(
                            *canonical(position), "qubic")
                        continue
                    if key_text(position) in self.decisions:
                        met.setdefault(key_text(position), position)
                moves = [move]
            todo.extend((spec, position.play(move)) for move in reversed(moves))
        walk.met.extend(met.values())
        return walk


def booked(book: OBook, position: Position, move: int) -> bool:
    """Whether ``book`` already answers ``position`` with ``move``, or with its image
    under a symmetry of the position."""
    old = book.lookup(position)
    return old is not None and classes(position, [old.move, move]) == [old.move]


def x_key(spec: str, position: Position) -> str:
    """An X player's move's key in the checkpoint: the player and the position as played
    (not up to symmetry: the players break ties by cell)."""
    return f"{spec} {position.x:x} {position.o:x}"


def _x_move(job: tuple[str, int, int]) -> tuple[str, int]:
    """A worker's move for an X player (its spec, X's and O's bitboards)."""
    spec, x, o = job
    position = Position.from_bitboards(x, o, "qubic")
    return x_key(spec, position), member_player(spec, 1).move(position, Limit()).move


def drop_unreachable(book: OBook) -> int:
    """Drop the entries no line of the book reaches any more (those after a replaced
    move): an entry stays if X has one mark, or if taking back one of X's marks leaves a
    position some kept entry's reply leads to. The number dropped."""
    group = book.geometry.symmetry_group
    replied: set[tuple[int, int]] = set()
    dropped = 0
    for x, o in sorted(book.entries, key=lambda key: key[0].bit_count()):
        if x.bit_count() > 1 and not any(
                group.canonical(x & ~(1 << cell), o)[:2] in replied for cell in scan_forward(x)):
            del book.entries[(x, o)]
            dropped += 1
            continue
        replied.add(group.canonical(x, o | 1 << book.entries[(x, o)].move)[:2])
    return dropped


def parser() -> argparse.ArgumentParser:
    """The deep step's command line, its options in groups: the files, the checks, the
    scope, the lines of games and the lost positions."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    files = parser.add_argument_group("the book and its records")
    files.add_argument("--book", default=str(BOOK),
                       help="the builder's book to start from (default %(default)s)")
    files.add_argument("--out", default=str(BOOK), help="the book written (default %(default)s)")
    files.add_argument("--checkpoint", default=str(CHECKPOINT),
                       help="the records, read and added to (default %(default)s)")
    files.add_argument("--workers", type=int, default=1,
                       help="processes that decide positions at once (default 1)")

    checks = parser.add_argument_group("the checks by proof")
    checks.add_argument("--check", type=int, default=2_000_000,
                        help="proof positions of a candidate's check (default %(default)s)")
    checks.add_argument("--replace-within", type=int, default=500_000,
                        help="a book move or engine's move is replaced only if its refutation "
                             "took at most this many proof positions (default %(default)s)")
    checks.add_argument("--max-checks", type=int, default=12,
                        help="candidates checked at most in a position (default %(default)s)")
    checks.add_argument("--lost-checks", type=int, default=0, help=(
        "where the --max-checks candidates are all refuted, check the rest too, up to this "
        "many in all, for a reply no proof refutes (default 0: none)"))
    checks.add_argument("--o-nodes", type=int, default=300_000, help=(
        "nodes of O's short search that orders its candidates (default %(default)s)"))
    checks.add_argument("--own-nodes", type=int, default=1_000_000, help=(
        "nodes of the engine's own move, the first candidate where the book has none "
        "(default %(default)s, about a second)"))

    scope = parser.add_argument_group("the positions decided")
    scope.add_argument("--from-marks", type=int, default=5,
                       help="book positions with this many marks on (default %(default)s)")
    scope.add_argument("--x-moves", type=int, default=0,
                       help="also X's K likeliest third moves in each line (default 0)")
    scope.add_argument("--firsts", type=numbers, default=[0, 1],
                       help="X's first cells (0: a corner or centre, 1: another) whose lines "
                            "--x-moves extends (default 0,1)")
    scope.add_argument("--x-nodes", type=int, default=300_000,
                       help="nodes of X's short search that ranks its moves (default "
                            "%(default)s)")

    lines = parser.add_argument_group("the lines of games")
    lines.add_argument("--line-players", default="",
                       help="X players (player specs, @N for N nodes a move) whose games "
                            "against the book's O are followed, each O move decided "
                            "(default none)")
    lines.add_argument("--line-cells", type=numbers, default=list(range(64)),
                       help="X's first cells in those games (default all 64)")
    lines.add_argument("--line-plies", type=int, default=14,
                       help="the games are followed up to this ply (default %(default)s)")
    lines.add_argument("--line-branch", type=int, default=1, help=(
        "X's moves followed in a position of the lines: its player's, then X's likeliest "
        "others by its short search (--x-nodes) (default 1: the player's only)"))
    lines.add_argument("--line-branch-from", type=int, default=6,
                       help="the lines branch from this ply on (default %(default)s)")
    lines.add_argument("--line-unrefuted", action="store_true",
                       help="store a decision on the lines only where its move was not "
                            "refuted or games chose it (elsewhere the engine's own search "
                            "plays)")

    lost = parser.add_argument_group("where every reply checked is lost")
    lost.add_argument("--lost-games", type=int, default=0, help=(
        "rank the likeliest replies by this many games each, against the X players the "
        "builder's book was built against, by the builder's rule (default 0: the hardest to "
        "refute is kept)"))
    lost.add_argument("--lost-candidates", type=int, default=4,
                      help="the replies those games rank: the first candidate and the "
                           "hardest others to refute (default %(default)s)")
    lost.add_argument("--lost-checkpoint", default=None,
                      help="the checkpoint of those games (default --checkpoint's file)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The deep step's command line (``scripts/deepen_o_book.py``)."""
    args = parser().parse_args(argv)
    refuse_measured("--line-players", args.line_players.split(","))
    book = OBook.load(Path(args.book))
    if "deep_check" in book.built:
        raise SystemExit(f"{args.book} was deepened already: start from the builder's book "
                         "(scripts/build_o_book.py writes it)")
    checkpoint = Checkpoint(Path(args.checkpoint))
    builder, by_lost = None, args.lost_games > 0
    if by_lost:  # the builder's games, with the players and O of its book
        lost_path = Path(args.lost_checkpoint or args.checkpoint)
        builder = Builder(builder_parser().parse_args([
            "--x-players", book.built["against"], "--o-nodes", str(book.built["o_nodes"]),
            "--games", str(args.lost_games), "--deep-games", str(args.lost_games),
            "--finalists", "2", "--workers", str(args.workers),
            *(["--vary-budgets"] if book.built.get("vary_budgets") else []),
            "--margin", str(games_margin(book)),
            "--checkpoint", str(lost_path)]),
            checkpoint if lost_path == checkpoint.path else Checkpoint(lost_path), LOST_PART)
    records = checkpoint.part(PART)
    decisions: dict[str, dict[str, Any]] = records.setdefault("decisions", {})
    x_moves: dict[str, int] = records.setdefault("x_moves", {})
    x_ranks: dict[str, list[int]] = records.setdefault("x_ranks", {})
    line_ranks: dict[str, list[int]] = records.setdefault("line_ranks", {})

    def save(at_most_every: float = 0.0) -> None:
        records["settings"] = {"check": args.check, "max_checks": args.max_checks,
                               "o_nodes": args.o_nodes, "own_nodes": args.own_nodes}
        checkpoint.save(at_most_every)

    def decide_all(positions: list[Position]) -> None:
        jobs = [(p.x, p.o, None if (b := book.lookup(p)) is None else b.move,
                 all_checks(decisions[key_text(p)]) if key_text(p) in decisions else None,
                 args) for p in positions
                if not checks_current(decisions.get(key_text(p)), args.lost_checks)]
        for key, record in pool.imap_unordered(_decide, jobs):
            old = decisions.get(key, {})
            if "games" in old and lost(record):
                record["games"] = old["games"]  # (they rank the first candidates' checks)
            decisions[key] = record
            save(SAVE_EVERY)
            print(f"  {key}: {record}", flush=True)
        save()
        for position in positions:
            record = decisions[key_text(position)]
            if (builder is not None and lost(record)
                    and not games_current(position, record, args.lost_candidates,
                                          games_margin(book))):
                # every reply checked is lost: games against fallible players rank them
                # (again if they ranked other candidates: the games played are kept)
                record["games"] = by_games(builder, position, record, args.lost_candidates)
                save()
                print(f"  {key_text(position)} by games: {record['games']}", flush=True)

    with multiprocessing.Pool(args.workers) as pool:
        positions = scope(book, args, pool, line_ranks)
        save()
        # a position is decided once; a decision of an older kind (no engine's own
        # move where the book had none) again, reusing its checks
        todo = [p for p in positions
                if not checks_current(decisions.get(key_text(p)), args.lost_checks)]
        print(f"{len(positions)} positions, {len(todo)} to decide", flush=True)
        decide_all(positions)
        changed = 0
        for position in positions:
            record = decisions[key_text(position)]
            move = chosen(record, args.replace_within, by_lost)
            if move is None or (move == record["own"] and book.lookup(position) is None):
                continue  # the engine's own move stands: nothing to store
            if booked(book, position, move):
                continue
            games, score = stored_games(record, by_lost)  # by games: its games; by proof: none
            book.add(position, move, games=games, score=score)
            changed += 1
        dropped = drop_unreachable(book)
        lines = Lines(book, decisions, x_moves, args, x_ranks)
        while True:  # follow the lines on, a move of each a round
            walk = lines.walk()
            if not (walk.x_moves or walk.x_ranks or walk.o_positions):
                break
            print(f"lines: {len(walk.x_moves)} X moves, {len(walk.x_ranks)} X rankings, "
                  f"{len(walk.o_positions)} O positions", flush=True)
            x_moves.update(pool.imap_unordered(_x_move, list(walk.x_moves.values())))
            jobs = [(x, o, args.x_nodes) for x, o in walk.x_ranks.values()]
            x_ranks.update((key_text(Position.from_bitboards(x, o, "qubic")),
                            order[:args.line_branch])
                           for x, o, order in pool.imap_unordered(_x_ranked, jobs))
            save()
            decide_all(list(walk.o_positions.values()))
    on_lines = 0
    for position in walk.met:  # every line followed to its end by the last walk
        record = decisions[key_text(position)]
        move = lines.o_move(position)
        assert move is not None
        games, score = stored_games(record, by_lost)
        kept = chosen(record, args.replace_within, by_lost)
        if args.line_unrefuted and refuted(record, kept) and not games:
            continue  # refuted, and no games chose it: the engine's own search plays
        if not booked(book, position, move):
            book.add(position, move, games=games, score=score)
            on_lines += 1
    book.built.update(deep_check=args.check, deep_replace_within=args.replace_within,
                      deep_from_marks=args.from_marks,
                      deep_x_moves=args.x_moves, deep_firsts=args.firsts,
                      positions=len(book))
    if lines.games:
        book.built.update(deep_line_players=args.line_players,
                          deep_line_cells=args.line_cells, deep_line_plies=args.line_plies)
    if lines.games and args.line_branch > 1:
        book.built.update(deep_line_branch=args.line_branch,
                          deep_line_branch_from=args.line_branch_from)
    if args.lost_games:
        book.built.update(deep_lost_games=args.lost_games,
                          deep_lost_candidates=args.lost_candidates)
    if args.lost_checks:
        book.built.update(deep_lost_checks=args.lost_checks)
    if lines.games and args.line_unrefuted:
        book.built.update(deep_line_unrefuted=True)
    write_if_changed(Path(args.out), book.to_bytes())
    print(f"book: {len(book)} positions, {changed} moves chosen by proof, {dropped} no longer "
          f"reached dropped, {on_lines} on the lines' games -> {args.out}")
    return 0

"""Sweep the Qubic O book: no book move lets X reach a win the engine's analysis proves.

The engine plays a book move at once, with a short proof check
(:func:`noughts.engine.plan.book_check`), so the book must not hold a move after which X
has a reply that the engine's own analysis proves winning once it is on the board: a
*visible blunder* (docs/qubic-o.md). This step looks one X move ahead of every book move
the way the engine's analysis does (:func:`noughts.search.defence.killing_reply`, at
``--nodes`` proof positions, the analysis's depth by default; on canonical images, so
the verdict is the blunder checker's in any orientation) and where it finds such a
reply, replaces the move by the first of the engine's order of moves
(:func:`noughts.builders.o_book.ranked`) after which it finds none, with no games (O's
note says the move was chosen by proof). Where it finds such a reply after every move,
no move is a blunder and the book's move, chosen by games, stays. Then the entries no
line of the book reaches any more are dropped.

With ``--extend MARKS``, it then decides O's move the same way in the positions with
``MARKS`` marks that the book's lines reach and it does not hold (5: O's third move
after every X move, where the search alone has a second to refute moves whose
refutation takes the proof search 1 to 2 million positions each), those after a first
mark on a corner or centre first; ``--extend MARKS:TOP`` only after X's ``TOP``
likeliest moves (by the short search that orders O's moves, run from X's side; the
rankings are recorded too), and a second ``--extend`` goes on from the book the first
made. ``--most N`` takes the first N positions of each, ``--minutes`` stops a run (the
book gets what is decided, and the next run goes on). With ``--ahead MARKS[:TOP]`` it
looks at the book's moves in the positions of ``MARKS`` marks two X moves ahead
(:mod:`noughts.builders.o_book_ahead`; built and measured, not in the shipped command);
the steps of ``--extend`` and ``--ahead`` run in the order given.

Resumable and deterministic (node budgets only): each position's sweep and decision
goes to the ``sweep`` part of ``--checkpoint`` as it is made, and a run with every
record at hand runs no search. The shipped book is the deep step's book
(:mod:`noughts.builders.o_book_deepen`) swept and extended, from the repository's root,
by::

    python scripts/sweep_o_book.py --extend 5 --extend 7:2 --workers 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from pathlib import Path
from typing import Any

from noughts.builders.checkpoint import SAVE_EVERY, Checkpoint
from noughts.builders.o_book import BOOK, CHECKPOINT, canonical, classes, key_text, ranked
from noughts.builders.o_book_ahead import look_ahead
from noughts.builders.o_book_cleared import (
    extend,
    extent,
    extent_text,
    first_cleared,
    x_likeliest,
)
from noughts.builders.o_book_deepen import drop_unreachable
from noughts.knowledge.obook import OBook
from noughts.orientation import Orientation
from noughts.position import Position
from noughts.runtime.atomic import write_if_changed
from noughts.search.defence import ANALYSIS_NODES, killing_reply
from noughts.search.openings import strong_cells

__all__ = ["PART", "sweep", "main"]

PART = "sweep"
"""The checkpoint's part that holds the sweep's records."""


def sweep(position: Position, move: int, nodes: int, o_nodes: int,
          known: list[list[int | None]] | None = None) -> dict[str, Any]:
    """The record of the sweep of the book's ``move`` in ``position``: ``killer``, X's
    reply that wins after it (``None``: none found, the move stays) and, if one was
    found, ``kept``, the first of O's other moves in the engine's order after which the
    look ahead finds none, or the book's move with ``lost`` when it finds a winning
    reply after every move (no move is safer: the games' choice stays), and ``checks``,
    each move checked with X's winning reply after it (``None``: none found). ``known``
    holds the checks of a sweep cut short, reused.

    >>> from noughts.position import Position
    >>> # O to move, X holds 0, 1 and 6, 10: two lines of two cross on cell 2
    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
    ...                             sum(1 << c for c in (12, 15, 60)), "qubic")
    >>> record = sweep(p, 63, 20_000, 2_000)
    >>> record["killer"], record["kept"]
    (2, 3)
    """
    start = time.perf_counter()
    found = killing_reply(position.play(move), nodes, root_nodes=nodes)
    record: dict[str, Any] = {"killer": None if found is None else found[0]}
    if found is not None:
        others = [m for m in ranked(position, o_nodes) if m != move]
        kept, record["checks"] = first_cleared(position, others, nodes, known)
        record["kept"] = move if kept is None else kept
        if kept is None:
            record["lost"] = True
    record["seconds"] = round(time.perf_counter() - start, 1)
    return record


def _extend(job: tuple[int, int, int, int]) -> tuple[str, dict[str, Any]]:
    """A worker's extension (X's and O's bitboards, the settings)."""
    x, o, nodes, o_nodes = job
    position = Position.from_bitboards(x, o, "qubic")
    return key_text(position), extend(position, nodes, o_nodes)


def lines_before(book: OBook, marks: int) -> list[Position]:
    """The positions after the book's moves in its positions with ``marks - 2`` marks
    (X to move next), those where X's first mark is on a strongest cell first."""
    strong = sum(1 << cell for cell in strong_cells(book.geometry))
    return sorted((Position.from_bitboards(x, o | 1 << entry.move, "qubic")
                   for (x, o), entry in book.entries.items()
                   if (x | o).bit_count() == marks - 2),
                  key=lambda p: (not p.x & strong, key_text(p), p.x, p.o))


def extension(book: OBook, marks: int,
              x_moves: dict[str, list[int]] | None = None) -> list[Position]:
    """The positions with ``marks`` marks, O to move, that the book's lines reach (its
    move in a position with two marks fewer, then any X move, or with ``x_moves`` the X
    moves it lists for that position, by :func:`key_text`, on its canonical image)
    and it does not hold, each once up to symmetry: those where X's first mark is on a
    strongest cell (a corner or a centre) first."""
    found: dict[str, Position] = {}
    for after in lines_before(book, marks):
        if x_moves is None:
            moves = classes(after, list(after.legal_moves))
        else:  # (kept on the canonical image: two lines may meet turned)
            view = Orientation.of(after)
            moves = [view.to_original(move) for move in x_moves[key_text(after)]]
        for move in moves:
            reached = after.play(move)
            if book.lookup(reached) is None and not reached.is_over:
                found.setdefault(key_text(reached), Position.from_bitboards(
                    *canonical(reached), "qubic"))
    strong = sum(1 << cell for cell in strong_cells(book.geometry))
    return sorted(found.values(), key=lambda p: (not p.x & strong, key_text(p)))


def _x_likeliest(job: tuple[int, int, int, int]) -> tuple[str, list[int]]:
    """A worker's ranking of X's moves (X's and O's bitboards, the nodes, how many)."""
    x, o, nodes, top = job
    after = Position.from_bitboards(x, o, "qubic")
    return key_text(after), x_likeliest(after, nodes, top)


def done(record: dict[str, Any] | None) -> bool:
    """Whether ``record`` is a whole sweep of its position (not one cut short)."""
    return record is not None and (record["killer"] is None or record.get("kept") is not None)


def _sweep(job: tuple[int, int, int, int, int, list[list[int | None]] | None]
           ) -> tuple[str, dict[str, Any]]:
    """A worker's sweep (X's and O's bitboards, the book's move, the settings, the
    checks known)."""
    x, o, move, nodes, o_nodes, known = job
    position = Position.from_bitboards(x, o, "qubic")
    return key_text(position), sweep(position, move, nodes, o_nodes, known)


class _Step(argparse.Action):
    """``--extend`` and ``--ahead``: each adds its extent to its own list and, with the
    option's name, to ``steps``, which keeps the order the command line gives them."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), values])
        namespace.steps = [*namespace.steps, (self.dest, values)]


def parser() -> argparse.ArgumentParser:
    """The sweep's command line."""
    parser = argparse.ArgumentParser(prog="sweep_o_book.py", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--book", default=str(BOOK), help="the book swept (default: %(default)s)")
    parser.add_argument("--out", default=str(BOOK), help="the book written (default: %(default)s)")
    parser.add_argument("--checkpoint", default=str(CHECKPOINT),
                        help="the records, read and added to (default: %(default)s)")
    parser.add_argument("--nodes", type=int, default=ANALYSIS_NODES,
                        help="proof positions of each search of the look ahead "
                             "(default: %(default)s, the engine's analysis)")
    parser.add_argument("--o-nodes", type=int, default=300_000,
                        help="nodes of the short search that orders O's other moves")
    parser.set_defaults(steps=[])
    parser.add_argument("--extend", type=extent, action=_Step, default=None,
                        metavar="MARKS[:TOP]",
                        help="then decide O's move in the positions with MARKS marks that "
                             "the book's lines reach and it does not hold (after X's TOP "
                             "likeliest moves only, by a short search of X's own); again "
                             "for another number of marks, in turn")
    parser.add_argument("--ahead", type=extent, action=_Step, default=None,
                        metavar="MARKS[:TOP]",
                        help="then look at the book's moves in the positions with MARKS "
                             "marks two X moves ahead (after X's TOP likeliest replies "
                             "only), replacing those after which an X reply leaves O no "
                             "move the look ahead clears (noughts.builders.o_book_ahead); "
                             "steps of --extend and --ahead run in the order given")
    parser.add_argument("--most", type=int, default=None, metavar="N",
                        help="decide at most the first N positions of --extend, in its "
                             "order (the book gets those decided)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop deciding new positions after this long (a run resumes "
                             "from the checkpoint; the book gets what is decided)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The sweep's command line (``scripts/sweep_o_book.py``)."""
    args = parser().parse_args(argv)
    book = OBook.load(Path(args.book))
    checkpoint = Checkpoint(Path(args.checkpoint))
    records: dict[str, dict[str, Any]] = checkpoint.part(PART).setdefault("positions", {})
    settings = f"{args.nodes}/{args.o_nodes}"
    keys = {(x, o): f"{key_text(Position.from_bitboards(x, o, 'qubic'))}/{entry.move}@{settings}"
            for (x, o), entry in sorted(book.entries.items())}
    jobs: dict[str, tuple[int, int, int, int, int, list[list[int | None]] | None]] = {}
    for (x, o), key in keys.items():
        entry = book.entries[(x, o)]
        if not done(records.get(key)):
            known = records[key].get("checks") if key in records else None
            jobs[key] = (x, o, entry.move, args.nodes, args.o_nodes, known)
    print(f"{len(book)} book positions, {len(jobs)} to sweep", flush=True)
    if jobs:
        with multiprocessing.Pool(args.workers) as pool:
            for key, (_, record) in zip(jobs, pool.imap(_sweep, list(jobs.values())),
                                        strict=True):
                records[key] = record
                checkpoint.save(SAVE_EVERY)
                print(f"  {key}: {record}", flush=True)
        checkpoint.save()
    replaced = lost = 0
    for (x, o), key in keys.items():
        record = records[key]
        if record.get("lost"):
            lost += 1
        elif record["killer"] is not None:
            book.add(Position.from_bitboards(x, o, "qubic"), record["kept"], games=0, score=0.0)
            replaced += 1
    unreached = drop_unreachable(book)
    added = 0
    for step, (marks, top) in args.steps:
        if step == "extend":
            added += _extended(book, marks, top, args, checkpoint)
        else:
            replaced += look_ahead(book, marks, top, checkpoint=checkpoint, part=PART,
                                   nodes=args.nodes, o_nodes=args.o_nodes,
                                   workers=args.workers)
            unreached += drop_unreachable(book)
    if args.extend:  # (one extent to every X move stays a number, as books recorded it)
        (marks, top), *more = args.extend
        book.built.update(sweep_extend=marks if top is None and not more else ",".join(
            extent_text(*given) for given in args.extend))
    if args.ahead:
        book.built.update(sweep_ahead=",".join(extent_text(*given) for given in args.ahead))
    book.built.update(sweep_nodes=args.nodes, sweep_o_nodes=args.o_nodes, positions=len(book))
    write_if_changed(Path(args.out), book.to_bytes())
    print(f"book: {len(book)} positions, {replaced} moves replaced, {lost} kept where every "
          f"move loses, {unreached} no longer reached dropped, {added} added -> {args.out}")
    return 0


def _extended(book: OBook, marks: int, top: int | None, args: argparse.Namespace,
              checkpoint: Checkpoint) -> int:
    """Decide the positions of ``marks`` marks (after X's ``top`` likeliest moves) not
    yet decided (until ``--minutes``), add every decided move to ``book``, and return
    how many were added."""
    words = extent_text(marks, top)
    part = checkpoint.part(PART)
    records: dict[str, dict[str, Any]] = part.setdefault(
        f"extend@{words}/{args.nodes}/{args.o_nodes}", {})
    stop = None if args.minutes is None else time.monotonic() + 60 * args.minutes
    x_moves = None
    if top is not None:
        x_moves = part.setdefault(f"x_moves@{words}/{args.o_nodes}", {})
        ranking = {key_text(after): (after.x, after.o, args.o_nodes, top)
                   for after in lines_before(book, marks) if key_text(after) not in x_moves}
        print(f"X's {top} likeliest moves: {len(ranking)} positions to rank", flush=True)
        if ranking:
            with multiprocessing.Pool(args.workers) as pool:
                for key, likeliest in pool.imap(_x_likeliest, list(ranking.values())):
                    x_moves[key] = likeliest
                    checkpoint.save(SAVE_EVERY)
                    if stop is not None and time.monotonic() > stop:
                        pool.terminate()
                        break
            checkpoint.save()
        left = len(set(ranking) - set(x_moves))
        if left:
            print(f"{left} positions left to rank: none of {marks} marks decided", flush=True)
            return 0
    positions = extension(book, marks, x_moves)[:args.most]
    jobs = [(p.x, p.o, args.nodes, args.o_nodes) for p in positions
            if key_text(p) not in records]
    print(f"{len(positions)} positions of {marks} marks off the book, {len(jobs)} to "
          f"decide", flush=True)
    if jobs:
        with multiprocessing.Pool(args.workers) as pool:
            for key, record in pool.imap(_extend, jobs):
                records[key] = record
                checkpoint.save(SAVE_EVERY)
                print(f"  {key}: {record}", flush=True)
                if stop is not None and time.monotonic() > stop:
                    pool.terminate()
                    break
            checkpoint.save()
    added = 0
    for position in positions:
        decided = records.get(key_text(position))
        if decided is not None and decided["kept"] is not None:
            book.add(position, decided["kept"], games=0, score=0.0)
            added += 1
    return added

"""Build the tables shipped in ``src/noughts/data/``: opening books and the 3x3 table.

For every variant of :data:`noughts.variants.BOOK_VARIANTS`, with its record's book depth
``D`` (:attr:`~noughts.variants.Variant.book_marks`):
every canonical unfinished position with at most ``D`` marks (X or O having started),
its exact score, and how many of its moves lose. The scores come from the exact search
with no book; positions one ply deeper are solved too, to count the losing moves.

Usage: ``python scripts/build_book.py [VARIANT ...]`` (default: every book variant and
the complete 3x3 table, ``table-3x3.bin``; name ``3x3`` for that table alone).
It is deterministic: rebuilding gives byte-identical files (``tests/test_solver.py``
re-solves a sample of entries).
"""

from __future__ import annotations

import argparse
import sys
import time

from noughts.exact.book import Book, book_path
from noughts.exact.negamax import ExactSearch
from noughts.exact.table3x3 import Table3x3, table_path
from noughts.geometry import Bitboard
from noughts.runtime.atomic import write_atomic
from noughts.symmetries import SymmetryKeys
from noughts.variants import BOOK_VARIANTS, variant


def levels(keys: SymmetryKeys, search: ExactSearch, depth: int) -> list[dict[int, tuple[int, int]]]:
    """Canonical unfinished positions by number of marks, ``0 .. depth``."""
    full = search.geometry.full
    found: list[dict[int, tuple[Bitboard, Bitboard]]] = [{keys.key(0, 0): (0, 0)}]
    for _ in range(depth):
        following: dict[int, tuple[Bitboard, Bitboard]] = {}
        for me, opp in found[-1].values():
            for cell in range(search.geometry.cells):
                bit = 1 << cell
                if (me | opp) & bit or search.completes_line(me, cell):
                    continue
                mine = me | bit
                if mine | opp == full:
                    continue
                following.setdefault(keys.key(opp, mine), (opp, mine))
        found.append(following)
    return found


def build(name: str, depth: int) -> Book:
    """The book of variant ``name`` with positions of at most ``depth`` marks."""
    game = variant(name)
    geometry = game.geometry
    keys = SymmetryKeys(geometry)
    search = ExactSearch(game, canonical_marks=depth + 1, max_entries=4_000_000)
    by_marks = levels(keys, search, depth + 1)
    scores: dict[int, int] = {}
    started = time.perf_counter()
    for marks in range(depth + 1, -1, -1):  # deepest first: their table entries help
        for key, (me, opp) in sorted(by_marks[marks].items()):
            scores[key] = search.value(me, opp)
        print(
            f"  {name}: {len(by_marks[marks]):>7} positions with {marks} marks solved, "
            f"{search.nodes:,} nodes, {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    entries: dict[int, tuple[int, int]] = {}
    full = geometry.full
    for marks in range(depth + 1):
        for key, (me, opp) in by_marks[marks].items():
            losing = 0
            for cell in range(geometry.cells):
                bit = 1 << cell
                if (me | opp) & bit or search.completes_line(me, cell):
                    continue
                mine = me | bit
                if mine | opp != full and scores[keys.key(opp, mine)] > 0:
                    losing += 1
            entries[key] = (scores[key], losing)
    return Book.from_items(entries, variant=name, max_marks=depth)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["3x3", *sorted(BOOK_VARIANTS)])
    args = parser.parse_args(argv)
    for given in args.variants:
        name = variant(given).name
        if name == "3x3":
            data = Table3x3().to_bytes()
            write_atomic(table_path(), data)
            print(f"3x3: the complete table, {len(data):,} bytes -> {table_path()}")
            continue
        depth = variant(name).book_marks
        started = time.perf_counter()
        book = build(name, depth)
        data = book.to_bytes()
        write_atomic(book_path(name), data)
        print(
            f"{name}: {len(book)} positions up to {depth} marks, {len(data):,} bytes, "
            f"{time.perf_counter() - started:.1f} s -> {book_path(name)}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

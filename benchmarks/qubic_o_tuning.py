"""Qubic as O: the engine's tuned settings tried against a pool of X players that O is
never measured on, at node budgets (the same games on every run, whatever the load).

Not a test: it takes an hour or more. Each ``--try NAME:SETTING=VALUE,...`` is a way
for O to play: the engine with some of its settings changed, in the worker process that
plays the game (``shipped`` changes none). Every try plays the same games: X (each of
``--pool``) places its first mark on each of ``--cells`` and the game goes on, X seeded
per game as in the family benchmark, O at ``--nodes`` nodes a move. The pool by default
is :data:`POOL`: the engine's own X at four budgets, the threat player at two and Monte
Carlo tree search, none of them a member of the family or one of the players outside it
(:func:`noughts.arena.family.measured` refuses those: nothing is tuned on the players O
is measured on).

The settings (:data:`SETTINGS`): the evaluation's ``STEEP_BASE`` and ``OPPONENT_WEIGHT``
(``a/b``), when the second player tilts its weights (``DEFENDS``: ``strong-cells``, the
shipped condition, ``always`` or ``never``), the defence's share of a move (``DEFENCE_SHARE``),
the book check's positions (``BOOK_CHECK_NODES``), ``PROOF_NODE_COST``, and another O book
(``BOOK``: a file).

The table gives each try's wins, draws and losses by X player and in all, and the games
a try won that the first try did not, and lost that it won. Results, with every game,
go to ``qubic_o_tuning.json`` in ``--out-dir`` (``benchmarks/out/``), or to ``--out``.

    python benchmarks/qubic_o_tuning.py --nodes 16000000 --cells sample:16 --jobs 2 \\
        --try shipped --try steep16:STEEP_BASE=16 --try even:OPPONENT_WEIGHT=1/1
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import noughts.engine.plan as plan
import noughts.knowledge.shipped as shipped
import noughts.search.defence as defence
import noughts.search.evaluate as evaluate
from noughts.arena.family import measured
from noughts.geometry import Bitboard, Geometry
from noughts.knowledge.obook import OBook
from noughts.results import Mark
from noughts.variants import variant
from outputs import add_out_dir, write_json
from qubic_family import FamilyTask, family_game, in_workers, parse_cells

POOL = (
    "level:10:no-strategy@5000",
    "level:10:no-strategy@50000",
    "level:10:no-strategy@200000",
    "level:10:no-strategy@500000",
    "threats:5000",
    "threats:50000",
    "mcts:3000",
)
"""The X players tuned against by default: the engine's own X without the strategy at
budgets no family member or outside player has, the threat player at two budgets of its
own, and Monte Carlo tree search at 3,000 random games a move."""

_STRONG = evaluate._defends


def _defends_always(geometry: Geometry, x: Bitboard, o: Bitboard, player: Mark) -> bool:
    return player == "O"


def _defends_never(geometry: Geometry, x: Bitboard, o: Bitboard, player: Mark) -> bool:
    return False


_CONDITIONS: dict[str, Callable[[Geometry, Bitboard, Bitboard, Mark], bool]] = {
    "strong-cells": _STRONG, "always": _defends_always, "never": _defends_never}


def _ratio(text: str) -> tuple[int, int]:
    top, _, bottom = text.partition("/")
    return int(top), int(bottom or 1)


def _book(path: str) -> Callable[[str], OBook | None]:
    book = OBook.load(Path(path))
    return lambda name: book if variant(name).name == book.variant else None


SETTINGS: dict[str, tuple[Any, str, Callable[[str], Any]]] = {
    "STEEP_BASE": (evaluate, "STEEP_BASE", int),
    "OPPONENT_WEIGHT": (evaluate, "OPPONENT_WEIGHT", _ratio),
    "DEFENDS": (evaluate, "_defends", lambda name: _CONDITIONS[name]),
    "DEFENCE_SHARE": (plan, "_DEFENCE_SHARE", float),
    "BOOK_CHECK_NODES": (plan, "BOOK_CHECK_NODES", int),
    "PROOF_NODE_COST": (defence, "PROOF_NODE_COST", int),
    "BOOK": (shipped, "shipped_o_book", _book),
}
"""What a try may set: its name -> (module, attribute, how its value is read)."""

_DEFAULTS = {name: getattr(module, attribute) for name, (module, attribute, _) in SETTINGS.items()
             if hasattr(module, attribute)}  # (an older engine may lack some)


@dataclass(frozen=True)
class Try:
    """A way for O to play: a name and the settings it changes (``NAME=VALUE`` texts)."""

    name: str
    settings: tuple[tuple[str, str], ...]


def parse_try(text: str) -> Try:
    """``NAME`` or ``NAME:SETTING=VALUE,...``.

    >>> parse_try("even:OPPONENT_WEIGHT=1/1,STEEP_BASE=16")
    Try(name='even', settings=(('OPPONENT_WEIGHT', '1/1'), ('STEEP_BASE', '16')))
    >>> parse_try("x:SPEED=2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown setting 'SPEED' (known: STEEP_BASE, OPPONENT_WEIGHT, ...)
    """
    name, _, rest = text.partition(":")
    settings = []
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        if key not in SETTINGS:
            raise ValueError(f"unknown setting {key!r} (known: {', '.join(SETTINGS)})")
        SETTINGS[key][2](value)  # a bad value fails here, not in a worker
        settings.append((key, value))
    return Try(name, tuple(settings))


def apply(chosen: Try) -> None:
    """Set the engine's settings to ``chosen``'s (the rest to their defaults), in this
    process, and forget the weights made with others."""
    for name, (module, attribute, _) in SETTINGS.items():
        if name in _DEFAULTS:
            setattr(module, attribute, _DEFAULTS[name])
    for name, value in chosen.settings:
        module, attribute, read = SETTINGS[name]
        setattr(module, attribute, read(value))
    evaluate.line_weights.cache_clear()
    evaluate.with_tempo.cache_clear()


def play(job: tuple[Try, FamilyTask]) -> dict[str, object]:
    """One game of a try (runs in a worker process)."""
    chosen, task = job
    apply(chosen)
    return {"try": chosen.name, **family_game(task)}


def _tally(records: list[dict[str, Any]]) -> str:
    wins = sum(r["winner"] == "O" for r in records)
    draws = sum(r["winner"] is None for r in records)
    return f"{wins}-{draws}-{len(records) - wins - draws}"


def print_table(tries: list[Try], pool: list[str], records: list[dict[str, Any]]) -> None:
    """Each try's O wins-draws-losses by X player and in all, and how its games differ
    from the first try's."""
    print("| try | " + " | ".join(pool) + " | all | won, first lost | lost, first won |")
    print("|---|" + "--:|" * (len(pool) + 3))
    first = {(r["member"], r["cell"]): r["winner"] for r in records if r["try"] == tries[0].name}
    for chosen in tries:
        mine = [r for r in records if r["try"] == chosen.name]
        by = [_tally([r for r in mine if r["member"] == member]) for member in pool]
        gained = sum(r["winner"] == "O" and first.get((r["member"], r["cell"])) != "O"
                     for r in mine)
        lost = sum(r["winner"] != "O" and first.get((r["member"], r["cell"])) == "O"
                   for r in mine)
        print(f"| {chosen.name} | " + " | ".join(by) + f" | {_tally(mine)} | {gained} | {lost} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--try", dest="tries", action="append", default=None,
                        help="a way for O to play, NAME:SETTING=VALUE,... (repeat; default "
                             "shipped only)")
    parser.add_argument("--pool", default=",".join(POOL),
                        help="X players, comma-separated specs (@N: N nodes a move)")
    parser.add_argument("--nodes", type=int, default=16_000_000, help="O's nodes a move")
    parser.add_argument("--cells", default="sample:16", help="X's first cells (as the family)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="games at once (processes)")
    parser.add_argument("--out", default=None,
                        help="results file (default qubic_o_tuning.json in --out-dir)")
    add_out_dir(parser)
    args = parser.parse_args(argv)
    try:
        tries = [parse_try(text) for text in args.tries or ["shipped"]]
        cells = parse_cells(args.cells)
    except (ValueError, KeyError, OSError) as error:
        parser.error(str(error))
    pool = [spec for spec in args.pool.split(",") if spec]
    why = measured(pool)
    if why is not None:
        parser.error(f"--pool: {why}: O is measured on it, so nothing is tuned on it")
    out = Path(args.out) if args.out else args.out_dir / "qubic_o_tuning.json"
    report: dict[str, object] = {
        "machine": f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
        "o_nodes": args.nodes, "cells": cells, "pool": pool, "seed": args.seed,
        "tries": {t.name: dict(t.settings) for t in tries},
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_at_start": os.getloadavg()[0],
    }
    jobs = [(chosen, FamilyTask(member, cell, args.seed, None, args.nodes))
            for cell in cells for member in pool for chosen in tries]
    records: list[dict[str, Any]] = []
    for record in in_workers(play, jobs, args.jobs):
        records.append(record)
        word = {"O": "win", "X": "LOSS"}.get(str(record["winner"]), "draw")
        print(f"  {record['try']:<16} {record['member']:<28} cell {record['cell']:2d}: "
              f"O {word}", flush=True)
        write_json(out, {**report, "games": records, "finished": False})
    report["load_average_at_end"] = os.getloadavg()[0]
    write_json(out, {**report, "games": records})
    print_table(tries, pool, records)
    return 0


if __name__ == "__main__":
    sys.exit(main())

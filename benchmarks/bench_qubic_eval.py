"""Qubic: O with the learned evaluation against O with the hand-written one, on the same
games, against noughts' own X without the strategy.

Not a test: it takes minutes. For each X budget (``--x-nodes``, the engine without the
shipped strategy, ``level:10:no-strategy@N``) and each of X's first cells (``--cells``,
as in the family benchmark) O plays twice at ``--nodes`` a move: once with the learned
evaluation shipped in the package (:mod:`noughts.knowledge.learned`), once with the
hand-written one (O's knowledge without the learned evaluation). Both
players search a fixed number of nodes, so every game replays the same on every run.
The table gives O's wins, draws and losses with each evaluation, and the games where
only one of them won. Nothing of the family's members is used here: X is the
engine's own search, at budgets of its own.

The results, with every game, go to ``qubic_eval.json`` in ``--out-dir``
(``benchmarks/out/``), or to ``--out``.

    python benchmarks/bench_qubic_eval.py --x-nodes 5000,50000 --nodes 100000 --cells sample:32
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from noughts.knowledge.learned import learned_eval
from noughts.knowledge.shipped import SHIPPED, Knowledge
from outputs import add_out_dir, write_json
from qubic_family import FamilyTask, family_game, parse_cells


def play(member: str, cell: int, seed: int, nodes: int, learned: bool) -> dict[str, object]:
    """One game, O with the learned evaluation or the hand-written one."""
    task = FamilyTask(member, cell, seed, None, nodes)
    return family_game(task, o_knowledge=SHIPPED if learned else Knowledge(learned=False))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--x-nodes", default="5000,50000",
                        help="X's node budgets a move, comma-separated")
    parser.add_argument("--nodes", type=int, default=100_000, help="O's node budget a move")
    parser.add_argument("--cells", default="sample:32", help="X's first cells (as the family)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=None,
                        help="the results file (default qubic_eval.json in --out-dir)")
    add_out_dir(parser)
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else args.out_dir / "qubic_eval.json"
    try:
        budgets = [int(n) for n in args.x_nodes.split(",")]
        cells = parse_cells(args.cells)
    except ValueError as error:
        sys.exit(f"bad --x-nodes or --cells: {error}")
    if learned_eval("4x4x4") is None:
        sys.exit("no learned evaluation is shipped for 4x4x4")
    games: list[dict[str, object]] = []
    rows: dict[str, dict[str, int]] = {}
    started = time.perf_counter()
    for limit in budgets:
        member = f"level:10:no-strategy@{limit}"
        row = rows.setdefault(member, {"games": 0, "learned": 0, "hand": 0, "learned_draws": 0,
                                       "hand_draws": 0, "only_learned": 0, "only_hand": 0})
        for cell in cells:
            new = play(member, cell, args.seed, args.nodes, True)
            old = play(member, cell, args.seed, args.nodes, False)
            row["games"] += 1
            row["learned"] += new["winner"] == "O"
            row["hand"] += old["winner"] == "O"
            row["learned_draws"] += new["winner"] is None
            row["hand_draws"] += old["winner"] is None
            row["only_learned"] += new["winner"] == "O" != old["winner"]
            row["only_hand"] += old["winner"] == "O" != new["winner"]
            games.append({"member": member, "cell": cell, "learned": new, "hand": old})
            print(f"  {member} cell {cell:2d}: learned {new['winner'] or 'draw'}, hand "
                  f"{old['winner'] or 'draw'} ({time.perf_counter() - started:.0f} s)",
                  flush=True)
            write_json(out, {"nodes": args.nodes, "cells": cells, "seed": args.seed,
                             "rows": rows, "games": games})
    print(f"\nO at {args.nodes} nodes a move, X's first cells {args.cells}:")
    print("| X | games | O wins, learned | O wins, hand-written | won by learned only | "
          "won by hand-written only |")
    print("|---|--:|--:|--:|--:|--:|")
    total = {key: sum(row[key] for row in rows.values()) for key in next(iter(rows.values()))}
    for name, row in [*rows.items(), ("total", total)]:
        print(f"| {name} | {row['games']} | {row['learned']} ({row['learned_draws']} draws) | "
              f"{row['hand']} ({row['hand_draws']} draws) | {row['only_learned']} | "
              f"{row['only_hand']} |")


if __name__ == "__main__":
    main()

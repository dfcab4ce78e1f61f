"""The compiled search core against its pure-Python reference, measured in one run.

Not a test: it takes a minute or two. On the same positions, each search runs on both
cores to the same node limit (so both do the same work: the parity tests check that they
search alike, node for node), and the table gives each core's nodes per CPU second and
their ratio, the median of ``--runs`` runs of each (the runs alternate between the cores,
so a busy machine slows both alike).

* ``anytime``: the principal-variation search's deepening on Qubic middle games (O to
  move after 8 to 20 random marks), ``--nodes`` nodes each.

    python benchmarks/bench_core.py --runs 5

Results go to ``core.json`` in ``--out-dir`` (``benchmarks/out/`` by default).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable

from noughts.budget import Limit
from noughts.position import Position
from noughts.search import core
from noughts.search.anytime import deepening
from noughts.search.core import Core, anytime_search
from outputs import add_out_dir, write_json


def qubic_middle_games(count: int, seed: int = 7) -> list[Position]:
    """Qubic positions with 8 to 20 marks, played at random, unfinished."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position("", "qubic")
        marks = rng.randrange(8, 21)
        while position.ply < marks and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over:
            found.append(position)
    return found


def deepen(position: Position, kind: Core, nodes: int) -> int:
    """Deepen the anytime search of ``position`` until ``nodes`` nodes; its node count."""
    search = anytime_search(position, core=kind)
    for _ in deepening(search, search.ordered_moves(-1, 0), Limit(node_limit=nodes)):
        pass
    return search.nodes


def rate(work: Callable[[Core], int], kind: Core) -> float:
    """Nodes per CPU second of ``work`` on ``kind``."""
    began = time.process_time()
    nodes = work(kind)
    return nodes / max(time.process_time() - began, 1e-9)


def compare(name: str, work: Callable[[Core], int], runs: int) -> dict[str, float]:
    """The median rate on each core over ``runs`` alternating runs, and their ratio."""
    rates: dict[Core, list[float]] = {"python": [], "compiled": []}
    for _ in range(runs):
        for kind in ("python", "compiled"):
            rates[kind].append(rate(work, kind))
    python, compiled = (statistics.median(rates[k]) for k in ("python", "compiled"))
    row = {"python": python, "compiled": compiled, "ratio": compiled / python}
    print(f"| {name} | {python:,.0f} | {compiled:,.0f} | {compiled / python:.1f}x |",
          flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each core (median)")
    parser.add_argument("--positions", type=int, default=12, help="positions a search")
    parser.add_argument("--nodes", type=int, default=200_000, help="nodes a position")
    add_out_dir(parser)
    args = parser.parse_args()
    if core.built() is None:
        raise SystemExit("the compiled core is not built: pip install . builds it")
    positions = qubic_middle_games(args.positions)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; medians of {args.runs} runs\n")
    print("| search | Python nodes/CPU s | compiled nodes/CPU s | ratio |\n|---|--:|--:|--:|")
    rows = {
        "anytime": compare(
            f"anytime search, Qubic, {args.positions} middle games x {args.nodes:,} nodes",
            lambda kind: sum(deepen(p, kind, args.nodes) for p in positions), args.runs),
    }
    write_json(args.out_dir / "core.json", {"runs": args.runs, "rows": rows})


if __name__ == "__main__":
    main()

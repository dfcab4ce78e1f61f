"""The exact solver on the compiled core against its pure-Python reference, in one run.

Not a test: it takes a few minutes. Two tables:

* ``solves``: exact solves from the empty board (4x4, 5x4k4, 4x4 misère, and more with
  ``--more``), no book, a fresh search each run (so each run fills its table from
  nothing), on both cores. Each row gives each core's CPU time, their ratio, and the
  nodes (the same on both cores: the parity tests check that they search alike). The
  runs alternate between the cores, so a busy machine slows both alike; the figures are
  medians of ``--runs`` runs.
* ``limits`` (``--limits``): how far the compiled core answers within a second: for each
  board and count of empty cells, ``--positions`` positions, half reached by random
  play, half by quiet random play (no move leaves a cell that completes a line), each
  answered as ``best_move`` answers (every move's value, the trap counts among the best,
  the principal variation) by a fresh solver with its book; the median and the slowest
  CPU time. The exact solver's limits (``can_solve``) are the largest counts whose
  slowest answer stays under a second.

    python benchmarks/bench_exact_core.py --runs 5
    python benchmarks/bench_exact_core.py --runs 5 --more --limits --out /tmp/exact.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from noughts.exact.solver import Solver
from noughts.position import Position
from noughts.search.core import Core
from noughts.variants import variant

SOLVES = ("4x4", "5x4k4", "4x4-misere")
"""The issue's targets: 20x the Python core on the first two, 4x4 misère within 1 s."""

MORE_SOLVES = ("4x4k3-misere", "4x5", "3x3x3")

LIMITS = {  # board: the counts of empty cells tried
    "4x4-misere": (12, 14, 15, 16),
    "4x4k3-misere": (12, 14, 15, 16),
    "5x4k4-misere": (12, 14, 16, 17, 18, 19),
    "5x5k4-misere": (12, 14, 16, 17, 18),
    "4x4x4-misere": (12, 14, 16, 18),
    "4x5": (19,),
    "5x4k4": (19,),
    "5x5k4": (18, 20, 21, 22, 23),
    "6x6k4": (18, 20, 22, 24),
    "4x4x4": (18, 20, 22, 24),
}
"""(Every cell empty: the empty board.)"""


def solve(name: str, kind: Core) -> tuple[float, int, int]:
    """CPU seconds, score and nodes of the empty board's solve by a fresh search, no
    book, on ``kind``."""
    solver = Solver(variant(name), use_book=False, core=kind)
    began = time.process_time()
    score = solver.score(0, 0)
    return time.process_time() - began, score, solver.nodes


def compare(name: str, runs: int) -> dict[str, Any]:
    """Median CPU seconds of the empty board's solve on each core, alternating runs."""
    seconds: dict[Core, list[float]] = {"python": [], "compiled": []}
    found: set[tuple[int, int]] = set()
    for _ in range(runs):
        for kind in ("python", "compiled"):
            cpu, score, nodes = solve(name, kind)
            seconds[kind].append(cpu)
            found.add((score, nodes))
    if len(found) != 1:
        raise SystemExit(f"{name}: the cores disagree: {sorted(found)}")
    (score, nodes), = found
    python, compiled = (statistics.median(seconds[k]) for k in ("python", "compiled"))
    row = {"variant": name, "score": score, "nodes": nodes, "python_s": python,
           "compiled_s": compiled, "ratio": python / compiled,
           "all_python_s": seconds["python"], "all_compiled_s": seconds["compiled"]}
    print(f"| {name} | {nodes:,} | {python * 1000:,.1f} ms | {compiled * 1000:,.2f} ms "
          f"| {python / compiled:.1f}x |", flush=True)
    return row


def _threat(position: Position) -> bool:
    """True if a cell completes a line of either side."""
    for line in position.geometry.lines:
        for mine, theirs in ((position.x, position.o), (position.o, position.x)):
            if not line & theirs and (line & ~mine).bit_count() == 1:
                return True
    return False


def positions(name: str, empty: int, count: int, seed: int) -> list[Position]:
    """Unfinished positions with ``empty`` empty cells: every other one reached by random
    moves after which no cell completes a line (quiet: the long solves), the others by
    random moves."""
    rng = random.Random(f"{name}-{empty}-{seed}")
    found: list[Position] = []
    while len(found) < count:
        quiet = len(found) % 2 == 0
        position = Position("", name)
        while position.empty.bit_count() > empty and not position.is_over:
            moves = list(position.legal_moves)
            rng.shuffle(moves)
            following = [position.play(move) for move in moves[: len(moves) if quiet else 1]]
            if quiet:
                following = [after for after in following if not _threat(after)]
                if not following:
                    break
            position = following[0]
        if position.empty.bit_count() == empty and not position.is_over:
            found.append(position)
    return found


def answer(name: str, position: Position) -> float:
    """CPU seconds of ``best_move``'s work on ``position`` by a fresh compiled solver."""
    solver = Solver(variant(name), core="compiled")
    me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
    began = time.process_time()
    move, _, _, _ = solver.choose(me, opp)
    solver.principal_variation(me, opp, move)
    return time.process_time() - began


def limits(name: str, empties: tuple[int, ...], count: int) -> list[dict[str, Any]]:
    """The compiled core's best-move times, by empty cells."""
    rows = []
    for empty in empties:
        times = [answer(name, position) for position in positions(name, empty, count, 1)]
        median, slowest = statistics.median(times), max(times)
        print(f"| {name} | {empty} | {median * 1000:,.1f} ms | {slowest * 1000:,.1f} ms |",
              flush=True)
        rows.append({"variant": name, "empty": empty, "positions": count,
                     "median_s": median, "max_s": slowest})
    return rows


def write_atomically(path: Path, data: dict[str, Any]) -> None:
    """``data`` as JSON at ``path``: a temporary file beside it, synced, renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False,
                                     suffix=".tmp") as file:
        json.dump(data, file, indent=2)
        file.write("\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(file.name, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each core (median)")
    parser.add_argument("--more", action="store_true", help="more boards than the targets")
    parser.add_argument("--limits", action="store_true",
                        help="the compiled core's solve times by empty cells")
    parser.add_argument("--positions", type=int, default=10,
                        help="positions per board and count of empty cells (--limits)")
    parser.add_argument("--out", type=Path, help="also write the figures here, as JSON")
    args = parser.parse_args()
    Solver(variant("4x4"), core="compiled")  # the compiled core must be built
    load = os.getloadavg()[0]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load average {load:.1f}; medians of {args.runs} "
          "runs\n")
    print("| empty board, no book | nodes | Python CPU | compiled CPU | ratio |\n"
          "|---|--:|--:|--:|--:|")
    names = SOLVES + (MORE_SOLVES if args.more else ())
    report: dict[str, Any] = {
        "machine": {"processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_before": load},
        "runs": args.runs,
        "solves": [compare(name, args.runs) for name in names],
    }
    if args.limits:
        print(f"\n| best move, compiled | empty cells | median CPU ({args.positions} "
              "positions) | slowest |\n|---|--:|--:|--:|")
        report["limits"] = [row for name, empties in LIMITS.items()
                            for row in limits(name, empties, args.positions)]
    report["machine"]["load_average_after"] = os.getloadavg()[0]
    print(f"\nload average {load:.1f} -> {report['machine']['load_average_after']:.1f}")
    if args.out is not None:
        write_atomically(args.out, report)


if __name__ == "__main__":
    main()

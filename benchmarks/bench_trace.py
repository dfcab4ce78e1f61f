"""Trace size and time per algorithm on one position (the empty 3x3 board by default).

Not a test. For each algorithm it traces the position ``--runs`` times keeping the first
``--keep`` nodes (the page and the API keep 2,000 by default) and reports the positions
entered, the nodes kept, the size of the trace as JSON, the median time, and, from one
more run under ``tracemalloc``, the peak memory the trace took. Plain minimax enters
549,946 positions on the empty board, but only the kept nodes are stored, so its memory
stays that of ``--keep`` nodes. Results are printed as a table and written to
``trace.json`` in ``--out-dir`` (``benchmarks/out/``).

    nice -n 10 python benchmarks/bench_trace.py --runs 3
    python benchmarks/bench_trace.py --board X../.O./... --keep 100 --runs 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
import tracemalloc

from noughts.position import Position
from noughts.teaching.trace import ALGORITHMS, DEFAULT_MAX_STORED, Algorithm, trace
from outputs import add_out_dir, write_json


def measure(position: Position, algorithm: Algorithm, keep: int, runs: int) -> dict[str, object]:
    """One algorithm's row: counts, sizes, the median time and the peak memory."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = trace(position, algorithm, max_stored=keep)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    trace(position, algorithm, max_stored=keep)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "algorithm": algorithm,
        "nodes": result.nodes,
        "kept": len(result.stored),
        "cutoffs": result.cutoffs,
        "table_hits": result.table_hits,
        "json_kb": round(len(json.dumps(result.to_json())) / 1024, 1),
        "median_s": round(statistics.median(times), 4),
        "peak_kb": round(peak / 1024, 1),
        "value": result.value_text,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default=".../.../...", help="the position (3x3 board string)")
    parser.add_argument("--variant", default="3x3")
    parser.add_argument("--keep", type=int, default=DEFAULT_MAX_STORED, help="nodes kept")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("algorithms", nargs="*", default=list(ALGORITHMS))
    add_out_dir(parser)
    args = parser.parse_args()
    position = Position(args.board, args.variant)
    rows = []
    print(f"{'algorithm':<14} {'nodes':>9} {'kept':>6} {'cut-offs':>9} {'hits':>6} "
          f"{'json KB':>8} {'median s':>9} {'peak KB':>9}  value")  # fmt: skip
    for algorithm in args.algorithms:
        if algorithm not in ALGORITHMS:
            raise SystemExit(f"unknown algorithm {algorithm!r}: expected one of {ALGORITHMS}")
        row = measure(position, algorithm, args.keep, args.runs)
        rows.append(row)
        print(
            f"{algorithm:<14} {row['nodes']:>9,} {row['kept']:>6,} {row['cutoffs']:>9,} "
            f"{row['table_hits']:>6,} {row['json_kb']:>8} {row['median_s']:>9} "
            f"{row['peak_kb']:>9}  {row['value']}",
            flush=True,
        )
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "position": f"{args.board} ({args.variant})",
        "kept_bound": args.keep,
        "runs": args.runs,
        "note": "median wall time of the runs; peak memory from one more run under "
        "tracemalloc (the trace's own allocations)",
        "rows": rows,
    }
    write_json(args.out_dir / "trace.json", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

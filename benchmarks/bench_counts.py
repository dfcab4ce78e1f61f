"""Time ``noughts stats`` on the small variants, each run a whole new process.

Not a test: 4x4k3 and 4x4 take seconds to tens of seconds. For each variant it runs the
command ``--runs`` times with every count, and again without ``games_up_to_symmetry``
(the only count that walks the positions), and reports the median CPU time, wall time
and peak memory (each child's own ``wait4`` resource usage). Results are printed
as a table and written to ``counts.json`` in ``--out-dir`` (``benchmarks/out/``).

    nice -n 10 python benchmarks/bench_counts.py --runs 3 4x4k3 4x4
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from outputs import add_out_dir, write_json

WITHOUT_WALK = "positions,positions_up_to_symmetry,terminal_positions,games"


def run_once(variant: str, only: str | None) -> dict[str, float]:
    """One ``noughts stats`` process: CPU seconds, wall seconds, peak memory in MB."""
    command = [sys.executable, "-m", "noughts", "stats", variant, "--json"]
    if only:
        command += ["--only", only]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)  # this child's own resource usage
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed with status {child.returncode}")
    json.loads(output)  # the command must have printed its JSON
    return {
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": wall,
        "peak_mb": usage.ru_maxrss / 1024,  # KB on Linux
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=["3x3", "4x4k3", "4x4"])
    parser.add_argument("--runs", type=int, default=3)
    add_out_dir(parser)
    args = parser.parse_args()
    rows = []
    for variant in args.variants:
        for label, only in (("all counts", None), ("without the walk", WITHOUT_WALK)):
            runs = [run_once(variant, only) for _ in range(args.runs)]
            rows.append(
                {
                    "variant": variant,
                    "counts": label,
                    "runs": args.runs,
                    "cpu_s": statistics.median(r["cpu_s"] for r in runs),
                    "wall_s": statistics.median(r["wall_s"] for r in runs),
                    "peak_mb": max(r["peak_mb"] for r in runs),
                }
            )
            row = rows[-1]
            print(
                f"{variant:>6}  {label:<17} cpu {row['cpu_s']:7.2f} s   "
                f"wall {row['wall_s']:7.2f} s   peak {row['peak_mb']:6.1f} MB",
                flush=True,
            )
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "note": "medians of whole-process runs (CPU and wall); peak memory is the largest run",
        "rows": rows,
    }
    write_json(args.out_dir / "counts.json", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

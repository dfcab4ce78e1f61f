"""``noughts verify-book qubic`` on both checkers, in one run: wall and CPU seconds.

Not a test: it takes a few minutes. Each run starts ``python -m noughts verify-book
qubic --json`` as a fresh process, once on the compiled checker and once on the Python
one (``NOUGHTS_PURE_PYTHON=1``), and times the whole command as a user meets it: wall
seconds, and the CPU seconds the process used (``getrusage`` of the children), start-up
and reading the strategy included. The runs alternate between the checkers, so a busy
machine slows both alike; the table gives each checker's medians over ``--runs`` runs,
the time the command reports for the check itself, and the ratio (the median of the
runs' CPU ratios). It stops if a run's report is not the same on both checkers.

``--anchor COMMIT`` adds a row for the checker as it was at that commit (its
``strategy_check.py``, read with ``git show``, run on the current package in a fresh
process: the shipped strategy read, then that module's ``verify_strategy``, as
``verify-book`` ran it), ``--anchor-runs`` times, alternating with the others; its
report must match too.

    python benchmarks/bench_verify_book.py --runs 5 --anchor 60988f8 --anchor-runs 3 \
        --out-dir benchmarks/results
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from noughts.search.core import PURE_PYTHON_VARIABLE, Core
from outputs import add_out_dir, write_json

CHECKERS: tuple[Core, Core] = ("compiled", "python")
"""The checkers of this build, named as the cores are."""
COMMAND = [sys.executable, "-m", "noughts", "verify-book", "qubic", "--json"]


def children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


ANCHOR = """
import importlib.util, json, sys, time
from noughts.knowledge.strategy import shipped_strategy
spec = importlib.util.spec_from_file_location("anchor_check", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
strategy = shipped_strategy()
began = time.perf_counter()
report = module.verify_strategy(strategy)
seconds = time.perf_counter() - began
print(json.dumps({"entries": len(strategy), "seconds": seconds, **report.as_json()}))
"""
"""The anchor's run: what ``verify-book qubic --json`` did with the checker given."""


def run_once(checker: str, command: list[str], pure: bool) -> dict[str, Any]:
    """One run of ``command``: wall and CPU seconds, and its report."""
    env = dict(os.environ, **{PURE_PYTHON_VARIABLE: "1" if pure else "0"})
    cpu, began = children_cpu(), time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - began, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"verify-book failed on the {checker} checker:\n{done.stderr}")
    report = json.loads(done.stdout)
    return {"wall_s": wall, "cpu_s": cpu, "check_s": report.pop("seconds"), "report": report}


def anchor_command(commit: str, folder: Path) -> list[str]:
    """The anchor's run for the checker of ``commit``."""
    source = subprocess.run(["git", "show", f"{commit}:src/noughts/builders/strategy_check.py"],
                            cwd=Path(__file__).parent, capture_output=True, text=True,
                            check=True).stdout
    path = folder / "anchor_check.py"
    path.write_text(source)
    return [sys.executable, "-c", ANCHOR, str(path)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--anchor", metavar="COMMIT",
                        help="also time the checker as it was at this commit")
    parser.add_argument("--anchor-runs", type=int, default=3)
    add_out_dir(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        commands: dict[str, tuple[list[str], bool]] = {
            checker: (COMMAND, checker == "python") for checker in CHECKERS}
        if args.anchor:
            commands[f"at {args.anchor}"] = (anchor_command(args.anchor, Path(folder)), True)
        runs: dict[str, list[dict[str, Any]]] = {checker: [] for checker in commands}
        for number in range(args.runs):
            for checker, (command, pure) in commands.items():
                if checker in CHECKERS or number < args.anchor_runs:
                    runs[checker].append(run_once(checker, command, pure))
            done = {checker: runs[checker][-1] for checker in commands
                    if len(runs[checker]) == number + 1}
            if any(run["report"] != done["compiled"]["report"] for run in done.values()):
                raise SystemExit(f"run {number + 1}: the checkers' reports differ")
            print(f"run {number + 1}: " + ", ".join(f"{checker} {run['cpu_s']:.2f} s CPU"
                                                   for checker, run in done.items()),
                  file=sys.stderr, flush=True)
    report = runs["compiled"][0]["report"]
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}; `noughts verify-book qubic` ({report['checked']:,} "
          f"stored positions, {report['threat_leaves']:,} threat leaves), medians of "
          f"{args.runs} runs ({args.anchor_runs} of the anchor)")
    print("| checker | wall | CPU | the check itself (wall) |")
    print("|---|---|---|---|")
    rows = []
    for checker, kept in runs.items():
        medians = {key: statistics.median(run[key] for run in kept)
                   for key in ("wall_s", "cpu_s", "check_s")}
        rows.append({"checker": checker, **medians,
                     "all": [{key: run[key] for key in ("wall_s", "cpu_s", "check_s")}
                             for run in kept]})
        print(f"| {checker} | {medians['wall_s']:.2f} s | {medians['cpu_s']:.2f} s | "
              f"{medians['check_s']:.2f} s |")
    ratios = {checker: statistics.median(
        run["cpu_s"] / compiled["cpu_s"] for compiled, run in zip(runs["compiled"], kept,
                                                                 strict=False))
        for checker, kept in runs.items() if checker != "compiled"}
    for checker, ratio in ratios.items():
        print(f"CPU ratio, {checker} / compiled: {ratio:.1f}x")
    write_json(args.out_dir / "verify_book.json", {
        "python": platform.python_version(), "cores": os.cpu_count(),
        "load": round(os.getloadavg()[0], 1), "runs": args.runs,
        "anchor_runs": args.anchor_runs if args.anchor else 0, "rows": rows,
        "cpu_ratios": ratios, "report": report})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

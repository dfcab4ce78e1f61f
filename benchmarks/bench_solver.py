"""Benchmark the exact solver (a script, not a test): ``python benchmarks/bench_solver.py``.

Every scenario runs in a fresh Python process (so peak memory is per scenario); each is
repeated ``--runs`` times and the table shows the median run. Each figure is given as
wall time and as CPU time: on a shared, loaded machine the CPU time is what the same
work costs an idle one (wall time there also counts waiting for a core). Targets:

- 3x3: median time of a best-move call over all 4,520 unfinished positions, in-process
  (target < 20 us): ``solver.best_move`` first and repeated, and ``engine.choose_move``;
- 3x3: ``noughts move`` as a whole new process, against a bare ``python -c pass``
  (target: within 2x of it, in CPU time), timed alternately in the same run; and the
  same pair under ``python -S`` (no site hooks: what the interpreter itself costs, apart
  from whatever ``.pth`` files a machine's site-packages run at every start);
- Qubic: ``noughts move`` as O past its book with ``--nodes 1`` (what a move costs
  besides its search) as a whole new process, alternating with the 3x3 one (target:
  within 2x of it); and a new process's first canonical form of a Qubic position;
- 4x4k3: ``noughts move`` on the empty board as a whole new process (target < 100 ms);
  1,000 random positions warm, median ``choose_move`` (target < 5 ms);
- 4x4: ``noughts move`` on the empty board as a whole new process (target < 2 s);
  random positions warm, median ``choose_move`` (target < 20 ms);
- peak memory (max RSS) of each run (target < 300 MB);
- the empty board of each solvable variant searched from scratch (no book, no table):
  value, nodes, time: the README's results table.

Whole-process runs use the ``noughts`` console script next to this interpreter, with
bytecode caching on (``PYTHONPYCACHEPREFIX`` in a temporary directory, warmed by one
untimed run) as in an installed package; a bare ``python -c pass`` is timed alongside,
since interpreter start-up (and any site hooks of the machine) is part of every figure.
Random positions: random play for a uniformly random number of plies, redrawn if the
game ended. Results go to ``solver.json`` in ``--out-dir`` (``benchmarks/out/``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from outputs import add_out_dir, write_json

ROOT = Path(__file__).resolve().parent.parent
SOLVED_VARIANTS = ("3x3", "4x3k3", "3x5k3", "4x5k3", "4x4k3", "4x4", "5x4k4", "3x3x3")


# -- scenarios (each runs in its own process) --------------------------------------------
def scenario_3x3() -> dict[str, Any]:
    from noughts.engine import choose_move
    from noughts.exact import solver
    from noughts.exact.table3x3 import Table3x3
    from noughts.position import Position

    started = time.perf_counter()
    Table3x3.get()
    table_ms = (time.perf_counter() - started) * 1000
    positions: list[Position] = []
    seen: set[Position] = set()
    stack = [Position()]
    while stack:
        position = stack.pop()
        if position in seen:
            continue
        seen.add(position)
        if not position.is_over:
            positions.append(position)
            stack.extend(position.play(move) for move in position.legal_moves)

    def median_us(call: Any) -> tuple[float, float]:
        """Median wall and CPU microseconds of ``call`` over every position."""
        walls, cpus = [], []
        for position in positions:
            began, cpu_began = time.perf_counter(), time.thread_time()
            call(position)
            cpus.append(time.thread_time() - cpu_began)
            walls.append(time.perf_counter() - began)
        return statistics.median(walls) * 1e6, statistics.median(cpus) * 1e6

    first, first_cpu = median_us(solver.best_move)
    repeated, repeated_cpu = median_us(solver.best_move)
    engine, engine_cpu = median_us(choose_move)
    return {
        "positions": len(positions),
        "table_build_ms": table_ms,
        "best_move_first_us": first,
        "best_move_first_cpu_us": first_cpu,
        "best_move_repeat_us": repeated,
        "best_move_repeat_cpu_us": repeated_cpu,
        "choose_move_us": engine,
        "choose_move_cpu_us": engine_cpu,
    }


def random_positions(name: str, count: int, seed: int) -> list[Any]:
    from noughts.position import Position

    rng = random.Random(seed)
    cells = Position("", name).geometry.cells
    found: list[Any] = []
    while len(found) < count:
        position = Position("", name)
        for _ in range(rng.randint(0, cells - 1)):
            position = position.play(rng.choice(list(position.legal_moves)))
            if position.is_over:
                break
        if not position.is_over:
            found.append(position)
    return found


def scenario_warm(name: str, count: int) -> dict[str, Any]:
    from noughts.engine import choose_move
    from noughts.position import Position

    positions = random_positions(name, count, seed=2026)
    choose_move(Position("", name))  # warm-up: loads the book, builds the tables
    times, cpus = [], []
    for position in positions:
        began, cpu_began = time.perf_counter(), time.thread_time()
        choose_move(position)
        cpus.append(time.thread_time() - cpu_began)
        times.append(time.perf_counter() - began)
    times.sort()
    return {
        "positions": count,
        "median_ms": statistics.median(times) * 1000,
        "cpu_median_ms": statistics.median(cpus) * 1000,
        "p90_ms": times[int(0.9 * count)] * 1000,
        "max_ms": times[-1] * 1000,
        "total_s": sum(times),
    }


def scenario_solve(name: str) -> dict[str, Any]:
    from noughts.exact.solver import Solver, to_value
    from noughts.variants import variant

    geometry = variant(name)
    fresh = Solver(geometry, use_book=False)
    began, cpu_began = time.perf_counter(), time.process_time()
    score = fresh.score(0, 0)
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    value = to_value(score, 0, geometry.cells)
    return {
        "variant": name,
        "outcome": value.outcome.value,
        "plies": value.plies,
        "nodes": fresh.nodes,
        "ms": elapsed * 1000,
        "cpu_ms": cpu * 1000,
    }


def scenario_qubic_canonical() -> dict[str, Any]:
    """A new process's first Qubic canonical form (``group.canonical``), with everything
    it builds on the way: the geometry and its lines, the 192 symmetries (derived), the
    keys' tables; then the median of later ones over random positions, and what the
    symmetry search (the reference, no longer on this path) would have cost; CPU times
    (the process is single-threaded: on a loaded machine they swing less than wall
    times)."""
    began = time.process_time()
    from noughts.symmetries import Symmetries, _find_automorphisms
    from noughts.variants import variant

    geometry = variant("qubic").geometry
    geometry_ms = (time.process_time() - began) * 1000
    group = geometry.symmetry_group
    x, o = 1 << 0 | 1 << 1 | 1 << 21, 1 << 42 | 1 << 3  # the cold move's position
    began = time.process_time()
    assert group.count == 192
    perms_ms = (time.process_time() - began) * 1000
    began = time.process_time()
    group.canonical(x, o)
    first_ms = (time.process_time() - began) * 1000
    later = []
    for position in random_positions("qubic", 1000, 7):
        began = time.process_time()
        group.canonical(position.x, position.o)
        later.append(time.process_time() - began)
    began = time.process_time()
    searched, _ = _find_automorphisms(geometry)
    search_ms = (time.process_time() - began) * 1000
    assert tuple(searched) == Symmetries(geometry).perms
    return {"geometry_ms": geometry_ms, "perms_ms": perms_ms, "first_canonical_ms": first_ms,
            "later_canonical_us": statistics.median(later) * 1e6, "search_ms": search_ms,
            "cpu_ms": time.process_time() * 1000}


SCENARIOS: dict[str, Callable[[], dict[str, Any]]] = {
    "3x3": scenario_3x3,
    "qubic-canonical": scenario_qubic_canonical,
    "warm-4x4k3": partial(scenario_warm, "4x4k3", 1000),
    "warm-4x4": partial(scenario_warm, "4x4", 300),
    **{f"solve-{name}": partial(scenario_solve, name) for name in SOLVED_VARIANTS},
}


# -- the driver ------------------------------------------------------------------------------
def _environment(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _run_process(command: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak RSS in MB, and stdout of one child process."""
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stderr is not None
    out = child.stdout.read().decode()
    err = child.stderr.read().decode()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{command} failed: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def _noughts_command(*, site: bool = True) -> list[str]:
    """The console script (run by its own ``#!`` line, or under ``python -S``)."""
    script = Path(sys.executable).with_name("noughts")
    flags = [] if site else ["-S"]
    if not script.exists():
        return [sys.executable, *flags, "-m", "noughts"]
    return [str(script)] if site else [sys.executable, *flags, str(script)]


def _no_site_environment(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the package on ``PYTHONPATH``: ``-S`` leaves site-packages out."""
    spec = importlib.util.find_spec("noughts")  # finds the package without importing it
    assert spec is not None and spec.submodule_search_locations is not None
    package_parent = str(Path(spec.submodule_search_locations[0]).parent)
    paths = [package_parent, *filter(None, [env.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def _cold(args: list[str], runs: int, env: dict[str, str]) -> dict[str, Any]:
    command = _noughts_command() + args
    _run_process(command, env)  # untimed: writes the bytecode cache
    walls, cpus, peaks = [], [], []
    for _ in range(runs):
        wall, cpu, peak, out = _run_process(command, env)
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
        peaks.append(peak)
    return _cold_record(args, walls, cpus, peaks, out)


def _cold_record(
    args: list[str], walls: list[float], cpus: list[float], peaks: list[float], out: str
) -> dict[str, Any]:
    record = json.loads(out)
    return {
        "command": "noughts " + " ".join(args),
        "median_ms": statistics.median(walls),
        "min_ms": min(walls),
        "cpu_median_ms": statistics.median(cpus),
        "peak_mb": max(peaks),
        "move": record["move"],
        "outcome": record["outcome"],
        "plies": record["plies"],
        "runs": len(cpus),
    }


def _cold_against_bare(
    runs: int, env: dict[str, str], *, site: bool, anchor: str = "pass"
) -> dict[str, Any]:
    """The 3x3 ``noughts move`` and a bare ``python -c ANCHOR`` (``pass``, or ``import
    argparse``: the start of any command line), run alternately (so a change of load
    touches both alike); with ``site=False`` both run under ``-S``."""
    args = ["move", "X../.O./...", "--json"]
    if not site:
        env = _no_site_environment(env)
    command = _noughts_command(site=site) + args
    bare_command = [sys.executable, *([] if site else ["-S"]), "-c", anchor]
    _run_process(command, env)  # untimed: writes the bytecode cache
    walls, cpus, peaks, bare_walls, bare_cpus = [], [], [], [], []
    for _ in range(runs):
        wall, cpu, _, _ = _run_process(bare_command, env)
        bare_walls.append(wall * 1000)
        bare_cpus.append(cpu * 1000)
        wall, cpu, peak, out = _run_process(command, env)
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
        peaks.append(peak)
    cold = _cold_record(args, walls, cpus, peaks, out)
    cold["bare_median_ms"] = statistics.median(bare_walls)
    cold["bare_cpu_median_ms"] = statistics.median(bare_cpus)
    cold["cpu_ratio"] = cold["cpu_median_ms"] / cold["bare_cpu_median_ms"]
    cold["site"] = site
    return cold


QUBIC_COLD_OPENING = (0, 42, 1, 3, 21)
"""The cold Qubic move's position: O to move past its book (X 0, O 42, X 1, O 3, X 21),
so the search answers."""


def _cold_qubic_against_3x3(runs: int, env: dict[str, str]) -> dict[str, Any]:
    """A cold Qubic move as O (``--nodes 1``: what a move costs besides its search) and
    the cold 3x3 move, run alternately; medians of each, and their ratio."""
    from noughts.position import Position

    position = Position("", "qubic")
    for cell in QUBIC_COLD_OPENING:
        position = position.play(cell)
    qubic_args = ["move", position.board, "--variant", "qubic", "--nodes", "1", "--json"]
    small_args = ["move", "X../.O./...", "--json"]
    commands = {"qubic": _noughts_command() + qubic_args, "3x3": _noughts_command() + small_args}
    for command in commands.values():
        _run_process(command, env)  # untimed: writes the bytecode cache
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    outs: dict[str, str] = {}
    for _ in range(runs):
        for name, command in commands.items():
            wall, cpu, _, outs[name] = _run_process(command, env)
            walls[name].append(wall * 1000)
            cpus[name].append(cpu * 1000)
    record: dict[str, Any] = {"runs": runs, "move": json.loads(outs["qubic"])["move"]}
    for name in commands:
        record[f"{name}_median_ms"] = statistics.median(walls[name])
        record[f"{name}_cpu_median_ms"] = statistics.median(cpus[name])
    record["ratio"] = record["qubic_median_ms"] / record["3x3_median_ms"]
    record["cpu_ratio"] = record["qubic_cpu_median_ms"] / record["3x3_cpu_median_ms"]
    return record


def _print_cold_qubic(cold: dict[str, Any]) -> None:
    print(f"cold Qubic move (O, --nodes 1) against a cold 3x3 move, alternating, medians of "
          f"{cold['runs']}: wall {cold['qubic_median_ms']:.1f} ms against "
          f"{cold['3x3_median_ms']:.1f} ms ({cold['ratio']:.2f}x), CPU "
          f"{cold['qubic_cpu_median_ms']:.1f} ms against {cold['3x3_cpu_median_ms']:.1f} ms "
          f"({cold['cpu_ratio']:.2f}x; target 2x)")


def _print_qubic_canonical(first: dict[str, Any]) -> None:
    print(f"Qubic canonical form in a new process (CPU, the median run of {first['runs']}): "
          f"geometry {first['geometry_ms']:.2f} ms, its 192 symmetries "
          f"{first['perms_ms']:.2f} ms (the search: {first['search_ms']:.1f} ms), the first "
          f"canonical() {first['first_canonical_ms']:.2f} ms, later ones "
          f"{first['later_canonical_us']:.0f} us")


def _scenario(name: str, runs: int, env: dict[str, str]) -> dict[str, Any]:
    results = []
    for _ in range(runs):
        _, _, peak, out = _run_process([sys.executable, __file__, "--scenario", name], env)
        record = json.loads(out)
        record["peak_mb"] = peak
        results.append(record)
    key = next(
        k for k in ("cpu_median_ms", "best_move_first_cpu_us", "cpu_ms") if k in results[0]
    )
    results.sort(key=lambda r: r[key])
    middle = dict(results[len(results) // 2])
    middle["runs"] = runs
    middle["all_" + key] = [r[key] for r in results]
    middle["peak_mb"] = max(r["peak_mb"] for r in results)
    return middle


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3, help="runs per in-process scenario")
    parser.add_argument("--cold-runs", type=int, default=7, help="runs per new-process figure")
    parser.add_argument(
        "--cold-only",
        action="store_true",
        help="only the new-process figures: 3x3 against a bare interpreter and against an "
             "argparse start, Qubic against 3x3, and Qubic's first canonical form (no "
             "results file)",
    )
    add_out_dir(parser)
    args = parser.parse_args()
    if args.scenario:
        print(json.dumps(SCENARIOS[args.scenario]()))
        return 0

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="noughts-pycache-") as cache:
        env = _environment(cache)
        cold_3x3 = _cold_against_bare(args.cold_runs, env, site=True)
        cold_3x3_no_site = _cold_against_bare(args.cold_runs, env, site=False)
        if args.cold_only:
            against_argparse = _cold_against_bare(args.cold_runs, env, site=True,
                                                  anchor="import argparse")
            for cold, how in ((cold_3x3, "python"), (cold_3x3_no_site, "python -S"),
                              (against_argparse, "python, against an argparse start")):
                print(
                    f"{how + ':':<11} bare start {cold['bare_cpu_median_ms']:5.1f} ms CPU, "
                    f"noughts move (3x3) {cold['cpu_median_ms']:5.1f} ms CPU: "
                    f"{cold['cpu_ratio']:.2f}x (medians of {args.cold_runs})"
                )
            _print_cold_qubic(_cold_qubic_against_3x3(args.cold_runs, env))
            _print_qubic_canonical(_scenario("qubic-canonical", args.cold_runs, env))
            print(f"load average {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f}")
            return 0
        results: dict[str, Any] = {
            "python_startup_ms": cold_3x3["bare_median_ms"],
            "python_startup_cpu_ms": cold_3x3["bare_cpu_median_ms"],
            "cold_3x3": cold_3x3,
            "cold_3x3_no_site": cold_3x3_no_site,
            "cold_4x4k3": _cold(
                ["move", "..../..../..../....", "--variant", "4x4k3", "--json"],
                args.cold_runs,
                env,
            ),
            "cold_4x4": _cold(["move", "..../..../..../....", "--json"], args.cold_runs, env),
            "cold_qubic": _cold_qubic_against_3x3(args.cold_runs, env),
            "qubic_canonical": _scenario("qubic-canonical", args.cold_runs, env),
            "3x3": _scenario("3x3", args.runs, env),
            "warm_4x4k3": _scenario("warm-4x4k3", args.runs, env),
            "warm_4x4": _scenario("warm-4x4", args.runs, env),
            "solve": [_scenario(f"solve-{name}", args.runs, env) for name in SOLVED_VARIANTS],
        }
    results["machine"] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    write_json(args.out_dir / "solver.json", results)
    _print_table(results)
    return 0


def _print_table(results: dict[str, Any]) -> None:
    t3, wk3, w4 = results["3x3"], results["warm_4x4k3"], results["warm_4x4"]
    c3, c4, c33 = results["cold_4x4k3"], results["cold_4x4"], results["cold_3x3"]
    c33s = results["cold_3x3_no_site"]
    rows = [
        ("3x3 best_move, first call per position", f"{t3['best_move_first_us']:.1f} us",
         f"{t3['best_move_first_cpu_us']:.1f} us", "< 20 us", f"{t3['peak_mb']:.0f} MB"),
        ("3x3 best_move, repeated", f"{t3['best_move_repeat_us']:.1f} us",
         f"{t3['best_move_repeat_cpu_us']:.1f} us", "", ""),
        ("3x3 engine.choose_move", f"{t3['choose_move_us']:.1f} us",
         f"{t3['choose_move_cpu_us']:.1f} us", "", ""),
        ("3x3 noughts move, new process", f"{c33['median_ms']:.0f} ms",
         f"{c33['cpu_median_ms']:.0f} ms ({c33['cpu_ratio']:.1f}x)", "< 2x bare",
         f"{c33['peak_mb']:.0f} MB"),
        ("  the same under python -S", f"{c33s['median_ms']:.0f} ms",
         f"{c33s['cpu_median_ms']:.0f} ms ({c33s['cpu_ratio']:.1f}x)", "< 2x bare",
         f"{c33s['peak_mb']:.0f} MB"),
        ("4x4k3 empty board, new process", f"{c3['median_ms']:.0f} ms",
         f"{c3['cpu_median_ms']:.0f} ms", "< 100 ms", f"{c3['peak_mb']:.0f} MB"),
        ("4x4k3 1,000 random positions warm", f"{wk3['median_ms']:.2f} ms",
         f"{wk3['cpu_median_ms']:.2f} ms", "< 5 ms", f"{wk3['peak_mb']:.0f} MB"),
        ("4x4 empty board, new process", f"{c4['median_ms']:.0f} ms",
         f"{c4['cpu_median_ms']:.0f} ms", "< 2 s", f"{c4['peak_mb']:.0f} MB"),
        (f"4x4 {w4['positions']} random positions warm", f"{w4['median_ms']:.2f} ms",
         f"{w4['cpu_median_ms']:.2f} ms", "< 20 ms", f"{w4['peak_mb']:.0f} MB"),
        ("bare interpreter start (python -c pass)", f"{results['python_startup_ms']:.0f} ms",
         f"{results['python_startup_cpu_ms']:.0f} ms", "", ""),
        ("  the same under python -S", f"{c33s['bare_median_ms']:.0f} ms",
         f"{c33s['bare_cpu_median_ms']:.0f} ms", "", ""),
    ]
    print(f"{'measure':<40} {'wall':>10} {'CPU':>10} {'target':>9} {'peak RSS':>9}")
    for measure, wall, cpu, target, peak in rows:
        print(f"{measure:<40} {wall:>10} {cpu:>10} {target:>9} {peak:>9}")
    print(f"  (4x4k3 warm p90 {wk3['p90_ms']:.2f} ms, max {wk3['max_ms']:.1f} ms; "
          f"4x4 warm p90 {w4['p90_ms']:.2f} ms, max {w4['max_ms']:.1f} ms)")
    print()
    header = f"{'variant':<8} {'empty board, from scratch':<28} {'nodes':>10}"
    print(f"{header} {'wall':>10} {'CPU':>10}")
    for solved in results["solve"]:
        value = solved["outcome"] if solved["outcome"] == "draw" else (
            f"first player {'wins' if solved['outcome'] == 'win' else 'loses'} "
            f"in {solved['plies']}"
        )
        print(f"{solved['variant']:<8} {value:<28} {solved['nodes']:>10,} "
              f"{solved['ms']:>7.0f} ms {solved['cpu_ms']:>7.0f} ms")
    print()
    _print_cold_qubic(results["cold_qubic"])
    _print_qubic_canonical(results["qubic_canonical"])
    machine = results["machine"]
    print(f"\nPython {machine['python']}, {machine['cpus']} CPUs, load average "
          f"{machine['load_average_before'][0]:.1f} -> {machine['load_average_after'][0]:.1f}")


if __name__ == "__main__":
    raise SystemExit(main())

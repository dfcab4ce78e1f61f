"""Compare two checkouts of noughts on the figures a refactor must not slow (a script, not a
test): ``python benchmarks/bench_compare.py BASE NEW [--rounds 5]``.

``BASE`` and ``NEW`` are the roots of two checkouts (for example a ``git worktree`` of the
commit before a change, and this one). Every figure runs in a fresh process with
``PYTHONPATH`` set to one checkout's ``src``; the two checkouts alternate round by round,
so that whatever else loads the machine falls on both alike. The table gives each side's
median and the ratio NEW / BASE (above 1 is slower for times, below 1 slower for rates):

- 3x3 best move: median CPU microseconds of ``engine.choose_move`` over the 4,520
  unfinished positions (the solver benchmark's scenario);
- 4x4k3 move: median CPU milliseconds of ``engine.choose_move`` over 1,000 random
  positions, warm (the solver benchmark's scenario);
- 4x4 and 5x4k4 solves: CPU milliseconds of solving the empty board from scratch (no
  book: the exact search's inner loop);
- Qubic nodes/s: the anytime search for a fixed time on middle-game positions (the
  Qubic benchmark's set, as its speed part), nodes over CPU seconds, after an untimed warm-up search
  (which loads the lazily built tables);
- service: the server's CPU milliseconds per ``POST /api/v1/move`` on 3x3 with its move
  cache off (robust to load), and requests per second (not robust: shown, not judged).

The scripts in ``benchmarks/`` are this checkout's; only the engine under test changes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import bench_service
from bench_qubic import middle_games

HERE = Path(__file__).resolve().parent

_QUBIC = """
import json, time
from noughts.engine import choose_move
from noughts.position import Position
choose_move(Position.from_bitboards(*{positions!r}[0], "4x4x4"), time_limit=0.2)  # warm-up
nodes = cpu = 0.0
for x, o in {positions!r}:
    position = Position.from_bitboards(x, o, "4x4x4")
    began = time.process_time()
    result = choose_move(position, time_limit={seconds}, seed=1)
    cpu += time.process_time() - began
    nodes += result.nodes
print(json.dumps({{"nps": nodes / cpu}}))
"""


def _run(source: str, arguments: list[str]) -> dict[str, Any]:
    """The JSON that ``python ARGUMENTS`` prints last, run on ``source``'s package."""
    env = {**os.environ, "PYTHONPATH": str(Path(source) / "src")}
    output = subprocess.run([sys.executable, *arguments], check=True, capture_output=True,
                            text=True, env=env).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def _service(source: str, seconds: float, clients: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(Path(source) / "src"), "NOUGHTS_CACHE_SIZE": "0"}
    port = bench_service.free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "noughts", "serve", "--port", str(port), "--log-level",
         "warning"], env=env, stdout=subprocess.DEVNULL)
    try:
        bench_service.wait_ready(port, "/healthz")
        positions = bench_service.game_positions("3x3", 300, random.Random(2024))
        requests = [bench_service.http_request(
            "/api/v1/move", {"variant": "3x3", "numX": p.x, "numO": p.o, "to_move": p.to_move})
            for p in positions]
        load = bench_service.run_load("3x3", server.pid, port, requests, clients, seconds, 1.0)
    finally:
        bench_service.stop(server)
    return {"cpu_ms": load.server_cpu_ms, "rps": load.rps}


FIGURES: list[tuple[str, str, str, bool]] = [
    ("3x3 best move (CPU us, median)", "3x3", "choose_move_cpu_us", True),
    ("4x4k3 move, warm (CPU ms, median)", "warm-4x4k3", "cpu_median_ms", True),
    ("4x4 solve from scratch (CPU ms)", "solve-4x4", "cpu_ms", True),
    ("5x4k4 solve from scratch (CPU ms)", "solve-5x4k4", "cpu_ms", True),
    ("Qubic anytime search (nodes / CPU s)", "qubic", "nps", False),
    ("service 3x3, cache off (CPU ms / request)", "service", "cpu_ms", True),
    ("service 3x3, cache off (requests / s)", "service", "rps", False),
]
"""(label, measurement, key, lower is better)"""


def measure(source: str, which: str, args: argparse.Namespace,
            positions: list[tuple[int, int]]) -> dict[str, Any]:
    if which == "service":
        return _service(source, args.seconds, args.clients)
    if which == "qubic":
        return _run(source, ["-c", _QUBIC.format(positions=positions,
                                                 seconds=args.qubic_seconds)])
    return _run(source, [str(HERE / "bench_solver.py"), "--scenario", which])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the root of the checkout to compare against")
    parser.add_argument("new", help="the root of the checkout under test")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--qubic-seconds", type=float, default=0.5,
                        help="Qubic search time a position")
    parser.add_argument("--positions", type=int, default=8, help="Qubic positions")
    parser.add_argument("--seconds", type=float, default=3.0, help="service load a round")
    parser.add_argument("--clients", type=int, default=16, help="service connections")
    parser.add_argument("--only", nargs="*", choices=sorted({f[1] for f in FIGURES}),
                        help="only these measurements")
    args = parser.parse_args(argv)
    positions = [(p.x, p.o) for p in middle_games(args.positions)]
    samples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for round_number in range(args.rounds):
        sides = ("base", "new") if round_number % 2 == 0 else ("new", "base")
        for which in dict.fromkeys(f[1] for f in FIGURES if not args.only or f[1] in args.only):
            for side in sides:
                source = args.base if side == "base" else args.new
                samples.setdefault((which, side), []).append(
                    measure(source, which, args, positions))
        print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"median of {args.rounds} alternating rounds")
    print(f"{'figure':<44}{'base':>11}{'new':>11}{'new/base':>10}  verdict")
    for label, which, key, lower_better in FIGURES:
        if (which, "base") not in samples:
            continue
        base = statistics.median(s[key] for s in samples[(which, "base")])
        new = statistics.median(s[key] for s in samples[(which, "new")])
        ratio = new / base
        slower = ratio - 1 if lower_better else 1 / ratio - 1
        judged = key != "rps"
        verdict = ("(not judged: wall clock)" if not judged
                   else f"{slower:+.1%} {'slower' if slower > 0 else 'faster'}"
                   + ("  OVER 5%" if slower > 0.05 else ""))
        print(f"{label:<44}{base:>11.2f}{new:>11.2f}{ratio:>10.3f}  {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

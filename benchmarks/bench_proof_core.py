"""The proof-number and threat searches on the compiled core against their pure-Python
references, in one run: positions per CPU second.

Not a test: it takes a minute or two. Three rows, each on Qubic positions:

* ``proof, quiet wins``: the proof search (``proof_search(...).run(nodes=N)``, a fresh
  search and table per position, the side to move attacking) on the stored quiet wins
  of ``benchmarks/data/qubic_quiet_wins.json`` (wins that need a quiet move first);
* ``proof, openings``: the same on seeded openings (X on a corner, then random moves to
  ``--plies`` marks), where nothing is proven within the budget;
* ``threats, game positions``: the threat search (``threat_search(...).find``, a fresh
  search per position as ``find_forced_win`` makes, both sides as attacker, at most
  ``--threat-nodes`` positions each) on every position of ``--games`` seeded random
  games: the forced-win stage's work. Most of these searches are short (tens of
  positions), so the row measures a call's cost (making the search, its setup at each
  depth, the limit's checks) as much as a position's;
* ``threats, long searches``: the same on the positions of ``--pool-games`` seeded random
  games where a side's search visits at least ``--long`` positions (picked by the
  compiled core; the Python one visits the same): a position's cost.

A position is one the search counts in its ``nodes`` (a proof search counts its leaf
chains' positions too). Each row gives the positions searched (the same on both cores:
the parity tests check that they search alike, and the benchmark stops if they do not),
each core's CPU seconds and positions per CPU second, and their ratio. The runs alternate
between the cores, so a busy machine slows both alike; the figures are medians of
``--runs`` runs, the ratio the median of the runs' ratios.

    python benchmarks/bench_proof_core.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noughts.budget import Limit
from noughts.position import Position
from noughts.search.core import Core, proof_search, threat_search

QUIET_WINS = Path(__file__).parent / "data" / "qubic_quiet_wins.json"
CORES: tuple[Core, Core] = ("python", "compiled")


def quiet_wins() -> list[Position]:
    stored = json.loads(QUIET_WINS.read_text())["positions"]
    return [Position(p["board"], "qubic") for p in stored]


def openings(count: int, plies: int, seed: int) -> list[Position]:
    """Qubic positions after X's corner and random moves to ``plies`` marks, none over."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position("", "qubic").play(0)
        while position.ply < plies and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over:
            found.append(position)
    return found


def game_positions(count: int, seed: int) -> list[Position]:
    """Every unfinished position of ``count`` random games from the empty board."""
    rng = random.Random(seed)
    found: list[Position] = []
    for _ in range(count):
        position = Position("", "qubic")
        while not position.is_over:
            found.append(position)
            position = position.play(rng.choice(list(position.legal_moves)))
    return found


def side(position: Position) -> int:
    return 0 if position.to_move == "X" else 1


def proofs(positions: list[Position], nodes: int) -> Callable[[Core], int]:
    def run(kind: Core) -> int:
        total = 0
        for position in positions:
            search = proof_search(position, side(position), core=kind)
            search.run(nodes=nodes)
            total += search.nodes
        return total
    return run


Attack = tuple[Position, int, int]
"""A position and the attacker's and defender's marks."""


def attacks(positions: list[Position]) -> list[Attack]:
    """Both sides' attacks in each position."""
    return [attack for p in positions for attack in ((p, p.x, p.o), (p, p.o, p.x))]


def long_attacks(positions: list[Position], nodes: int, least: int) -> list[Attack]:
    """The attacks whose threat search visits at least ``least`` positions."""
    return [(position, attacker, defender)
            for position, attacker, defender in attacks(positions)
            if _threat_nodes(position, attacker, defender, nodes, "compiled") >= least]


def _threat_nodes(position: Position, attacker: int, defender: int, nodes: int,
                  kind: Core) -> int:
    search = threat_search(position.game, core=kind)
    search.find(attacker, defender, limit=Limit(node_limit=nodes))
    return search.nodes


def threats(chosen: list[Attack], nodes: int) -> Callable[[Core], int]:
    def run(kind: Core) -> int:
        return sum(_threat_nodes(position, attacker, defender, nodes, kind)
                   for position, attacker, defender in chosen)
    return run


def compare(name: str, work: Callable[[Core], int], runs: int) -> dict[str, Any]:
    """Median CPU seconds of ``work`` on each core, alternating runs."""
    seconds: dict[Core, list[float]] = {"python": [], "compiled": []}
    counted: set[int] = set()
    for _ in range(runs):
        for kind in CORES:
            began = time.process_time()
            counted.add(work(kind))
            seconds[kind].append(time.process_time() - began)
    if len(counted) != 1:
        raise SystemExit(f"{name}: the cores searched different positions: {sorted(counted)}")
    (nodes,) = counted
    python, compiled = (statistics.median(seconds[kind]) for kind in CORES)
    ratio = statistics.median(p / c for p, c in zip(seconds["python"], seconds["compiled"],
                                                     strict=True))
    row = {"search": name, "positions": nodes, "python_s": python, "compiled_s": compiled,
           "python_per_s": nodes / python, "compiled_per_s": nodes / compiled,
           "ratio": ratio, "all_python_s": seconds["python"],
           "all_compiled_s": seconds["compiled"]}
    print(f"| {name} | {nodes:,} | {python:.2f} s | {compiled:.3f} s | {nodes / python:,.0f} "
          f"| {nodes / compiled:,.0f} | {ratio:.1f}x |", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=100_000,
                        help="proof-search positions per position")
    parser.add_argument("--threat-nodes", type=int, default=50_000)
    parser.add_argument("--openings", type=int, default=8)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--pool-games", type=int, default=300)
    parser.add_argument("--long", type=int, default=300)
    parser.add_argument("--plies", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="write the rows as JSON here")
    args = parser.parse_args(argv)
    wins = quiet_wins()
    opened = openings(args.openings, args.plies, args.seed)
    played = attacks(game_positions(args.games, args.seed))
    long = long_attacks(game_positions(args.pool_games, args.seed + 1), args.threat_nodes,
                        args.long)
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}; medians of {args.runs} runs")
    print("| search | positions searched | Python CPU | compiled CPU | Python positions/s "
          "| compiled positions/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    rows = [
        compare(f"proof, {len(wins)} quiet wins", proofs(wins, args.nodes), args.runs),
        compare(f"proof, {len(opened)} openings", proofs(opened, args.nodes), args.runs),
        compare(f"threats, {len(played)} attacks in game positions",
                threats(played, args.threat_nodes), args.runs),
        compare(f"threats, {len(long)} long searches", threats(long, args.threat_nodes),
                args.runs),
    ]
    if args.out:
        Path(args.out).write_text(json.dumps({
            "python": platform.python_version(), "cores": os.cpu_count(),
            "load": round(os.getloadavg()[0], 1), "runs": args.runs, "rows": rows},
            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

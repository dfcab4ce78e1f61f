"""Qubic proof search against the threat search on won positions from real games.

Not a test: it takes minutes. Two steps:

* ``--make N`` plays games between the faithful copy of the 4x4x4 seed's bot
  (``seed-qubic:3:strong``: opening on a corner or centre, as when the set was made)
  and noisy engine levels, and keeps positions where the side to
  move wins by force but no chain of continuous threats wins at once (the threat
  search finds nothing within 50,000 positions): wins that need a quiet move. A
  position is kept when the proof search proves the win within ``--label-nodes``.
  They are written to ``benchmarks/data/qubic_quiet_wins.json``.
* the benchmark (default) runs, on every stored position and for each time budget,
  the threat search (``find_forced_win``: continuous threats only) and the proof
  search (``prove``), and prints how many each proves and the median time of a proof,
  written to ``proof.json`` in ``--out-dir`` (``benchmarks/out/``).

    nice -n 10 python benchmarks/bench_proof.py --make 20
    nice -n 10 python benchmarks/bench_proof.py --budgets 0.05,0.2,1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from pathlib import Path

from noughts.budget import Limit
from noughts.players.protocol import Player, parse_player
from noughts.position import Position
from noughts.search.proof import prove
from noughts.search.threats import find_forced_win
from outputs import add_out_dir, write_json

DATA = Path(__file__).parent / "data" / "qubic_quiet_wins.json"


def _move(player: Player, position: Position) -> int:
    return player.move(position, Limit()).move


def make(count: int, seed: int, label_nodes: int) -> list[dict[str, object]]:
    """Quiet wins from games of the seed's bot against engine levels 6-9."""
    rng = random.Random(seed)
    found: list[dict[str, object]] = []
    seen: set[str] = set()
    games = 0
    while len(found) < count:
        games += 1
        level = rng.choice([6, 7, 8, 9])
        bot = parse_player("seed-qubic:3:strong").create(seed=rng.randrange(1 << 30))
        engine = parse_player(f"level:{level}").create(seed=rng.randrange(1 << 30))
        players = [bot, engine] if rng.random() < 0.5 else [engine, bot]
        position = Position("", "qubic")
        while not position.is_over:
            if position.ply >= 8 and position.board not in seen:
                seen.add(position.board)
                if find_forced_win(position, nodes=50_000) is None:
                    result = prove(position, nodes=label_nodes)
                    if result.status == "win":
                        found.append({"board": position.board, "to_move": position.to_move,
                                      "game": games, "proof_size": result.proof_size,
                                      "label_nodes": result.nodes})
                        print(f"{len(found)}/{count}: game {games}, ply {position.ply}, "
                              f"proof of {result.proof_size} positions", flush=True)
                        if len(found) >= count:
                            break
            position = position.play(_move(players[position.ply % 2], position))
    return found


def bench(positions: list[Position], budgets: list[float]) -> list[dict[str, object]]:
    """Per budget: positions proven and median seconds, threat search and proof search."""
    rows = []
    for limit in budgets:
        for name in ("threat search", "proof search"):
            times = []
            proven = 0
            for position in positions:
                start = time.perf_counter()
                if name == "threat search":
                    ok = find_forced_win(position, time_limit=limit) is not None
                else:
                    ok = prove(position, time_limit=limit).status == "win"
                elapsed = time.perf_counter() - start
                if ok:
                    proven += 1
                    times.append(elapsed)
            rows.append({"budget_s": limit, "search": name, "proven": proven,
                         "positions": len(positions),
                         "median_ms": round(statistics.median(times) * 1000, 1) if times else None})
            print(f"{limit:>8.2f} s  {name:<14} {proven:>3}/{len(positions)}  "
                  f"{rows[-1]['median_ms'] or '-':>8} ms", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--make", type=int, metavar="N", help="make N positions first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--label-nodes", type=int, default=400_000)
    parser.add_argument("--budgets", default="0.05,0.2,1,5")
    parser.add_argument("--out", default=None,
                        help="the results file (default proof.json in --out-dir)")
    add_out_dir(parser)
    args = parser.parse_args(argv)
    if args.make:
        found = make(args.make, args.seed, args.label_nodes)
        write_json(DATA, {
            "about": "Qubic positions from games of the 4x4x4 seed's bot (seed-qubic:3) "
                     "against noisy engine levels: the side to move wins by force, but no "
                     "continuous-threat chain of the threat search (50,000 positions) wins.",
            "positions": found})
    stored = json.loads(DATA.read_text())["positions"]
    positions = [Position(p["board"], "qubic") for p in stored]
    budgets = [float(b) for b in args.budgets.split(",")]
    print(f"{len(positions)} quiet wins; {platform.python_version()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'budget':>10}  {'search':<14} proven  {'median':>8}")
    rows = bench(positions, budgets)
    write_json(Path(args.out) if args.out else args.out_dir / "proof.json", {
        "python": platform.python_version(), "cores": os.cpu_count(),
        "load": round(os.getloadavg()[0], 1), "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

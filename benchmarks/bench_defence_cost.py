"""What a proof position of O's defence costs in nodes of the principal-variation search,
on each core: the figure behind ``noughts.search.defence.PROOF_NODE_COST``.

Not a test: it takes a minute or two. On ``--positions`` positions with O to move from
7 to 25 marks, taken (seeded) from the games of a family results file, it measures per
CPU second, on each core:

* the deepening's nodes: the anytime search of the position (O's weights, the learned
  tempo), deepened a ply at a time until ``--search-nodes`` nodes (a tenth of that on
  the Python core);
* the defence's proof positions: the proof search from X's side after each of O's four
  best-ordered moves, one table for the four, at most ``--proof-nodes`` positions each
  (a tenth on the Python core), as the defence checks them.

The ratio of the two, position by position, is what a proof position costs in search
nodes of the same CPU time; the table gives its median and quartiles for each core.

    python benchmarks/bench_defence_cost.py --positions 40
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

from noughts.budget import BudgetExhausted, Limit
from noughts.knowledge.shipped import SHIPPED
from noughts.position import Position
from noughts.search.core import Core, anytime_search, compiled, proof_search
from outputs import add_out_dir, write_json

GAMES = Path(__file__).parent / "results" / "qubic_family_fourth_others_1s_all.json"
"""The family games the positions come from by default."""


def o_positions(path: Path, count: int, seed: int) -> list[Position]:
    """``count`` positions with O to move, 7 to 25 marks and no threat on the board (where
    O's defence checks its moves), from the games in ``path``."""
    games = json.loads(path.read_text())["family"]["games"]
    found = []
    for game in games:
        position = Position("", "qubic").play(game["cell"])
        for move in game["moves"]:
            if position.to_move == "O" and 7 <= position.ply <= 25 and not _threats(position):
                found.append(position)
            position = position.play(move)
    return random.Random(seed).sample(found, count)


def _threats(position: Position) -> int:
    search = anytime_search(position, limit=Limit(node_limit=1))
    return search.threat_cells(0) | search.threat_cells(1)


def search_rate(position: Position, core: Core, nodes: int) -> float:
    """The deepening's nodes per CPU second, to ``nodes`` nodes."""
    search = anytime_search(position, limit=Limit(node_limit=nodes), core=core,
                            learned=SHIPPED.learned_for(position.game))
    moves = search.ordered_moves(-1, 0)
    started = time.process_time()
    try:
        for depth in range(1, search.empty_count() + 1):
            search.root(depth, moves)
    except BudgetExhausted:
        pass
    return search.nodes / max(time.process_time() - started, 1e-9)


def proof_rate(position: Position, core: Core, nodes: int) -> float:
    """The defence's proof positions per CPU second: X's side after O's four first moves."""
    order = anytime_search(position, limit=Limit(node_limit=1), core=core).ordered_moves(-1, 0)
    table = None
    spent = 0
    started = time.process_time()
    for move in order[:4]:
        after = position.play(move)
        if after.is_over:
            continue
        search = proof_search(after, 0, table=table, core=core)
        table = search.table
        search.run(Limit(), nodes=nodes)
        spent += search.nodes
    return spent / max(time.process_time() - started, 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=Path, default=GAMES, help="family results file")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--search-nodes", type=int, default=3_000_000)
    parser.add_argument("--proof-nodes", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", default=None,
                        help="results file (default defence_cost.json in --out-dir)")
    add_out_dir(parser)
    args = parser.parse_args(argv)
    positions = o_positions(args.games, args.positions, args.seed)
    cores: list[Core] = ["compiled", "python"] if compiled() is not None else ["python"]
    report: dict[str, object] = {
        "machine": f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
        "positions": len(positions),
        "load_average_at_start": os.getloadavg()[0],
    }
    print("| core | search nodes / CPU s | proof positions / CPU s | a proof position in "
          "search nodes: median | quartiles |\n|---|--:|--:|--:|---|")
    for core in cores:
        scale = 1 if core == "compiled" else 10
        search = [search_rate(p, core, args.search_nodes // scale) for p in positions]
        proof = [proof_rate(p, core, args.proof_nodes // scale) for p in positions]
        ratios = [s / p for s, p in zip(search, proof, strict=True)]
        low, mid, high = statistics.quantiles(ratios, n=4)
        report[core] = {"search_nodes_per_s": statistics.median(search),
                        "proof_positions_per_s": statistics.median(proof),
                        "cost_median": mid, "cost_quartiles": [low, high]}
        print(f"| {core} | {statistics.median(search):,.0f} | {statistics.median(proof):,.0f} "
              f"| {mid:.1f} | {low:.1f} to {high:.1f} |", flush=True)
    write_json(Path(args.out) if args.out else args.out_dir / "defence_cost.json", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())

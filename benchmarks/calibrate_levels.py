"""Calibrate the difficulty ladder: every level against the level below it, per variant.

Prints a table per variant (wins/draws/losses of the higher level, score with its 95%
interval, Elo difference with its interval, and the ladder's cumulative Elo with level 0
at 0) and writes ``levels_<variant>.json`` in ``--out-dir`` (``benchmarks/out/``), or
``--out``.

    nice -n 10 python benchmarks/calibrate_levels.py --variant 3x3 --games 2000
    nice -n 10 python benchmarks/calibrate_levels.py --variant qubic --games 200 --time 0.2
    python benchmarks/calibrate_levels.py --variant qubic --games 200 --nodes 20000 \
        --cluster ray://head:10001     # every game a job on a Ray cluster
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from noughts.arena.match import run_match
from noughts.arena.ratings import EloRow, elo_table
from noughts.runtime.cluster import LOCAL, executor_for, parse_cluster
from outputs import add_out_dir, write_json


def _fmt(value: float | None, pattern: str = "{:+.0f}") -> str:
    return "inf" if value is None else pattern.format(value)


def calibrate(
    variant: str,
    games: int,
    time_limit: float | None,
    workers: int,
    seed: int,
    openings: int,
    levels: list[int],
    nodes: int | None = None,
    executor: Executor | None = None,
) -> dict[str, object]:
    """Run the adjacent-level matches of ``variant`` and return the ladder as data.

    With an ``executor`` (a cluster) every game is a job on it; else ``workers`` local
    processes play them.
    """
    rows = []
    results: dict[tuple[int, int], tuple[int, int, int]] = {}
    names = [f"level:{level}" for level in range(0, 11)]
    for level in levels:
        started = time.perf_counter()
        match = run_match(
            f"level:{level}",
            f"level:{level - 1}",
            variant=variant,
            games=games,
            time_limit=time_limit,
            nodes=nodes,
            workers=workers,
            seed=seed + level,
            openings=openings,
            executor=executor,
        )
        pair = match.pairs[0]
        stats = pair.stats
        results[(level, level - 1)] = pair.total
        row = {
            "higher": level,
            "lower": level - 1,
            **stats.as_json(),
            "clears_50": stats.score_ci95[0] > 0.5,
            "failures": pair.failures,
            "mean_move_ms": list(pair.mean_move_ms),
            "seconds": time.perf_counter() - started,
            "reruns": match.reruns,
        }
        rows.append(row)
        print(
            f"{variant:6} L{level} v L{level - 1}: +{stats.wins} ={stats.draws} -{stats.losses}"
            f"  score {stats.score:.3f} [{stats.score_ci95[0]:.3f}, {stats.score_ci95[1]:.3f}]"
            f"  elo {_fmt(stats.elo)} [{_fmt(stats.elo_ci95[0])}, {_fmt(stats.elo_ci95[1])}]"
            f"  {'ok' if row['clears_50'] else '--'}  {row['seconds']:.0f} s",
            flush=True,
        )
    table: list[EloRow] = elo_table(names, results, anchor=0) if results else []
    played = {n for pair in results for n in pair}
    ladder = [
        {"player": r.name, "elo": r.elo, "ci95": r.ci95}
        for r in sorted(table, key=lambda r: int(r.name.split(":")[1]))
        if int(r.name.split(":")[1]) in played
    ]
    print(f"\n{variant} ladder (maximum-likelihood Elo, level 0 = 0, one virtual draw per pair):")
    for entry in ladder:
        print(f"  {entry['player']:9} {entry['elo']:+7.0f} ± {entry['ci95']:.0f}")
    return {
        "variant": variant,
        "games_per_pair": games,
        "time": time_limit,
        "nodes": nodes,
        "openings": openings,
        "seed": seed,
        "pairs": rows,
        "ladder": ladder,
        "command": " ".join(sys.argv),
    }


def markdown(data: dict[str, Any]) -> str:
    """The ladder of one results file as Markdown tables (for docs/levels.md)."""
    lines = [
        "| pairing | games | wins | draws | losses | score [95%] | Elo [95%] | ≥ 55% |",
        "|---|---:|---:|---:|---:|---|---|:-:|",
    ]
    for row in data["pairs"]:
        low, high = row["score_ci95"]
        elo_low, elo_high = row["elo_ci95"]
        lines.append(
            f"| {row['higher']} v {row['lower']} | {row['games']} | {row['wins']} "
            f"| {row['draws']} | {row['losses']} | {row['score']:.3f} [{low:.3f}, {high:.3f}] "
            f"| {_fmt(row['elo'])} [{_fmt(elo_low)}, {_fmt(elo_high)}] "
            f"| {'yes' if row['score'] >= 0.55 else 'no'}"
            f"{' (CI > 50%)' if row['clears_50'] else ''} |"
        )
    lines += ["", "| level | Elo (level 0 = 0) | ± 95% |", "|---:|---:|---:|"]
    for entry in data["ladder"]:
        level = entry["player"].split(":")[1]
        lines.append(f"| {level} | {entry['elo']:+.0f} | {entry['ci95']:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="3x3")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--time", type=float, default=None, help="think time for level 10")
    parser.add_argument("--nodes", type=int, default=None, help="search nodes per move")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--cluster", default="none", help="none (local processes), ray, auto or ray://HOST:PORT"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--openings", type=int, default=0)
    parser.add_argument("--levels", default="1-10", help="higher levels to test, e.g. 1-10 or 9,10")
    parser.add_argument("--out", default=None,
                        help="result file (default levels_<variant>.json in --out-dir)")
    add_out_dir(parser)
    parser.add_argument("--markdown", metavar="FILE", help="print a results file as Markdown")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(Path(args.markdown).read_text())))
        return
    if "-" in args.levels:
        low, high = (int(x) for x in args.levels.split("-"))
        levels = list(range(low, high + 1))
    else:
        levels = [int(x) for x in args.levels.split(",")]
    cluster = parse_cluster(args.cluster)
    executor = None if cluster == LOCAL else executor_for(cluster, workers=args.workers)
    try:
        data = calibrate(
            args.variant, args.games, args.time, args.workers, args.seed, args.openings, levels,
            nodes=args.nodes, executor=executor,
        )
    finally:
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
    data["cluster"] = cluster
    out = Path(args.out) if args.out else args.out_dir / f"levels_{args.variant}.json"
    write_json(out, data)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

"""Qubic (4x4x4) benchmark of the anytime engine: speed, depth and strength.

Not a test: it takes minutes. Three parts, each selectable:

* ``speed``: nodes per second and depth reached per move over a set of middle-game
  positions (reached by seeded random play and kept only if nobody has a threat yet);
* ``seed``: matches against the faithful copy of the 4x4x4 seed's bot
  (``seed-qubic:3``: its ``AI_DEPTH = 3``, four plies, lowest-cell ties), the engine as
  X and as O; as X the bot opens on a random corner or centre, as the seed intends
  (``--seed-opening first16`` for its code's bug, ``any`` for any of the 64 cells, as
  this benchmark did before the faithful copy); counting games we lost after proving a
  forced win and games where every engine move was a proven win;
* ``self``: the engine at ``--time`` against itself at ``--fast`` seconds a move.

Results are printed as a table and written to ``benchmarks/results/qubic.json``.

    nice -n 10 python benchmarks/bench_qubic.py --games 20 --time 1.0 --jobs 2

``--jobs N`` plays N games at once in worker processes: keep N to the idle cores, or a
clock budget buys less search than it would alone.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from noughts.anytime.search import anytime_move
from noughts.anytime.threats import find_forced_win
from noughts.engine import MoveResult
from noughts.players.reference import LegacySeedQubicBot, SeedQubicBot
from noughts.position import Position

RESULTS = Path(__file__).parent / "results"


def middle_games(count: int, seed: int = 7) -> list[Position]:
    """Positions after 8-20 plies of a weak but sane game (a one-ply copy of the seed's
    bot with a random opening), kept if nobody has a threat and the side to move has no
    quick continuous-threat win."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        position = Position("", "qubic")
        # the legacy copy keeps the position set of earlier runs (its own tie order)
        bots = [LegacySeedQubicBot(depth=1, seed=rng.randrange(1 << 30)) for _ in range(2)]
        for ply in range(rng.randrange(8, 21)):
            if ply < 2 or rng.random() < 0.2:
                move = rng.choice(list(position.legal_moves))
            else:
                move = bots[ply % 2].choose(position)
            position = position.play(move)
            if position.is_over:
                break
        if position.is_over:
            continue
        if any(_threat(position, side) for side in (position.x, position.o)):
            continue
        if find_forced_win(position, nodes=2000) is not None:
            continue
        positions.append(position)
    return positions


def _threat(position: Position, marks: int) -> bool:
    others = (position.x | position.o) & ~marks
    return any(
        not line & others and (line & marks).bit_count() == position.geometry.k - 1
        for line in position.geometry.lines
    )


def bench_speed(count: int, time_limit: float) -> dict[str, object]:
    rows = []
    for position in middle_games(count):
        result = anytime_move(position, time_limit=time_limit, seed=1)
        rows.append(
            {
                "ply": position.ply,
                "depth": result.depth,
                "nodes": result.nodes,
                "ms": round(result.elapsed_ms, 1),
                "nps": round(result.nodes / max(result.elapsed_ms, 1e-3) * 1000),
                "proven": result.proven,
            }
        )
        print(f"  ply {position.ply:2d}  depth {result.depth}  nodes {result.nodes:6d}  "
              f"{result.elapsed_ms:7.1f} ms  {rows[-1]['nps']:6d} n/s"
              f"{'  proven ' + str(result.outcome) if result.proven else ''}", flush=True)
    searched = [r for r in rows if not r["proven"]] or rows
    nps = [int(str(r["nps"])) for r in searched]
    depths = [int(str(r["depth"])) for r in searched]
    return {
        "positions": rows,
        "median_nps": statistics.median(nps),
        "min_depth": min(depths),
        "median_depth": statistics.median(depths),
        "max_ms": max(float(str(r["ms"])) for r in rows),
    }


Chooser = Callable[[Position], int]
Task = tuple[str, int, float | None, int, int | None, str]
"""(side, game, time limit, seed, node budget or fast budget in ms, the seed bot's
opening: strong, first16 or any)"""

SEED_OPENINGS = ("strong", "first16", "any")


def play_game(
    x_player: Chooser, o_player: Chooser, engine_side: str, log: dict[str, object]
) -> str | None:
    """Play one game; returns the winner or None. ``log`` gathers the engine's stats."""
    position = Position("", "qubic")
    while not position.is_over:
        mover = x_player if position.to_move == "X" else o_player
        move = mover(position)
        position = position.play(move)
    return position.winner


class EngineSide:
    """The anytime engine as a player, recording depth, time and proofs."""

    def __init__(self, time_limit: float | None, seed: int, nodes: int | None = None) -> None:
        self.time_limit = time_limit
        self.node_budget = nodes
        self.seed = seed
        self.depths: list[int] = []
        self.times: list[float] = []
        self.proved_win = False
        self.moves = 0
        self.proven_wins = 0
        self.results: list[MoveResult] = []

    def __call__(self, position: Position) -> int:
        result = anytime_move(position, time_limit=self.time_limit, nodes=self.node_budget,
                              seed=self.seed)
        self.seed += 1
        if result.depth and not result.proven and result.pv:
            self.depths.append(result.depth)
        self.times.append(result.elapsed_ms)
        self.moves += 1
        if result.proven and result.outcome == "win":
            self.proved_win = True
            self.proven_wins += 1
        return result.move


def _seed_game(task: Task) -> dict[str, object]:
    """One game against the seed's bot, ``seed-qubic:3`` (run in a worker process)."""
    side, game, time_limit, seed, nodes, opening = task
    engine = EngineSide(time_limit, seed * 1000 + game, nodes)
    bot = SeedQubicBot(depth=3, style="balanced", seed=seed * 1000 + game,
                       opening="first16" if opening == "first16" else "strong")
    if side == "X":
        winner = play_game(engine, bot.choose, side, {})
    else:
        rng = random.Random(seed * 1000 + game)

        def opener(position: Position) -> int:
            if position.ply == 0 and opening == "any":  # any of the 64 cells
                return rng.choice(list(position.legal_moves))
            return bot.choose(position)

        winner = play_game(opener, engine, side, {})
    return {"side": side, "game": game, "winner": winner, "depths": engine.depths,
            "times": engine.times, "proved_win": engine.proved_win,
            "all_proven": engine.moves > 0 and engine.proven_wins == engine.moves}


def _played(
    worker: Callable[[Task], dict[str, object]], tasks: list[Task], jobs: int
) -> Iterator[dict[str, object]]:
    """The games of ``tasks``, ``jobs`` at a time in worker processes, in task order."""
    if jobs <= 1:
        yield from map(worker, tasks)
        return
    with multiprocessing.Pool(jobs) as pool:
        yield from pool.imap(worker, tasks)


def bench_seed(
    games: int,
    time_limit: float | None,
    seed: int,
    nodes: int | None = None,
    jobs: int = 1,
    opening: str = "strong",
) -> dict[str, object]:
    summary: dict[str, object] = {}
    all_depths: list[int] = []
    all_times: list[float] = []
    tasks: list[Task] = [(side, game, time_limit, seed, nodes, opening)
                         for side in ("X", "O") for game in range(games)]
    tally = {side: {"games": games, "wins": 0, "draws": 0, "losses": 0,
                    "lost_after_proven_win": 0, "every_move_proven_win": 0}
             for side in ("X", "O")}
    for record in _played(_seed_game, tasks, jobs):
        side, winner = str(record["side"]), record["winner"]
        depths, times = record["depths"], record["times"]
        assert isinstance(depths, list) and isinstance(times, list)
        all_depths += depths
        all_times += times
        tally[side]["every_move_proven_win"] += bool(record["all_proven"])
        if winner == side:
            tally[side]["wins"] += 1
        elif winner is None:
            tally[side]["draws"] += 1
        else:
            tally[side]["losses"] += 1
            tally[side]["lost_after_proven_win"] += bool(record["proved_win"])
        print(f"  engine as {side}, game {int(str(record['game'])) + 1}: "
              f"{'win' if winner == side else 'draw' if winner is None else 'LOSS'}"
              f"  (min depth {min(depths, default=0)}, "
              f"max {max(times, default=0):.0f} ms)", flush=True)
    summary.update(tally)
    summary["opponent"] = SeedQubicBot(depth=3).name
    summary["opponent_opening"] = opening
    summary["jobs"] = jobs
    summary["moves"] = len(all_times)
    summary["moves_over_budget_plus_50ms"] = sum(t > (time_limit or 0) * 1000 + 50
                                                  for t in all_times) if time_limit else 0
    summary["median_ms"] = round(statistics.median(all_times), 1) if all_times else 0.0
    summary["depth_histogram"] = {
        str(d): all_depths.count(d) for d in sorted(set(all_depths))
    }
    summary["min_depth"] = min(all_depths, default=0)
    summary["median_depth"] = statistics.median(all_depths) if all_depths else 0
    summary["max_ms"] = round(max(all_times, default=0.0), 1)
    return summary


def _self_game(task: Task) -> dict[str, object]:
    """One game of the engine at ``time_limit`` against itself at ``fast`` (in a worker)."""
    _, game, time_limit, seed, fast, _ = task
    assert time_limit is not None and fast is not None
    strong = EngineSide(time_limit, seed * 7919 + game)
    weak = EngineSide(fast / 1000, seed * 104729 + game)
    strong_side = "X" if game % 2 == 0 else "O"
    x_player, o_player = (strong, weak) if strong_side == "X" else (weak, strong)
    winner = play_game(x_player, o_player, strong_side, {})
    return {"game": game, "side": strong_side, "winner": winner}


def bench_self(
    games: int, time_limit: float, fast: float, seed: int, jobs: int = 1
) -> dict[str, object]:
    points = 0.0
    record = {"wins": 0, "draws": 0, "losses": 0}
    # the fast budget travels in milliseconds so that the task tuple stays one type
    tasks: list[Task] = [("self", game, time_limit, seed, round(fast * 1000), "")
                         for game in range(games)]
    for played in _played(_self_game, tasks, jobs):
        winner, strong_side = played["winner"], played["side"]
        if winner == strong_side:
            points += 1
            record["wins"] += 1
        elif winner is None:
            points += 0.5
            record["draws"] += 1
        else:
            record["losses"] += 1
        print(f"  game {int(str(played['game'])) + 1} ({time_limit} s as {strong_side}): "
              f"{'win' if winner == strong_side else 'draw' if winner is None else 'loss'}",
              flush=True)
    return {"games": games, **record, "score": points / games if games else 0.0, "jobs": jobs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per side / self-play")
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move (engine)")
    parser.add_argument("--fast", type=float, default=0.1, help="seconds a move (weak self)")
    parser.add_argument("--nodes", type=int, default=None,
                        help="vs the seed: a node budget a move instead of --time (the same "
                             "search whatever the machine's load)")
    parser.add_argument("--positions", type=int, default=20, help="speed-test positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1,
                        help="games played at once, against the seed's bot and in self-play "
                             "(worker processes; keep to the idle cores, or the clock budget "
                             "buys less search)")
    parser.add_argument("--seed-opening", choices=SEED_OPENINGS, default="strong",
                        help="the seed bot's first move: strong (a random corner or centre, "
                             "as the seed intends; default), first16 (the seed code's bug) "
                             "or any (any cell, as before the faithful copy)")
    parser.add_argument("--parts", default="speed,seed,self", help="comma-separated parts")
    parser.add_argument("--out", default=str(RESULTS / "qubic.json"))
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    report: dict[str, object] = {
        "machine": f"{platform.machine()} {platform.system()}, Python {platform.python_version()}",
        "time_limit": args.time,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average_at_start": os.getloadavg()[0],
    }
    if "speed" in parts:
        print(f"speed: {args.positions} middle-game positions at {args.time} s", flush=True)
        report["speed"] = bench_speed(args.positions, args.time)
    if "seed" in parts:
        budget = f"{args.nodes} nodes" if args.nodes else f"{args.time} s"
        print(f"vs {SeedQubicBot(depth=3).name} (the seed's AI_DEPTH 3, four plies), "
              f"opening {args.seed_opening}: {args.games} games a side at {budget}", flush=True)
        report["seed"] = bench_seed(args.games, None if args.nodes else args.time, args.seed,
                                    args.nodes, args.jobs, args.seed_opening)
        report["seed_budget"] = budget
    if "self" in parts:
        print(f"self-play: {args.time} s vs {args.fast} s, {args.games} games", flush=True)
        report["self"] = bench_self(args.games, args.time, args.fast, args.seed, args.jobs)
    report["load_average_at_end"] = os.getloadavg()[0]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "speed"}, indent=2))
    if "speed" in report:
        speed = report["speed"]
        assert isinstance(speed, dict)
        print({k: v for k, v in speed.items() if k != "positions"})
    return 0


if __name__ == "__main__":
    sys.exit(main())

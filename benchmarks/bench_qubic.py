"""Qubic (4x4x4) benchmark of the anytime engine: speed, depth and strength.

Not a test: it takes minutes. Six parts, each selectable (games are played through the
one game loop, :func:`noughts.players.game.play_game`, the engine as level 10):

* ``speed``: nodes per second and depth reached per move over a set of middle-game
  positions (reached by seeded random play and kept only if nobody has a threat yet);
* ``seed``: matches against the faithful copy of the 4x4x4 seed's bot
  (``seed-qubic:3``: its ``AI_DEPTH = 3``, four plies, lowest-cell ties), the engine as
  X and as O; as X the bot opens on a random cell among 0-15, as the seed's code does
  (``--seed-opening first16``, the default), ``strong`` on a random corner or centre,
  as the seed intends, ``any`` for any of the 64 cells, ``each`` for the 16 strong
  cells in turn in the O games: with ``--nodes`` instead of a clock, the same games
  every run (the family part, below, with
  ``--members seed-qubic:3 --cells 0-15`` plays the real openings in turn);
  counting games we lost after proving a forced win and games where every engine move
  was a proven win, and the O games by the bot's first cell;
* ``own``: the engine as X against its own best O, both at ``--time`` a move;
* ``self``: the engine at ``--time`` against itself at ``--fast`` seconds a move;
* ``family``: the engine as O against a family of fallible X players (the seed's bot
  at look-ahead 1-3 with lowest-cell and with random ties, the engine's own search
  without the strategy, the threat player), X's first mark placed by the harness on
  each of ``--cells``; ``--members`` picks members (see :mod:`noughts.arena.family`);
  with ``--cli`` O moves through the command line, a cold process a move, with
  ``--service`` through a ``noughts serve`` the script starts on 127.0.0.1 (each move a
  ``POST /api/v1/move`` with ``time_ms``, as the page asks); ``--orient`` shows O each
  game in a random one of Qubic's 192 orientations; ``--blunders`` counts O's visible
  blunders in every game once the games are played (``benchmarks/blunders.py``);
* ``cold``: the wall time of a cold ``noughts move --time`` as O (a new process each
  run, ``--cold-runs`` runs in two positions past O's book, one after X opened on a
  corner and one on a cell of the other kind), beside a bare interpreter's start:
  the target is 1.3 s at ``--time 1``.

Results are printed as a table and written to ``qubic.json`` in ``--out-dir``
(``benchmarks/out/``; ``qubic_family.json`` when the family is the only part,
``qubic_cold.json`` for the cold moves alone), or to ``--out``.

    nice -n 10 python benchmarks/bench_qubic.py --parts family --nodes 1000000 \
        --cells sample:16 --jobs 2

    nice -n 10 python benchmarks/bench_qubic.py --games 20 --time 1.0 --jobs 2

``--jobs N`` plays N games at once in worker processes: keep N to the idle cores, or a
clock budget buys less search than it would alone.
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
import time
from pathlib import Path

from bench_service import free_port, start_noughts, stop, wait_warm
from noughts.arena.family import DEFAULT_MEMBERS, member_player, parse_members
from noughts.engine import choose_move
from noughts.errors import NoughtsError
from noughts.knowledge.shipped import SHIPPED
from noughts.players.game import GameOutcome, play_game
from noughts.players.protocol import CallablePlayer, LevelPlayer, Player
from noughts.players.reference import LegacySeedQubicBot, SeedQubicBot
from noughts.position import Position
from noughts.results import Mark
from noughts.search.openings import strong_cells
from noughts.search.threats import find_forced_win
from noughts.variants import variant
from outputs import add_out_dir, write_json
from qubic_family import (
    bench_family,
    count_blunders,
    in_workers,
    parse_cells,
    print_table,
    tasks_for,
)


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


COLD_OPENINGS = ((0, 42, 1, 3, 21), (1, 38, 0, 41, 21))
"""The cold moves' positions: X opened on a corner or on a cell of the other kind, and
has made three marks (O's book answers its first two); O to move past its book, so the
search answers."""


def bench_cold(runs: int, time_limit: float) -> dict[str, object]:
    """Wall times of a cold ``python -m noughts move --time`` as O, and of a bare start."""
    bare = [_timed_run([sys.executable, "-c", "pass"])[0] for _ in range(runs)]
    rows: dict[str, object] = {"bare interpreter": _cold_row(bare)}
    for opening in COLD_OPENINGS:
        position = Position("", "qubic")
        for cell in opening:
            position = position.play(cell)
        book = SHIPPED.o_book_for(position)
        if book is not None and book.lookup(position) is not None:
            raise SystemExit(f"cold: O's book answers {opening}; the move would not search")
        board = position.board
        command = [sys.executable, "-m", "noughts", "move", board, "--variant", "qubic",
                   "--time", str(time_limit), "--json"]
        walls, searched, nodes = [], [], []
        for _ in range(runs):
            wall, output = _timed_run(command)
            walls.append(wall)
            record = json.loads(output)
            searched.append(record["elapsed_ms"] / 1000)
            nodes.append(record["nodes"])
        rows[f"O after {'-'.join(map(str, opening))}"] = {**_cold_row(walls),
                                             "median_search_s": statistics.median(searched),
                                             "median_nodes": statistics.median(nodes)}
    print(f"| cold run ({runs} each) | median wall s | slowest wall s | median search s "
          f"| median nodes |\n|---|--:|--:|--:|--:|")
    for name, row in rows.items():
        assert isinstance(row, dict)
        print(f"| {name} | {row['median_s']:.2f} | {row['max_s']:.2f} | "
              f"{row.get('median_search_s', 0):.2f} | {row.get('median_nodes', 0):,.0f} |")
    return rows


def _timed_run(command: list[str]) -> tuple[float, str]:
    """The wall time of ``command`` in a new process, and what it printed."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout


def _cold_row(walls: list[float]) -> dict[str, float]:
    return {"median_s": statistics.median(walls), "max_s": max(walls)}


def bench_speed(count: int, time_limit: float) -> dict[str, object]:
    rows = []
    for position in middle_games(count):
        result = choose_move(position, time_limit=time_limit, seed=1)
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


Task = tuple[str, int, float | None, int, int | None, str]
"""(side, game, time limit, seed, node budget or fast budget in ms, the seed bot's
opening: strong, first16 or any)"""

SEED_OPENINGS = ("strong", "first16", "any", "each")


def engine(seed: int, time_limit: float | None, nodes: int | None = None) -> LevelPlayer:
    """The engine at its strongest (level 10) within ``time_limit`` or ``nodes`` a move."""
    return LevelPlayer(10, seed, time_limit=time_limit, nodes=nodes)


def side_record(game: GameOutcome, side: str) -> dict[str, object]:
    """What one side's moves of ``game`` showed: the depths of its searched moves, its
    times, whether it ever claimed a proven win and whether every move was one."""
    mine = [choice for index, choice in enumerate(game.choices)
            if (index % 2 == 0) == (side == "X")]
    wins = [choice.proven and choice.outcome == "win" for choice in mine]
    return {
        "depths": [c.depth for c in mine if c.depth and not c.proven and c.pv],
        "times": [t * 1000 for t in game.times[side]],
        "proved_win": any(wins),
        "all_proven": bool(mine) and all(wins),
    }


def _seed_game(task: Task) -> dict[str, object]:
    """One game against the seed's bot, ``seed-qubic:3`` (run in a worker process)."""
    side, game, time_limit, seed, nodes, opening = task
    me = engine(seed * 1000 + game, time_limit, nodes)
    bot = SeedQubicBot(depth=3, style="balanced", seed=seed * 1000 + game,
                       opening="first16" if opening == "first16" else "strong")
    opponent: Player = bot
    if opening in ("any", "each") and side == "O":  # the bot's first cell, then the bot
        rng = random.Random(seed * 1000 + game)
        strong = strong_cells(variant("qubic").geometry)

        def opener(position: Position) -> int:
            if position.ply == 0:  # any cell, or the strong cells in turn (game i: cell i)
                return (rng.choice(list(position.legal_moves)) if opening == "any"
                        else strong[game % len(strong)])
            return bot.choose(position)

        opponent = CallablePlayer(opener, bot.name)
    players: dict[Mark, Player] = {"X": me, "O": opponent} if side == "X" else {
        "X": opponent, "O": me}
    played = play_game(players, Position("", "qubic"))
    return {"side": side, "game": game, "winner": _winner(played),
            "opening": played.moves[0], **side_record(played, side)}


def _winner(game: GameOutcome) -> str | None:
    if game.failure is not None:
        raise RuntimeError(game.reason)  # a benchmark's players must not fail
    return None if game.result == "draw" else game.result


def _tally(games: int) -> dict[str, int]:
    return {"games": games, "wins": 0, "draws": 0, "losses": 0,
            "lost_after_proven_win": 0, "every_move_proven_win": 0}


def _count(tally: dict[str, int], record: dict[str, object], side: str) -> str:
    """Add one game of the engine as ``side`` to ``tally``; the result in a word."""
    winner = record["winner"]
    tally["every_move_proven_win"] += bool(record["all_proven"])
    if winner == side:
        tally["wins"] += 1
        return "win"
    if winner is None:
        tally["draws"] += 1
        return "draw"
    tally["losses"] += 1
    tally["lost_after_proven_win"] += bool(record["proved_win"])
    return "LOSS"


def _timing(summary: dict[str, object], depths: list[int], times: list[float],
            time_limit: float | None) -> None:
    summary["moves"] = len(times)
    summary["moves_over_budget_plus_50ms"] = sum(t > (time_limit or 0) * 1000 + 50
                                                  for t in times) if time_limit else 0
    summary["median_ms"] = round(statistics.median(times), 1) if times else 0.0
    summary["depth_histogram"] = {str(d): depths.count(d) for d in sorted(set(depths))}
    summary["min_depth"] = min(depths, default=0)
    summary["median_depth"] = statistics.median(depths) if depths else 0
    summary["max_ms"] = round(max(times, default=0.0), 1)


def bench_seed(
    games: int,
    time_limit: float | None,
    seed: int,
    nodes: int | None = None,
    jobs: int = 1,
    opening: str = "strong",
) -> dict[str, object]:
    """The engine as X and as O against the faithful seed bot, ``games`` a side. The O
    games are also counted by the bot's first cell: the bot plays the same game from
    the same first cell (it is deterministic after it), so the cells say more than the
    seeds."""
    all_depths: list[int] = []
    all_times: list[float] = []
    times_by_side: dict[str, list[float]] = {"X": [], "O": []}
    tasks: list[Task] = [(side, game, time_limit, seed, nodes, opening)
                         for side in ("X", "O") for game in range(games)]
    tally = {side: _tally(games) for side in ("X", "O")}
    by_opening: dict[str, list[int]] = {}
    for record in in_workers(_seed_game, tasks, jobs):
        side = str(record["side"])
        depths, times = record["depths"], record["times"]
        assert isinstance(depths, list) and isinstance(times, list)
        all_depths += depths
        all_times += times
        times_by_side[side] += times
        word = _count(tally[side], record, side)
        if side == "O":
            cell = by_opening.setdefault(str(record["opening"]), [0, 0])
            cell[0] += word == "win"
            cell[1] += 1
        print(f"  engine as {side}, game {int(str(record['game'])) + 1}: {word}"
              f"  (bot opened {record['opening']}; min depth {min(depths, default=0)}, "
              f"max {max(times, default=0):.0f} ms)", flush=True)
    summary: dict[str, object] = dict(tally)
    summary["O_wins_by_bot_opening"] = {cell: f"{won}/{played}" for cell, (won, played)
                                        in sorted(by_opening.items(), key=lambda i: int(i[0]))}
    summary["opponent"] = SeedQubicBot(depth=3).name
    summary["opponent_opening"] = opening
    summary["jobs"] = jobs
    _timing(summary, all_depths, all_times, time_limit)
    summary["median_ms_by_side"] = {side: round(statistics.median(times), 2) if times else 0.0
                                    for side, times in times_by_side.items()}
    return summary


def _own_game(task: Task) -> dict[str, object]:
    """One game of the engine as X against itself as O, both at ``time_limit``."""
    _, game, time_limit, seed, _, _ = task
    played = play_game({"X": engine(seed * 7919 + game, time_limit),
                        "O": engine(seed * 104729 + game, time_limit)}, Position("", "qubic"))
    return {"game": game, "winner": _winner(played), "opening": played.moves[0],
            **side_record(played, "X")}


def bench_own(games: int, time_limit: float, seed: int, jobs: int = 1) -> dict[str, object]:
    """The engine as X against its own best O (level 10), both at ``time_limit``."""
    tally = _tally(games)
    depths: list[int] = []
    times: list[float] = []
    tasks: list[Task] = [("own", game, time_limit, seed, None, "") for game in range(games)]
    for record in in_workers(_own_game, tasks, jobs):
        word = _count(tally, record, "X")
        record_depths, record_times = record["depths"], record["times"]
        assert isinstance(record_depths, list) and isinstance(record_times, list)
        depths += record_depths
        times += record_times
        print(f"  game {int(str(record['game'])) + 1} (X at {time_limit} s against O at "
              f"{time_limit} s): X {word}", flush=True)
    summary: dict[str, object] = {"X": tally, "jobs": jobs}
    _timing(summary, depths, times, time_limit)
    return summary


def _self_game(task: Task) -> dict[str, object]:
    """One game of the engine at ``time_limit`` against itself at ``fast`` (in a worker)."""
    _, game, time_limit, seed, fast, _ = task
    assert time_limit is not None and fast is not None
    strong = engine(seed * 7919 + game, time_limit)
    weak = engine(seed * 104729 + game, fast / 1000)
    strong_side = "X" if game % 2 == 0 else "O"
    players: dict[Mark, Player] = ({"X": strong, "O": weak} if strong_side == "X"
                                   else {"X": weak, "O": strong})
    return {"game": game, "side": strong_side,
            "winner": _winner(play_game(players, Position("", "qubic")))}


def bench_self(
    games: int, time_limit: float, fast: float, seed: int, jobs: int = 1
) -> dict[str, object]:
    points = 0.0
    record = {"wins": 0, "draws": 0, "losses": 0}
    # the fast budget travels in milliseconds so that the task tuple stays one type
    tasks: list[Task] = [("self", game, time_limit, seed, round(fast * 1000), "")
                         for game in range(games)]
    for played in in_workers(_self_game, tasks, jobs):
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
                        help="vs the seed and the family: the engine's node budget a move "
                             "instead of --time (the same search whatever the machine's load)")
    parser.add_argument("--positions", type=int, default=20, help="speed-test positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1,
                        help="games played at once, against the seed's bot and in self-play "
                             "(worker processes; keep to the idle cores, or the clock budget "
                             "buys less search)")
    parser.add_argument("--seed-opening", choices=SEED_OPENINGS, default="first16",
                        help="the seed bot's first move: first16 (a random cell among 0-15, "
                             "as the seed's code does; default), strong (a random corner or "
                             "centre, as the seed intends), "
                             "any (any of the 64 cells) or each (as O, "
                             "game i opens on the i-th of the 16 strong cells: with --nodes, "
                             "the same games every run)")
    parser.add_argument("--parts", default="speed,seed,self",
                        help="comma-separated parts: speed, seed, own, self, family, cold")
    parser.add_argument("--cold-runs", type=int, default=5,
                        help="cold: runs of each cold command")
    parser.add_argument("--members", default=",".join(DEFAULT_MEMBERS),
                        help="family: comma-separated X players (player specs, @N for N "
                             "nodes a move; 'family' or 'outside' for a whole set); "
                             "default the whole family")
    parser.add_argument("--cli", action="store_true",
                        help="family: O moves through the command line, each move a new "
                             "'python -m noughts move ... --json' process (default: in "
                             "this process)")
    parser.add_argument("--service", action="store_true",
                        help="family: O moves through a 'noughts serve' started on 127.0.0.1 "
                             "for the run, each move a POST /api/v1/move with time_ms (--time "
                             "in ms), as the page asks")
    parser.add_argument("--orient", action="store_true",
                        help="family: O sees each game in a random one of Qubic's 192 "
                             "symmetric orientations (from the game's seed), its answers "
                             "mapped back")
    parser.add_argument("--blunders", action="store_true",
                        help="family: after the games, count O's visible blunders in each "
                             "(benchmarks/blunders.py; seconds of proof search a move)")
    parser.add_argument("--cells", default="all",
                        help="family: X's first cells: all, a list with ranges (0-15,21) or "
                             "sample:N (N cells spread over the 64)")
    parser.add_argument("--out", default=None,
                        help="results file (default qubic.json in --out-dir, "
                             "qubic_family.json for the family alone)")
    add_out_dir(parser)
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    unknown = parts - {"speed", "seed", "own", "self", "family", "cold"}
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    try:
        cells = parse_cells(args.cells)
    except ValueError as error:
        parser.error(f"--cells: {error}")
    if args.service and (args.cli or args.nodes):
        parser.error("--service: O asks the service with time_ms, not with --cli or --nodes")
    members = parse_members(args.members)
    for member in members:
        try:
            member_player(member, 0)
        except (ValueError, NoughtsError) as error:
            parser.error(f"--members: {error}")
    alone = {"family": "qubic_family.json", "cold": "qubic_cold.json"}
    out = Path(args.out or args.out_dir / (alone.get(next(iter(parts)), "qubic.json")
                                      if len(parts) == 1 else "qubic.json"))
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
        limit = f"{args.nodes} nodes" if args.nodes else f"{args.time} s"
        print(f"vs {SeedQubicBot(depth=3).name} (the seed's AI_DEPTH 3, four plies), "
              f"opening {args.seed_opening}: {args.games} games a side at {limit}", flush=True)
        report["seed"] = bench_seed(args.games, None if args.nodes else args.time, args.seed,
                                    args.nodes, args.jobs, args.seed_opening)
        report["seed_budget"] = limit
    if "own" in parts:
        print(f"own: X against the engine's own best O, both at {args.time} s, "
              f"{args.games} games", flush=True)
        report["own"] = bench_own(args.games, args.time, args.seed, args.jobs)
    if "self" in parts:
        print(f"self-play: {args.time} s vs {args.fast} s, {args.games} games", flush=True)
        report["self"] = bench_self(args.games, args.time, args.fast, args.seed, args.jobs)
    if "family" in parts:
        limit = f"{args.nodes} nodes" if args.nodes else f"{args.time} s"
        way = ("service" if args.service else "cli" if args.cli else "in-process")
        turned = ", each game in a random orientation" if args.orient else ""
        print(f"family: the engine as O at {limit} a move ({way}{turned}) against "
              f"{len(members)} X players, {len(cells)} first cells each", flush=True)
        report["family_budget"] = limit
        report["family_o"] = way
        report["family_orient"] = args.orient
        report["family_cells"] = cells
        report["jobs"] = args.jobs

        def save(so_far: dict[str, object]) -> None:  # a run cut short keeps its games
            write_json(out, {**report, "family": so_far, "finished": False})

        server = None
        url = None
        if args.service:
            port = free_port()
            server = start_noughts(port, 10_000)  # the service's default cache
            wait_warm(port)
            url = f"http://127.0.0.1:{port}"
        try:
            tasks = tasks_for(members, cells, args.seed, args.time, args.nodes, args.cli,
                              url, args.orient)
            family = bench_family(tasks, lambda work, todo: in_workers(work, todo, args.jobs),
                                  save)
        finally:
            if server is not None:
                stop(server)
        if args.blunders:
            print("O's visible blunders (a proof search one X move ahead):", flush=True)
            family = count_blunders(family, args.jobs)
            rows, total = family["members"], family["total"]
            assert isinstance(rows, dict) and isinstance(total, dict)
            print_table(rows, total)
        report["family"] = family
    if "cold" in parts:
        print(f"cold: noughts move --time {args.time} as O in a new process", flush=True)
        report["cold"] = bench_cold(args.cold_runs, args.time)
    report["load_average_at_end"] = os.getloadavg()[0]
    write_json(out, report)
    shown = {k: v for k, v in report.items() if k not in ("speed", "family", "cold")}
    print(json.dumps(shown, indent=2))
    if "speed" in report:
        speed = report["speed"]
        assert isinstance(speed, dict)
        print({k: v for k, v in speed.items() if k != "positions"})
    return 0


if __name__ == "__main__":
    sys.exit(main())

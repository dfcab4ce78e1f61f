"""``noughts arena`` (matches and round-robins between players) and ``noughts replay``.

``noughts arena A B --variant V --games N`` plays a match and prints A's wins, draws and
losses as first player, as second and in total, the score with its 95% interval, the Elo
difference with its interval, mean move times and game length. Three players or more
(or ``--round-robin``) play every pairing and add an Elo table.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from noughts.cli import limits

__all__ = ["add_arguments", "run", "EXAMPLES"]

EXAMPLES = (
    "noughts arena level:10 random --games 20",
    "noughts arena easy medium impossible --variant 4x4k3 --games 4 --time 0.05",
    "noughts arena seed-qubic:2:strong level:10 --variant qubic --games 2 --time 0.1 "
    "--json arena.json",
)
"""The commands ``noughts arena --help`` shows (each runs in a second or two: the tests
run them): a match, a round-robin of the named levels, a Qubic match saved as JSON."""


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    """The options of ``arena`` or ``replay``."""
    if name == "replay":
        parser.add_argument("file", help="a JSON-lines file written by arena --games-out")
        parser.add_argument("--game", type=int, default=0, help="game number (default 0)")
        return
    parser.epilog = "examples:\n" + "\n".join(f"  {example}" for example in EXAMPLES)
    parser.add_argument(
        "players",
        nargs="+",
        metavar="PLAYER",
        help="random, level:N[:no-strategy], easy/medium/hard/impossible, "
        "seed-qubic[:D[:STYLE][:strong][:random]] (D = the seed's AI_DEPTH: D+1 plies; "
        "strong: open on a corner or centre, not cells 0-15; random: random ties), "
        "seed-qubic-legacy[:D[:STYLE]], threats[:N], mcts[:N], seed-4x4, seed-random or "
        "module:callable",
    )
    parser.add_argument(
        "--variant", "-v", default="3x3", metavar="V", type=limits.variant_name,
        help="board (default 3x3; NAME-misere for the misère game, where completing a line "
        "loses)",
    )
    parser.add_argument(
        "--games", type=limits.positive_count, default=100, help="games per pairing (default 100)"
    )
    parser.add_argument("--time", type=limits.seconds, default=None, help="think time per move (s)")
    parser.add_argument("--nodes", type=limits.nodes, default=None, help="search nodes per move")
    parser.add_argument(
        "--move-limit",
        type=limits.seconds,
        default=None,
        help="hard limit per move in seconds; slower loses (default 3*time+1, or 30)",
    )
    parser.add_argument(
        "--workers",
        type=limits.count,
        default=min(2, os.cpu_count() or 1),
        help="worker processes (0: play in this process)",
    )
    parser.add_argument(
        "--cluster",
        default="none",
        help="where games run: none (local worker processes, the default), ray (a local "
        "Ray), auto or ray://HOST:PORT (an existing Ray cluster; needs noughts[cluster])",
    )
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--openings", type=limits.count, default=0, help="random opening moves")
    parser.add_argument("--round-robin", action="store_true", help="every pairing, Elo table")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--games-out", metavar="FILE", help="write every game as JSON lines")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(name: str, args: argparse.Namespace) -> int:
    """Run ``arena`` or ``replay``."""
    if name == "replay":
        return _replay(args)
    return _arena(args)


def _arena(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from noughts.arena.match import GameRecord, run_arena
    from noughts.cli import fail
    from noughts.players.protocol import parse_player
    from noughts.runtime.atomic import check_writable, write_files
    from noughts.runtime.cluster import LOCAL, executor_for, parse_cluster

    if len(args.players) < 2:
        raise fail("the arena needs at least two players")
    cluster = parse_cluster(args.cluster)
    if len(args.players) > 2 and not args.round_robin:
        args.round_robin = True
    outputs = [path for path in (args.json, args.games_out) if path]
    for path in outputs:
        check_writable(path)  # now, before any game
    specs = [parse_player(text) for text in args.players]
    pairings = len(specs) * (len(specs) - 1) // 2
    total = args.games * pairings
    tally = {"A": 0.0, "played": 0}
    # Player names are shown as they are: no Rich markup or emoji codes read into them.
    err = Console(stderr=True, markup=False, emoji=False)
    progress = Progress(
        TextColumn("arena", style="bold"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[score]}", markup=False),
        TimeElapsedColumn(),
        console=err,
        auto_refresh=False,
        disable=args.quiet,
    )
    job = progress.add_task("games", total=total, score="")

    def on_record(record: GameRecord) -> None:
        tally["played"] += 1
        if len(specs) == 2:
            tally["A"] += record.points(0)
            score = f"{specs[0].name} {tally['A']:g}/{tally['played']}"
        else:
            score = f"last: {record.players['X']} v {record.players['O']} {record.result}"
        progress.update(job, advance=1, score=score)
        progress.refresh()

    executor = None
    if cluster != LOCAL:
        if not args.quiet:
            err.print(f"arena: connecting to the cluster ({cluster})")
        executor = executor_for(cluster, workers=max(1, args.workers))
    try:
        with progress:
            result = run_arena(
                specs,
                variant=args.variant,
                games=args.games,
                time_limit=args.time,
                nodes=args.nodes,
                move_limit=args.move_limit,
                workers=args.workers,
                seed=args.seed,
                openings=args.openings,
                on_record=on_record,
                on_tick=progress.refresh,
                executor=executor,
            )
    finally:
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
    out = Console(markup=False, emoji=False)
    data = _report(result, out)
    if result.reruns:
        games = ", ".join(str(index) for index in result.reruns)
        out.print(f"re-ran {len(result.reruns)} games whose cluster worker was lost: {games}")
    data.update(cluster=cluster, reruns=result.reruns)
    files: dict[Path, str] = {}
    if args.json:
        files[Path(args.json)] = json.dumps(data, indent=2) + "\n"
    if args.games_out:
        files[Path(args.games_out)] = "".join(
            json.dumps(record.to_json()) + "\n" for record in result.records
        )
    write_files(files)  # both or neither: a failure leaves the earlier files whole
    return 0


def _fmt_elo(value: float | None, low: float | None, high: float | None) -> str:
    def one(x: float | None, infinite: str) -> str:
        return infinite if x is None else f"{x:+.0f}"

    # An infinite estimate (every game won or lost) takes the sign of its finite bound.
    infinite = "+inf" if low is not None else "-inf" if high is not None else "±inf"
    return f"{one(value, infinite)} [{one(low, '-inf')}, {one(high, '+inf')}]"


def _pair_data(result: Any, pair: Any) -> dict[str, Any]:
    stats = pair.stats
    names = result.names
    return {
        "players": [names[pair.first], names[pair.second]],
        **stats.as_json(),
        "as_first": dict(zip(("wins", "draws", "losses"), pair.as_x, strict=True)),
        "as_second": dict(zip(("wins", "draws", "losses"), pair.as_o, strict=True)),
        "mean_move_ms": {
            names[pair.first]: pair.mean_move_ms[0],
            names[pair.second]: pair.mean_move_ms[1],
        },
        "mean_plies": pair.mean_plies,
        "failures": pair.failures,
    }


def _report(result: Any, out: Any) -> dict[str, Any]:
    from rich.table import Table

    settings = {"variant": result.variant, "seed": result.seed, **result.settings}
    if len(result.names) == 2:
        pair = result.pairs[0]
        a, b = result.names
        stats = pair.stats
        table = Table(title=f"{a} v {b} on {result.variant}, {stats.games} games")
        for column in ("", "wins", "draws", "losses"):
            table.add_column(column, justify="right" if column else "left")
        for label, counts in (
            (f"{a} first (X)", pair.as_x),
            (f"{a} second (O)", pair.as_o),
            ("total", pair.total),
        ):
            table.add_row(label, *(str(c) for c in counts))
        out.print(table)
        low, high = stats.score_ci95
        out.print(f"score of {a}: {stats.score:.3f}  95% interval [{low:.3f}, {high:.3f}]")
        elo = _fmt_elo(stats.elo, *stats.elo_ci95)
        out.print(f"Elo difference: {elo} (95% interval)")
        out.print(
            f"mean move time: {a} {pair.mean_move_ms[0]:.1f} ms, {b} {pair.mean_move_ms[1]:.1f} ms"
            f"; mean game length {pair.mean_plies:.1f} plies"
        )
        for why, count in sorted(pair.failures.items()):
            out.print(f"lost by failure: {why} ×{count}")
        return {**_pair_data(result, pair), **settings}
    table = Table(title=f"round-robin on {result.variant}, {result.settings['games']} games a pair")
    for column in ("pairing", "wins", "draws", "losses", "score", "Elo difference"):
        table.add_column(column, justify="left" if column == "pairing" else "right")
    for pair in result.pairs:
        stats = pair.stats
        table.add_row(
            f"{result.names[pair.first]} v {result.names[pair.second]}",
            str(stats.wins),
            str(stats.draws),
            str(stats.losses),
            f"{stats.score:.3f}",
            _fmt_elo(stats.elo, *stats.elo_ci95),
        )
    out.print(table)
    ranking = Table(title=f"Elo table ({result.names[0]} = 0)")
    for column in ("#", "player", "Elo", "± 95%", "games", "score"):
        ranking.add_column(column, justify="left" if column == "player" else "right")
    for rank, row in enumerate(result.table, 1):
        ranking.add_row(
            str(rank), row.name, f"{row.elo:+.0f}", f"{row.ci95:.0f}", str(row.games),
            f"{row.score:.3f}",
        )
    out.print(ranking)
    for pair in result.pairs:
        for why, count in sorted(pair.failures.items()):
            out.print(f"lost by failure: {why} ×{count}")
    return {
        "players": result.names,
        "pairs": [_pair_data(result, pair) for pair in result.pairs],
        "elo_table": [
            {"player": r.name, "elo": r.elo, "ci95": r.ci95, "games": r.games, "score": r.score}
            for r in result.table
        ],
        **settings,
    }


def _replay(args: argparse.Namespace) -> int:
    from noughts.cli import fail
    from noughts.notation import square_name
    from noughts.position import Position

    path = Path(args.file)
    if not path.is_file():
        raise fail(f"no such file: {args.file}")
    games = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            games.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise fail(f"{args.file} line {number} is not JSON: {error.msg}") from None
    chosen = [g for g in games if isinstance(g, dict) and g.get("game") == args.game]
    if not chosen:
        raise fail(f"{args.file} has no game {args.game} ({len(games)} games)")
    game = chosen[0]
    try:
        players, moves = game["players"], [int(m) for m in game["moves"]]
        variant, opening = game["variant"], len(game.get("opening", []))
    except (KeyError, TypeError, ValueError) as error:
        raise fail(f"game {args.game} is not an arena record ({error})") from None
    x_name, o_name = players["X"], players["O"]
    print(f"game {args.game} on {variant}: X {x_name} v O {o_name}, seed {game['seed']}")
    position = Position("", variant)
    for ply, move in enumerate(moves, 1):
        mover = position.to_move
        position = position.play(move)
        note = " (opening)" if ply <= opening else ""
        square = square_name(position.geometry, move)
        print(f"\n{ply}. {mover} {players[mover]} plays {square} (cell {move}){note}")
        print(position)
    print(f"\nresult: {game['result']} ({game['reason']})")
    return 0

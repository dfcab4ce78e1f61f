"""``noughts move``, ``noughts analyze`` and ``noughts solve``: the engine on the command line.

    noughts move [BOARD] [--variant V] [--json] [--level L] [--time S] [--nodes N] [--seed S]
    noughts move --x NUMX --o NUMO [--variant V] [--first X|O] ...
    noughts analyze BOARD [--variant V] [--json]
    noughts analyze - [--variant V] < boards.txt      (one JSON object per line)
    noughts solve [--variant] VARIANT [--json] [--book]    (qubic: from the shipped proof)

Without ``--variant`` a board's variant comes from its shape: rows split by ``/`` and
layers by ``|`` give ``RxC`` or ``NxNxN`` (k = the smallest side); a board without
separators of 9, 16, 27 or 64 cells is 3x3, 4x4, 3x3x3 or 4x4x4. ``--x/--o`` boards
default to 3x3. No board at all is the empty board of ``--variant`` (3x3 by default), as
in the API. Only the standard library is imported here, so ``noughts move`` starts
fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from noughts.budget import DEFAULT_SECONDS
from noughts.cli import limits
from noughts.cli.progress import on_terminal, with_progress

if TYPE_CHECKING:
    from noughts.position import Position
    from noughts.results import MoveChoice, MoveEval

__all__ = ["add_arguments", "run", "infer_variant"]

def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    """Arguments of ``move``, ``analyze`` or ``solve``."""
    if name == "solve":
        limits.add_variant_arguments(
            parser, default="3x3",
            help_text="e.g. 3x3, 4x4k3, 4x4, qubic, 3x3-misere (misère: completing a line "
            "loses)",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--book",
            action="store_true",
            help="answer from the process-wide solver and its opening book instead of "
            "searching from scratch",
        )
        return
    board_help = (
        "the board, e.g. 'X../.O./...'; none: the empty board of --variant "
        "(3x3 by default, as in the API)"
    )
    if name == "analyze":
        board_help += "; '-' reads one board (or 'VARIANT BOARD') per line from stdin"
    parser.add_argument("board", metavar="BOARD", nargs="?", help=board_help)
    parser.add_argument(
        "--variant",
        "-v",
        metavar="V",
        type=limits.variant_name,
        help="3x3, 4x4k3, 4x4, qubic, 5x4k4...; add -misere for the misère game "
        "(completing a line loses): 3x3-misere, qubic-misere",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--x", dest="num_x", metavar="NUMX", type=_mask, help="X's bitmask")
    parser.add_argument("--o", dest="num_o", metavar="NUMO", type=_mask, help="O's bitmask")
    parser.add_argument(
        "--first", choices=("X", "O"), default="X", help="who started (default X)"
    )
    default = f"default {DEFAULT_SECONDS:g} s, as the API's"
    if name == "move":
        parser.add_argument("--level", type=limits.level, default=10, metavar="L",
                            help="0 (random) to 10 (best), or easy, medium, hard, impossible "
                            "(default 10)")
        parser.add_argument(
            "--time", dest="time_limit", type=limits.seconds, metavar="S",
            default=DEFAULT_SECONDS,
            help=f"seconds for the move, counted from the command's start ({default}); "
            "an exact solve that cannot finish in it gives way to the anytime search",
        )
        parser.add_argument("--nodes", type=limits.nodes, metavar="N", help="node budget (anytime)")
        parser.add_argument("--seed", type=int, metavar="S", help="seed for random tie-breaks")
    else:
        parser.add_argument(
            "--time", dest="time_limit", type=limits.seconds, metavar="S",
            default=DEFAULT_SECONDS,
            help=f"seconds for the analysis, counted from the command's start ({default}; "
            "with '-', for each line); an exact solve that cannot finish in it gives way "
            "to the anytime search",
        )


def _mask(text: str) -> int:
    """A bitmask in decimal, or with a 0x / 0b prefix."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer bitmask: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a bitmask cannot be negative: {text}")
    return value


def run(name: str, args: argparse.Namespace) -> int:
    """Run ``move``, ``analyze`` or ``solve``."""
    if name == "solve":
        return _solve(args)
    if name == "analyze" and args.board == "-":
        return _analyze_stream(args)
    position = _position(args)
    if name == "move":
        return _move(args, position)
    return _analyze(args, position)


# -- boards -----------------------------------------------------------------------------
def infer_variant(board: str) -> str:
    """The variant a board string's shape implies (see the module docstring).

    >>> infer_variant("X../.O./..."), infer_variant("..../..../..../...."), infer_variant("X" * 16)
    ('3x3', '4x4', '4x4')
    >>> infer_variant("../..|../..")
    '2x2x2'
    """
    from noughts.errors import BoardError
    from noughts.variants import of_cells

    text = "".join(board.split())
    layers = text.split("|")
    rows = [layer.split("/") for layer in layers]
    if len(layers) > 1:
        side = len(layers)
        if all(len(layer) == side and all(len(r) == side for r in layer) for layer in rows):
            return f"{side}x{side}x{side}"
        if all(len(layer) == side * side for layer in layers):
            return f"{side}x{side}x{side}"
        raise BoardError(f"board {board!r} is no N x N x N cube; name it with --variant")
    if len(rows[0]) > 1:
        widths = {len(row) for row in rows[0]}
        if len(widths) == 1:
            return f"{len(rows[0])}x{widths.pop()}"
        raise BoardError(f"board {board!r} has rows of different lengths")
    cells = len(text)
    name = of_cells(cells)
    if name is not None:
        return name
    raise BoardError(
        f"cannot tell the variant of a board of {cells} cells; give --variant "
        "or separate rows with '/'"
    )


def _position(args: argparse.Namespace) -> Position:
    from noughts.cli import fail
    from noughts.position import Position

    masks = args.num_x is not None or args.num_o is not None
    if masks and args.board is not None:
        raise fail("give either a BOARD or --x/--o, not both")
    if masks:
        if args.num_x is None or args.num_o is None:
            raise fail("--x and --o go together")
        return Position.from_bitboards(
            args.num_x, args.num_o, args.variant or "3x3", first=args.first
        )
    if args.board is None:  # like the API: no board is the empty board (Position's: 3x3)
        if args.variant is None:
            return Position(first=args.first)
        return Position("", args.variant, first=args.first)
    return Position(args.board, args.variant or infer_variant(args.board), first=args.first)


# -- move -------------------------------------------------------------------------------
def _move(args: argparse.Namespace, position: Position) -> int:
    from noughts.budget import Limit
    from noughts.engine import choose_move

    # counted from the command's start: what a user waits
    limit = Limit(deadline=args.started + args.time_limit, start=args.started)
    result = with_progress(
        lambda: choose_move(position, limit, level=args.level, nodes=args.nodes, seed=args.seed),
        f"{position.to_move} to move on {position.variant}: searching",
        show=not args.json and on_terminal(),
        limit=limit,
    )
    if args.json:
        import json

        record: dict[str, Any] = {
            "variant": position.variant,
            "board": position.board,
            "to_move": position.to_move,
            **result.to_json(),
        }
        print(json.dumps(record))
        return 0
    after = position.play(result.move)
    print(after)
    mover = position.to_move
    print(f"{mover} plays {result.square} (cell {result.move}): {_verdict(result)}")
    if result.note:
        print(result.note)
    details = [result.method, f"{result.nodes:,} nodes", f"{result.elapsed_ms:.2f} ms"]
    if result.method == "level":
        details[0] = f"level {result.level}"
    if len(result.pv) > 1:
        from noughts.notation import square_name

        geometry = position.geometry
        details.append("line " + " ".join(square_name(geometry, move) for move in result.pv))
    print(" · ".join(details))
    return 0


def _verdict(value: MoveChoice | MoveEval) -> str:
    from noughts.results import describe

    return describe(value, units=True) if value.proven else f"unproven, {describe(value)}"


# -- analyze ----------------------------------------------------------------------------
def _analysis(position: Position, time_limit: float) -> dict[str, Any]:
    return _analysis_record(position, _evaluate(position, time_limit))


def _evaluate(
    position: Position, time_limit: float, started: float | None = None, show: bool = False
) -> list[MoveEval]:
    """Every move's value within ``time_limit`` seconds from ``started`` (default now)."""
    from noughts.budget import Limit
    from noughts.engine import evaluate_moves

    limit = Limit.within(time_limit, since=started)
    return with_progress(
        lambda: evaluate_moves(position, limit),
        f"{position.to_move} to move on {position.variant}: every move's value",
        show=show,
        limit=limit,
    )


def _analysis_record(position: Position, moves: list[MoveEval]) -> dict[str, Any]:
    return {
        "board": position.board,
        "variant": position.variant,
        "to_move": position.to_move,
        "moves": [m.to_json() for m in moves],
    }


def _analyze(args: argparse.Namespace, position: Position) -> int:
    moves = _evaluate(position, args.time_limit, args.started, not args.json and on_terminal())
    if args.json:
        import json

        print(json.dumps(_analysis_record(position, moves)))
        return 0
    print(position)
    mover = position.to_move
    print(f"{mover} to move on {position.variant}; each move's value for {mover}:")
    for m in sorted(moves, key=lambda m: (-(m.score or 0), m.move)):
        print(f"  {m.square:>4} (cell {m.move:>2})  {_verdict(m)}")
    return 0


def _analyze_stream(args: argparse.Namespace) -> int:
    """One board (or ``VARIANT BOARD``) per stdin line, one JSON object per stdout line.

    A bad line (undecodable bytes included) gives ``{"line": N, "input": ..., "error":
    ...}`` in its place; the others are still answered. The exit status is 2 if any line was bad.
    """
    import json

    from noughts.position import Position

    bad = 0
    encoding = sys.stdin.encoding or "utf-8"
    # Bytes, decoded line by line: an undecodable line is answered like any bad line.
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        line = raw.decode(encoding, errors="replace").strip()
        if not line:
            continue
        try:
            raw.decode(encoding)
            variant_name, board = _split_line(line, args.variant)
            position = Position(board, variant_name, first=args.first)
            record = _analysis(position, args.time_limit)
        except ValueError as error:
            bad += 1
            record = {"line": number, "input": line, "error": str(error)}
        print(json.dumps(record), flush=True)
    if bad:
        print(f"noughts: error: {bad} bad input line(s); see their error objects", file=sys.stderr)
        return 2
    return 0


def _split_line(line: str, variant_name: str | None) -> tuple[str, str]:
    """``(variant, board)`` of a stdin line: ``BOARD`` or ``VARIANT BOARD``."""
    head, _, rest = line.partition(" ")
    if rest.strip() and not set(head.upper()) <= set("XO./|"):
        return head, rest
    return variant_name or infer_variant(line), line


# -- solve ------------------------------------------------------------------------------
def _solve(args: argparse.Namespace) -> int:
    import time

    from noughts.exact.solver import Solver, can_solve, solver_for, to_value
    from noughts.position import Position
    from noughts.variants import variant

    geometry = variant(args.variant)
    if not can_solve(Position("", geometry)) and geometry.strategy is not None:
        return _solve_by_strategy(args)
    if not can_solve(Position("", geometry)):
        from noughts.errors import TooLargeError

        raise TooLargeError(
            f"{geometry.name} is too large to solve on the spot ({geometry.cells} empty "
            "cells); the anytime search plays it: noughts move"
        )
    solver = solver_for(geometry) if args.book else Solver(geometry, use_book=False)
    nodes_before = solver.nodes
    started = time.perf_counter()
    score = with_progress(
        lambda: solver.score(0, 0),
        f"solving {geometry.name}",
        show=not args.json and on_terminal(),
        nodes=lambda: solver.nodes - nodes_before,
    )
    elapsed_ms = (time.perf_counter() - started) * 1000
    value = to_value(score, 0, geometry.cells)
    nodes = solver.nodes - nodes_before
    first_player = {"win": "first player wins", "loss": "second player wins", "draw": "draw"}
    if args.json:
        import json

        print(
            json.dumps(
                {
                    "variant": geometry.name,
                    "outcome": value.outcome.value,
                    "plies": value.plies,
                    "result": first_player[value.outcome.value],
                    "nodes": nodes,
                    "elapsed_ms": round(elapsed_ms, 3),
                    "from_scratch": not args.book,
                    "table_entries": solver.table_entries,
                }
            )
        )
        return 0
    verdict = first_player[value.outcome.value]
    if value.outcome.value != "draw":
        verdict += f" in {value.plies} plies"
    how = "from the book" if args.book else "searched from scratch"
    print(f"{geometry.name}: {verdict} ({nodes:,} nodes, {elapsed_ms:.1f} ms, {how})")
    return 0


def _solve_by_strategy(args: argparse.Namespace) -> int:
    """The value of a variant too large to solve on the spot, from the winning strategy
    shipped for it (Qubic's): its first move, and the strategy checked now by the same
    walk as ``noughts verify-book`` (every reply of the defender, up to symmetry)."""
    import time

    from noughts.builders.strategy_check import verify_strategy
    from noughts.errors import NoughtsError
    from noughts.knowledge.strategy import shipped_strategy, strategy_move
    from noughts.notation import square_name
    from noughts.position import Position
    from noughts.variants import variant

    geometry = variant(args.variant)
    strategy = shipped_strategy()
    empty = Position("", geometry)
    opening = strategy_move(empty, strategy)
    if strategy is None or opening is None:
        raise NoughtsError(f"this installation ships no winning strategy for {geometry.name}")
    started = time.perf_counter()
    report = with_progress(lambda: verify_strategy(strategy), "checking the shipped strategy",
                           show=not args.json and on_terminal())
    elapsed_ms = (time.perf_counter() - started) * 1000
    if not (report.ok and report.root_proven):
        raise NoughtsError(
            f"the shipped strategy for {geometry.name} does not prove the first player's win "
            f"(noughts verify-book {args.variant} says where it falls short)"
        )
    square = square_name(geometry.geometry, opening.move)
    how = (f"the shipped winning strategy ({len(strategy):,} positions), checked now as "
           f"noughts verify-book {args.variant} checks it")
    if args.json:
        import json

        print(json.dumps({
            "variant": geometry.name, "outcome": "win", "plies": opening.plies,
            "plies_exact": False, "result": "first player wins", "nodes": report.checked,
            "elapsed_ms": round(elapsed_ms, 3), "from_scratch": False, "table_entries": 0,
            "move": opening.move, "square": square, "proven_by": "shipped strategy",
            "strategy_entries": len(strategy), "checked": report.checked,
            "threat_leaves": report.threat_leaves,
        }))
        return 0
    print(f"{geometry.name}: first player wins within {opening.plies} plies, "
          f"opening on {square} (cell {opening.move})")
    print(f"proven by {how}: {report.checked:,} positions with stored moves, "
          f"{report.threat_leaves:,} leaves won by threats ({elapsed_ms / 1000:.1f} s)")
    return 0

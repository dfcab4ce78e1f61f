"""``noughts explain``: watch minimax and alpha-beta decide, as an indented tree and a table.

    noughts explain [BOARD] [--variant V] [--first X|O] [--algorithm A] [--depth N]
                            [--lines N] [--tutorial] [--node-limit N] [--time S]
                            [--plain] [--json]

No board is the empty board of ``--variant`` (3x3 by default), as ``move`` and
``analyze`` take it. The trace and the table share one time limit, ``--time`` (the
API's explain deadline by default).

The tree shows the first ``--lines`` positions the search entered, each with the move
that led there (by its cell name, ``b2``), the alpha-beta window on entry and the value
returned (``<=`` or ``>=`` when it is only a bound), and every cut-off with its reason;
then a line says how many positions were entered in all. The table compares every
algorithm on the position. ``--plain`` adds, under each position, what its value means
in words and why a branch was cut.
Values are from the view of the side to move at the root: a win ``d`` plies away scores
``win - d`` (``win`` = cells + 1), a loss the negative, a draw 0.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from noughts.teaching.trace import AlgorithmCount, Trace, TraceNode

__all__ = ["add_arguments", "run", "DEFAULT_LINES", "DEFAULT_NODE_LIMIT"]

DEFAULT_LINES = 40
"""Positions printed in the tree unless ``--lines`` says otherwise."""

DEFAULT_NODE_LIMIT = 2_000_000
"""A walk stops (and says so) past this many positions unless ``--node-limit`` says."""


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    """Arguments of ``explain``."""
    from noughts.budget import EXPLAIN_SECONDS
    from noughts.cli.limits import seconds
    from noughts.teaching.trace import ALGORITHMS

    parser.add_argument(
        "board", metavar="BOARD", nargs="?",
        help="the board, e.g. 'X../.O./...'; none: the empty board of --variant "
        "(3x3 by default), as move and analyze take it",
    )  # fmt: skip
    parser.add_argument("--variant", "-v", metavar="V", help="3x3, 4x4k3, 4x4 ... (3x3-misere: "
                        "the misère game)")
    parser.add_argument(
        "--first", choices=("X", "O"), default="X", help="who started (default X)"
    )
    parser.add_argument(
        "--algorithm", "-a", choices=ALGORITHMS, default="alphabeta",
        help="the search to trace (default alphabeta)",
    )  # fmt: skip
    parser.add_argument(
        "--depth", type=int, metavar="N",
        help="horizon of the depth-limited search, in plies (implies --algorithm depth-limited)",
    )  # fmt: skip
    parser.add_argument(
        "--lines", type=_count, default=DEFAULT_LINES, metavar="N",
        help=f"positions printed in the tree (default {DEFAULT_LINES}; --json keeps as many)",
    )  # fmt: skip
    parser.add_argument(
        "--tutorial", action="store_true",
        help="count the tutorial seed's way (a fresh window per root move)",
    )  # fmt: skip
    parser.add_argument(
        "--node-limit", type=_count, default=DEFAULT_NODE_LIMIT, metavar="N",
        help=f"stop a walk past N positions (default {DEFAULT_NODE_LIMIT:,})",
    )  # fmt: skip
    parser.add_argument(
        "--plain", action="store_true",
        help="say under each position what its value means and why a branch was cut",
    )  # fmt: skip
    parser.add_argument(
        "--time", dest="time_limit", type=seconds, default=EXPLAIN_SECONDS, metavar="S",
        help=f"seconds for the trace and the table together, counted from the command's "
        f"start (default {EXPLAIN_SECONDS:g} s, as the API's explain); past it the "
        "command stops with an error",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the trace and table as JSON")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"cannot be negative: {text}")
    return value


def run(name: str, args: argparse.Namespace) -> int:
    """Run ``explain``."""
    from dataclasses import asdict

    from noughts.budget import BudgetExhausted, Limit
    from noughts.cli import fail
    from noughts.cli.engine_commands import infer_variant
    from noughts.cli.progress import on_terminal, with_progress
    from noughts.position import Position
    from noughts.teaching.trace import compare, trace

    algorithm = args.algorithm
    if args.depth is not None:
        if algorithm not in ("alphabeta", "depth-limited"):
            raise fail(f"--depth applies to the depth-limited search, not to {algorithm}")
        algorithm = "depth-limited"
    if args.board is None:  # like move and analyze: the empty board of --variant
        position = Position("", args.variant or "3x3", first=args.first)
    else:
        position = Position(args.board, args.variant or infer_variant(args.board),
                            first=args.first)  # fmt: skip
    limit = Limit(deadline=args.started + args.time_limit, start=args.started)

    def explained() -> tuple[Trace, tuple[AlgorithmCount, ...]]:
        result = trace(
            position, algorithm, depth=args.depth, max_stored=args.lines,
            node_limit=args.node_limit, tutorial=args.tutorial, limit=limit,
        )  # fmt: skip
        rows = compare(position, depth=result.depth, node_limit=args.node_limit,
                       tutorial=args.tutorial, limit=limit)  # fmt: skip
        return result, rows

    try:
        result, rows = with_progress(
            explained, f"tracing {algorithm} on {position.variant}",
            show=not args.json and on_terminal(), limit=limit,
        )  # fmt: skip
    except BudgetExhausted:
        raise fail(
            f"the trace and its table took longer than {args.time_limit:g} s; give more "
            "--time, a smaller --node-limit, a depth limit or a later position"
        ) from None
    if args.json:
        data = result.to_json()
        data["compare"] = [asdict(row) for row in rows]
        print(json.dumps(data))
        return 0
    print(render_trace(result, plain=args.plain))
    print()
    print(render_table(rows, result.variant))
    return 0


# -- text -------------------------------------------------------------------------------
def _number(value: int, infinity: int) -> str:
    if value >= infinity:
        return "+inf"
    if value <= -infinity:
        return "-inf"
    return str(value)


def _namer(variant_name: str) -> Callable[[int], str]:
    """Cell index -> cell name (``b2``) on ``variant_name``."""
    from noughts.notation import square_name
    from noughts.variants import variant

    geometry = variant(variant_name).geometry
    return lambda cell: square_name(geometry, cell)


def _node_line(node: TraceNode, result: Trace, name: Callable[[int], str]) -> str:
    from noughts.position import other

    mover = other(result.to_move) if node.maximizing else result.to_move
    head = "root" if node.move is None else f"{mover} {name(node.move)}"
    window = f"({_number(node.alpha, result.infinity)}, {_number(node.beta, result.infinity)})"
    shown = {"exact": "", "lower": ">= ", "upper": "<= "}[node.bound]
    line = f"{'  ' * node.depth}{head}  window {window}  -> {shown}{node.value}"
    if node.why != "searched":
        line += f"  [{node.why}]"
    if node.cutoff is not None:
        skipped = " ".join(name(move) for move in node.cutoff.skipped)
        line += f"  CUT after {name(node.cutoff.after)}, skipping {skipped}: {node.cutoff.reason}"
    return line


def _plain_value(value: int, result: Trace) -> str:
    """A value in words for the side to move at the root: 'a loss for X in 2 moves'."""
    from noughts.position import other

    if value >= result.infinity or value <= -result.infinity:
        return "anything"
    plies = result.win - abs(value)
    empty = sum(1 for char in result.board if char == ".")
    if value == 0 and (result.depth is None or result.depth >= empty):
        return "a draw"
    if value == 0 or not 0 < plies <= empty:
        return f"a score of {value:+d} (the depth limit's guess)"
    moves = f"{plies} move{'s' if plies != 1 else ''}"
    me = result.to_move
    if value > 0:
        return f"a win for {me} in {moves}"
    return f"a loss for {me} in {moves} ({other(me)} wins)"


def _plain_line(node: TraceNode, result: Trace, name: Callable[[int], str]) -> str:
    """What a node's value means, in words; why its branch was cut."""
    from noughts.position import other

    me, them = result.to_move, other(result.to_move)
    value = _plain_value(node.value, result)
    pad = "  " * node.depth + "    = "
    if node.why in ("X wins", "O wins", "draw"):
        return f"{pad}the game is over: {value}, exactly"
    if node.why == "horizon":
        return f"{pad}the depth limit: {value}"
    if node.cutoff is not None:
        skipped = ", ".join(name(move) for move in node.cutoff.skipped)
        after = name(node.cutoff.after)
        if node.maximizing:
            why = f"{me}'s {after} gets at least {value} here, more than {them} allows above"
        else:
            why = (
                f"{them}'s {after} holds {me} to at most {value} here; "
                f"{me} has as good or better above"
            )
        return f"{pad}cut: {why}, so {skipped} can change nothing and is never searched"
    table = "from the table (searched before): " if node.why == "table" else ""
    if node.bound == "lower":
        return f"{pad}{table}at least {value}: more than {them} allows above, so a bound is enough"
    if node.bound == "upper":
        return f"{pad}{table}at most {value}: no better than {me} has above, so a bound is enough"
    return f"{pad}{table}worth {value}, exactly"


def render_trace(result: Trace, *, plain: bool = False) -> str:
    """The trace as an indented tree of its kept nodes, with a header and a footer;
    ``plain`` says under each node what its value means and why a branch was cut.

    >>> from noughts.position import Position
    >>> from noughts.teaching.trace import trace
    >>> print(render_trace(trace(Position("XOX/OO./X.."), max_stored=4)))
    alphabeta on XOX/OO./X.. (3x3, X to move): loss in 2, best move c2, pv c2 b1
      alpha-beta: skips moves that cannot change the choice above
      9 positions counted: every position entered, the root included
      2 cut-offs, 0 table hits
    root  window (-inf, +inf)  -> -8
      X c2  window (-inf, +inf)  -> -8
        O b1  window (-inf, +inf)  -> -8  [O wins]
        O c1  window (-inf, -8)  -> >= 0
    ... 5 more positions entered, not shown (the first 4 are kept)
    """
    from noughts.teaching.trace import DESCRIPTIONS

    name = _namer(result.variant)
    pv = " ".join(name(move) for move in result.pv)
    horizon = f", depth {result.depth}" if result.depth is not None else ""
    lines = [
        f"{result.algorithm} on {result.board} ({result.variant}, {result.to_move} to move"
        f"{horizon}): {result.value_text}, best move {name(result.best_move)}, pv {pv}",
        f"  {DESCRIPTIONS[result.algorithm]}",
        f"  {result.counted:,} positions counted: {result.counting}",
        f"  {result.cutoffs:,} cut-offs, {result.table_hits:,} table hits",
    ]
    if plain:
        me = result.to_move
        lines.append(
            f"  in words: each position's window (alpha, beta) holds what {me} is already sure "
            f"of (alpha) and what the other side can already hold {me} to (beta), from moves "
            "tried before; a value outside it cannot change the choice above, so once alpha "
            ">= beta the rest of that position's moves are cut"
        )
    for node in result.stored:
        lines.append(_node_line(node, result, name))
        if plain:
            lines.append(_plain_line(node, result, name))
    if result.truncated:
        hidden = result.nodes - len(result.stored)
        lines.append(
            f"... {hidden:,} more positions entered, not shown (the first "
            f"{len(result.stored):,} are kept)"
        )
    return "\n".join(lines)


def render_table(rows: tuple[AlgorithmCount, ...], variant_name: str) -> str:
    """The comparison table: each algorithm's value, move, nodes, cut-offs and time."""
    name = _namer(variant_name)
    header = ("algorithm", "value", "move", "nodes", "cut-offs", "table hits", "ms")
    body = [
        (
            row.algorithm,
            row.value_text,
            "-" if row.best_move is None else name(row.best_move),
            f"{row.counted:,}" if row.finished else f">{row.counted:,}",
            f"{row.cutoffs:,}",
            f"{row.table_hits:,}",
            f"{row.elapsed_ms:.1f}",
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]
    out = []
    for line in (header, *body):
        cells = [
            text.ljust(width) if i < 2 else text.rjust(width)
            for i, (text, width) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)

"""``noughts stats`` (position and game counts) and ``noughts tree`` (the decision tree).

    noughts stats [--variant] 3x3 [--json] [--only positions,games]
    noughts tree [--variant] 3x3 [--json | --out FILE] [--format json|dot]

On a terminal ``tree`` prints a summary of a few lines; the whole tree (1.3 MB of JSON
for 3x3) goes to stdout with ``--json`` or ``--format``, or when stdout is not a
terminal (a pipe, a file), and to a file, written whole, with ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from noughts.cli import limits

if TYPE_CHECKING:
    from noughts.teaching.tree import DecisionTree

__all__ = ["add_arguments", "run", "TREE_EXAMPLES", "tree_summary"]

TREE_EXAMPLES = ("3x3", "4x3k3", "2x4k3", "2x2x2")
"""Variants ``noughts tree --help`` offers; each builds (checked by the tests)."""

_LABELS = {
    "positions": "positions",
    "positions_up_to_symmetry": "positions up to symmetry",
    "terminal_positions": "terminal positions",
    "games": "games",
    "games_up_to_symmetry": "games up to symmetry",
    "full_tree_boards": "boards of the full move tree",
}


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    """Arguments of ``stats`` or ``tree``."""
    if name == "tree":
        from noughts.teaching.tree import MAX_NODES

        limits.add_variant_arguments(
            parser, default="3x3",
            help_text=f"a variant whose tree has at most {MAX_NODES:,} positions, e.g. "
            + ", ".join(TREE_EXAMPLES)
            + " (4x4k3 and 4x4 are far larger)",
        )
    else:
        limits.add_variant_arguments(parser, default="3x3", help_text="e.g. 3x3, 4x4k3, 4x4")
    if name == "stats":
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--only",
            metavar="KEYS",
            help="comma-separated counts to compute: " + ", ".join(_LABELS),
        )
    else:
        parser.add_argument("--json", action="store_true",
                            help="print the whole tree as JSON (on a terminal the default is "
                            "a summary)")
        parser.add_argument("--format", choices=("json", "dot"),
                            help="the whole tree as JSON or as Graphviz dot (default json)")
        parser.add_argument("--out", "--output", dest="output", metavar="FILE",
                            help="write the whole tree here (atomically) instead of stdout")


def run(name: str, args: argparse.Namespace) -> int:
    """Run ``stats`` or ``tree``."""
    return _stats(args) if name == "stats" else _tree(args)


def _stats(args: argparse.Namespace) -> int:
    from noughts.teaching.counts import count_variant
    from noughts.variants import variant

    geometry = variant(args.variant)
    only = None
    if args.only:
        only = [key.strip() for key in args.only.split(",") if key.strip()]
    counts = count_variant(geometry, only=only)
    if args.json:
        print(json.dumps({"variant": geometry.name, **counts}))
        return 0
    width = max(len(_LABELS[key]) for key in counts)
    digits = max(len(f"{value:,}") for value in counts.values())
    print(f"{geometry.name}: X moves first, play stops at a win")
    for key, value in counts.items():
        print(f"  {_LABELS[key]:<{width}}  {value:>{digits},}")
    if "full_tree_boards" in counts:
        print("  (full move tree: either player starting, no stop at a win)")
    return 0


def _tree(args: argparse.Namespace) -> int:
    from noughts.cli import fail
    from noughts.teaching.tree import build_tree, dumps_json, tree_to_dot

    if args.json and args.format == "dot":
        raise fail("--json and --format dot ask for two formats: give one")
    tree = build_tree(args.variant)
    whole = args.json or args.format is not None or args.output or not sys.stdout.isatty()
    if not whole:
        print(tree_summary(tree))
        return 0
    text = tree_to_dot(tree) if args.format == "dot" else dumps_json(tree) + "\n"
    if args.output:
        from noughts.runtime.atomic import write_atomic

        write_atomic(args.output, text)
        print(
            f"wrote the {tree.geometry.name} tree ({len(tree.nodes)} nodes, "
            f"{tree.edge_count} edges) to {args.output}",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0


def tree_summary(tree: DecisionTree) -> str:
    """A few lines about ``tree``: its size, its value, its positions by plies played and
    how its games end, and how to get the whole.

    >>> from noughts.teaching.tree import build_tree
    >>> print(tree_summary(build_tree("2x2")))
    2x2 decision tree: 29 positions, 40 moves (X moves first, play stops at a win)
    the empty board: X to move, win in 3
    positions by plies played: 0: 1 · 1: 4 · 2: 12 · 3: 12
    games over: 12 positions (X has won 12)
    the whole tree: --json (or --format dot) on stdout, or --out FILE
    """
    from collections import Counter

    nodes = tree.nodes
    by_ply = Counter(bin(node.x | node.o).count("1") for node in nodes)
    ends = Counter(node.winner or "draw" for node in nodes if node.is_terminal)
    root = nodes[0]
    plies = " · ".join(f"{ply}: {count:,}" for ply, count in sorted(by_ply.items()))
    finished = ", ".join(
        f"{'drawn' if key == 'draw' else key + ' has won'} {ends[key]:,}"
        for key in ("X", "O", "draw") if ends[key]
    )
    return "\n".join([
        f"{tree.geometry.name} decision tree: {len(nodes):,} positions, {tree.edge_count:,} "
        "moves (X moves first, play stops at a win)",
        f"the empty board: {root.to_move} to move, {root.value}",
        f"positions by plies played: {plies}",
        f"games over: {sum(ends.values()):,} positions ({finished})",
        "the whole tree: --json (or --format dot) on stdout, or --out FILE",
    ])

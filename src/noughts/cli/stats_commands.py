"""``noughts stats`` (position and game counts) and ``noughts tree`` (the decision tree).

    noughts stats 3x3 [--json] [--only positions,games]
    noughts tree 3x3 [--format json|dot] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import sys

from noughts.cli import limits

__all__ = ["add_arguments", "run", "TREE_EXAMPLES"]

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

        parser.add_argument(
            "variant",
            metavar="VARIANT",
            type=limits.variant_name,
            help=f"a variant whose tree has at most {MAX_NODES:,} positions, e.g. "
            + ", ".join(TREE_EXAMPLES)
            + " (4x4k3 and 4x4 are far larger)",
        )
    else:
        parser.add_argument(
            "variant", metavar="VARIANT", type=limits.variant_name, help="e.g. 3x3, 4x4k3, 4x4"
        )
    if name == "stats":
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--only",
            metavar="KEYS",
            help="comma-separated counts to compute: " + ", ".join(_LABELS),
        )
    else:
        parser.add_argument("--format", choices=("json", "dot"), default="json")
        parser.add_argument("--output", metavar="FILE", help="write here instead of stdout")


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
    from noughts.teaching.tree import build_tree, dumps_json, tree_to_dot

    tree = build_tree(args.variant)
    text = tree_to_dot(tree) if args.format == "dot" else dumps_json(tree) + "\n"
    if args.output:
        from noughts.atomic import write_atomic

        write_atomic(args.output, text)
        print(
            f"wrote the {tree.geometry.name} tree ({len(tree.nodes)} nodes, "
            f"{tree.edge_count} edges) to {args.output}",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0

"""The complete decision tree of a small variant, with every node's exact value.

As the 3x3 web-game seed builds it: positions reached by different move orders are
merged into one node (so it is a graph, 5,478 nodes for 3x3), branching stops at a win
or a full board, and X moves first. Each edge is labelled with its move (a cell index,
row-major: ``0 1 2 / 3 4 5 / 6 7 8`` on 3x3). Each node carries its exact value for the
side to move, computed bottom-up over the tree: the outcome and the plies to the end,
the winner hurrying and the loser delaying (a finished game is a loss in 0 for the
side to move, or a draw in 0).

>>> tree = build_tree("3x3")
>>> len(tree.nodes), tree.edge_count
(5478, 16167)
>>> root = tree.nodes[0]
>>> root.board, str(root.value)
('.../.../...', 'draw')
>>> [str(tree.nodes[child].value) for move, child in root.children][:2]
['draw', 'draw']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from noughts.errors import TooLargeError
from noughts.geometry import Bitboard, Geometry, scan_forward
from noughts.notation import format_board
from noughts.position import Mark, other
from noughts.results import Outcome, Value
from noughts.variants import Variant
from noughts.variants import variant as parse_variant

__all__ = [
    "DecisionNode",
    "DecisionTree",
    "build_tree",
    "tree_to_json",
    "tree_to_dot",
    "dumps_json",
    "MAX_NODES",
]

MAX_NODES = 200_000
"""Trees larger than this are refused (4x4k3 would have 6,036,001 nodes)."""


@dataclass(frozen=True)
class DecisionNode:
    """One position of the tree: its marks, exact value and ``(move, child id)`` edges."""

    id: int
    x: Bitboard
    o: Bitboard
    board: str
    to_move: Mark
    winner: Mark | None
    value: Value
    children: tuple[tuple[int, int], ...]

    @property
    def is_terminal(self) -> bool:
        """True if the game is over here (no children)."""
        return not self.children


@dataclass(frozen=True)
class DecisionTree:
    """The nodes in breadth-first order (node 0 is the empty board)."""

    geometry: Geometry
    nodes: tuple[DecisionNode, ...]

    @property
    def edge_count(self) -> int:
        """The number of (position, move) edges."""
        return sum(len(node.children) for node in self.nodes)


def build_tree(variant: str | Variant | Geometry, *, max_nodes: int = MAX_NODES) -> DecisionTree:
    """Build the merged decision tree of ``variant`` from the empty board.

    >>> len(build_tree("2x2").nodes)
    29
    >>> build_tree("4x4k3", max_nodes=1000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    noughts.errors.TooLargeError: the 4x4k3 tree has more than 1000 nodes...
    """
    game = parse_variant(variant)
    geometry = game.geometry
    full = geometry.full
    completes = geometry.wins_after
    line_winner = game.rules.line_winner
    index: dict[tuple[Bitboard, Bitboard], int] = {(0, 0): 0}
    order: list[tuple[Bitboard, Bitboard]] = [(0, 0)]
    winners: list[Mark | None] = [None]
    edges: list[list[tuple[int, int]]] = []
    cursor = 0
    while cursor < len(order):
        x, o = order[cursor]
        node_edges: list[tuple[int, int]] = []
        if winners[cursor] is None and (x | o) != full:
            x_to_move = x.bit_count() == o.bit_count()
            for cell in scan_forward(full & ~(x | o)):
                bit = 1 << cell
                child = (x | bit, o) if x_to_move else (x, o | bit)
                child_id = index.get(child)
                if child_id is None:
                    child_id = index[child] = len(order)
                    if child_id >= max_nodes:
                        raise TooLargeError(
                            f"the {geometry.name} tree has more than {max_nodes} nodes; "
                            "trees are built for small variants such as 3x3"
                        )
                    order.append(child)
                    marks = child[0] if x_to_move else child[1]
                    won = completes(marks, cell)
                    mover: Mark = "X" if x_to_move else "O"
                    winners.append(line_winner(mover, other(mover)) if won else None)
                node_edges.append((cell, child_id))
        edges.append(node_edges)
        cursor += 1
    values = _exact_values(edges, winners, order)
    nodes = tuple(
        DecisionNode(
            id=node_id,
            x=x,
            o=o,
            board=format_board(x, o, geometry),
            to_move="X" if x.bit_count() == o.bit_count() else "O",
            winner=winners[node_id],
            value=values[node_id],
            children=tuple(edges[node_id]),
        )
        for node_id, (x, o) in enumerate(order)
    )
    return DecisionTree(geometry, nodes)


def _exact_values(
    edges: list[list[tuple[int, int]]],
    winners: list[Mark | None],
    order: list[tuple[Bitboard, Bitboard]],
) -> list[Value]:
    """Values bottom-up: children always come later in breadth-first order."""
    values: list[Value] = [Value(Outcome.DRAW, 0)] * len(edges)
    for node_id in range(len(edges) - 1, -1, -1):
        children = edges[node_id]
        if not children:
            winner = winners[node_id]
            x, o = order[node_id]
            to_move = "X" if x.bit_count() == o.bit_count() else "O"
            outcome = (Outcome.DRAW if winner is None
                       else Outcome.WIN if winner == to_move else Outcome.LOSS)
            values[node_id] = Value(outcome, 0)
            continue
        best = values[children[0][1]].negate_after_move()
        for _, child in children[1:]:
            candidate = values[child].negate_after_move()
            if candidate > best:
                best = candidate
        values[node_id] = best
    return values


def tree_to_json(tree: DecisionTree) -> dict[str, Any]:
    """A JSON-ready dict: ``variant``, ``nodes`` (with values) and ``edges`` (with moves).

    >>> data = tree_to_json(build_tree("3x3"))
    >>> data["node_count"], data["edges"][0]
    (5478, {'from': 0, 'to': 1, 'move': 0, 'coords': [0, 0]})
    >>> data["nodes"][0]
    {'id': 0, 'board': '.../.../...', 'to_move': 'X', 'outcome': 'draw', 'plies': 9, \
'winner': None, 'terminal': False}
    """
    geometry = tree.geometry
    return {
        "variant": geometry.name,
        "root": 0,
        "node_count": len(tree.nodes),
        "edge_count": tree.edge_count,
        "nodes": [
            {
                "id": node.id,
                "board": node.board,
                "to_move": node.to_move,
                "outcome": node.value.outcome.value,
                "plies": node.value.plies,
                "winner": node.winner,
                "terminal": node.is_terminal,
            }
            for node in tree.nodes
        ],
        "edges": [
            {"from": node.id, "to": child, "move": move, "coords": list(geometry.coords(move))}
            for node in tree.nodes
            for move, child in node.children
        ],
    }


def tree_to_dot(tree: DecisionTree) -> str:
    """Graphviz text: one box per position (its grid and value), edges labelled by move.

    >>> print(tree_to_dot(build_tree("2x2")).splitlines()[3])
      n0 [label="..\\n..\\nX to move: win in 3"];
    """
    lines = [
        f'digraph "{tree.geometry.name}" {{',
        "  node [shape=box, fontname=monospace];",
        "  edge [fontname=monospace];",
    ]
    for node in tree.nodes:
        layers = ["\\n".join(layer.split("/")) for layer in node.board.split("|")]
        grid = "\\n\\n".join(layers)  # 3-D layers one under another, a blank line apart
        if node.winner is not None:
            caption = f"{node.winner} won"
        elif node.is_terminal:
            caption = "draw"
        else:
            caption = f"{node.to_move} to move: {node.value}"
        lines.append(f'  n{node.id} [label="{grid}\\n{caption}"];')
    for node in tree.nodes:
        for move, child in node.children:
            lines.append(f'  n{node.id} -> n{child} [label="{move}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def dumps_json(tree: DecisionTree) -> str:
    """The tree as compact JSON text."""
    return json.dumps(tree_to_json(tree), separators=(",", ":"))

"""The merged decision tree: its size, its edges and its exact values."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from noughts.cli import main
from noughts.errors import TooLargeError
from noughts.exact.solver import solve
from noughts.position import Position
from noughts.results import Outcome, Value
from noughts.teaching.tree import DecisionTree, build_tree, tree_to_dot, tree_to_json


@pytest.fixture(scope="module")
def tree_3x3() -> DecisionTree:
    return build_tree("3x3")


def test_nodes_are_the_5478_positions(tree_3x3: DecisionTree) -> None:
    nodes = tree_3x3.nodes
    assert len(nodes) == 5478
    assert len({(node.x, node.o) for node in nodes}) == 5478
    assert sum(node.is_terminal for node in nodes) == 958
    assert [node.id for node in nodes] == list(range(5478))


def test_edges_are_the_legal_moves(tree_3x3: DecisionTree) -> None:
    index = {(node.x, node.o): node.id for node in tree_3x3.nodes}
    edges = 0
    for node in tree_3x3.nodes:
        position = Position.from_bitboards(node.x, node.o)
        assert [move for move, _ in node.children] == list(position.legal_moves)
        for move, child in node.children:
            after = position.play(move)
            assert index[(after.x, after.o)] == child
        edges += len(position.legal_moves)
    assert tree_3x3.edge_count == edges == 16167


def test_values_are_exact(tree_3x3: DecisionTree) -> None:
    nodes = tree_3x3.nodes
    assert nodes[0].value == Value(Outcome.DRAW, 9)
    assert nodes[1].board == "X../.../..." and nodes[1].value == Value(Outcome.DRAW, 8)
    for node in random.Random(2).sample(nodes, 300):
        assert node.value == solve(Position.from_bitboards(node.x, node.o)), node.board


def test_known_values(tree_3x3: DecisionTree) -> None:
    by_board = {node.board: node for node in tree_3x3.nodes}
    assert str(by_board["XX./OO./..."].value) == "win in 1"
    assert str(by_board["X../.O./..X"].value) == "draw"  # O must take a side square
    assert str(by_board["X.O/.../X.."].value) == "loss in 4"  # O blocks at 3, X forks at 8
    assert str(by_board["X../.../..O"].value) == "win in 5"
    finished = by_board["XXX/OO./..."]
    assert finished.winner == "X" and finished.value == Value(Outcome.LOSS, 0)


def test_json_shape(tree_3x3: DecisionTree) -> None:
    data = tree_to_json(tree_3x3)
    assert data["node_count"] == len(data["nodes"]) == 5478
    assert data["edge_count"] == len(data["edges"]) == 16167
    root = data["nodes"][0]
    assert root == {
        "id": 0,
        "board": ".../.../...",
        "to_move": "X",
        "outcome": "draw",
        "plies": 9,
        "winner": None,
        "terminal": False,
    }
    assert sum(edge["from"] == 0 for edge in data["edges"]) == 9
    centre = next(e for e in data["edges"] if e["from"] == 0 and e["move"] == 4)
    assert centre["coords"] == [1, 1]
    assert data["nodes"][centre["to"]]["board"] == ".../.X./..."


def test_dot_has_every_node_and_edge(tree_3x3: DecisionTree) -> None:
    text = tree_to_dot(tree_3x3)
    assert text.startswith('digraph "3x3" {') and text.rstrip().endswith("}")
    assert text.count(" -> ") == 16167
    assert text.count("[label=") == 5478 + 16167
    assert 'n0 [label="...\\n...\\n...\\nX to move: draw"];' in text


def test_cli_writes_json_and_dot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "tree.json"
    assert main(["tree", "3x3", "--format", "json", "--output", str(target)]) == 0
    assert json.loads(target.read_text())["node_count"] == 5478
    assert "5478 nodes" in capsys.readouterr().err
    assert main(["tree", "2x2", "--format", "dot"]) == 0
    out = capsys.readouterr().out
    assert out.count(" -> ") == build_tree("2x2").edge_count


def test_large_trees_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(TooLargeError, match="more than 500 nodes"):
        build_tree("4x4", max_nodes=500)
    assert main(["tree", "3x3", "--format", "svg"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_the_help_offers_only_variants_it_accepts(capsys: pytest.CaptureFixture[str]) -> None:
    from noughts.cli.stats_commands import TREE_EXAMPLES

    with pytest.raises(SystemExit):
        main(["tree", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "e.g. " + ", ".join(TREE_EXAMPLES) in text
    for name in TREE_EXAMPLES:
        assert build_tree(name).nodes  # none is refused as too large
    assert main(["tree", "4x4k3"]) == 2
    assert "more than 200000 nodes" in capsys.readouterr().err

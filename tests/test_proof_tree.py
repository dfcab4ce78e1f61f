"""The proof tree over jobs: numbers, selection, settling, its checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from noughts.builders.proof_tree import INFINITY, ProofTree
from noughts.errors import NoughtsError
from noughts.position import Position


def small_tree() -> ProofTree:
    """X's corner on 4x4k3, then two of O's replies searched."""
    tree = ProofTree("4x4k3", opening=0)
    (corner,) = tree.children(tree.root)
    tree.expand(corner, [(5, 4, 2), (1, 9, 1)])
    return tree


def test_numbers_add_up_at_the_defender_and_take_the_least_at_the_attacker() -> None:
    tree = small_tree()
    (corner,) = tree.children(tree.root)
    assert tree.attacking(tree.root) and not tree.attacking(corner)
    assert (tree.nodes[corner].pn, tree.nodes[corner].dn) == (13, 1)
    assert tree.root_numbers() == (13, 1)


def test_selection_goes_to_the_easiest_free_reply_and_stops_where_a_sibling_is_easier() -> None:
    tree = small_tree()
    (corner,) = tree.children(tree.root)
    first, second = tree.children(corner)
    leaf, most_pn, _ = tree.select(set()) or (None, 0, 0)
    assert leaf == first  # proof number 4 before 9
    assert most_pn == 12  # searched until it passes its sibling's 9, by 1+epsilon
    assert (tree.select({first}) or (None,))[0] == second
    assert tree.select({first, second}) is None


def test_settled_leaves_prove_the_root_and_its_choices_are_proven() -> None:
    tree = small_tree()
    (corner,) = tree.children(tree.root)
    for leaf in tree.children(corner):
        tree.settle(leaf, True, plies=5)
    assert tree.root_numbers() == (0, INFINITY)
    assert tree.select(set()) is None
    choices = list(tree.choices())
    assert choices == [(Position("", "4x4k3"), 0, True, 7)]


def test_a_disproven_reply_disproves_the_move_and_the_attacker_looks_elsewhere() -> None:
    tree = ProofTree("4x4k3", opening=None)
    tree.expand(tree.root, [(0, 2, 5), (5, 3, 5)])
    corner, centre = tree.children(tree.root)
    tree.settle(corner, False)
    assert tree.root_numbers() == (3, 5)
    assert (tree.select(set()) or (None,))[0] == centre


def test_the_checkpoint_round_trips_and_damage_is_named(tmp_path: Path) -> None:
    tree = small_tree()
    (corner,) = tree.children(tree.root)
    first, _ = tree.children(corner)
    tree.settle(first, True, plies=3)
    tree.nodes[first].effort = 2.5
    path = tmp_path / "tree.ckpt"
    tree.save(path)
    again = ProofTree.load(path)
    assert again.counts() == tree.counts()
    assert again.root_numbers() == tree.root_numbers()
    assert again.nodes[first].plies == 3 and again.nodes[first].effort == 2.5
    with pytest.raises(NoughtsError, match="damaged proof tree checkpoint"):
        ProofTree.from_bytes(b"not a checkpoint")


def shape(tree: ProofTree) -> dict[tuple[int, int], tuple[object, ...]]:
    """Everything a node holds, its job seconds at the checkpoint's millisecond."""
    return {key: (node.pn, node.dn, node.moves, node.keys, node.chain, node.plies,
                  round(node.effort * 1000))
            for key, node in tree.nodes.items()}


def test_a_saved_tree_reloads_to_the_same_tree_and_saves_to_the_same_bytes(
        tmp_path: Path) -> None:
    tree = small_tree()
    (corner,) = tree.children(tree.root)
    first, second = tree.children(corner)
    tree.expand(first, [(2, 3, 4), (6, 5, 1)])
    tree.nodes[tree.children(first)[0]].effort = 0.0004  # a job of under a millisecond
    tree.nodes[second].effort = 1.25
    tree.settle(tree.children(first)[1], True, plies=4)
    path = tmp_path / "tree.ckpt"
    assert tree.save(path)
    again = ProofTree.load(path)
    assert shape(again) == shape(tree)
    assert again.to_bytes() == path.read_bytes()  # not reordered, no leaf record dropped
    assert not again.save(path)  # the same bytes: the file is left alone


def test_the_shipped_checkpoint_reloads_and_saves_to_its_own_bytes() -> None:
    path = Path(__file__).resolve().parent.parent / "checkpoints" / "qubic-strategy-tree.ckpt"
    data = path.read_bytes()
    tree = ProofTree.from_bytes(data)
    assert tree.to_bytes() == data
    assert shape(ProofTree.from_bytes(tree.to_bytes())) == shape(tree)

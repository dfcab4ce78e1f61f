"""The proof tree over jobs: numbers, selection, settling, its checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from noughts.anytime.proof_tree import INFINITY, ProofTree
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

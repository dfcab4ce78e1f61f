"""The top of a proof too big for one search: a proof-number tree whose leaves are jobs.

A first player's win from the empty board (Qubic's) is proven in two levels, as in
PN² (Breuker 1998): this tree holds the first moves of the game, and each of its
leaves is settled or estimated by a *job*, a bounded depth-first proof-number search
(:mod:`noughts.search.proof`) run anywhere. A job that does not settle its leaf
returns the proof and disproof numbers it reached for each of the leaf's moves, and
the leaf is expanded with them, so the next jobs go where the proof looks cheapest.

Nodes are positions up to symmetry, keyed by their canonical form (the least image
under the board's symmetries), so the tree is a graph: a position reached by two
routes is one node. The first player (the attacker) moves at OR nodes, which one
proven child proves; the defender at AND nodes, which need every child proven (the
replies a job left out lose to a threat chain and are checked by the strategy's own
verifier).

>>> tree = ProofTree("4x4k3", opening=None)
>>> tree.root_numbers()
(1, 1)
>>> leaf, most_pn, most_dn = tree.select(set())
>>> leaf == tree.root, most_pn == most_dn == INFINITY
(True, True)
>>> tree.expand(tree.root, [(5, 3, 9), (0, 8, 2)])
>>> [tree.nodes[key].pn for key in tree.children(tree.root)]
[3, 8]
>>> tree.root_numbers()
(3, 11)
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from noughts.errors import NoughtsError
from noughts.position import Position
from noughts.runtime.atomic import write_if_changed
from noughts.search.proof import INFINITY, widen
from noughts.variants import variant

__all__ = ["ProofTree", "ProofNode", "Key", "Reply", "INFINITY"]

Key = tuple[int, int]
"""A position up to symmetry: the canonical ``(x, o)`` bitboards."""


@dataclass
class ProofNode:
    """A position of the tree, in its canonical orientation.

    ``pn``/``dn`` are its proof and disproof numbers (a leaf's come from the job that
    expanded its parent, or from its own job); ``moves`` lists its searched moves once
    it is expanded (``None`` for a leaf), in the canonical orientation; ``chain`` is,
    for a defender's node, the plies of the threat chain its other replies lose to;
    ``plies`` bounds the game's length once it is proven; ``effort`` counts the
    seconds of jobs spent on it.
    """

    x: int
    o: int
    pn: int = 1
    dn: int = 1
    moves: list[int] | None = None
    chain: int = 0
    plies: int = 0
    effort: float = 0.0
    keys: list[Key] = field(default_factory=list)

    @property
    def settled(self) -> bool:
        return not self.pn or not self.dn


@dataclass(frozen=True)
class Reply:
    """One of the defender's replies to the opening, as :meth:`ProofTree.replies`
    reports it: the move (in the canonical orientation), its numbers, whether it is
    proven, how many tree nodes lie under it and the job seconds spent on them."""

    move: int
    proof_number: int
    disproof_number: int
    proven: bool
    nodes: int
    seconds: float


class ProofTree:
    """The proof-number tree over the first moves of ``variant`` (the first player to
    prove a win), from the empty board; ``opening`` fixes the first move (a cell in
    the canonical orientation of the empty board), ``None`` lets the search choose."""

    def __init__(self, variant_name: str, *, opening: int | None = 0) -> None:
        self.variant = variant_name
        self.geometry = variant(variant_name).geometry
        self.opening = opening
        self.nodes: dict[Key, ProofNode] = {}
        self.root = self._node(Position("", self.geometry))
        if opening is not None:
            self.expand(self.root, [(opening, 1, 1)])

    # -- positions ---------------------------------------------------------------------
    def key(self, position: Position) -> Key:
        """The canonical key of ``position``."""
        x, o, _ = self.geometry.symmetry_group.canonical(position.x, position.o)
        return x, o

    def position(self, key: Key) -> Position:
        """The node's position in its canonical orientation."""
        return Position.from_bitboards(key[0], key[1], self.geometry)

    def _node(self, position: Position) -> Key:
        key = self.key(position)
        if key not in self.nodes:
            self.nodes[key] = ProofNode(*key)
        return key

    def attacking(self, key: Key) -> bool:
        """True at the first player's nodes (it moves when both have as many marks)."""
        return (key[0] | key[1]).bit_count() % 2 == 0

    def children(self, key: Key) -> list[Key]:
        """The keys of the node's searched moves (empty for a leaf)."""
        return self.nodes[key].keys

    # -- growing -----------------------------------------------------------------------
    def expand(self, key: Key, moves: list[tuple[int, int, int]], *, chain: int = 0,
               plies: dict[int, int] | None = None, update: bool = True) -> None:
        """Make a leaf a node with ``moves``: ``(move, proof number, disproof number)``
        of each searched move, as a job left them (a child already in the tree keeps
        its own numbers); ``chain`` as in :class:`ProofNode`; ``plies`` the bound of each
        proven child, by move."""
        node = self.nodes[key]
        position = self.position(key)
        node.moves, node.keys, node.chain = [], [], chain
        for move, pn, dn in moves:
            child_key = self.key(position.play(move))
            if child_key in node.keys:
                continue  # a symmetric move: the same child
            child = self.nodes.get(child_key)
            if child is None:
                child = self.nodes[child_key] = ProofNode(*child_key, pn=pn, dn=dn)
                if not pn and plies is not None:
                    child.plies = plies.get(move, 0)
            node.moves.append(move)
            node.keys.append(child_key)
        if update:
            self.update()

    def settle(self, key: Key, proven: bool, plies: int = 0) -> None:
        """A job proved (or disproved) the node's position."""
        node = self.nodes[key]
        node.pn, node.dn = (0, INFINITY) if proven else (INFINITY, 0)
        node.plies = plies if proven else 0
        self.update()

    def update(self) -> None:
        """Recompute every inner node's numbers and proven bounds from its children."""
        done: set[Key] = set()
        self._update(self.root, done)

    def _update(self, key: Key, done: set[Key]) -> None:
        if key in done:
            return
        done.add(key)
        node = self.nodes[key]
        if node.moves is None:
            return
        for child in node.keys:
            self._update(child, done)
        kids = [self.nodes[child] for child in node.keys]
        if self.attacking(key):
            node.pn = min((kid.pn for kid in kids), default=INFINITY)
            node.dn = min(sum(kid.dn for kid in kids), INFINITY)
            proven = [kid.plies for kid in kids if not kid.pn]
            node.plies = 1 + min(proven) if proven else 0
        else:
            node.pn = min(sum(kid.pn for kid in kids), INFINITY)
            node.dn = min((kid.dn for kid in kids), default=INFINITY)
            if not node.pn:
                node.plies = 1 + max([kid.plies for kid in kids] + [node.chain])
            else:
                node.plies = 0

    # -- choosing the next jobs ----------------------------------------------------------
    def root_numbers(self) -> tuple[int, int]:
        """The root's proof and disproof numbers."""
        root = self.nodes[self.root]
        return root.pn, root.dn

    def select(self, busy: set[Key]) -> tuple[Key, int, int] | None:
        """The leaf to search next that is not ``busy`` (being searched by a job), with
        the proof and disproof numbers its job may search it up to: from the root, the
        child with the least proof number, its thresholds set as depth-first
        proof-number search sets them (up to its best sibling's number, widened by
        1+epsilon), passing over subtrees with no free leaf; ``None`` when there is
        none (or the root is settled). A job searched this way stops where the whole
        search would turn to another leaf.

        At the defender's nodes the child with the least *proof* number is taken, not
        the least disproof number as proof-number search does: the first player's win
        being known (Qubic's is), every reply must be proven, and proving the easiest
        first finishes subtrees one after another (a wrong first-player move still
        shows, as its proof number keeps growing)."""
        return self._select(self.root, busy, set(), INFINITY, INFINITY)

    def _select(self, key: Key, busy: set[Key], dead: set[Key], th_pn: int,
                th_dn: int) -> tuple[Key, int, int] | None:
        node = self.nodes[key]
        if node.settled or key in dead:
            return None
        if node.moves is None:
            if key in busy:
                return None
            return key, max(th_pn, widen(node.pn)), max(th_dn, widen(node.dn))
        kids = [(self.nodes[child], child) for child in node.keys]
        kids.sort(key=lambda pair: (pair[0].pn, pair[0].dn))
        for index, (kid, child) in enumerate(kids):
            other = kids[1 if index == 0 else 0][0] if len(kids) > 1 else None
            second = widen(other.pn if other else INFINITY)
            if self.attacking(key):
                child_pn = min(th_pn, second)
                child_dn = th_dn if th_dn >= INFINITY else th_dn - node.dn + kid.dn
            else:  # every reply must be proven: the easiest first, until it looks harder
                child_pn = second if th_pn >= INFINITY else min(th_pn - node.pn + kid.pn,
                                                                 second)
                child_dn = th_dn
            found = self._select(child, busy, dead, child_pn, child_dn)
            if found is not None:
                return found
        dead.add(key)
        return None

    def estimate(self, key: Key, pn: int, dn: int) -> None:
        """A job searched the leaf further without settling it: its new numbers."""
        node = self.nodes[key]
        node.pn, node.dn = pn, dn
        self.update()

    # -- reading -----------------------------------------------------------------------
    def choices(self) -> Iterator[tuple[Position, int, bool, int]]:
        """``(position, move, proven, plies)`` for each of the attacker's inner nodes
        reachable from the root: its proven move if it has one, else the move with the
        least proof number."""
        seen: set[Key] = set()
        stack = [self.root]
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            node = self.nodes[key]
            if node.moves is None or not node.moves:
                continue
            if self.attacking(key):
                index = min(range(len(node.keys)),
                            key=lambda i: (self.nodes[node.keys[i]].pn,
                                           self.nodes[node.keys[i]].plies))
                if node.dn:  # a disproven node has no move worth keeping
                    yield self.position(key), node.moves[index], not node.pn, node.plies
                stack.append(node.keys[index])
            else:
                stack.extend(node.keys)

    def replies(self) -> list[Reply]:
        """The frontier at its widest: each of the defender's replies to the first move
        (the opening), with its numbers and the job seconds spent under it, hardest
        first (empty until the opening is expanded).

        >>> tree = ProofTree("4x4k3")
        >>> tree.expand(tree.children(tree.root)[0], [(5, 3, 9), (1, 8, 2)])
        >>> [(r.move, r.proof_number, r.proven) for r in tree.replies()]
        [(1, 8, False), (5, 3, False)]
        """
        if not self.children(self.root):
            return []
        opening = self.children(self.root)[0]
        node = self.nodes[opening]
        rows = []
        for move, key in zip(node.moves or [], node.keys, strict=True):
            kid = self.nodes[key]
            below = self._below(key)
            rows.append(Reply(move, kid.pn, kid.dn, not kid.pn, len(below),
                              sum(self.nodes[k].effort for k in below)))
        rows.sort(key=lambda row: (-row.proof_number, row.move))
        return rows

    def _below(self, key: Key) -> set[Key]:
        """The keys of the node and every node under it."""
        seen = {key}
        stack = [key]
        while stack:
            for child in self.children(stack.pop()):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return seen

    def counts(self) -> dict[str, int]:
        """How many nodes the tree holds: inner, leaves, proven, disproven."""
        inner = sum(1 for node in self.nodes.values() if node.moves is not None)
        return {
            "nodes": len(self.nodes), "inner": inner, "leaves": len(self.nodes) - inner,
            "proven": sum(1 for node in self.nodes.values() if not node.pn),
            "disproven": sum(1 for node in self.nodes.values() if not node.dn),
        }

    # -- the checkpoint file -------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The tree as compressed JSON: its inner nodes, each with its moves' numbers
        (the leaves are rebuilt from their parents), and the leaves a parent cannot
        rebuild (settled ones, and those with job time), each list in key order, so the
        same tree always gives the same bytes and a reloaded tree saves as it was read.

        >>> tree = ProofTree("4x4k3")
        >>> opening = tree.children(tree.root)[0]
        >>> tree.expand(opening, [(5, 3, 9), (1, 8, 2)])
        >>> tree.nodes[tree.children(opening)[1]].effort = 0.0004  # under a millisecond
        >>> ProofTree.from_bytes(tree.to_bytes()).to_bytes() == tree.to_bytes()
        True
        """
        records = []
        leaves = []
        for key in sorted(self.nodes):
            node = self.nodes[key]
            # job seconds are kept in whole milliseconds; a leaf is recorded only if
            # that or its settled numbers say more than its parents' records
            effort = round(node.effort * 1000)
            if node.moves is None:
                if effort or node.settled:
                    leaves.append([key[0], key[1], node.pn, node.dn, node.plies, effort])
                continue
            kids = [self.nodes[child] for child in node.keys]
            records.append([key[0], key[1], effort, node.chain,
                            [[move, kid.pn, kid.dn, kid.plies]
                             for move, kid in zip(node.moves, kids, strict=True)]])
        body = {"format": 1, "variant": self.variant, "opening": self.opening,
                "inner": records, "leaves": leaves}
        return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 9)

    @classmethod
    def from_bytes(cls, data: bytes) -> ProofTree:
        """Read a checkpoint back; a damaged one raises :class:`NoughtsError`."""
        try:
            body = json.loads(zlib.decompress(data))
            tree = cls(body["variant"], opening=None)
            tree.opening = body["opening"]
            inner = {(r[0], r[1]): r for r in body["inner"]}
            for x, o, pn, dn, plies, effort in body["leaves"]:
                tree.nodes[(x, o)] = ProofNode(x, o, pn=pn, dn=dn, plies=plies,
                                              effort=effort / 1000)
            for (x, o), (_, _, effort, chain, kids) in inner.items():
                node = tree.nodes.setdefault((x, o), ProofNode(x, o))
                node.effort = effort / 1000
                tree.expand((x, o), [(m, pn, dn) for m, pn, dn, _ in kids], chain=chain,
                            plies={m: plies for m, pn, _, plies in kids if not pn},
                            update=False)
        except (ValueError, KeyError, TypeError, zlib.error) as error:
            raise NoughtsError(f"damaged proof tree checkpoint: {error}") from None
        tree.update()
        return tree

    def save(self, path: Path) -> bool:
        """Write the checkpoint atomically, unless the file already holds these bytes
        (then it is left alone); True if it was written."""
        return write_if_changed(path, self.to_bytes())

    @classmethod
    def load(cls, path: Path) -> ProofTree:
        """Read a checkpoint file."""
        return cls.from_bytes(path.read_bytes())

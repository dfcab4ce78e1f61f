"""The compiled anytime search is its Python reference, node for node: on every board the
compiled core takes, both rules, the same moves, scores, principal variations and node
counts at fixed node limits (a limit that stops an iteration midway included)."""

from __future__ import annotations

import random

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.position import Position
from noughts.search import core
from noughts.search.core import Core, Searcher, anytime_search

BOARDS = ["3x3", "4x4k3", "4x4", "5x4k4", "4x5", "2x7k3", "3x3x3", "qubic", "6x6k4",
          "7x7k5", "3x3-misere", "4x4k3-misere", "4x4-misere", "5x4k4-misere",
          "qubic-misere"]


def test_the_compiled_core_is_built() -> None:
    # the README's install builds it; a test run without it must fail, not skip
    assert core.built() is not None, "noughts.search._core is not built"


def _positions(name: str, count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position("", name)
        marks = rng.randint(0, position.geometry.cells * 2 // 3)
        while position.ply < marks and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over:
            found.append(position)
    return found


def _walk(position: Position, kind: Core, nodes: int) -> list[object]:
    """Everything a deepening run shows: moves, each iteration, the stop, the counts."""
    misere = position.game.rules.misere
    search: Searcher = anytime_search(position, misere=misere, core=kind)
    limit = Limit(node_limit=nodes)
    moves = search.safe_moves() if misere else search.ordered_moves(-1, 0)
    seen: list[object] = [list(moves), search.threat_cells(0), search.threat_cells(1),
                          search.empty_count()]
    if not moves:
        return seen
    for depth in range(1, search.empty_count() + 1):
        try:
            score, best, scores = search.root(depth, moves, limit)
        except BudgetExhausted:
            seen.append(("stopped", search.nodes))
            break
        seen.append((depth, score, best, scores, search.nodes))
        moves.sort(key=lambda m: -scores[m])
        seen.append(search.principal_variation(best, depth))
    limit = Limit(node_limit=search.nodes + 3_000)
    for cell in moves[:3]:
        try:
            seen.append(("value", cell, [search.move_value(cell, d, limit) for d in range(3)]))
        except BudgetExhausted:
            seen.append(("value stopped", cell, search.nodes))
    seen.append(search.nodes)
    return seen


@pytest.mark.parametrize("name", BOARDS)
def test_both_cores_search_alike(name: str) -> None:
    for index, position in enumerate(_positions(name, 6, seed=len(name))):
        nodes = (500, 4_000, 25_000)[index % 3]
        assert _walk(position, "compiled", nodes) == _walk(position, "python", nodes), (
            position, nodes)


def test_a_cancelled_limit_stops_the_compiled_search() -> None:
    limit = Limit()
    search = anytime_search(Position("X" + "." * 63, "qubic"), core="compiled")
    limit.cancel()
    with pytest.raises(BudgetExhausted):
        search.root(6, search.ordered_moves(-1, 0), limit)
    assert search.nodes == 0  # polled at the first node: nothing counted past the stop

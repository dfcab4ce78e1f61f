"""The engine's whole plan answers alike on both search cores: at a fixed node limit,
the same move, value, principal variation and node count from ``choose_move``, and the
same values from ``evaluate_moves``, on every kind of board, both rules."""

from __future__ import annotations

import random

import pytest

from noughts.budget import Limit
from noughts.engine import choose_move, evaluate_moves
from noughts.exact import solver
from noughts.position import Position
from noughts.runtime.lru import LRU
from noughts.search import core

BOARDS = {
    "qubic": (6, 24), "4x4": (4, 10), "5x4k4": (4, 9), "4x4k3": (4, 8), "6x6k4": (4, 14),
    "3x3x3": (3, 10), "4x4-misere": (4, 8), "4x4k3-misere": (4, 8), "qubic-misere": (3, 40),
}
"""Boards, and the positions of each (how many, most marks)."""


def _fresh_solvers(monkeypatch: pytest.MonkeyPatch) -> None:
    """New exact solvers (each picks its core when made; its table lasts across calls)."""
    monkeypatch.setattr(solver, "_SOLVERS", LRU(solver.MAX_KEPT_SOLVERS))


def _positions(name: str, count: int, most: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position("", name)
        marks = rng.randint(1, most)
        while position.ply < marks and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over:
            found.append(position)
    return found


def _answers(positions: list[Position]) -> list[object]:
    answers: list[object] = []
    for index, position in enumerate(positions):
        nodes = (2_000, 20_000, 60_000)[index % 3]
        choice = choose_move(position, Limit.within(nodes=nodes), seed=index)
        answers.append((choice.move, choice.value, choice.estimate, choice.pv, choice.nodes,
                        choice.method, choice.note))
        values = evaluate_moves(position, Limit.within(nodes=nodes))
        answers.append([(e.move, e.value, e.estimate) for e in values])
    return answers


def test_the_compiled_core_runs_here() -> None:
    assert core.name() == "compiled", "the test command runs the suite on the compiled core"


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_the_plan_answers_alike_on_both_cores(name: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    count, most = BOARDS[name]
    positions = _positions(name, count, most, seed=len(name))
    # the solver's misère limit is the core's to widen (the plans then differ by design)
    monkeypatch.setattr(solver, "MAX_EMPTY_CELLS_MISERE_COMPILED", solver.MAX_EMPTY_CELLS_MISERE)
    _fresh_solvers(monkeypatch)
    compiled = _answers(positions)
    monkeypatch.setattr(core, "compiled", lambda: None)
    _fresh_solvers(monkeypatch)
    assert core.name() == "python"
    assert _answers(positions) == compiled

"""Every value the engine calls proven in a misère game is true, above the exact
solver's reach too: checked against an independent referee (4x4 with 3 in a row) and
against the exact solver run past its on-the-spot limit (4x4, 5x4 with 4 in a row, late
Qubic)."""

from __future__ import annotations

import random

from misere_referee import MisereReferee
from noughts.budget import Limit
from noughts.engine import choose_move, evaluate_moves
from noughts.engine.plan import search_limit, search_shares
from noughts.exact.solver import solver_for, to_value
from noughts.position import Position
from noughts.results import Value
from noughts.search.anytime import evaluate_all, search_move


def _random_position(name: str, marks: int, rng: random.Random) -> Position:
    """A position of ``name`` with ``marks`` marks, reached by random moves, unfinished."""
    while True:
        position = Position("", name)
        while position.ply < marks and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over and position.ply == marks:
            return position


def _holds(claim: Value, truth: tuple[str, int]) -> bool:
    """A proven value holds: the same outcome; exact plies equal, a bound's at least."""
    outcome, plies = truth
    if claim.outcome.value != outcome:
        return False
    if outcome == "draw":
        return True
    return claim.plies == plies if claim.plies_exact else claim.plies >= plies


def _exact_truth(position: Position, move: int) -> tuple[str, int]:
    """The exact solver's value of ``move``, past its on-the-spot limit."""
    solver = solver_for(position.game)
    me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
    score = solver.move_score(me, opp, move)
    value = to_value(score, position.ply, position.geometry.cells)
    return value.outcome.value, value.plies if value.outcome.value != "draw" else 0


REFEREE = MisereReferee("4x4k3-misere")


def test_4x4k3_misere_proven_values_hold_against_the_referee() -> None:
    """From 2 to 9 marks (14 to 7 empty cells: the anytime search and the exact solver)."""
    rng = random.Random(3)
    checked = 0
    for marks in [*range(2, 10)] * 4:
        position = _random_position("4x4k3-misere", marks, rng)
        limit = Limit.within(nodes=30_000)
        evaluated = [*evaluate_moves(position, limit),
                     *evaluate_all(position, search_limit(limit))]
        chosen = [choose_move(position, Limit.within(nodes=30_000)),
                  search_move(position, search_limit(Limit.within(nodes=30_000)), search_shares())]
        for move, value in [(e.move, e.value) for e in evaluated] + [
                (c.move, c.value) for c in chosen]:
            if value is None:
                continue
            truth = REFEREE.move_value(position, move)
            assert _holds(value, truth), (position, move, str(value), truth)
            checked += 1
    assert checked > 0


def test_proven_values_above_twelve_empty_cells_hold_against_the_exact_solver() -> None:
    rng = random.Random(11)
    checked = 0
    for name, marks in [("4x4-misere", 3), ("4x4-misere", 3), ("5x4k4-misere", 7),
                        ("5x4k4-misere", 7), *[("4x4x4-misere", 51)] * 3]:
        position = _random_position(name, marks, rng)
        assert position.empty.bit_count() > 12
        limit = Limit.within(nodes=30_000)
        claims = [(e.move, e.value) for e in evaluate_all(position, search_limit(limit))]
        choice = search_move(position, search_limit(Limit.within(nodes=30_000)), search_shares())
        claims.append((choice.move, choice.value))
        for move, value in claims:
            if value is not None:
                truth = _exact_truth(position, move)
                assert _holds(value, truth), (position, move, str(value), truth)
                checked += 1
    assert checked > 0

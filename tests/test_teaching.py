"""Teaching searches (the tutorial seed's counts) and the SIG-AI seed's interface."""

from __future__ import annotations

import random

import pytest

from noughts import functional
from noughts.errors import GameOverError, IllegalMoveError, VariantError
from noughts.exact.solver import solve
from noughts.position import Position
from noughts.results import Outcome
from noughts.teaching.tutorial import (
    alphabeta_move,
    evaluate_board,
    minimax_move,
    negamax,
    tutorial_board,
)

CENTRE = Position(".../.X./...")


def random_position(rng: random.Random, variant: str = "3x3", *, min_marks: int = 0) -> Position:
    """A random reachable, unfinished position with at least ``min_marks`` marks."""
    while True:
        position = Position("", variant)
        marks = rng.randrange(min_marks, position.geometry.cells)
        for _ in range(marks):
            if position.is_over:
                break
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over and position.ply >= min_marks:
            return position


def test_tutorial_counts_after_x_takes_the_centre() -> None:
    assert minimax_move(CENTRE).nodes == 55_505
    assert alphabeta_move(CENTRE).nodes == 8_465


def test_minimax_count_is_the_game_tree_size() -> None:
    # 55,505 is the whole game tree below the centre opening, the root included.
    assert negamax(CENTRE, alpha_beta=False).nodes == 55_505
    rng = random.Random(5)
    for _ in range(20):
        position = random_position(rng, min_marks=3)
        assert minimax_move(position).nodes == negamax(position, alpha_beta=False).nodes


def test_alphabeta_agrees_with_minimax_and_visits_fewer() -> None:
    rng = random.Random(1)
    for _ in range(40):
        position = random_position(rng, min_marks=2)
        plain, pruned = minimax_move(position), alphabeta_move(position)
        assert plain.move == pruned.move
        # The tutorial's root children sit at depth 1 for minimax, 0 for next_move.
        shift = (pruned.score > 0) - (pruned.score < 0)
        assert plain.score == pruned.score - shift
        assert pruned.nodes <= plain.nodes


def test_tutorial_scores_prefer_the_quickest_win() -> None:
    result = minimax_move(Position("XX./OO./..."))
    assert (result.move, result.score) == (2, 49)  # win at once: 50 - depth 1
    result = alphabeta_move(Position("XX./OO./X.."))  # O to move, wins at 5
    assert (result.move, result.score) == (5, 50)
    assert evaluate_board(tutorial_board(Position("XXX/OO./...")), 4, "O") == -46
    assert evaluate_board(tutorial_board(Position("XO./.../...")), 2, "X") is None


def test_teaching_scores_match_the_exact_solver() -> None:
    rng = random.Random(3)
    for _ in range(40):
        position = random_position(rng, min_marks=2)
        value = solve(position)
        expected_sign = {Outcome.WIN: 1, Outcome.DRAW: 0, Outcome.LOSS: -1}[value.outcome]
        score = minimax_move(position).score
        assert (score > 0) - (score < 0) == expected_sign, position


@pytest.mark.parametrize("variant", ["3x3", "2x3k3", "4x2k2", "3x3k2"])
def test_negamax_is_exact_on_small_boards(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(15):
        position = random_position(rng, variant, min_marks=min(3, position_cells(variant) - 2))
        value = solve(position)
        win = position.geometry.cells + 1
        expected = {
            Outcome.WIN: win - value.plies,
            Outcome.LOSS: value.plies - win,
            Outcome.DRAW: 0,
        }[value.outcome]
        pruned, plain = negamax(position), negamax(position, alpha_beta=False)
        assert pruned.score == plain.score == expected, position
        assert pruned.nodes <= plain.nodes
        child = position.play(pruned.move)
        assert solve(child).negate_after_move() == value


def position_cells(variant: str) -> int:
    return Position("", variant).geometry.cells


def test_teaching_errors() -> None:
    with pytest.raises(VariantError, match="3x3 only, not 4x4"):
        minimax_move(Position("", "4x4"))
    with pytest.raises(GameOverError, match="game is over"):
        alphabeta_move(Position("XXX/OO./..."))
    with pytest.raises(GameOverError):
        negamax(Position("XOX/XOO/OXX"))


# -- the SIG-AI seed's interface ---------------------------------------------------------


def test_functional_terminal_states_and_values() -> None:
    assert functional.value(Position("XXX/OO./...")) == 1
    assert functional.value(Position("OOO/XX./X..")) == -1
    assert functional.value(Position("XOX/XOO/OXX")) == 0
    assert functional.value(Position("XO./.../...")) is None
    assert functional.is_terminal(Position("XOX/XOO/OXX"))
    assert not functional.is_terminal(Position())
    assert functional.legal_actions(Position("XXX/OO./...")) == []


def test_functional_actions_and_successors() -> None:
    state = Position("X../.O./...")
    actions = functional.legal_actions(state)
    assert actions[0] == ("X", 0, 1) and len(actions) == 7
    assert all(mark == "X" for mark, *_ in actions)
    after = functional.successor(state, ("X", 2, 2))
    assert after == Position("X../.O./..X")
    assert functional.successor(state, ("X", 1, 1)) is None  # taken
    assert functional.successor(state, ("O", 2, 2)) is None  # not O's turn
    assert functional.successor(Position("XXX/OO./..."), ("O", 2, 2)) is None  # game over
    for bad, message in [
        (("X", 1), "an action is"),
        (("Z", 0, 0), "mark must be"),
        (("X", "a", 0), "integers"),
        (("X", 0, 3), "off a board"),
        ([1, 2, 3], "an action is"),
    ]:
        with pytest.raises(IllegalMoveError, match=message):
            functional.successor(state, bad)  # type: ignore[arg-type]


def test_functional_on_a_cube() -> None:
    state = Position("", "3x3x3")
    actions = functional.legal_actions(state)
    assert len(actions) == 27 and actions[13] == ("X", 1, 1, 1)
    after = functional.successor(state, ("X", 1, 1, 1))
    assert after is not None and after.x == 1 << 13


def test_functional_minimax_value_matches_the_solver() -> None:
    rng = random.Random(7)
    for _ in range(25):
        state = random_position(rng, min_marks=4)
        value = solve(state)
        x_view = {Outcome.WIN: 1, Outcome.DRAW: 0, Outcome.LOSS: -1}[value.outcome]
        if state.to_move == "O":
            x_view = -x_view
        assert functional.minimax_value(state) == x_view, state


def test_functional_aliases_are_the_seed_names() -> None:
    assert functional.isTerminal is functional.is_terminal
    assert functional.getValue is functional.value
    assert functional.legalActions is functional.legal_actions
    assert functional.getSuccessor is functional.successor

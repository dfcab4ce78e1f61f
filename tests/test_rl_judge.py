"""The judge: results and blunders measured against exact values."""

from __future__ import annotations

import pytest

from noughts import NoughtsError, Position, analyze
from noughts.rl import evaluate, exact_view


def test_perfect_play_never_blunders() -> None:
    result = evaluate(10, "3x3", games=20, opponent="level:10", seed=2)
    assert (result.wins, result.draws, result.losses) == (0, 20, 0)
    assert result.blunders == 0 and result.judged_moves == result.moves > 0


def test_random_play_blunders_and_loses_against_level_10() -> None:
    result = evaluate("random", "3x3", games=30, opponent=10, seed=1)
    assert result.wins == 0 and result.losses > 0
    assert 0 < result.blunders <= result.judged_moves == result.moves
    assert result.blunder_rate == result.blunders / result.judged_moves


def test_every_lost_game_holds_a_blunder() -> None:
    # Against perfect play the empty 3x3 board is a draw: losing it takes a blunder.
    result = evaluate("level:3", "3x3", games=40, opponent=10, seed=5)
    assert result.wins == 0 and result.losses > 0
    assert result.blunders >= result.losses


def test_a_blunder_is_a_move_that_throws_the_result_away() -> None:
    position = Position("X../.O./..X")  # O to move: a draw, but a corner loses
    view = exact_view(position)
    assert view is not None and view.value.outcome == "draw"
    values = {m.move: m.value.outcome for m in analyze(position)}
    assert {m for m in values if view.is_blunder(m)} == {
        m for m, o in values.items() if o == "loss"
    }
    assert view.is_blunder(2) and not view.is_blunder(1)


def test_positions_out_of_the_solvers_reach_are_not_judged() -> None:
    result = evaluate("random", "qubic", games=2, opponent="random", seed=0)
    assert result.judged_moves < result.moves
    assert "positions the exact solver can solve" in result.note


def test_policy_as_a_function_and_forfeits() -> None:
    def first_cell(position: Position) -> int:
        return 0  # illegal as soon as cell 0 is taken

    result = evaluate(first_cell, "3x3", games=4, opponent=10, policy_plays="O")
    assert result.policy == "first_cell"
    assert result.losses == result.forfeits == 4
    assert result.forfeit_reason is not None and "illegal" in result.forfeit_reason


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"games": 0}, "games must be a positive integer"),
        ({"policy_plays": "both"}, "policy_plays must be"),
        ({"opponent": "level:12"}, "not a level from 0 to 10"),
        ({"variant_name": "2x2k3"}, "unknown variant"),
    ],
)
def test_bad_arguments_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(NoughtsError, match=message):
        evaluate("random", **options)  # type: ignore[arg-type]

"""The Q-learning example, reduced: self-play learns perfect 3x3 play."""

from __future__ import annotations

from noughts.rl import evaluate
from noughts.rl.qlearning import main, train


def test_q_learning_reaches_perfect_play_against_level_10() -> None:
    table = train(20_000, seed=0)
    result = evaluate(table, "3x3", games=200, opponent=10, seed=1)
    assert (result.losses, result.blunders) == (0, 0)
    assert result.judged_moves == result.moves == 900  # 100 games as X, 100 as O


def test_too_little_training_is_caught_by_the_judge() -> None:
    result = evaluate(train(500, seed=0), "3x3", games=50, opponent=10)
    assert result.losses > 0 and result.blunders > 0


def test_the_example_script_reports_the_judgement(capsys: object) -> None:
    assert main(["--episodes", "300", "--games", "10"]) == 1  # too short to be perfect
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "trained 300 self-play games" in out and "against level:10 over 10 games" in out

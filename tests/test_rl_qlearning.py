"""The Q-learning example: trained until the judge finds no blunder in any position it can meet."""

from __future__ import annotations

from noughts import Position
from noughts.rl import evaluate, exact_view, observe
from noughts.rl.qlearning import QTable, blunders, main, train, train_until_sound


def test_trained_until_sound_it_never_throws_a_result_away() -> None:
    table, played = train_until_sound(seed=0)
    assert played <= 60_000 and blunders(table) == []
    result = evaluate(table, "3x3", games=200, opponent=10, seed=1)
    assert (result.losses, result.blunders) == (0, 0)
    assert result.judged_moves == result.moves == 900  # 100 games as X, 100 as O
    assert evaluate(table, "3x3", games=200, opponent="random", seed=2).losses == 0


def test_the_judge_finds_a_blunder_in_a_position_only_the_other_side_leads_to() -> None:
    # Taught to answer XO./.../.X. (O to move) with a losing move: the table as O never
    # plays b1... itself, so only the judge of every reachable position sees it.
    position = Position("XO./.../.X.")
    view = exact_view(position)
    assert view is not None
    losing = next(move for move in position.legal_moves if view.is_blunder(move))
    table = QTable(9)
    table.row(observe(position, "O"))[losing] = 1.0
    table.row(observe(Position("X../.../..."), "O"))[4] = 1.0  # O answers a1 in the centre
    everywhere = blunders(table, everywhere=True)
    assert (position, losing) in everywhere
    assert (position, losing) not in blunders(table)  # the table's O opens elsewhere
    assert all(view_of.is_blunder(move) for view_of, move in _views(everywhere))


def _views(found: list[tuple[Position, int]]) -> list[tuple[object, int]]:
    return [(exact_view(position), move) for position, move in found]


def test_too_little_training_is_caught_by_the_judge() -> None:
    table = train(500, seed=0)
    assert blunders(table)
    result = evaluate(table, "3x3", games=50, opponent=10)
    assert result.losses > 0 and result.blunders > 0


def test_the_example_script_reports_the_judgement(capsys: object) -> None:
    assert main(["--episodes", "300", "--games", "10"]) == 1  # too short to be perfect
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "trained 300 self-play games" in out and "against level:10 over 10 games" in out
    assert "blunders in the positions it can meet" in out

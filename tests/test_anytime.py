"""The engine past the exact solver: proven wins and losses, rules, defence, limits, big
boards."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noughts.engine import choose_move, evaluate_moves
from noughts.errors import GameOverError, NoughtsError, TooLargeError
from noughts.geometry import Geometry
from noughts.knowledge.shipped import SHIPPED
from noughts.knowledge.strategy import proven_replies, shipped_strategy, strategy_move
from noughts.position import Position
from noughts.results import describe
from noughts.search.threats import find_forced_win
from threat_referee import forced_win as referee_forced_win

PUZZLES = [
    ("OO../..../X.../X..O|..../..../.XO./....|..../XX../..O./....|O.../..../...X/....", 3),
    ("O..X/..../..../X..O|..../OXXX/..../....|..../..../.O.O/....|..../..../..O./XXOX", 5),
    ("...X/.O../..../X..O|..../..OX/...O/....|OO../.X../.X../.X.O|..../..../..../X...", 7),
]

# The side to move has no forced win, but the opponent would have one (by continuous
# threats, 9 to 15 plies) if we passed; some moves stop it, most do not.
DEFENCES = [
    "X.../.X../..../X..O|.X../..../..../....|O.../O.../..../....|...O/..../..../....",
    "...X/..../X..O/...X|..O./..X./..X./..X.|..../..../.O../....|O.../..../..../OXOO",
    "...X/..../...X/...O|..../..../OXXX/....|..../..../.O../...X|...O/...O/.O../....",
    # From games lost to the seed's depth-3 bot at 1 s a move: the move played then left
    # X a chain of up to 12 threats, found too late; a few moves are safe.
    "..../..../..../....|..../.XX./.OX./....|..../.X../.OO./....|..../..../..../....",
    "X..X/..../..../O..X|..../..../..../....|..../..../..O./....|O.../..../..../...X",
    "..../..../..../....|..../.XX./.XO./....|..../..X./.OO./....|..../..../..../....",
]


@pytest.mark.parametrize(("board", "plies"), PUZZLES)
def test_forced_wins_are_played_and_reported_proven(board: str, plies: int) -> None:
    position = Position(board, "qubic")
    result = choose_move(position, time_limit=0.5, seed=1)
    assert (result.proven, result.outcome, result.plies) == (True, "win", plies)
    assert result.method == "anytime"
    assert result.to_json()["plies_exact"] is False  # the chain's length bounds the game
    # the move keeps the win: the opponent cannot escape a forced line afterwards
    after = position.play(result.move)
    for reply in after.legal_moves:
        follow = after.play(reply)
        if follow.is_over:
            pytest.fail(f"reply {reply} ends the game")
        assert find_forced_win(follow) is not None, f"reply {reply} escapes"


@pytest.mark.parametrize("board", DEFENCES)
def test_the_opponents_forced_win_is_defended(board: str) -> None:
    position = Position(board, "qubic")
    assert find_forced_win(position) is None
    # a node budget, not a clock: the same search on a busy machine as on a quiet one
    result = choose_move(position, nodes=300_000, seed=1)
    after = position.play(result.move)
    # checked by a referee that shares no code with the engine's threat search
    assert not referee_forced_win(after, max_threats=12)
    assert find_forced_win(after) is None
    if result.proven and result.outcome == "loss":  # only where the strategy proves it
        assert result.plies == proven_replies(position, shipped_strategy())[result.move]


@pytest.mark.parametrize("board", DEFENCES[:3])
def test_the_referee_sees_the_threat_the_defence_must_stop(board: str) -> None:
    position = Position(board, "qubic")
    passed = Position.from_bitboards(position.x, position.o, "qubic", first="O")
    assert passed.to_move != position.to_move  # the opponent to move, as if we passed
    assert referee_forced_win(passed, max_threats=12)
    assert find_forced_win(passed) is not None


@pytest.mark.parametrize(("board", "plies"), PUZZLES)
def test_the_referee_agrees_on_the_puzzles(board: str, plies: int) -> None:
    assert referee_forced_win(Position(board, "qubic"), max_threats=(plies + 1) // 2)


def random_position(moves: list[int]) -> Position:
    position = Position("", "qubic")
    for index in moves:
        if position.is_over:
            break
        legal = list(position.legal_moves)
        nxt = position.play(legal[index % len(legal)])
        if nxt.is_over:
            break
        position = nxt
    return position


def threats(position: Position, mark: str) -> set[int]:
    marks = position.x if mark == "X" else position.o
    geometry = position.geometry
    return {c for c in position.legal_moves if geometry.wins_after(marks | (1 << c), c)}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=63), min_size=5, max_size=30))
def test_never_misses_a_win_in_one_nor_a_single_block(moves: list[int]) -> None:
    position = random_position(moves)
    mover = position.to_move
    opponent = "O" if mover == "X" else "X"
    result = choose_move(position, nodes=300, seed=0)
    assert result.move in position.legal_moves
    mine = threats(position, mover)
    if mine:
        assert result.move in mine
        assert (result.proven, result.outcome, result.plies) == (True, "win", 1)
    elif len(threats(position, opponent)) == 1:
        assert result.move in threats(position, opponent)


OFF_BOOK = Position(".X" + "." * 61 + "O", "qubic")
"""A position the shipped strategy never meets (its first move is a corner, not an
edge cell), so the engine searches it instead of reading its move from the book."""


def test_the_off_book_position_is_off_the_book() -> None:
    strategy = shipped_strategy()
    assert strategy_move(OFF_BOOK, strategy) is None  # X to move
    assert not proven_replies(OFF_BOOK, strategy)


def test_move_comes_back_by_the_deadline() -> None:
    position = OFF_BOOK
    choose_move(position, time_limit=0.05)  # warm the per-board tables
    for limit in (0.1, 0.3):
        start = time.perf_counter()
        result = choose_move(position, time_limit=limit)
        wall = time.perf_counter() - start
        assert wall < limit + 0.25  # generous: the machine is shared
        assert result.elapsed_ms < (limit + 0.25) * 1000
        assert result.depth is not None and result.depth >= 1
        assert result.nodes > 0 and not result.proven


def test_node_budget_bounds_the_search() -> None:
    position = OFF_BOOK
    small = choose_move(position, nodes=500)
    large = choose_move(position, nodes=20_000)
    assert small.nodes < large.nodes
    assert small.nodes <= 500 + 200  # one check interval of slack


def test_a_search_that_runs_out_counts_no_node_past_its_limit() -> None:
    position = Position("", "qubic")
    for move in (48, 37, 0, 21, 3, 5, 53, 17, 12):  # O's screening ends on the limit
        position = position.play(move)
    assert choose_move(position, nodes=100_000).nodes <= 100_000  # (it said 100,001)


def test_result_fields_for_a_heuristic_move() -> None:
    position = OFF_BOOK
    result = choose_move(position, time_limit=0.3)
    assert not result.proven and result.outcome is None and result.plies is None
    assert isinstance(result.score, float)
    assert result.pv[0] == result.move and len(result.pv) >= 1
    assert result.coords == position.geometry.coords(result.move)


def test_immediate_threat_is_blocked_and_double_threat_is_a_proven_loss() -> None:
    position = Position("XXX./OO../..../....|" + "|".join(["..../..../..../...."] * 3), "qubic")
    position = Position.from_bitboards(position.x, position.o | (1 << 16), "qubic")
    result = choose_move(position, time_limit=0.2)
    assert result.move == 3
    double = Position.from_bitboards(
        0b111 | 0b111 << 16, 1 << 8 | 0b11 << 32 | 1 << 44 | 1 << 60, "qubic"
    )
    result = choose_move(double, time_limit=0.2)
    assert (result.proven, result.outcome, result.plies) == (True, "loss", 2)
    assert result.move in (3, 19)
    assert describe(result) == "loss in 2" and result.to_json()["plies_exact"] is True


def test_the_empty_board_is_answered_from_the_strategy_as_a_proven_win() -> None:
    empty = Position("", "qubic")
    found = strategy_move(empty, shipped_strategy())
    assert found is not None and found.proven
    result = choose_move(empty, seed=3, time_limit=0.2)
    assert (result.move, result.proven, result.outcome, result.plies) == (
        found.move, True, "win", found.plies)
    # the strategy bounds the game's length; it does not claim the fastest win
    assert describe(result, units=True) == f"win in at most {found.plies} plies"
    assert result.to_json()["plies_exact"] is False


def test_opening_is_seeded_and_strong_where_no_strategy_serves() -> None:
    empty = Position("", "qubic", first="O")  # the strategy serves the games X starts
    assert SHIPPED.strategy_for(empty) is None
    moves = {choose_move(empty, seed=s, time_limit=0.2).move for s in range(12)}
    strong = {0, 3, 12, 15, 21, 22, 25, 26, 37, 38, 41, 42, 48, 51, 60, 63}
    assert moves <= strong and len(moves) > 1
    assert choose_move(empty, seed=5).move == choose_move(empty, seed=5).move


def test_evaluate_values_every_move() -> None:
    position = Position("XXX.OOO." + "." * 56, "qubic")
    evals = evaluate_moves(position, time_limit=0.3)
    assert [e.move for e in evals] == list(position.legal_moves)
    by_move = {e.move: e for e in evals}
    assert (by_move[3].proven, by_move[3].outcome, by_move[3].plies) == (True, "win", 1)
    assert (by_move[8].outcome, by_move[8].plies) == ("loss", 2)
    quiet = evaluate_moves(OFF_BOOK, time_limit=0.3)
    assert len(quiet) == 62 and all(not e.proven and e.score is not None for e in quiet)


@pytest.mark.parametrize("name", ["5x5k4", "7x7k5", "15x15k5", "5x5x5"])
def test_engine_picks_the_anytime_search_on_big_boards(name: str) -> None:
    position = Position("", name).play(Position("", name).geometry.cells // 2)
    result = choose_move(position, time_limit=0.2)
    assert result.method == "anytime" and result.move in position.legal_moves
    evals = evaluate_moves(position, time_limit=0.2)
    assert len(evals) == len(position.legal_moves)


def test_gomoku_four_is_finished_and_open_three_answered() -> None:
    rows = ["." * 15] * 15
    rows[7] = "....XXXX......."
    rows[8] = "....OOO........"
    rows[9] = "......O........"
    position = Position("/".join(rows), "15x15k5", first="X")
    assert choose_move(position, time_limit=0.2).move in (7 * 15 + 3, 7 * 15 + 8)


def test_bad_budgets_and_finished_games_are_errors() -> None:
    position = Position("X" + "." * 62 + "O", "qubic")
    with pytest.raises(NoughtsError, match="time limit"):
        choose_move(position, time_limit=0)
    with pytest.raises(NoughtsError, match="node budget"):
        choose_move(position, nodes=-5)
    won = Position("XXXX/OOO./..../....|" + "|".join(["..../..../..../...."] * 3), "qubic")
    with pytest.raises(GameOverError):
        choose_move(won)
    with pytest.raises(GameOverError):
        evaluate_moves(won)


def test_lines_too_long_for_the_heuristic_are_a_clear_error() -> None:
    with pytest.raises(TooLargeError, match="too large for the heuristic search"):
        choose_move(Position("", Geometry((1, 70), 70)), time_limit=0.2)

"""Threat-space search: forced wins by continuous threats are found, proven and exact."""

from __future__ import annotations

import pytest

from noughts.anytime.board import SearchBoard
from noughts.anytime.evaluate import line_weights
from noughts.anytime.threats import ForcedWin, ThreatSearch, find_forced_win
from noughts.position import Position

# Qubic positions (found by seeded weak play, kept for their shortest continuous-threat
# win) and the length of that win in plies.
PUZZLES = [
    ("OO../..../X.../X..O|..../..../.XO./....|..../XX../..O./....|O.../..../...X/....", 3),
    ("O..X/..../..../X..O|..../OXXX/..../....|..../..../.O.O/....|..../..../..O./XXOX", 5),
    ("...X/.O../..../X..O|..../..OX/...O/....|OO../.X../.X../.X.O|..../..../..../X...", 7),
]


def replay(position: Position, win: ForcedWin) -> Position:
    for move in win.moves:
        position = position.play(move)
    return position


@pytest.mark.parametrize(("board", "plies"), PUZZLES)
def test_puzzle_wins_are_found_and_replay_to_a_win(board: str, plies: int) -> None:
    position = Position(board, "qubic")
    win = find_forced_win(position)
    assert win is not None
    assert win.plies == plies
    end = replay(position, win)
    assert end.winner == position.to_move


@pytest.mark.parametrize(("board", "plies"), PUZZLES)
def test_every_defence_is_forced(board: str, plies: int) -> None:
    """At each defender's turn in the line, any other reply loses at once."""
    position = Position(board, "qubic")
    win = find_forced_win(position)
    assert win is not None
    attacker = position.to_move
    for index, move in enumerate(win.moves[:-1]):
        if index % 2 == 1:  # the defender's reply: the attacker must threaten to win now
            marks = position.x if attacker == "X" else position.o
            geometry = position.geometry
            winning = [c for c in position.legal_moves
                       if geometry.wins_after(marks | (1 << c), c)]
            assert winning, f"ply {index}: the defender was not forced"
        position = position.play(move)


def test_shorter_budget_finds_nothing_rather_than_a_wrong_line() -> None:
    position = Position(PUZZLES[2][0], "qubic")
    assert find_forced_win(position, max_threats=1) is None
    assert find_forced_win(position, nodes=1) is None


def test_no_forced_win_on_a_quiet_board() -> None:
    assert find_forced_win(Position("X" + "." * 62 + "O", "qubic")) is None


def test_other_boards_and_k() -> None:
    # 7x7 with 5 in a row: an open four... X to move with three in a row, open both ends
    board = "......./......./.XXX.../......./OO...../O....../......."
    win = find_forced_win(Position(board, "7x7k5"))
    assert win is not None and win.plies == 3
    assert find_forced_win(Position("", "7x7k5")) is None


@pytest.mark.parametrize(("board", "plies"), PUZZLES)
def test_refute_finds_a_line_that_wins_and_leaves_the_board_as_it_was(
    board: str, plies: int
) -> None:
    position = Position(board, "qubic")
    search = ThreatSearch(SearchBoard(position, line_weights(4), 0))
    before = search.board.key()
    line = search.refute(12)
    assert line is not None and len(line) >= plies
    assert search.board.key() == before
    assert replay(position, ForcedWin(tuple(line))).winner == position.to_move
    # the line's cells are tried first next time: a sibling check costs a few nodes
    assert search.hint and set(search.hint) <= set(line)
    nodes = search.nodes
    assert search.refute(12) == line
    assert search.nodes - nodes <= len(line)


def test_refute_finds_nothing_on_a_quiet_board() -> None:
    position = Position("X" + "." * 62 + "O", "qubic")
    assert ThreatSearch(SearchBoard(position, line_weights(4), 0)).refute(12) is None

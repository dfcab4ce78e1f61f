"""Positions: play, legal moves, results, validation, repr/str and hashing."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from noughts.errors import BoardError, GameOverError, IllegalMoveError, NoughtsError
from noughts.position import GameResult, Position
from strategies import positions

GEOMETRIES = ["3x3", "4x4k3", "4x4", "5x4k4", "4x4x4", "3x3x3"]


def test_play_alternates_and_leaves_the_original_alone() -> None:
    start = Position()
    after = start.play(4).play(0)
    assert start == Position() and start.ply == 0
    assert after.board == "O../.X./..." and after.to_move == "X" and after.ply == 2
    assert Position("", "3x3", first="O").play(4).board == ".../.O./..."


def test_legal_moves_view() -> None:
    moves = Position("XO./.X./...").legal_moves
    assert list(moves) == [2, 3, 5, 6, 7, 8] and len(moves) == 6
    assert 2 in moves and 0 not in moves and 9 not in moves and -1 not in moves
    assert "2" not in moves
    assert list(Position("XXX/OO./...").legal_moves) == []  # nothing after a win


def test_winner_line_and_result() -> None:
    won = Position("XXX/OO./...")
    assert won.winner == "X" and won.is_over
    assert won.winning_line == 0b111
    assert won.result == GameResult("X", 0b111)
    double = Position("XOX/OXO/XOX")  # the last move, the centre, made both diagonals
    assert double.winner == "X"
    assert double.winning_line == 0b101010101
    draw = Position("XOX/XOO/OXX")
    assert draw.winner is None and draw.is_over and draw.result == GameResult(None, 0)
    going = Position("XO./.../...")
    assert going.winner is None and not going.is_over and going.result is None
    assert going.winning_line == 0
    o_won = Position("OOO/XX./X..")
    assert o_won.winner == "O" and o_won.to_move == "X"


def test_cube_wins_along_a_space_diagonal() -> None:
    position = Position("", "4x4x4")
    diagonal = [0, 21, 42, 63]
    for step, cell in enumerate(diagonal):
        position = position.play(cell)
        if step < 3:
            position = position.play(1 + step)  # O on the first row
    assert position.winner == "X"
    assert position.winning_line == sum(1 << c for c in diagonal)


@pytest.mark.parametrize(
    ("board", "variant", "first", "message"),
    [
        ("XX./.../...", "3x3", "X", "impossible counts: 2 X and 0 O; X moved first"),
        ("X../.../...", "3x3", "O", "impossible counts: 1 X and 0 O; O moved first"),
        ("O../.../...", "3x3", "X", "impossible counts: 0 X and 1 O"),
        ("XXX/OOO/X..", "3x3", "X", "both players have a line"),
        ("XXX/OO./O..", "3x3", "X", "X has a line but O moved after it"),
        ("OOO/XX./XX.", "3x3", "X", "O has a line but X moved after it"),
        (
            "XXXO/O..O/.OO./XXX.",
            "4x4k3",
            "X",
            "X has lines that no single last move could complete",
        ),
    ],
)
def test_impossible_positions_name_the_problem(
    board: str, variant: str, first: str, message: str
) -> None:
    with pytest.raises(BoardError, match=re.escape(message)):
        Position(board, variant, first=first)  # type: ignore[arg-type]


def test_impossible_bitboards_name_the_problem() -> None:
    with pytest.raises(BoardError, match=re.escape("overlapping marks: cell(s) 0, 1")):
        Position.from_bitboards(0b11, 0b11)
    with pytest.raises(BoardError, match="bits outside the board: numX has bit 9"):
        Position.from_bitboards(1 << 9, 0)
    with pytest.raises(BoardError, match="first player must be 'X' or 'O'"):
        Position("", "3x3", first="Z")  # type: ignore[arg-type]


def test_illegal_moves_name_the_problem() -> None:
    position = Position("X../.O./...")
    with pytest.raises(IllegalMoveError, match="cell 4 is occupied by O"):
        position.play(4)
    with pytest.raises(IllegalMoveError, match=re.escape("cell 9 is off the board (3x3 has")):
        position.play(9)
    with pytest.raises(IllegalMoveError, match="cell -1 is off the board"):
        position.play(-1)
    with pytest.raises(IllegalMoveError, match="a move is a cell index, not '4'"):
        position.play("4")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="not True"):
        position.play(True)
    with pytest.raises(GameOverError, match="the game is over: X has won"):
        Position("XXX/OO./...").play(8)
    with pytest.raises(GameOverError, match="the game is over: X has won"):
        Position("XXX/OO./...").play(3)  # occupied too, but the game's end comes first
    with pytest.raises(GameOverError, match="the game is over"):
        Position("XOX/XOO/OXX").play(0)  # a full board: a draw
    for error in (BoardError, IllegalMoveError, GameOverError):
        assert issubclass(error, NoughtsError) and issubclass(error, ValueError)


def test_positions_are_immutable() -> None:
    position = Position()
    with pytest.raises(AttributeError, match="immutable"):
        position.x = 1  # type: ignore[misc]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(GEOMETRIES))
def test_repr_pastes_back(position: Position) -> None:
    assert eval(repr(position), {"Position": Position}) == position


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(GEOMETRIES))
def test_hash_and_equality(position: Position) -> None:
    twin = Position.from_bitboards(position.x, position.o, position.variant, first=position.first)
    assert twin == position and hash(twin) == hash(position)
    assert len({position, twin}) == 1
    if position.ply == 0:
        other_first = "O" if position.first == "X" else "X"
        assert Position("", position.variant, first=other_first) != position


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(GEOMETRIES))
def test_invariants_of_reachable_positions(position: Position) -> None:
    x, o = position.x, position.o
    assert x & o == 0
    assert position.empty | x | o == position.geometry.full
    assert (position.winner is not None) or position.empty == 0 or not position.is_over
    if not position.is_over:
        for move in position.legal_moves:
            child = position.play(move)
            assert child.ply == position.ply + 1 and child.to_move != position.to_move
            assert child.marks(position.to_move) == position.marks(position.to_move) | 1 << move


def test_str_draws_a_grid() -> None:
    assert str(Position("X.O/.X./...")) == "X . O\n. X .\n. . ."
    cube = str(Position("", "3x3x3").play(13))
    assert cube.splitlines() == [
        ". . .   . . .   . . .",
        ". . .   . X .   . . .",
        ". . .   . . .   . . .",
    ]
    assert repr(Position("", "4x4k3", first="O")) == (
        "Position('..../..../..../....', '4x4k3', first='O')"
    )


def test_equal_positions_of_different_boards_differ() -> None:
    assert Position("", "4x4") != Position("", "4x4k3")
    assert Position("", "3x3") != "..."

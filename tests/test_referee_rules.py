"""Our rules agree move by move with OpenSpiel's independent implementations.

Random playouts: at every ply the legal moves, the end of the game, the winner and the
board itself must match OpenSpiel's ``tic_tac_toe``, ``mnk`` (m = columns, n = rows) and
``gomoku`` with ``dims=3`` (4x4x4 with 4 in a row is Qubic). Actions are cell indices in
both: row-major, and ``layer*16 + row*4 + col`` in 3-D (OpenSpiel prints them ``l,r,c``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from noughts.position import Position

pyspiel = pytest.importorskip("pyspiel")


def mnk_board(state: Any) -> str:
    return str(state).replace("\n", "/").upper()


def gomoku_board(state: Any) -> str:
    text = str(state)
    side, cells = text[0], text[1:]
    assert side in "BW"  # black moves first: X
    return cells.replace("b", "X").replace("w", "O")


def flat(position: Position) -> str:
    return position.board.replace("|", "").replace("/", "")


def play_out(
    game: Any,
    variant: str,
    playouts: int,
    seed: int,
    board_of: Callable[[Any], str],
    compare: Callable[[Position], str],
) -> int:
    """Play ``playouts`` random games in both engines at once; return the plies checked."""
    rng = random.Random(seed)
    checked = 0
    for _ in range(playouts):
        state = game.new_initial_state()
        position = Position("", variant)
        while True:
            checked += 1
            assert board_of(state) == compare(position)
            assert state.is_terminal() == position.is_over, position.board
            if position.is_over:
                returns = state.returns()
                expected = {"X": [1.0, -1.0], "O": [-1.0, 1.0], None: [0.0, 0.0]}
                assert list(returns) == expected[position.winner], position.board
                break
            assert state.current_player() == (0 if position.to_move == "X" else 1)
            moves = list(position.legal_moves)
            assert sorted(state.legal_actions()) == moves, position.board
            move = rng.choice(moves)
            state.apply_action(move)
            position = position.play(move)
    return checked


def test_tic_tac_toe() -> None:
    game = pyspiel.load_game("tic_tac_toe")
    assert play_out(game, "3x3", 200, 1, mnk_board, lambda p: p.board) > 1000


@pytest.mark.parametrize(
    ("variant", "rows", "cols", "k"),
    [("4x4k3", 4, 4, 3), ("4x4", 4, 4, 4), ("5x4k4", 5, 4, 4), ("3x5k3", 3, 5, 3)],
)
def test_mnk(variant: str, rows: int, cols: int, k: int) -> None:
    game = pyspiel.load_game("mnk", {"m": cols, "n": rows, "k": k})
    assert game.num_distinct_actions() == rows * cols
    assert play_out(game, variant, 100, rows * 100 + cols * 10 + k, mnk_board, lambda p: p.board)


def test_qubic_against_gomoku_in_three_dimensions() -> None:
    game = pyspiel.load_game("gomoku", {"size": 4, "connect": 4, "dims": 3})
    assert game.num_distinct_actions() == 64
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in (1, 4, 16, 27)] == [
        "0,0,1",
        "0,1,0",
        "1,0,0",
        "1,2,3",
    ]
    assert Position("", "4x4x4").coords(27) == (1, 2, 3)
    assert play_out(game, "4x4x4", 60, 3, gomoku_board, flat) > 2000


def test_qubic_wins_occur_in_the_playouts() -> None:
    # Random Qubic games rarely fill the board: make sure the winner check was exercised.
    game = pyspiel.load_game("gomoku", {"size": 4, "connect": 4, "dims": 3})
    rng = random.Random(11)
    winners = set()
    for _ in range(20):
        state, position = game.new_initial_state(), Position("", "4x4x4")
        while not position.is_over:
            move = rng.choice(list(position.legal_moves))
            state.apply_action(move)
            position = position.play(move)
        assert state.is_terminal()
        winners.add(position.winner)
    assert {"X", "O"} <= winners

"""Threat-space search: forced wins by continuous threats are found, proven and exact."""

from __future__ import annotations

import random

import pytest

from noughts.position import Position
from noughts.search.threats import (
    ForcedWin,
    ThreatSearch,
    chain_survives,
    defences,
    find_forced_win,
)
from threat_referee import forced_win

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
def test_refute_finds_a_line_that_wins(board: str, plies: int) -> None:
    position = Position(board, "qubic")
    search = ThreatSearch(position.geometry)
    me, them = sides(position)
    line = search.refute(me, them, 12)
    assert line is not None and len(line) >= plies
    assert replay(position, ForcedWin(tuple(line))).winner == position.to_move
    # the line's threats are tried first next time: a sibling check costs a few nodes
    hinted = [cell for cell in range(64) if search.hint >> cell & 1]
    assert hinted and set(hinted) <= set(line)
    nodes = search.nodes
    assert search.refute(me, them, 12) == line
    assert search.nodes - nodes <= len(line)


def test_refute_finds_nothing_on_a_quiet_board() -> None:
    position = Position("X" + "." * 62 + "O", "qubic")
    assert ThreatSearch(position.geometry).refute(*sides(position), 12) is None


def sides(position: Position) -> tuple[int, int]:
    """The side to move's marks, then the other side's."""
    return (position.x, position.o) if position.to_move == "X" else (position.o, position.x)


def test_the_replies_left_out_of_the_defences_lose_to_a_chain() -> None:
    """Checked by the independent referee: where the side not to move would win by a
    chain if it moved again, every reply outside :func:`defences` still loses to a
    chain, and :func:`chain_survives` says the same chain still wins."""
    rng = random.Random(11)
    checked = 0
    while checked < 12:
        position = Position("", "qubic")
        for _ in range(rng.randrange(6, 20)):
            position = position.play(rng.choice(list(position.legal_moves)))
            if position.is_over:
                break
        if position.is_over:
            continue
        defender, attacker = sides(position)
        geometry = position.geometry
        if completions(geometry, attacker, defender) or completions(geometry, defender,
                                                                      attacker):
            continue
        line = ThreatSearch(geometry).refute(attacker, defender, 12)
        if line is None:
            continue
        stoppers = defences(geometry, attacker, defender, line)
        assert all(stoppers >> cell & 1 for cell in line)
        for reply in position.legal_moves:
            if stoppers >> reply & 1:
                continue
            after = position.play(reply)
            assert chain_survives(geometry, attacker, defender | 1 << reply, reply, line)
            assert forced_win(after, 12), (position.board, reply)
        checked += 1


def completions(geometry: object, mine: int, theirs: int) -> bool:
    return any(not line & theirs and (line & mine).bit_count() == 3
               for line in geometry.lines)  # type: ignore[attr-defined]


def test_every_chain_found_on_random_positions_replays_to_a_win() -> None:
    """A double threat is reported with the two lines that make it (a line whose both
    empty cells lie on other lines one mark short once made the search name the wrong
    replies: about one chain in a hundred)."""
    rng = random.Random(1)
    found = 0
    for _ in range(800):
        position = Position("", "qubic")
        for _ in range(rng.randrange(8, 26)):
            position = position.play(rng.choice(list(position.legal_moves)))
            if position.is_over:
                break
        if position.is_over:
            continue
        line = ThreatSearch(position.geometry).refute(*sides(position), 12)
        if line is None:
            continue
        found += 1
        assert replay(position, ForcedWin(tuple(line))).winner == position.to_move, (
            position.board, line)
    assert found > 300

"""Levels: 10 never loses at 3x3, 0 is random, the levels between miss forks and blocks
less and less often."""

from __future__ import annotations

from collections import Counter

import pytest

from noughts.budget import Limit
from noughts.engine import choose_move
from noughts.errors import NoughtsError
from noughts.levels import PRESETS, level_move, move_heuristics, preset_level, profile
from noughts.position import Position
from noughts.results import MoveEval

TRAP = Position("X../.O./..X")  # O to move: a corner loses to a fork (loss in 4), an edge holds
THREAT = Position("XX./.O./...")  # O to move: anything but cell 2 loses at once


def _no_look(*args: object) -> list[MoveEval] | int:
    raise AssertionError("a level refused its move before looking ahead")


def mistakes(position: Position, level: int, good: set[int], seeds: int = 200) -> int:
    return sum(choose_move(position, level=level, seed=seed).move not in good
               for seed in range(seeds))


def test_level_ten_never_loses_at_3x3_against_any_replies() -> None:
    """Walk every line of play the opponent can choose; level 10 answers each."""

    def worst(position: Position, engine: str) -> int:
        if position.is_over:
            if position.winner is None:
                return 0
            return 1 if position.winner == engine else -1
        if position.to_move == engine:
            return worst(position.play(choose_move(position).move), engine)
        return min(worst(position.play(move), engine) for move in position.legal_moves)

    assert worst(Position(), "X") == 0  # as X: never loses, draws at worst
    assert worst(Position(), "O") == 0  # as O: the same


def test_level_zero_is_uniformly_random() -> None:
    counts = Counter(choose_move(Position(), level=0, seed=seed).move for seed in range(900))
    assert set(counts) == set(range(9))
    assert all(60 <= count <= 140 for count in counts.values())  # 100 expected each
    assert mistakes(THREAT, 0, {2}) > 140  # blocks only by chance (1 in 7)


def test_missed_forks_become_rarer_with_level() -> None:
    """Measured with seeds 0-199: how often each level walks into the fork (played on
    the board's canonical image, :mod:`noughts.orientation`)."""
    rates = {level: mistakes(TRAP, level, {1, 3, 5, 7}) for level in (2, 5, 9)}
    assert rates == {2: 55, 5: 48, 9: 34}
    assert all(choose_move(TRAP).move in {1, 3, 5, 7} for _ in range(3))


def test_late_blocks_become_rarer_with_level() -> None:
    rates = [mistakes(THREAT, level, {2}) for level in (1, 3, 5, 7, 9)]
    assert rates == [160, 108, 73, 33, 7]


def test_a_player_who_notices_a_fork_plays_it() -> None:
    # X to move with X on 0 and 8, O on 4 and 1: cell 6 makes two threats (3 and 7).
    position = Position("XO./.O./..X")
    chosen = Counter(choose_move(position, level=9, seed=seed).move for seed in range(100))
    assert chosen[7] > 50  # 7 blocks O's column and must come first: a win-now is not there
    result = choose_move(Position("X.X/.O./O.."), level=9, seed=3)
    assert (result.move, result.outcome, result.plies, result.method) == (1, "win", 1, "level")


def test_same_seed_same_move_and_reported_fields() -> None:
    first = [choose_move(Position(), level=4, seed=seed).move for seed in range(20)]
    again = [choose_move(Position(), level=4, seed=seed).move for seed in range(20)]
    assert first == again and len(set(first)) > 2
    result = choose_move(THREAT, level=7, seed=1)
    assert result.level == 7 and result.method == "level"
    assert result.coords == THREAT.geometry.coords(result.move)


def test_levels_work_on_bigger_boards() -> None:
    qubic = Position.from_bitboards(0b111, 0b111 << 16, "qubic")  # three in a row each
    # X to move; X wins on the spot at cell 3, which level 9 nearly always sees.
    few = Limit.within(nodes=200)
    wins = sum(choose_move(qubic, few, level=9, seed=seed).move == 3 for seed in range(20))
    assert wins >= 17
    board = Position("", "4x4k3")
    assert choose_move(board, level=6, seed=1).move in range(16)


def test_presets_and_bad_levels() -> None:
    assert PRESETS == {"easy": 2, "medium": 5, "hard": 8, "impossible": 10}
    assert preset_level("HARD") == 8
    assert profile(9).notice[3] > profile(5).notice[3] > profile(1).notice[3]
    with pytest.raises(NoughtsError, match="levels 0 to 9"):
        level_move(Position(), 10, look=_no_look)
    with pytest.raises(NoughtsError, match="unknown preset"):
        preset_level("nightmare")
    with pytest.raises(NoughtsError, match="the game is over"):
        level_move(Position("XXX/OO./..."), 3, look=_no_look)


def test_heuristic_prefers_centre_and_blocks() -> None:
    empty = move_heuristics(0, 0, Position().geometry)
    assert empty[4] > empty[0] > empty[1]
    me, opp = 0b000010000, 0b000000011  # O (opp) threatens cell 2
    gains = move_heuristics(me, opp, Position().geometry)
    assert max(gains, key=lambda cell: gains[cell]) == 2

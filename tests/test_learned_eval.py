"""The learned Qubic evaluation: its shipped data (rebuilt byte for byte from the games
kept in benchmarks/data), its shape check, and the search's incremental score agreeing
with a full scan of the learned weights."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from noughts.errors import NoughtsError
from noughts.knowledge.learned import (
    FEATURES,
    features,
    learned_eval,
    parse_learned,
)
from noughts.knowledge.shipped import SHIPPED, Knowledge
from noughts.position import Position
from noughts.search.board import SearchBoard
from noughts.search.evaluate import LineWeights, line_weights, search_weights
from noughts.variants import variant

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_data_rebuilds_byte_for_byte_from_the_kept_games(tmp_path: Path) -> None:
    out = tmp_path / "qubic-eval.json"
    subprocess.run([sys.executable, "scripts/train_qubic_eval.py", "fit", "--out", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    shipped = resources.files("noughts.data").joinpath("qubic-eval.json").read_bytes()
    assert out.read_bytes() == shipped


def test_the_shipped_data_loads_with_the_right_shape() -> None:
    name = variant("qubic").learned_eval
    assert name is not None
    record = json.loads(resources.files("noughts.data").joinpath(name).read_text())
    weights = learned_eval("qubic")
    assert weights is not None
    assert weights == parse_learned(record["weights"], 4)
    for lines in (weights.x_move, weights.x_wait, weights.o_move, weights.o_wait):
        assert len(lines) == 5 and lines[0] == lines[4] == 0
        assert 0 < lines[1] < lines[2] < lines[3]  # a mark more is worth more
    # a line of two is worth more to its owner with the move than without
    assert weights.x_move[2] > weights.x_wait[2] and weights.o_move[2] > weights.o_wait[2]
    assert record["fit"]["games"] > 0
    assert variant("3x3").learned_eval is None and learned_eval("3x3") is None
    assert variant("qubic-misere").learned_eval is None


_LINES = [0, 10, 50, 300, 0]
_GOOD = {"x_move": _LINES, "x_wait": _LINES, "o_move": _LINES, "o_wait": _LINES,
         "x_fork": 1, "o_fork": 1, "to_move": 0}


@pytest.mark.parametrize("broken", [
    [],
    {**_GOOD, "x_wait": [0, 1, 2, 3]},
    {**_GOOD, "o_move": [0, -1, 2, 3, 0]},
    {**_GOOD, "o_wait": [0, 1, 2.5, 3, 0]},
    {**_GOOD, "x_fork": 1.5},
    {**_GOOD, "o_fork": True},
    {key: value for key, value in _GOOD.items() if key != "to_move"},
])
def test_a_badly_shaped_record_is_refused(broken: object) -> None:
    assert parse_learned(_GOOD, 4).x_fork == 1
    with pytest.raises(NoughtsError, match="learned evaluation"):
        parse_learned(broken, 4)


def test_the_second_player_searches_with_the_learned_tempo_unless_left_out() -> None:
    """O keeps the hand-written line and fork weights on average and gains the learned
    share of each line by whose move it is; X's weights are unchanged."""
    weights = learned_eval("qubic")
    assert weights is not None
    after_x = Position("X" + "." * 63, "qubic")
    hand = line_weights(4, "strong", second=False)
    used = search_weights(after_x, learned=weights)
    assert (used.own, used.opp, used.fork, used.their_fork) == (
        hand.own, hand.opp, hand.fork, hand.their_fork)
    share = (weights.o_move[2] - weights.o_wait[2]) / (weights.o_move[2] + weights.o_wait[2])
    assert used.tempo is not None and used.tempo[2] == int(hand.own[2] * share)
    assert 0 < used.tempo[2] < hand.own[2]  # more with the move, never below zero waiting
    assert used.opp_tempo is not None and 0 < used.opp_tempo[2] < hand.opp[2]
    assert used.tempo[3] == used.tempo[4] == 0  # lines of three were not learned apart
    assert used.to_move > 0
    assert search_weights(Position("", "qubic")) == line_weights(4, "balanced")  # X: even
    assert search_weights(after_x) == hand  # without a learned evaluation
    assert search_weights(after_x, "balanced", weights) == line_weights(4, "balanced")
    assert search_weights(Position("X" + "." * 8, "3x3")).tempo is None
    assert SHIPPED.learned_for(after_x.game) == weights
    assert Knowledge(learned=False).learned_for(after_x.game) is None


def test_the_features_count_lines_and_forks() -> None:
    # X on 0 and 1 (row 0-3), 6 and 10 (column 2-14), 0 and 10 (diagonal 0-15): three
    # lines of two, two of them crossing on the empty cell 2, a fork point; O on 61-63.
    x = (1 << 0) | (1 << 1) | (1 << 6) | (1 << 10)
    o = (1 << 61) | (1 << 62) | (1 << 63)
    counts = dict(zip(FEATURES, features(Position.from_bitboards(x, o, "qubic")), strict=True))
    assert counts == {"x1": 11, "x2": 3, "x3": 0, "o1": 10, "o2": 0, "o3": 1,
                      "x_forks": 1, "o_forks": 0}


def test_the_search_board_keeps_the_learned_score_move_by_move() -> None:
    """With weights that differ by side and by whose move it is, the incremental
    evaluation equals a full scan from either side's point of view, through play and
    undo, with the move and without it."""
    weights = LineWeights((0, 30, 400, 9000, 0), (0, 50, 700, 13000, 0), 2000, 7000,
                          (0, 4, 100, 0, 0), (0, -3, 250, 0, 0), 60)
    rng = random.Random(5)
    for player in (0, 1):
        position = Position("", "qubic")
        board = SearchBoard(position, weights, player)
        played = []
        while len(played) < 24:
            cell = rng.choice(sorted(position.legal_moves))
            if position.play(cell).is_over:
                break
            board.play(cell)
            played.append(cell)
            position = position.play(cell)
            mover = 0 if position.to_move == "X" else 1
            assert board.evaluation() == _scan(position, weights, player, mover, mover)
            assert board.waiting_evaluation() == _scan(position, weights, player, mover,
                                                       1 - mover)
        for cell in reversed(played):
            board.undo(cell)
        assert board.score == 0 and board.tempo == weights.to_move


def _scan(position: Position, weights: LineWeights, player: int, view: int,
          mover: int) -> int:
    """The evaluation from ``view``'s side with ``mover`` to move, by a full scan."""
    counts = features(position)
    zero = (0,) * 5
    own_tempo, opp_tempo = weights.tempo or zero, weights.opp_tempo or zero
    lines = [(weights.own, own_tempo), (weights.opp, opp_tempo)]
    if player == 1:
        lines.reverse()  # lines[0]: X's weights, lines[1]: O's
    forks = ((weights.fork, weights.their_fork) if player == 0
             else (weights.their_fork, weights.fork))
    total = 0
    for side in (0, 1):
        base, tempo = lines[side]
        sign = 1 if side == view else -1
        moving = 1 if side == mover else -1
        total += sign * sum((base[m] + moving * tempo[m]) * counts[3 * side + m - 1]
                            for m in (1, 2, 3))
        total += sign * forks[side] * counts[6 + side]
    return total + (weights.to_move if view == mover else -weights.to_move)

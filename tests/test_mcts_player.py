"""The Monte Carlo tree search player: its rules, its seeding, and its search."""

from __future__ import annotations

import random

import pytest

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.exact.solver import analyze
from noughts.players.mcts import MctsPlayer
from noughts.players.protocol import parse_player
from noughts.position import Position
from noughts.results import Outcome


def _unique_wins(count: int) -> dict[str, tuple[Position, int]]:
    """3x3 positions whose side to move has exactly one winning move, a fork or a
    longer plan (not a line completed or blocked now), with that move."""
    rng = random.Random(5)
    found: dict[str, tuple[Position, int]] = {}
    while len(found) < count:
        position = Position("", "3x3")
        for _ in range(rng.randint(2, 4)):
            position = position.play(rng.choice(list(position.legal_moves)))
        if position.is_over:
            continue
        wins = [(e.move, e.value.plies) for e in analyze(position)
                if e.value is not None and e.value.outcome is Outcome.WIN]
        if len(wins) == 1 and wins[0][1] >= 3:
            found[position.board] = (position, wins[0][0])
    return found


def test_the_search_finds_the_only_winning_move() -> None:
    positions = _unique_wins(60)
    missed = [board for board, (position, move) in positions.items()
              if MctsPlayer(seed=1, playouts=300).choose(position) != move]
    assert missed == []
    # with a single random game a move it has no search to speak of, and misses some
    blind = [board for board, (position, move) in positions.items()
             if MctsPlayer(seed=1, playouts=1).choose(position) != move]
    assert blind


def test_it_wins_blocks_and_is_seeded() -> None:
    player = MctsPlayer(seed=1, playouts=100)
    assert player.choose(Position("XX./OO./...")) == 2  # its own win first
    assert player.choose(Position("XX./O../...")) == 2  # else the block
    start = Position("", "qubic").play(0).play(42)
    firsts = [MctsPlayer(seed=s, playouts=200).choose(start) for s in range(6)]
    assert firsts == [MctsPlayer(seed=s, playouts=200).choose(start) for s in range(6)]
    assert len(set(firsts)) > 1  # few games a move: the seed decides among near-equal cells
    with pytest.raises(NoughtsError, match="positive integer"):
        MctsPlayer(playouts=0)
    with pytest.raises(NoughtsError, match="at least 0"):
        MctsPlayer(exploration=-1.0)
    with pytest.raises(NoughtsError, match="game is over"):
        player.choose(Position("XXX/OO./..."))
    with pytest.raises(NoughtsError, match="normal games"):
        player.choose(Position("X........", "3x3-misere"))


def test_it_is_an_arena_player() -> None:
    player = parse_player("mcts:50").create(seed=4)
    choice = player.move(Position("XX./OO./..."), Limit())
    assert (player.name, choice.move) == ("mcts:50", 2)
    assert parse_player("mcts").name == "mcts"
    with pytest.raises(NoughtsError, match="playouts must be a positive integer"):
        parse_player("mcts:0")

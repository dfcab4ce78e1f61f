"""Player specs and the player protocol."""

from __future__ import annotations

import pytest

from noughts.budget import Limit
from noughts.errors import IllegalMoveError, NoughtsError
from noughts.players.choice import choice_of
from noughts.players.protocol import (
    LevelPlayer,
    Player,
    RandomPlayer,
    as_spec,
    parse_player,
)
from noughts.position import Position
from noughts.results import MoveChoice


def first_empty(position: Position) -> int:
    """A module-level callable for the ``module:callable`` spec."""
    return next(iter(position.legal_moves))


class Seeded:
    """A player class built with ``seed=`` for every game."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = f"seeded-{seed}"
        self.seed = seed

    def move(self, position: Position) -> int:
        return list(position.legal_moves)[-1]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("random", "random"),
        ("level:7", "level:7"),
        ("level:0", "level:0"),
        ("impossible", "level:10"),
        ("level:easy", "level:2"),
        ("Medium", "level:5"),
        ("seed-qubic", "seed-qubic:3"),
        ("seed-qubic:2", "seed-qubic:2"),
        ("seed-qubic:2:defensive", "seed-qubic:2:defensive"),
        ("seed-qubic:3:balanced:first16", "seed-qubic:3"),
        ("seed-qubic:3:strong:aggressive", "seed-qubic:3:aggressive:strong"),
        ("seed-qubic:0:strong", "seed-qubic:0:strong"),
        ("seed-qubic:2:random", "seed-qubic:2:random"),
        ("seed-qubic:1:random:strong:defensive", "seed-qubic:1:defensive:strong:random"),
        ("seed-qubic:3:lowest", "seed-qubic:3"),
        ("level:10:no-strategy", "level:10:no-strategy"),
        ("threats", "threats"),
        ("threats:500", "threats:500"),
        ("seed-qubic-legacy", "seed-qubic-legacy:3"),
        ("seed-qubic-legacy:2:defensive", "seed-qubic-legacy:2:defensive"),
        ("seed-4x4", "seed-4x4"),
        ("seed-random", "seed-random"),
        ("noughts.players.protocol:RandomPlayer", "noughts.players.protocol:RandomPlayer"),
    ],
)
def test_specs_parse_to_names(text: str, name: str) -> None:
    assert parse_player(text).name == name


def test_module_callable_spec_builds_a_player() -> None:
    player = parse_player("noughts.players.protocol:RandomPlayer").create(seed=3)
    assert isinstance(player, RandomPlayer)
    assert player.move(Position("XO./.../..."), Limit()).move in range(2, 9)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("level:11", "'11' is not a level from 0 to 10"),
        ("level:x", "'x' is not a level"),
        ("seed-qubic:9", "AI_DEPTH\\) must be an integer from 0 to 5"),
        ("seed-qubic:2:reckless", "a style \\(balanced, aggressive or defensive\\)"),
        ("seed-qubic:2:first16:strong", "each at most once"),
        ("seed-qubic:2:random:lowest", "each at most once"),
        ("level:10:no-book", "the only option after a level is no-strategy"),
        ("threats:0", "nodes must be a positive integer"),
        ("threats:many", "nodes must be a positive integer"),
        ("seed-qubic-legacy:0", "must be an integer from 1 to 6"),
        ("seed-qubic-legacy:2:first16", "style must be balanced, aggressive or defensive"),
        ("nobody", "unknown player 'nobody'"),
        ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
        ("math:no_such_function", "has no attribute 'no_such_function'"),
        ("", "non-empty string"),
    ],
)
def test_bad_specs_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(NoughtsError, match=message):
        parse_player(text)


def test_level_players_are_seeded() -> None:
    def game(seed: int) -> list[int]:
        player = parse_player("level:3").create(seed=seed)
        assert isinstance(player, LevelPlayer) and isinstance(player, Player)
        position, moves = Position(), []
        while not position.is_over:
            answer = player.move(position, Limit())
            assert isinstance(answer, MoveChoice) and answer.method == "level"
            moves.append(answer.move)
            position = position.play(answer.move)
        return moves

    assert game(1) == game(1)
    assert len({tuple(game(seed)) for seed in range(8)}) > 4


def test_level_ten_player_uses_the_engine() -> None:
    answer = parse_player("level:10").create(seed=0).move(Position("XX./OO./..."), Limit())
    assert isinstance(answer, MoveChoice) and answer.method == "exact" and answer.move == 2


def test_random_player_plays_legal_moves() -> None:
    player = RandomPlayer(seed=4)
    position = Position("XO./.X./..O")
    assert {player.move(position, Limit()).move for _ in range(50)} == set(position.legal_moves)


def test_python_objects_become_specs() -> None:
    assert as_spec(first_empty).create(seed=1).move(Position("X........"), Limit()).move == 1
    built = as_spec(Seeded).create(seed=42)
    assert built.name == "seeded-42" and built.move(Position(), Limit()).move == 8
    shared = RandomPlayer(seed=1)
    assert as_spec(shared).create(seed=5) is shared
    with pytest.raises(NoughtsError, match="not a player"):
        as_spec(42)


def test_an_answer_that_is_not_a_cell_is_an_illegal_move() -> None:
    assert choice_of(Position(), 5, started=0.0).move == 5
    with pytest.raises(IllegalMoveError, match="not 'nonsense'"):
        choice_of(Position(), "nonsense", started=0.0)


def test_a_player_may_stop_the_game_and_the_loop_lets_it_through() -> None:
    from noughts.players.game import StopGame, play_game
    from noughts.players.protocol import CallablePlayer

    seen: list[int] = []

    def quits_at_the_third_move(position: Position) -> int:
        if position.ply == 2:
            raise StopGame("you quit")
        return first_empty(position)

    players = {"X": CallablePlayer(quits_at_the_third_move, "person"), "O": LevelPlayer(10)}
    with pytest.raises(StopGame, match="you quit"):
        play_game(players, Position(), report=lambda choice: seen.append(choice.move))
    assert len(seen) == 2 and seen[0] == 0  # both moves before it were reported, in order

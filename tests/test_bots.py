"""Baseline bots from the seeds' descriptions, and the random bot."""

from __future__ import annotations

import pytest

from noughts.errors import NoughtsError
from noughts.players.reference import (
    LegacySeedQubicBot,
    RandomBot,
    SeedQubicBot,
    SeedRegionsBot,
    _region_value,
)
from noughts.position import Position
from noughts.search.evaluate import evaluate, line_weights

EMPTY_LAYER = "..../..../..../...."


def qubic(*layers: str) -> Position:
    return Position("|".join(list(layers) + [EMPTY_LAYER] * (4 - len(layers))), "qubic")


def test_names_are_stable() -> None:
    assert SeedQubicBot().name == "seed-qubic:3"
    assert SeedQubicBot(depth=2, style="defensive").name == "seed-qubic:2:defensive"
    assert SeedQubicBot(opening="strong").name == "seed-qubic:3:strong"
    assert SeedQubicBot(opening="first16").name == "seed-qubic:3"
    assert SeedQubicBot(ties="random").name == "seed-qubic:3:random"
    assert LegacySeedQubicBot(depth=2, style="defensive").name == "seed-qubic-legacy:2:defensive"
    assert SeedRegionsBot().name == "seed-4x4"
    assert RandomBot().name == "random"


def test_seed_qubic_bot_wins_before_it_blocks() -> None:
    position = qubic("XXX./OOO./..../....")
    assert SeedQubicBot(depth=2).choose(position) == 3
    blocked = qubic("XXX./OO../..../....", "..../..../..../...O")
    assert SeedQubicBot(depth=2).choose(blocked) == 3  # O must block X's row


def test_seed_qubic_bot_opens_on_a_strong_cell_reproducibly_when_asked() -> None:
    strong = {0, 3, 12, 15, 21, 22, 25, 26, 37, 38, 41, 42, 48, 51, 60, 63}
    empty = Position("", "qubic")
    firsts = {SeedQubicBot(seed=s, opening="strong").choose(empty) for s in range(20)}
    assert firsts <= strong and len(firsts) > 3
    assert SeedQubicBot(seed=4).choose(empty) == SeedQubicBot(seed=4).choose(empty)


def test_three_plies_see_a_fork_that_one_ply_cannot() -> None:
    # X to move: cell 2 makes two threats (row 0-3 and column 2-14)
    x = sum(1 << c for c in (0, 1, 6, 10))
    o = sum(1 << c for c in (12, 15, 60, 63))
    position = Position.from_bitboards(x, o, "qubic")
    assert SeedQubicBot(depth=2).choose(position) == 2  # AI_DEPTH 2: three plies
    assert LegacySeedQubicBot(depth=3).choose(position) == 2


def test_styles_weigh_lines_as_the_seed_describes() -> None:
    assert line_weights(4, "balanced").opp == (0, 4, 16, 64, 256)
    assert line_weights(4, "defensive").opp == (0, 4, 32, 192, 1024)
    assert line_weights(4, "aggressive").own == (0, 4, 32, 192, 1024)
    position = qubic("OO../XX../..../....")
    assert evaluate(position, "X", "defensive") < evaluate(position, "X", "balanced")


def test_seed_qubic_bot_beats_random_play() -> None:
    wins = 0
    for game in range(2):
        bot, rand = SeedQubicBot(depth=2, seed=game), RandomBot(seed=game)
        position = Position("", "qubic")
        players = (bot, rand) if game == 0 else (rand, bot)
        while not position.is_over:
            player = players[0] if position.to_move == "X" else players[1]
            position = position.play(player.choose(position))
        wins += position.winner == ("X" if game == 0 else "O")
    assert wins == 2


def test_bad_settings_are_errors() -> None:
    with pytest.raises(NoughtsError, match="depth"):
        SeedQubicBot(depth=-1)
    with pytest.raises(NoughtsError, match="depth"):
        LegacySeedQubicBot(depth=0)
    with pytest.raises(NoughtsError, match="opening"):
        SeedQubicBot(opening="centre")  # type: ignore[arg-type]
    with pytest.raises(NoughtsError, match="ties"):
        SeedQubicBot(ties="highest")  # type: ignore[arg-type]
    with pytest.raises(NoughtsError, match="style"):
        SeedQubicBot(style="reckless")  # type: ignore[arg-type]
    with pytest.raises(NoughtsError, match="3 in a row"):
        SeedRegionsBot().choose(Position("", "qubic"))
    with pytest.raises(NoughtsError, match="game is over"):
        RandomBot().choose(Position("XXX/OO./..."))


def test_region_values_prefer_fast_results() -> None:
    # X to move wins at once, leaving 4 empty cells: 3**4
    assert _region_value(0b11, 0b11000, True) == 3**4
    assert _region_value(0, 0, True) == 0  # 3x3 is a draw
    assert _region_value(0b11, 0b11000, False) < 0  # O to move wins instead


def test_seed_regions_bot_wins_and_blocks_on_4x4k3() -> None:
    bot = SeedRegionsBot()
    assert bot.choose(Position("XX../OO../..../....", "4x4k3")) == 2
    # O to move must stop X's open two on the top row (X threatens a double)
    position = Position(".XX./..../O.../....", "4x4k3")
    move = bot.choose(position)
    assert move in (0, 3)


def test_random_bot_is_legal_and_reproducible() -> None:
    position = Position("XO./.X./...")
    moves = [RandomBot(seed=9).choose(position) for _ in range(3)]
    assert len(set(moves)) == 1 and moves[0] in position.legal_moves
    assert {RandomBot(seed=s).choose(position) for s in range(30)} == set(position.legal_moves)

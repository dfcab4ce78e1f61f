"""The faithful copy of the 4x4x4 seed's Qubic bot (``SeedQubicBot``, ``seed-qubic:D``).

``data/qubic_seed_bot_moves.json`` holds 81 positions from games against the 4x4x4
seed's own bot (its unchanged Java code, ``AI_DEPTH = 3``), each with the cell it chose
after its minimax search (positions its win/block rules answered are left out).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from noughts.players.reference import SEED_WIN, LegacySeedQubicBot, SeedQubicBot
from noughts.position import Position
from noughts.search.evaluate import Style, evaluate
from noughts.search.openings import strong_cells

FIXTURE = Path(__file__).parent / "data" / "qubic_seed_bot_moves.json"


def _fixture() -> list[tuple[Position, int]]:
    records = json.loads(FIXTURE.read_text())["positions"]
    cases = []
    for record in records:
        position = Position(record["board"], "qubic")
        assert position.to_move == record["to_move"]
        cases.append((position, int(record["seed_move"])))
    return cases


def test_the_fixture_is_what_it_says() -> None:
    cases = _fixture()
    assert len(cases) == 81
    assert all(not position.is_over and seed_move in position.legal_moves
               for position, seed_move in cases)


def test_depth_three_picks_the_seeds_cell_on_all_81_positions() -> None:
    misses = [
        (index, seed_move, move)
        for index, (position, seed_move) in enumerate(_fixture())
        if (move := SeedQubicBot(depth=3).choose(position)) != seed_move
    ]
    assert misses == []


def test_the_legacy_copy_is_one_ply_short_and_misses_some() -> None:
    cases = _fixture()[:12]
    agree = sum(LegacySeedQubicBot(depth=3).choose(p) == move for p, move in cases)
    assert agree < len(cases)
    assert (LegacySeedQubicBot(depth=3).plies, SeedQubicBot(depth=3).plies) == (3, 4)


def _plain_scores(position: Position, depth: int, style: Style = "balanced") -> dict[int, int]:
    """The seed's search written the plain way: every cell's full minimax value (no
    pruning, no shortcuts) for the side to move, ``depth`` plies after the cell."""
    me = position.to_move

    def value(node: Position, plies_left: int) -> int:
        if node.winner is not None:
            sign = 1 if node.winner == me else -1
            return sign * (SEED_WIN + plies_left)
        if node.is_over:
            return 0
        if plies_left == 0:
            return evaluate(node, me, style)
        values = [value(node.play(cell), plies_left - 1) for cell in sorted(node.legal_moves)]
        return max(values) if node.to_move == me else min(values)

    return {cell: value(position.play(cell), depth) for cell in sorted(position.legal_moves)}


def _plain_seed_move(position: Position, depth: int, style: Style) -> int:
    """The seed's choice from :func:`_plain_scores`: a later cell kept only if strictly
    better (the lowest of the best)."""
    scores = _plain_scores(position, depth, style)
    return min(cell for cell, score in scores.items() if score == max(scores.values()))


def _rules_answer(position: Position) -> bool:
    """Whether a side has a line of three and an empty cell (win or block at once)."""
    empty = position.geometry.full & ~(position.x | position.o)
    return any(
        (line & marks).bit_count() == 3 and line & empty
        for marks in (position.x, position.o)
        for line in position.geometry.lines
    )


@pytest.mark.parametrize("style", ["balanced", "aggressive", "defensive"])
def test_the_fast_search_chooses_as_the_plain_one(style: Style) -> None:
    rng = random.Random(13)
    checked = 0
    while checked < 3:
        position = Position("", "qubic")
        for _ in range(rng.randrange(4, 24)):
            position = position.play(rng.choice(list(position.legal_moves)))
            if position.is_over:
                break
        if position.is_over or _rules_answer(position):
            continue
        bot = SeedQubicBot(depth=1, style=style)
        assert bot.choose(position) == _plain_seed_move(position, 1, style)
        checked += 1


def test_ties_go_to_the_lowest_cell() -> None:
    # After X on a corner and O on a centre, six cells tie for X (the fixture's first
    # position): the seed, and the copy, take the lowest.
    position = Position("X" + "." * 41 + "O" + "." * 21, "qubic")
    assert SeedQubicBot(depth=3).choose(position) == 3
    assert _plain_seed_move(position, 0, "balanced") == SeedQubicBot(depth=0).choose(position)


def test_first_move_among_the_first_16_cells_by_default_as_the_seeds_code_plays() -> None:
    # The seed's "random optimal first move" draws an index below 16 into the list of
    # all 64 cells: any of cells 0-15 (the face x = 0), not the 16 corners and centres.
    empty = Position("", "qubic")
    strong = set(strong_cells(empty.geometry))
    real = [SeedQubicBot(seed=s).choose(empty) for s in range(400)]
    assert set(real) == set(range(16))  # only 0-15, and every one of them
    assert set(real) - strong == set(range(16)) - {0, 3, 12, 15}
    intended = {SeedQubicBot(seed=s, opening="strong").choose(empty) for s in range(200)}
    assert intended == strong
    assert SeedQubicBot(seed=5).name == "seed-qubic:3"
    assert SeedQubicBot(seed=5, opening="strong").name == "seed-qubic:3:strong"
    assert [SeedQubicBot(seed=s).choose(empty) for s in range(30)] == real[:30]
    # only the empty board is answered at random: as O the bot searches
    after = empty.play(0)
    assert len({SeedQubicBot(depth=0, seed=s).choose(after) for s in range(5)}) == 1


def _tied_position() -> Position:
    return Position("X" + "." * 41 + "O" + "." * 21, "qubic")  # six cells tie for X


def test_random_ties_draw_among_the_tied_cells_the_same_for_the_same_seed() -> None:
    position = _tied_position()
    lowest = SeedQubicBot(depth=1).choose(position)
    plain = _plain_scores(position, 1)
    tied = {cell for cell, score in plain.items() if score == max(plain.values())}
    assert lowest == min(tied) and len(tied) > 2
    drawn = [SeedQubicBot(depth=1, seed=s, ties="random").choose(position) for s in range(60)]
    assert set(drawn) == tied  # every tied cell, and nothing else
    again = [SeedQubicBot(depth=1, seed=s, ties="random").choose(position) for s in range(60)]
    assert drawn == again
    assert SeedQubicBot(depth=2, ties="random").name == "seed-qubic:2:random"


def test_random_ties_play_the_same_game_for_the_same_seed() -> None:
    def game(seed: int) -> list[int]:
        bots = [SeedQubicBot(depth=1, seed=seed, ties="random"),
                SeedQubicBot(depth=1, seed=seed + 1, ties="random")]
        position, moves = Position("", "qubic"), []
        while not position.is_over and len(moves) < 20:
            moves.append(bots[len(moves) % 2].choose(position))
            position = position.play(moves[-1])
        return moves

    assert game(3) == game(3)
    assert len({tuple(game(seed)) for seed in range(6)}) > 1


def test_depth_zero_looks_at_its_own_move_only() -> None:
    position = _fixture()[0][0]
    assert SeedQubicBot(depth=0).plies == 1
    assert SeedQubicBot(depth=0).choose(position) == _plain_seed_move(position, 0, "balanced")

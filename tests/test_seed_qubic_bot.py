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

from noughts.anytime.evaluate import Style, evaluate
from noughts.anytime.openings import strong_cells
from noughts.players.reference import SEED_WIN, LegacySeedQubicBot, SeedQubicBot
from noughts.position import Position

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


def _plain_seed_move(position: Position, depth: int, style: Style) -> int:
    """The seed's search written the plain way: every cell in board order, full
    minimax (no pruning, no shortcuts), a later cell kept only if strictly better."""
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

    best, best_value = -1, 0
    for cell in sorted(position.legal_moves):
        score = value(position.play(cell), depth)
        if best < 0 or score > best_value:
            best, best_value = cell, score
    return best


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


def test_first_move_strong_by_default_or_among_the_first_16_cells() -> None:
    empty = Position("", "qubic")
    strong = set(strong_cells(empty.geometry))
    intended = {SeedQubicBot(seed=s).choose(empty) for s in range(40)}
    buggy = {SeedQubicBot(seed=s, opening="first16").choose(empty) for s in range(40)}
    assert intended <= strong and len(intended) > 4
    assert buggy <= set(range(16)) and buggy - strong and len(buggy) > 6
    assert SeedQubicBot(seed=5, opening="first16").name == "seed-qubic:3:first16"
    # only the empty board is answered at random: as O the bot searches
    after = empty.play(0)
    assert len({SeedQubicBot(depth=0, seed=s).choose(after) for s in range(5)}) == 1


def test_depth_zero_looks_at_its_own_move_only() -> None:
    position = _fixture()[0][0]
    assert SeedQubicBot(depth=0).plies == 1
    assert SeedQubicBot(depth=0).choose(position) == _plain_seed_move(position, 0, "balanced")

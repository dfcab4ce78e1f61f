"""Forced wins by continuous threats: the engine claims, and plays, a win no longer than
the shortest one an independent search finds (``threat_referee``, which shares no code
with the engine's threat search), on random positions and on positions of the shipped
strategy whose stored bound is longer than such a win."""

from __future__ import annotations

import json
import random
from pathlib import Path

from noughts.budget import Limit
from noughts.engine import choose_move
from noughts.knowledge.strategy import shipped_strategy, strategy_move
from noughts.position import Position
from threat_referee import forced_win

DATA = Path(__file__).parent / "data" / "strategy_shorter_threat_wins.json"


def _known_wins(count: int, seed: int) -> list[tuple[Position, int]]:
    """Random Qubic positions where the side to move wins by continuous threats in no
    fewer than two threats, each with the plies of the shortest such win."""
    rng = random.Random(seed)
    found: list[tuple[Position, int]] = []
    while len(found) < count:
        position = Position("", "qubic")
        marks = rng.randint(8, 24)
        while position.ply < marks and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if position.is_over or forced_win(position, 1):
            continue
        threats = next((t for t in range(2, 7) if forced_win(position, t)), None)
        if threats is not None:  # t threats, t forced replies, then the winning move
            found.append((position, 2 * threats + 1))
    return found


def _strategy_wins() -> list[tuple[Position, int, int]]:
    """The strategy's positions with a shorter continuous-threat win (the data file),
    each in a random orientation: ``(position, strategy's bound, shortest plies)``."""
    rng = random.Random(7)
    rows = json.loads(DATA.read_text())["positions"]
    return [(Position.from_bitboards(x, o, "qubic").transform(rng.randrange(192)), bound, plies)
            for x, o, bound, plies in rows]


KNOWN = _known_wins(24, seed=2026)
STRATEGY = _strategy_wins()


def test_the_data_holds_strategy_positions_whose_bound_is_longer_than_the_known_win() -> None:
    strategy = shipped_strategy()
    assert len(STRATEGY) >= 40
    for position, bound, plies in STRATEGY:
        found = strategy_move(position, strategy)
        assert found is not None and found.plies == bound > plies
    for position, _, plies in STRATEGY[:12]:  # the referee agrees (the quick ones)
        if plies <= 11:
            threats = (plies - 1) // 2
            assert forced_win(position, threats) and not forced_win(position, threats - 1)


def test_no_stage_hides_a_shorter_win_than_the_strategys() -> None:
    for position, bound, plies in STRATEGY:
        choice = choose_move(position, Limit.within(nodes=100_000), seed=1)
        assert choice.outcome == "win" and choice.plies is not None
        assert choice.plies <= plies < bound, (position, plies, choice)


def test_the_engine_claims_a_win_no_longer_than_the_shortest_known() -> None:
    for position, plies in KNOWN:
        choice = choose_move(position, Limit.within(nodes=50_000), seed=1)
        assert choice.outcome == "win" and choice.plies is not None, (position, plies)
        assert choice.plies <= plies, (position, plies, choice)
        assert choice.pv[0] == choice.move and len(choice.pv) == choice.plies


def test_the_engine_plays_the_win_out_within_that_length() -> None:
    rng = random.Random(5)
    for position, plies in KNOWN[:12] + [(p, plies) for p, _, plies in STRATEGY[:12]]:
        attacker = position.to_move
        game = position
        while not game.is_over and game.ply - position.ply < plies:
            if game.to_move == attacker:
                move = choose_move(game, Limit.within(nodes=50_000), seed=1).move
            elif rng.random() < 0.5:  # the defender: the engine, or any legal reply
                move = choose_move(game, Limit.within(nodes=5_000), seed=1).move
            else:
                move = rng.choice(list(game.legal_moves))
            game = game.play(move)
        assert game.winner == attacker, (position, plies, game)
        assert game.ply - position.ply <= plies

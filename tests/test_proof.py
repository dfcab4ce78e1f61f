"""Proof-number search: its verdicts agree with the exact solver, its Qubic proofs pass
the plain checker, and it keeps its budget."""

from __future__ import annotations

import random
import time

import pytest

from noughts.budget import Limit
from noughts.builders.strategy_check import threat_win, verify_strategy
from noughts.exact.solver import solve
from noughts.knowledge.strategy import Strategy
from noughts.position import Position
from noughts.search.proof import ProofSearch, find_win, prove
from noughts.search.threats import find_forced_win

# A Qubic position from a game against the 4x4x4 seed's bot: X wins, but only with a
# quiet move first (no chain of continuous threats wins at once).
QUIET_WIN = ("XXOX/..../..../...O|..../.XX./..X./...O|..../..../.XOO/....|"
             "O.../..../..../OO.X")


def random_position(variant: str, rng: random.Random) -> Position:
    position = Position("", variant)
    for _ in range(rng.randrange(0, position.geometry.cells)):
        if position.is_over:
            break
        position = position.play(rng.choice(list(position.legal_moves)))
    if position.is_over:
        return Position("", variant)
    return position


@pytest.mark.parametrize("variant", ["3x3", "4x4k3", "3x4k3"])
def test_the_verdict_is_the_solver_s(variant: str) -> None:
    rng = random.Random(5)
    for _ in range(40):
        position = random_position(variant, rng)
        result = prove(position)
        assert result.status == solve(position).outcome.value, position.board


def test_a_proven_win_s_move_keeps_the_win() -> None:
    rng = random.Random(8)
    checked = 0
    while checked < 30:
        position = random_position("4x4k3", rng)
        result = prove(position)
        if result.status != "win":
            continue
        assert result.move is not None
        after = position.play(result.move)
        assert after.winner == position.to_move or solve(after).outcome.value == "loss"
        checked += 1


def test_a_quiet_win_the_threat_search_misses_is_proven() -> None:
    position = Position(QUIET_WIN, "qubic")
    assert find_forced_win(position, nodes=50_000) is None
    result = prove(position, nodes=200_000)
    assert result.status == "win"
    assert result.proof_size is not None and result.proof_size > 1
    assert result.plies is not None and result.plies > 1


def test_the_quiet_win_s_proof_passes_the_plain_checker() -> None:
    """The proof, stored as a strategy, is walked by the verifier's own code."""
    position = Position(QUIET_WIN, "qubic")
    search = ProofSearch(position, 0)
    proof_number, _ = search.run(nodes=200_000)
    assert proof_number == 0
    strategy = Strategy("4x4x4")
    for x, o, move, chain, plies in search.proof():
        if not chain:
            strategy.add(Position.from_bitboards(x, o, "4x4x4"), move, proven=True, plies=plies)
    assert len(strategy) >= 1
    report = verify_strategy(strategy, position)
    assert report.ok, report.failures
    assert report.root_proven and report.unsolved == 0


def test_after_the_winning_move_the_defender_is_proven_lost() -> None:
    position = Position(QUIET_WIN, "qubic")
    win = find_win(position, limit=Limit.within(nodes=200_000))
    assert win is not None
    after = position.play(win[0])
    result = prove(after, nodes=400_000)
    assert result.status == "loss"
    assert result.move is not None and result.move in after.legal_moves


def test_a_broken_strategy_fails_verification() -> None:
    position = Position(QUIET_WIN, "qubic")
    strategy = Strategy("4x4x4")
    strategy.add(position, 63 if 63 in position.legal_moves else 62, proven=True, plies=9)
    report = verify_strategy(strategy, position)
    assert not report.ok


def test_the_plain_checker_agrees_with_the_threat_search_on_chains() -> None:
    rng = random.Random(3)
    agreed = 0
    while agreed < 25:
        position = random_position("4x4x4", rng)
        if position.ply < 10:
            continue
        me, them = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        found = find_forced_win(position, nodes=20_000) is not None
        plain = threat_win(position.geometry.lines, 4, me, them, me | them)
        if found:
            assert plain, position.board
        agreed += 1


def test_a_chain_of_twelve_threats_then_a_double_threat_passes_the_plain_checker() -> None:
    """The threat search ends a chain with a double threat after its twelfth single
    threat; the plain checker must count it the same way (found by verifying the
    strategy: such a leaf was refused)."""
    position = Position("XO../..../..../XO..|X.../.O../..../....|O.../..../..../....|"
                        "X.../..../O.../...X", "qubic")
    found = find_forced_win(position)
    assert found is not None and found.plies == 27
    assert threat_win(position.geometry.lines, 4, position.x, position.o,
                      position.x | position.o)


def test_the_budget_is_kept() -> None:
    start = time.perf_counter()
    result = prove(Position("", "4x4x4"), time_limit=0.3)
    elapsed = time.perf_counter() - start
    assert result.status == "unknown"
    assert elapsed < 1.0
    assert result.proof_number > 0 and result.disproof_number > 0
    assert result.move in Position("", "4x4x4").legal_moves


def test_a_node_limit_is_kept_by_the_threat_chains_at_the_leaves_too() -> None:
    # a Qubic middle game (O to move after X's 5th mark), O plays 40: X's proof search
    # looks for threat chains at its leaves, each allowed 2,000 positions on its own
    moves = [48, 37, 0, 21, 3, 5, 53, 17, 12, 40]
    position = Position("", "4x4x4")
    for cell in moves:
        position = position.play(cell)
    search = ProofSearch(position, 0)
    search.run(nodes=800)
    assert 0 < search.nodes <= 800


def test_a_cancelled_search_stops() -> None:
    limit = Limit()
    limit.cancel()
    result = prove(Position("", "4x4x4"), limit=limit)
    assert result.status == "unknown"


def test_a_finished_game_cannot_be_proven() -> None:
    with pytest.raises(ValueError, match="game is over"):
        prove(Position("XXX/OO./..."))

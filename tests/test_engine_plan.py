"""The engine's one plan (table, book or strategy; an exact solve within the limit; the
anytime search) and the one Limit that bounds it, from the edge down to the search."""

from __future__ import annotations

import time

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.engine import answers_exactly, choose_move, evaluate_moves, evaluation, reserve_s
from noughts.exact.solver import solver_for
from noughts.players.protocol import LevelPlayer, parse_player
from noughts.position import Position

QUBIC = Position("XO.X" + "." * 60, "qubic")
"""O to move past O's book: no stored strategy or book answers, the anytime search does."""
SLOW = Position("", "4x5")
"""Within the solver's reach but far from quick (its best move: about 22 million nodes,
3 s on the compiled core)."""


def test_the_limit_and_the_keywords_give_the_same_search() -> None:
    by_keywords = choose_move(QUBIC, nodes=3_000, seed=1)
    by_limit = choose_move(QUBIC, Limit.within(nodes=3_000), seed=1)
    assert by_limit.method == by_keywords.method == "anytime"
    assert (by_limit.move, by_limit.nodes, by_limit.pv) == (
        by_keywords.move, by_keywords.nodes, by_keywords.pv
    )
    assert 0 < by_limit.nodes <= 3_000 + 200  # the node limit reached the search
    narrower = choose_move(QUBIC, Limit.within(nodes=50_000), nodes=3_000, seed=1)
    assert narrower.nodes == by_limit.nodes  # keywords narrow the limit


def test_which_boards_the_plan_solves_exactly() -> None:
    assert answers_exactly(Position()) and answers_exactly(Position("", "4x4"))
    assert not answers_exactly(Position(), level=9)
    assert not answers_exactly(QUBIC)
    assert choose_move(Position("XX./OO./..."), Limit.within(seconds=1.0)).method == "exact"
    assert evaluation(Position("XX./OO./...")).method == "exact"


def test_a_solve_too_slow_for_the_limit_gives_way_to_the_anytime_search() -> None:
    table = solver_for(SLOW.game).search.table
    table.clear()  # whatever an earlier test solved
    limit = Limit.within(seconds=0.4)
    began = time.perf_counter()
    choice = choose_move(SLOW, limit)
    assert time.perf_counter() - began < 0.4 + 0.3  # with slack for a busy machine
    assert choice.method == "anytime" and choice.move in range(20)
    assert reserve_s(limit) == pytest.approx(0.1)
    table.clear()  # the stopped solve's entries would answer some of the moves
    found = evaluation(SLOW, Limit.within(seconds=0.04))  # its values: 0.06-0.1 s compiled
    assert found.method == "anytime" and len(found.moves) == 20


def test_a_cancelled_limit_stops_the_exact_solve() -> None:
    limit = Limit.within(seconds=30.0)
    limit.cancel()
    with pytest.raises(BudgetExhausted):
        choose_move(SLOW, limit)
    with pytest.raises(BudgetExhausted):
        evaluate_moves(SLOW, limit)


def test_a_node_limit_bounds_every_search_the_exact_one_included() -> None:
    assert choose_move(Position(), Limit.within(nodes=1)).method == "exact"  # the table
    few = choose_move(SLOW, Limit.within(nodes=1_000))
    assert few.method == "anytime" and 0 < few.nodes <= 1_000 + 200
    enough = choose_move(Position("XX.O/.O../..X./....", "4x4k3"), Limit.within(nodes=100_000))
    assert enough.method == "exact" and enough.proven


def test_levels_are_answered_by_the_engine_within_the_limit() -> None:
    a = choose_move(QUBIC, Limit.within(nodes=300), level=9, seed=4)
    b = choose_move(QUBIC, level=9, nodes=300, seed=4)
    assert a.method == b.method == "level" and a.move == b.move


def test_a_players_allowance_is_a_limit_every_move() -> None:
    player = parse_player("level:10").create(seed=1, allowance=Limit.within(nodes=2_000))
    assert isinstance(player, LevelPlayer) and player.nodes == 2_000
    first = player.move(QUBIC, Limit())
    again = player.move(QUBIC, Limit())  # renewed: the same nodes a move, not a total
    assert first.method == "anytime" and 0 < first.nodes <= 2_000 + 200
    assert 0 < again.nodes <= 2_000 + 200

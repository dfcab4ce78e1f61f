"""Search traces: the tutorial's counts, exact values, honest cut-offs, bounded storage."""

from __future__ import annotations

import random

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.errors import GameOverError, NoughtsError
from noughts.exact.solver import solve
from noughts.position import Position
from noughts.results import Outcome, Scale
from noughts.teaching.trace import (
    ALGORITHMS,
    Algorithm,
    Trace,
    TraceNode,
    TraceTooLargeError,
    compare,
    trace,
)
from noughts.teaching.tutorial import alphabeta_move, minimax_move, negamax

CENTRE = Position(".../.X./...")
EXACT_ALGORITHMS: tuple[Algorithm, ...] = tuple(a for a in ALGORITHMS if a != "depth-limited")


def random_position(rng: random.Random, variant: str, *, min_marks: int) -> Position:
    """A random unfinished position with at least ``min_marks`` marks."""
    while True:
        position = Position("", variant, first=rng.choice("XO"))
        for _ in range(rng.randrange(min_marks, position.geometry.cells)):
            if position.is_over:
                break
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over and position.ply >= min_marks:
            return position


def positions(variant: str, count: int, min_marks: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    return [random_position(rng, variant, min_marks=min_marks) for _ in range(count)]


def root_view(node: TraceNode, result: Trace) -> int:
    """The solver's value of a node's position, on the trace's scale from the root's view."""
    position = Position(node.board, result.variant, first=_first(result))
    if position.is_over:
        winner = position.winner
        if winner is None:
            return 0
        return result.win - node.depth if winner == result.to_move else node.depth - result.win
    value = solve(position)
    if value.outcome is Outcome.DRAW:
        return 0
    score = result.win - node.depth - value.plies
    mine = (value.outcome is Outcome.WIN) == node.maximizing
    return score if mine else -score


def _first(result: Trace) -> str:
    """Who moved first in the traced game (the board's counts and the side to move)."""
    x, o = result.board.count("X"), result.board.count("O")
    if x == o:
        return result.to_move
    return "X" if x > o else "O"


def children(result: Trace) -> dict[int, list[TraceNode]]:
    kids: dict[int, list[TraceNode]] = {}
    for node in result.stored:
        if node.parent is not None:
            kids.setdefault(node.parent, []).append(node)
    return kids


# -- the tutorial's counts ------------------------------------------------------------------
def test_the_tutorial_counts_come_out_of_the_trace() -> None:
    plain = trace(CENTRE, "minimax", tutorial=True, max_stored=0)
    pruned = trace(CENTRE, "alphabeta", tutorial=True, max_stored=0)
    assert (plain.counted, pruned.counted) == (55_505, 8_465)
    assert (plain.nodes, pruned.nodes) == (55_505, 8_466)  # alpha-beta's root is no call
    assert "root is not a call" in pruned.counting and "root is counted" in plain.counting
    assert plain.value == pruned.value == 0 and plain.best_move == pruned.best_move == 0


def test_tutorial_counting_matches_the_tutorial_code_everywhere() -> None:
    for position in positions("3x3", 25, 2, seed=11):
        assert trace(position, "minimax", tutorial=True, max_stored=0).counted == (
            minimax_move(position).nodes
        ), position
        traced = trace(position, "alphabeta", tutorial=True, max_stored=0)
        tutorial = alphabeta_move(position)
        assert (traced.counted, traced.best_move) == (tutorial.nodes, tutorial.move), position


def reference_negamax(position: Position, *, alpha_beta: bool) -> tuple[int, int]:
    """An independent negamax over Position objects: the root's score and the calls made."""
    win = position.geometry.cells + 1
    calls = 0

    def search(node: Position, depth: int, alpha: int, beta: int) -> int:
        nonlocal calls
        calls += 1
        if node.winner is not None:
            return depth - win
        if not node.empty:
            return 0
        best = -win - 1
        for move in node.legal_moves:
            score = -search(node.play(move), depth + 1, -beta, -alpha)
            best = max(best, score)
            if alpha_beta:
                alpha = max(alpha, score)
                if alpha >= beta:
                    break
        return best

    return search(position, 0, -win - 1, win + 1), calls


def test_node_counts_equal_the_algorithms_counts() -> None:
    for variant, marks in (("3x3", 1), ("4x4k3", 9)):
        for position in positions(variant, 12, marks, seed=5):
            for algorithm, pruning in (("minimax", False), ("alphabeta", True)):
                traced = trace(position, algorithm, max_stored=0)
                expected = reference_negamax(position, alpha_beta=pruning)
                assert (traced.value, traced.nodes) == expected, (algorithm, position)
                taught = negamax(position, alpha_beta=pruning)  # the teaching API's walk
                assert (taught.score, taught.nodes, taught.move) == (
                    traced.value, traced.nodes, traced.best_move
                )


def test_the_empty_board_minimax_keeps_only_its_bound() -> None:
    result = trace(Position(), "minimax", max_stored=100)
    assert result.nodes == 549_946 and len(result.stored) == 100 and result.truncated
    assert result.stored[0].subtree == 549_946


# -- values ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "marks", "count"), [("3x3", 0, 15), ("4x4k3", 9, 8)])
def test_every_algorithm_finds_the_solver_value(variant: str, marks: int, count: int) -> None:
    for position in positions(variant, count, marks, seed=len(variant)):
        expected = solve(position)
        for algorithm in EXACT_ALGORITHMS:
            if algorithm == "minimax" and position.empty.bit_count() > 8:
                continue  # the whole tree of the empty 3x3 board is tested above
            result = trace(position, algorithm, max_stored=0)
            assert result.exact_value() == expected, (algorithm, position)
            after = position.play(result.best_move)
            assert solve(after).negate_after_move() == expected, (algorithm, position)
        deep = trace(position, "depth-limited", depth=position.empty.bit_count(), max_stored=0)
        assert deep.exact_value() == expected, position


def test_exact_nodes_carry_their_true_value_and_bounds_hold() -> None:
    for position in positions("3x3", 6, 3, seed=2):
        for algorithm in EXACT_ALGORITHMS:
            result = trace(position, algorithm)
            assert not result.truncated
            for node in result.stored:
                true = root_view(node, result)
                if node.bound == "exact":
                    assert node.value == true, (algorithm, position, node)
                elif node.bound == "lower":
                    assert true >= node.value >= node.beta, (algorithm, node)
                else:
                    assert true <= node.value <= node.alpha, (algorithm, node)


def test_the_principal_variation_plays_out_the_value() -> None:
    for position in positions("3x3", 10, 1, seed=8):
        result = trace(position, "alphabeta", max_stored=0)
        end = position
        for move in result.pv:
            end = end.play(move)
        assert end.is_over
        value = result.exact_value()
        assert value is not None and value.plies == len(result.pv)
        expected_winner = {
            Outcome.WIN: position.to_move,
            Outcome.LOSS: end.last_mover if end.winner else None,
            Outcome.DRAW: None,
        }[value.outcome]
        assert end.winner == expected_winner


def test_the_depth_limited_search_estimates_at_its_horizon() -> None:
    result = trace(Position(), "depth-limited", depth=2)
    assert max(node.depth for node in result.stored) == 2
    assert {node.why for node in result.stored if node.depth == 2} == {"horizon"}
    estimate = result.estimate()
    assert result.exact_value() is None and estimate is not None
    assert estimate.scale is Scale.SEARCH and estimate.score == result.value
    assert result.value_text == str(estimate) == f"heuristic score {result.value:+d}"
    assert result.style == "balanced" and result.depth == 2


# -- cut-offs ---------------------------------------------------------------------------------
def test_cutoffs_only_where_alpha_meets_beta() -> None:
    seen = 0
    for position in positions("3x3", 10, 1, seed=4) + positions("4x4k3", 3, 10, seed=4):
        for algorithm in ALGORITHMS:
            result = trace(position, algorithm)
            kids = children(result)
            for node in result.stored:
                below = kids.get(node.id, [])
                complete = node.id + node.subtree <= len(result.stored)  # all kept
                if node.cutoff is None:
                    if node.why == "searched" and complete:
                        board = Position(node.board, result.variant, first=_first(result))
                        assert len(below) == len(board.legal_moves)
                    continue
                seen += 1
                cut = node.cutoff
                assert algorithm != "minimax"
                assert cut.alpha >= cut.beta and cut.skipped, cut
                assert f"alpha {cut.alpha} >= beta {cut.beta}" in cut.reason
                tried = {kid.move for kid in below}
                assert not tried & set(cut.skipped)
                if complete:
                    assert cut.after == below[-1].move
                if node.maximizing:
                    assert node.bound == "lower" and node.value >= node.beta
                else:
                    assert node.bound == "upper" and node.value <= node.alpha
            assert result.cutoffs >= sum(1 for n in result.stored if n.cutoff), algorithm
    assert seen > 50


def test_minimax_windows_stay_open_and_pruning_helps() -> None:
    result = trace(CENTRE, "minimax", max_stored=500)
    assert result.cutoffs == 0
    assert all((n.alpha, n.beta) == (-result.infinity, result.infinity) for n in result.stored)
    rows = {row.algorithm: row for row in compare(CENTRE)}
    assert rows["minimax"].nodes > rows["alphabeta"].nodes > rows["ordered"].nodes
    assert rows["transposition"].table_hits > 0 and rows["symmetry"].table_hits > 0
    assert rows["symmetry"].nodes < rows["transposition"].nodes < rows["alphabeta"].nodes


# -- storage and playback --------------------------------------------------------------------
def test_kept_nodes_are_the_top_of_the_tree_in_entry_order() -> None:
    result = trace(Position("X../.O./..."), "alphabeta", max_stored=50)
    assert [n.id for n in result.stored] == list(range(50)) and result.truncated
    ids = {n.id for n in result.stored}
    assert all(n.parent in ids for n in result.stored[1:])
    steps = sorted([n.enter for n in result.stored] + [n.exit for n in result.stored])
    assert steps == list(range(100))
    for node in result.stored[1:]:
        parent = result.stored[node.parent or 0]
        assert parent.enter < node.enter < node.exit < parent.exit


def test_the_node_limit_names_the_bound() -> None:
    with pytest.raises(TraceTooLargeError, match="more than 1,000 positions"):
        trace(Position(), "minimax", node_limit=1_000)
    assert trace(Position(), "symmetry", node_limit=2_000).nodes <= 2_000


def test_bad_requests_are_named() -> None:
    with pytest.raises(NoughtsError, match="unknown algorithm 'negascout'"):
        trace(Position(), "negascout")  # type: ignore[arg-type]
    with pytest.raises(NoughtsError, match="depth-limited search, not to alphabeta"):
        trace(Position(), "alphabeta", depth=3)
    with pytest.raises(NoughtsError, match="at least 1 ply"):
        trace(Position(), "depth-limited", depth=0)
    with pytest.raises(GameOverError, match="game is over"):
        trace(Position("XXX/OO./..."))


def test_a_walk_polls_its_budget() -> None:
    limit = Limit()
    limit.cancel()
    with pytest.raises(BudgetExhausted):
        trace(Position(), "minimax", max_stored=0, limit=limit)
    with pytest.raises(BudgetExhausted):
        compare(Position(), ("alphabeta",), limit=Limit(node_limit=1))
    assert trace(Position("XX./OO./..."), limit=Limit.within(seconds=60)).best_move == 2

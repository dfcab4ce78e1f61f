"""The exact solver against an independent brute force, the best-move rule, books and API."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from noughts.errors import GameOverError, TooLargeError
from noughts.exact import solver
from noughts.exact.book import load_book
from noughts.exact.negamax import DEFAULT_MAX_ENTRIES, ExactSearch
from noughts.exact.solver import Solver, analyze, best_move, can_solve, solve, solver_for
from noughts.exact.table3x3 import Table3x3
from noughts.position import Position
from noughts.results import Outcome, Value
from noughts.symmetries import SymmetryKeys
from noughts.variants import BOOK_VARIANTS, variant

# -- an independent reference: plain memoised minimax over positions --------------------


def _rank(value: tuple[int, int]) -> tuple[int, int]:
    """Order (result, plies): quick wins first, then draws, then slow losses."""
    result, plies = value
    if result > 0:
        return (2, -plies)
    if result < 0:
        return (0, plies)
    return (1, 0)


@cache
def reference(position: Position) -> tuple[int, int]:
    """(+1 win / 0 draw / -1 loss for the side to move, plies to the end) by brute force."""
    if position.winner is not None:
        return (-1, 0)
    if not position.empty:
        return (0, 0)
    best: tuple[int, int] | None = None
    for move in position.legal_moves:
        result, plies = reference(position.play(move))
        candidate = (-result, plies + 1)
        if best is None or _rank(candidate) > _rank(best):
            best = candidate
    assert best is not None
    return best


def as_pair(value: Value) -> tuple[int, int]:
    sign = {Outcome.WIN: 1, Outcome.DRAW: 0, Outcome.LOSS: -1}[value.outcome]
    return sign, value.plies


def all_positions(position: Position, seen: dict[Position, None]) -> None:
    if position in seen:
        return
    seen[position] = None
    for move in position.legal_moves:
        all_positions(position.play(move), seen)


def random_position(name: str, marks: int, rng: random.Random) -> Position:
    """An unfinished position after ``marks`` random moves that do not end the game."""
    while True:
        position = Position("", name)
        for _ in range(marks):
            quiet = [m for m in position.legal_moves if not position.play(m).is_over]
            if not quiet:
                break
            position = position.play(rng.choice(quiet))
        if position.ply == marks:
            return position


@pytest.fixture(scope="module")
def positions_3x3() -> list[Position]:
    seen: dict[Position, None] = {}
    all_positions(Position(), seen)
    return list(seen)


# -- values -------------------------------------------------------------------------------
def test_every_3x3_position_and_move_matches_brute_force(positions_3x3: list[Position]) -> None:
    assert len(positions_3x3) == 5478
    for position in positions_3x3:
        assert as_pair(solve(position)) == reference(position), position
        if position.is_over:
            continue
        for entry in analyze(position):
            result, plies = reference(position.play(entry.move))
            assert as_pair(entry.value) == (-result, plies + 1), (position, entry)


def test_3x3_table_is_complete_and_agrees_with_the_search(
    positions_3x3: list[Position],
) -> None:
    table = Table3x3.get()
    assert len(table.scores) == 5478
    search = Solver(variant("3x3"), use_book=False)
    assert search.table3x3 is None
    for position in positions_3x3:
        if position.is_over:
            continue
        me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        assert table.score(me, opp) == search.score(me, opp)


@pytest.mark.parametrize(
    ("name", "marks", "count"),
    [("4x3k3", 5, 20), ("4x4k3", 7, 20), ("4x4", 9, 15), ("5x4k4", 12, 8), ("3x3x3", 20, 5)],
)
def test_random_positions_match_brute_force(name: str, marks: int, count: int) -> None:
    rng = random.Random(f"{name}-{marks}")
    for _ in range(count):
        position = random_position(name, rng.randint(marks, marks + 2), rng)
        assert as_pair(solve(position)) == reference(position), position
        for entry in analyze(position):
            result, plies = reference(position.play(entry.move))
            assert as_pair(entry.value) == (-result, plies + 1), (position, entry.move)


@pytest.mark.parametrize("name", ["4x4k3", "4x4", "5x4k4", "3x3x3"])
def test_symmetric_images_have_one_value(name: str) -> None:
    rng = random.Random(name)
    geometry = variant(name)
    for _ in range(6):
        position = random_position(name, rng.randint(geometry.cells // 2, geometry.cells - 3), rng)
        value = solve(position)
        for symmetry in rng.sample(range(len(geometry.symmetries)), 4):
            assert solve(position.transform(symmetry)) == value


def test_search_windows_keep_their_contract() -> None:
    """Fail-soft: inside the window exact, outside a bound on the right side."""
    rng = random.Random(7)
    geometry = variant("4x4k3")
    for _ in range(40):
        position = random_position("4x4k3", rng.randint(4, 9), rng)
        me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        exact = ExactSearch(geometry).value(me, opp)
        for alpha, beta in [(0, 1), (-1, 0), (exact - 1, exact + 1), (exact, exact + 5)]:
            found = ExactSearch(geometry).search(me, opp, alpha, beta)
            if alpha < exact < beta:
                assert found == exact
            elif exact <= alpha:
                assert exact <= found <= alpha
            else:
                assert beta <= found <= exact


def test_plies_count_the_loser_delaying() -> None:
    # O must block at 2; X's fork at 4 then wins on ply 4. Any other move loses in 2.
    position = Position("XX./O../...")
    assert solve(position) == Value(Outcome.LOSS, 4)
    values = {m.move: str(m.value) for m in analyze(position)}
    assert values == {2: "loss in 4", 4: "loss in 2", 5: "loss in 2", 6: "loss in 2",
                      7: "loss in 2", 8: "loss in 2"}
    assert best_move(position).move == 2
    assert solve(Position("X../.O./..X")) == Value(Outcome.DRAW, 6)  # a draw fills the board
    assert solve(Position("XX./OO./...")) == Value(Outcome.WIN, 1)  # the winner hurries


def test_finished_positions() -> None:
    assert solve(Position("XXX/OO./...")) == Value(Outcome.LOSS, 0)
    assert solve(Position("XOX/XOO/OXX")) == Value(Outcome.DRAW, 0)
    with pytest.raises(GameOverError, match="game is over"):
        analyze(Position("XXX/OO./..."))
    with pytest.raises(GameOverError, match="game is over"):
        best_move(Position("XOX/XOO/OXX"))


# -- the best move ------------------------------------------------------------------------
def _losing_replies(position: Position, move: int) -> int:
    after = position.play(move)
    if after.is_over:
        return 0
    return sum(1 for reply in after.legal_moves if reference(after.play(reply))[0] > 0)


def test_best_move_rule_on_every_3x3_position(positions_3x3: list[Position]) -> None:
    for position in positions_3x3:
        if position.is_over:
            continue
        ranked = {m: _rank((-r, p + 1)) for m in position.legal_moves
                  for r, p in [reference(position.play(m))]}
        top = max(ranked.values())
        tied = [m for m in position.legal_moves if ranked[m] == top]
        traps = {m: _losing_replies(position, m) for m in tied}
        most = max(traps.values())
        expected = min(m for m in tied if traps[m] == most)
        choice = best_move(position)
        assert choice.move == expected, position
        assert choice.traps == (most if len(tied) > 1 else 0)


def test_trap_preference_on_a_concrete_position() -> None:
    # X to move with X on the top edge and O in a corner: 3, 4, 6 and 8 all draw, and
    # the centre leaves O five losing replies (every reply but the block at 7).
    position = Position("OX./.../...")
    values = {m.move: str(m.value) for m in analyze(position)}
    assert [m for m, v in values.items() if v == "draw"] == [3, 4, 6, 8]
    choice = best_move(position)
    assert (choice.move, choice.traps) == (4, 5)


def test_empty_3x3_prefers_a_corner_and_seeds_pick_among_corners() -> None:
    position = Position()
    assert best_move(position).move == 0
    picks = {best_move(position, seed=seed).move for seed in range(30)}
    assert picks == {0, 2, 6, 8}  # every corner leaves seven losing replies
    assert best_move(position, seed=5).move == best_move(position, seed=5).move
    big = Position("", "4x4k3")
    picks = {best_move(big, seed=seed).move for seed in range(30)}
    assert picks <= {5, 6, 9, 10} and len(picks) > 1


def test_principal_variation_plays_out_the_value() -> None:
    rng = random.Random(3)
    for name, low in [("3x3", 0), ("4x4k3", 2), ("4x4", 8), ("3x3x3", 3)]:
        for _ in range(8):
            position = random_position(name, rng.randint(low, low + 3), rng)
            choice = best_move(position)
            assert choice.pv[0] == choice.move
            end = position
            for move in choice.pv:
                end = end.play(move)
            assert end.is_over
            assert len(choice.pv) == choice.value.plies
            winner = end.winner
            if choice.value.outcome is Outcome.WIN:
                assert winner == position.to_move
            elif choice.value.outcome is Outcome.LOSS:
                assert winner is not None and winner != position.to_move
            else:
                assert winner is None


def test_o_first_games_are_solved_too() -> None:
    mirrored = Position("OO./XX./...", first="O")
    assert mirrored.to_move == "O"
    assert str(solve(mirrored)) == "win in 1"
    assert best_move(mirrored).move == 2


# -- limits, tables, books -------------------------------------------------------------
def test_the_solve_on_the_spot_limit_is_explicit() -> None:
    assert can_solve(Position("", "4x4")) and can_solve(Position("", "5x4k4"))
    assert can_solve(Position("", "3x3x3"))
    assert not can_solve(Position("", "5x5k4")) and not can_solve(Position("", "4x4x4"))
    for call in (solve, analyze, best_move):
        with pytest.raises(TooLargeError, match="anytime search"):
            call(Position("", "4x4x4"))


def test_boards_of_more_than_20_cells_are_solved_from_18_empty_cells() -> None:
    nineteen_empty = Position("XO.../XO.../XO.../...../.....", "5x5k4")
    eighteen_empty = nineteen_empty.play(4)  # X misses its win at 15
    assert not can_solve(nineteen_empty) and can_solve(eighteen_empty)
    with pytest.raises(TooLargeError, match="limit 18 empty cells"):
        solve(nineteen_empty)
    assert str(solve(eighteen_empty)) == "win in 1"  # O completes the second column


def test_the_table_lives_across_calls() -> None:
    position = random_position("5x5k4", 11, random.Random(7))  # a draw that takes a search
    assert can_solve(position)
    assert solver_for(position.geometry) is solver_for(variant("5x5k4"))
    solver_for(position.geometry).search.table.clear()  # whatever ran before
    first = best_move(position)
    again = best_move(position)
    assert first.nodes > 100
    assert again.nodes * 20 < first.nodes
    assert (again.move, again.value, again.moves) == (first.move, first.value, first.moves)


def test_3x3_answers_come_from_the_table_without_a_search() -> None:
    solver = Solver(variant("3x3"))
    me, opp = Position("X../.O./...").x, Position("X../.O./...").o  # X to move
    move, _, _, _ = solver.choose(me, opp)
    assert len(solver.principal_variation(me, opp, move)) == 7  # a draw: 7 cells left
    assert (solver.table_entries, solver.nodes) == (0, 0)
    assert solver._search is None  # the search (and its module) was never needed


def test_idle_solvers_hold_half_of_what_the_one_in_use_may() -> None:
    assert solver.IDLE_TABLE_ENTRIES == DEFAULT_MAX_ENTRIES // 2


def test_canonical_keys_agree_with_the_geometry() -> None:
    rng = random.Random(11)
    for name in ("3x3", "4x4", "4x4k3", "5x4k4", "3x3x3"):
        geometry = variant(name)
        keys = SymmetryKeys(geometry)
        for _ in range(30):
            position = random_position(name, rng.randint(0, geometry.cells - 4), rng)
            me, opp = position.x, position.o
            canon_me, canon_opp, _ = geometry.canonical(me, opp)
            assert keys.key(me, opp) == canon_me | canon_opp << geometry.cells
            key, symmetry = keys.key_and_symmetry(me, opp)
            assert key == keys.key(position.transform(3 % len(geometry.symmetries)).x,
                                   position.transform(3 % len(geometry.symmetries)).o)
            assert keys.split(key)[0] == geometry.transform(me, symmetry)


@pytest.mark.parametrize("name", BOOK_VARIANTS)
def test_shipped_books_hold_exact_values(name: str) -> None:
    """Re-solve a sample of each book's entries from scratch, losing-move counts too."""
    geometry = variant(name).geometry
    book = load_book(geometry)
    assert book is not None, f"the book for {name} ships with the package"
    assert book.max_marks == variant(name).book_marks
    assert book.variant == name  # the file names the variant by its record's name
    keys = SymmetryKeys(geometry)
    fresh = Solver(geometry, use_book=False)
    entries = book.items()
    rng = random.Random(name)
    sample = [entries[0], *rng.sample(entries, min(25, len(entries)))]
    if name == "5x4":  # its entries cost seconds each from scratch: the known draw only
        assert entries[0][:2] == (0, 0)  # the empty board (key 0) is a draw
        sample = []
    for key, score, losing in sample:
        me, opp = keys.split(key)
        assert fresh.score(me, opp) == score
        counted = 0
        for cell, move_score in fresh.move_scores(me, opp):
            del cell
            counted += move_score < 0
        assert counted == losing
    # every position of the first plies is in the book
    for first in range(geometry.cells):
        one = Position.from_bitboards(1 << first, 0, geometry)
        assert book.get(keys.key(one.o, one.x)) is not None
        for second in one.legal_moves if book.max_marks >= 2 else ():
            two = one.play(second)
            if not two.is_over:
                assert book.get(keys.key(two.x, two.o)) is not None


def test_book_and_fresh_search_agree_on_early_positions() -> None:
    rng = random.Random(5)
    geometry = variant("4x4")
    fresh = Solver(geometry, use_book=False)
    booked = solver_for(geometry)
    for _ in range(12):
        position = random_position("4x4", rng.randint(3, 8), rng)
        me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        assert booked.score(me, opp) == fresh.score(me, opp)


def test_solver_module_api_is_stable() -> None:
    choice = solver.best_move(Position("XX./OO./..."))
    assert (choice.move, str(choice.value), choice.pv) == (2, "win in 1", (2,))
    assert [m.move for m in choice.moves] == [2, 5, 6, 7, 8]


def test_the_shipped_3x3_table_is_the_one_the_game_gives() -> None:
    from noughts.exact.table3x3 import table_path

    shipped = Table3x3.load(table_path())
    built = Table3x3()
    assert shipped is not None
    assert shipped.scores == built.scores and shipped._losing == built._losing
    assert len(built.scores) == 5478
    assert Table3x3.from_bytes(built.to_bytes()).scores == built.scores


def test_a_damaged_3x3_table_file_is_not_loaded(tmp_path: Path) -> None:
    damaged = tmp_path / "table.bin"
    damaged.write_bytes(b"not a table")
    assert Table3x3.load(str(damaged)) is None


def test_a_choice_carries_its_game_and_pickles_by_name() -> None:
    """A choice and its move values hold the game they were chosen in (the normal and the
    misère 3x3 share a board, not their answers), derive their cells' names from it,
    and cross to a worker process and back with the game as its name."""
    import pickle

    from noughts.variants import variant

    normal = solver.best_move(Position("X../.O./...", "3x3"))
    misere = solver.best_move(Position("X../.O./...", "3x3-misere"))
    assert {m.game for m in normal.moves} == {variant("3x3")}
    assert {m.game for m in misere.moves} == {variant("3x3-misere")}
    raw = pickle.dumps(misere)
    assert b"3x3-misere" in raw and b"lines" not in raw
    back = pickle.loads(raw)
    assert back == misere and back.game is variant("3x3-misere")
    assert (back.square, back.coords) == (misere.square, variant("3x3").coords(misere.move))


def test_misere_boards_are_solved_from_16_empty_cells_on_the_compiled_core() -> None:
    from noughts.search import core

    assert core.exact_compiled(variant("4x4-misere").geometry)
    empty, fifteen = Position("", "4x4-misere"), Position("", "4x4-misere").play(5)
    assert can_solve(empty) and can_solve(fifteen)
    assert not can_solve(Position("", "5x4k4-misere"))  # 20 empty cells
    assert str(solve(empty)) == "draw"
    with pytest.raises(TooLargeError, match="limit 16 empty cells"):
        solve(Position("", "5x4k4-misere"))


def test_on_the_python_core_the_misere_limit_stays_at_12(monkeypatch: pytest.MonkeyPatch) -> None:
    from noughts.search import core

    monkeypatch.setattr(core, "compiled", lambda: None)
    assert not can_solve(Position("", "4x4-misere"))
    assert can_solve(Position("XO.X/O.X./.O../....", "4x4-misere"))  # 10 empty cells
    with pytest.raises(TooLargeError, match="limit 12 empty cells"):
        solve(Position("", "4x4-misere"))

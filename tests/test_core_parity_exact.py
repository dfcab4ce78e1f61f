"""The compiled exact negamax is its Python reference, node for node: on every board up to
64 cells, both rules, the same values, bounds, best stored moves, node counts and table
(every entry), through ``search``, ``value`` and ``wins``, with a book and without, under
node limits that stop a search midway, and through the solver end to end."""

from __future__ import annotations

import random
import threading
import time

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.exact import solver
from noughts.exact.book import Book, load_book
from noughts.exact.misere import MisereSearch
from noughts.exact.negamax import DEFAULT_MAX_ENTRIES, ExactSearch
from noughts.exact.solver import Solver, analyze, best_move, solve
from noughts.geometry import Bitboard
from noughts.position import Position
from noughts.results import WIN_SCORE
from noughts.runtime.lru import LRU
from noughts.search.core import Core
from noughts.variants import variant

BOARDS = {  # name: the marks of the positions solved (few enough for the Python core)
    "3x3": (0, 8),
    "4x4k3": (0, 10),
    "4x4": (0, 10),
    "5x4k4": (2, 14),
    "4x5": (2, 14),
    "3x3x3": (0, 8),
    "6x6k4": (10, 18),
    "8x8k5": (44, 52),
    "4x4x4": (36, 48),
    "3x3-misere": (0, 8),
    "4x4k3-misere": (3, 12),
    "4x4-misere": (4, 13),
    "5x4k4-misere": (8, 17),
    "4x5-misere": (8, 17),
    "3x3x3-misere": (12, 22),
    "6x6k4-misere": (22, 30),
    "8x8k5-misere": (50, 58),
    "4x4x4-misere": (50, 60),
}
"""Every board the exact solver takes up to 64 cells (6x6k4: canonical keys wider than
64 bits; 8x8k5 and Qubic: raw keys of 128 bits), and their misère games, from positions
as late as the solver meets them."""


def test_the_compiled_core_is_built() -> None:
    # the README's install builds it; a test run without it must fail, not skip
    from noughts.search import _core

    assert hasattr(_core, "Exact"), "noughts.search._core is built without the exact search"


def _searches(
    name: str, book: Book | None = None, max_entries: int = DEFAULT_MAX_ENTRIES
) -> tuple[ExactSearch, ExactSearch]:
    """The Python and the compiled search of one game, made alike."""
    game = variant(name)
    kind = MisereSearch if game.rules.misere else ExactSearch
    python = kind(game, book=book, max_entries=max_entries, core="python")
    compiled = kind(game, book=book, max_entries=max_entries, core="compiled")
    assert (python.core, compiled.core) == ("python", "compiled")
    return python, compiled


def _threats(position: Position) -> bool:
    """True if a cell completes a line of either side."""
    for line in position.geometry.lines:
        for mine, theirs in ((position.x, position.o), (position.o, position.x)):
            if not line & theirs and (line & ~mine).bit_count() == 1:
                return True
    return False


def _positions(name: str, count: int, seed: int) -> list[tuple[Bitboard, Bitboard]]:
    """Unfinished ``(me, opp)`` positions within the board's marks: half by random play,
    half by quiet play (no cell completes a line after any move: deeper searches)."""
    low, high = BOARDS[name]
    rng = random.Random(seed)
    found: list[tuple[Bitboard, Bitboard]] = []
    while len(found) < count:
        quiet = len(found) % 2 == 1
        position = Position("", name)
        marks = rng.randint(low, high)
        while position.ply < marks and not position.is_over:
            moves = list(position.legal_moves)
            rng.shuffle(moves)
            following = [position.play(move) for move in moves[:8 if quiet else 1]]
            if quiet:
                following = [after for after in following if not _threats(after)]
                if not following:
                    break
            position = following[0]
        if position.is_over or position.ply < low:
            continue
        me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        found.append((me, opp))
    return found


def _table(search: ExactSearch) -> dict[int, int]:
    return dict(search.table.items())


def _same(python: ExactSearch, compiled: ExactSearch, what: object) -> None:
    assert compiled.nodes == python.nodes, what
    assert len(compiled.table) == len(python.table), what


def _both(python: ExactSearch, compiled: ExactSearch, method: str, *args: int) -> object:
    """``method(*args)`` of each search: the same answer, or both stopped."""
    answers = []
    for search in (python, compiled):
        try:
            answers.append(("answer", getattr(search, method)(*args)))
        except BudgetExhausted:
            answers.append(("stopped", None))
    assert answers[0] == answers[1], (method, args)
    return answers[0][1]


@pytest.mark.parametrize("name", list(BOARDS))
def test_both_cores_search_alike(name: str) -> None:
    """One search object per core across many positions (their tables grow together):
    each value, window, null-window test and stored move, the nodes, the whole table."""
    python, compiled = _searches(name)
    rng = random.Random(name)
    count = 16 if variant(name).cells > 20 else 40
    for me, opp in _positions(name, count, seed=len(name)):
        value = _both(python, compiled, "value", me, opp)
        assert isinstance(value, int)
        _same(python, compiled, (me, opp))
        windows = [(0, 1), (-1, 0), (value - 1, value + 1), (value, value + 9),
                   (value - 9, value), (rng.randint(-WIN_SCORE, 0), rng.randint(1, WIN_SCORE))]
        for alpha, beta in windows:
            _both(python, compiled, "search", me, opp, alpha, beta)
        _both(python, compiled, "wins", me, opp)
        _both(python, compiled, "best_stored_move", me, opp)
        _same(python, compiled, (me, opp))
        full = variant(name).geometry.full
        cells = [cell for cell in range(variant(name).cells)
                 if (full & ~(me | opp)) >> cell & 1 and not python.completes_line(me, cell)]
        for cell in rng.sample(cells, min(4, len(cells))):  # children: the table's moves
            child = (opp, me | 1 << cell)
            if child[0] | child[1] != full:
                _both(python, compiled, "value", *child)
                _both(python, compiled, "best_stored_move", *child)
        _same(python, compiled, (me, opp))
    assert _table(compiled) == _table(python)


ODD_BOARDS = ["2x2", "3x3k2", "2x7k3", "1x9k9", "3x8k6", "5x5k5", "6x6k6", "3x3x3k2",
              "8x8k3", "4x4x4k3", "8x8k8", "2x2x2-misere", "3x4k3-misere", "8x8k3-misere"]
"""Boards at the edges of what the compiled core takes: k of 2 and of the whole side,
hundreds of lines, 192 key symmetries, more lines through a cell than anywhere else."""


@pytest.mark.parametrize("name", ODD_BOARDS)
def test_both_cores_search_odd_boards_alike(name: str) -> None:
    python, compiled = _searches(name)
    rng = random.Random(name)
    cells = variant(name).cells
    for _ in range(12):
        position = Position("", name)
        empty = rng.randint(min(cells - 1, 10), min(cells - 1, 18))
        while position.empty.bit_count() > empty and not position.is_over:
            position = position.play(rng.choice(list(position.legal_moves)))
        if position.is_over:
            continue
        me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        value = _both(python, compiled, "value", me, opp)
        assert isinstance(value, int)
        _both(python, compiled, "search", me, opp, value, value + 1)
        _both(python, compiled, "best_stored_move", me, opp)
        _same(python, compiled, position)
    assert _table(compiled) == _table(python)


@pytest.mark.parametrize("name", ["4x4k3", "4x4", "5x4k4", "3x3x3"])
def test_both_cores_read_the_book_alike(name: str) -> None:
    book = load_book(variant(name))
    assert book is not None
    python, compiled = _searches(name, book=book)
    for me, opp in [(0, 0), *_positions(name, 20, seed=7)]:
        _both(python, compiled, "value", me, opp)
        _both(python, compiled, "search", me, opp, 0, 1)
        _both(python, compiled, "book_entry", me, opp)
        _same(python, compiled, (me, opp))
    assert _table(compiled) == _table(python)


@pytest.mark.parametrize("name", ["4x4", "5x4k4", "4x5", "4x4-misere", "5x4k4-misere",
                                  "3x3x3-misere", "4x4x4-misere"])
def test_node_limits_stop_both_cores_at_the_same_node(name: str) -> None:
    """Limits that stop a search midway (at a poll, between polls, then resumed): the
    same stop at the same node, and the same table of what was finished."""
    python, compiled = _searches(name)
    midway = 0
    positions = _positions(name, 5, seed=3)
    if BOARDS[name][0] == 0:
        positions.insert(0, (0, 0))
    for index, (me, opp) in enumerate(positions):
        for nodes in (1, 7, 1023, 1024, 1025, 3_000 + 977 * index, 20_000):
            outcomes: list[int | None] = []
            for search in (python, compiled):
                start = search.nodes
                try:
                    outcomes.append(search.value(me, opp, Limit(node_limit=nodes)))
                except BudgetExhausted:
                    outcomes.append(None)
                    assert search.nodes - start == nodes
            assert outcomes[0] == outcomes[1]
            midway += outcomes[0] is None and nodes > 1
            _same(python, compiled, (me, opp, nodes))
    assert midway >= 4
    assert _table(compiled) == _table(python)


def _past_deadline() -> Limit:
    return Limit(deadline=time.perf_counter() - 1.0)


def test_a_past_deadline_or_a_cancel_stops_both_cores_at_the_first_node() -> None:
    for make in (_past_deadline, _cancelled):
        python, compiled = _searches("4x4")
        for search in (python, compiled):
            with pytest.raises(BudgetExhausted):
                search.value(0b11, 0b1100000, make())
            assert (search.nodes, len(search.table)) == (1, 0)


def _cancelled() -> Limit:
    limit = Limit()
    limit.cancel()
    return limit


def test_a_deadline_stops_the_compiled_search_in_time() -> None:
    compiled = MisereSearch(variant("5x4k4-misere"), core="compiled")
    started = time.perf_counter()
    with pytest.raises(BudgetExhausted):
        compiled.value(0, 0, Limit.within(0.05))  # about two seconds to the end
    assert time.perf_counter() - started < 1.0
    assert compiled.nodes > 1024


def test_the_table_bound_empties_both_tables_alike() -> None:
    python, compiled = _searches("5x4k4", max_entries=5_000)
    for me, opp in _positions("5x4k4", 6, seed=11):
        _both(python, compiled, "value", me, opp)
        _same(python, compiled, (me, opp))
        assert len(compiled.table) <= 5_000
    assert _table(compiled) == _table(python)
    python.max_entries = compiled.max_entries = 50
    python.dynamic_empties = compiled.dynamic_empties = 8
    for me, opp in _positions("5x4k4", 3, seed=12):
        _both(python, compiled, "value", me, opp)
        _same(python, compiled, (me, opp))
    python.table.clear()
    compiled.table.clear()
    assert len(compiled.table) == 0 and compiled.table.get(0) is None


def _solvers(name: str, core: Core, monkeypatch: pytest.MonkeyPatch) -> Solver:
    """The process-wide solver of ``name``, made on ``core`` (the others set aside)."""
    kept: LRU[str, Solver] = LRU(solver.MAX_KEPT_SOLVERS)
    monkeypatch.setattr(solver, "_SOLVERS", kept)
    made = Solver(variant(name), core=core)
    kept.put(variant(name).name, made)
    return made


@pytest.mark.parametrize("name", ["4x4k3", "4x4", "5x4k4", "3x3x3", "4x4k3-misere",
                                  "4x4-misere", "5x4k4-misere", "4x4x4"])
def test_the_solver_answers_alike_on_both_cores(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(name)
    low, high = BOARDS[name]
    positions: list[Position] = []
    while len(positions) < 4:
        position = Position("", name)
        for _ in range(rng.randint(max(low, 1), high)):
            position = position.play(rng.choice(list(position.legal_moves)))
            if position.is_over:
                break
        if not position.is_over and solver.can_solve(position):
            positions.append(position)
    answers: dict[Core, list[object]] = {}
    for core in ("python", "compiled"):
        made = _solvers(name, core, monkeypatch)
        seen: list[object] = []
        for position in positions:
            choice = best_move(position)
            seen.append((choice._replace(elapsed_ms=0.0), analyze(position), solve(position)))
            seen.append((made.nodes, made.table_entries))
        answers[core] = seen
    assert answers["compiled"] == answers["python"]


def test_one_compiled_search_serves_several_threads() -> None:
    """Each thread's limit travels with its call; the shared table stays exact."""
    python, compiled = _searches("5x4k4")
    positions = _positions("5x4k4", 8, seed=5)
    expected = [python.value(me, opp) for me, opp in positions]
    found: dict[int, int] = {}
    stopped: list[bool] = []

    def solve_all(offset: int) -> None:
        for index in range(len(positions)):
            at = (index + offset) % len(positions)
            found[at] = compiled.value(*positions[at])

    def stop_early() -> None:
        try:
            compiled.value(0, 0, Limit(node_limit=10))
        except BudgetExhausted:
            stopped.append(True)

    threads = [threading.Thread(target=solve_all, args=(offset,)) for offset in (0, 3)]
    threads.append(threading.Thread(target=stop_early))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [found[index] for index in range(len(positions))] == expected
    assert stopped == [True]  # its own limit, not the other threads' (they have none)


def test_a_bad_position_is_a_clear_error_on_both_cores() -> None:
    for search in _searches("4x4"):
        with pytest.raises(ValueError, match="share a cell"):
            search.value(0b11, 0b10)
        with pytest.raises(ValueError, match="leave the board"):
            search.value(1 << 16, 0)

"""Every entry point of the compiled core driven with random input, much of it invalid:
each call answers or raises a clean Python exception, never crashes (the sanitizer run,
``scripts/sanitize.py``, runs these on a build that reports every bad memory access
and undefined behaviour). A ``SystemError`` counts as a crash: it means the C returned
an error without setting one, or the reverse.

Each test tries 60 fixed examples; ``NOUGHTS_FUZZ_EXAMPLES=N`` in the environment tries
N random ones instead (a longer hunt)."""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noughts.budget import Limit
from noughts.position import Position
from noughts.search import core
from noughts.search.board import line_values, tables_for
from noughts.search.evaluate import search_weights
from noughts.variants import variant

BOARDS = ["1x1", "1x4k2", "2x3k2", "3x3", "4x4k3", "3x3-misere", "2x2x2", "5x1k3"]
"""Small boards: every search on them ends quickly even without a limit."""

_HUNT = int(os.environ.get("NOUGHTS_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_HUNT or 60, deadline=None, derandomize=not _HUNT, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# ints of every kind a caller could pass: small, cells, bit masks, negative, past 64 bits
INTS = st.one_of(st.integers(-3, 70), st.integers(0, 2**16), st.integers(-(2**70), 2**70),
                 st.sampled_from([2**52, -(2**52), 2**62, 2**63 - 1, 2**63, 2**64, 2**64 - 1,
                                  -(2**63), 2**128]))
VALUES = st.one_of(st.integers(-100, 100), st.integers(-(2**63), 2**63 - 1),
                   st.sampled_from([2**52, -(2**52), 2**52 + 1, 2**63 - 1, -(2**63), 2**63]))
"""Line values: mostly 64-bit ints, some at and past the edges."""
JUNK = st.one_of(st.none(), st.text(max_size=3), st.floats(allow_nan=True), st.booleans(),
                 st.lists(st.integers(-2, 70), max_size=4), st.just(object()))
ANY = st.one_of(INTS, INTS, JUNK)
CELL_LISTS = st.lists(st.one_of(st.integers(-2, 70), JUNK), max_size=70)


@pytest.fixture(scope="module")
def module() -> ModuleType:
    compiled = core.built()
    assert compiled is not None, "noughts.search._core is not built"
    return compiled


def _clean(call: Callable[..., Any], *arguments: Any) -> Any:
    """call's answer to arguments, or None for a clean Python exception (a SystemError
    is not)."""
    try:
        return call(*arguments)
    except SystemError:
        raise
    except Exception:
        return None


def _tables(name: str) -> object:
    return core._compiled_tables(tables_for(variant(name).geometry))


def _limit(nodes: int) -> Limit:
    return Limit(node_limit=nodes)


def _tidy(name: str, x: Any, o: Any, to_move: Any) -> tuple[Any, Any, Any]:
    """x, o and to_move made a valid position where they are ints (so that the fuzzing
    reaches the searches, not only their checks)."""
    if not all(type(value) is int for value in (x, o, to_move)):
        return x, o, to_move
    full = variant(name).full
    return x & full, o & full & ~x, to_move & 1


@FUZZ
@given(cells=ANY, k=ANY, lines=st.one_of(st.lists(INTS, max_size=20), JUNK),
       through=st.one_of(st.lists(st.lists(INTS, max_size=5), max_size=10), JUNK),
       perms=st.one_of(st.lists(CELL_LISTS, max_size=3), JUNK),
       base=st.one_of(st.lists(INTS, max_size=10), JUNK))
def test_tables(module: ModuleType, cells: Any, k: Any, lines: Any, through: Any, perms: Any,
                base: Any) -> None:
    _clean(lambda: module.Tables(cells, k, lines, through, perms, base, base))


def _line_values(k: int) -> st.SearchStrategy[Any]:
    """The shape of a board's LineValues, flat (core.flat_values), with any ints in it, or
    one too few or too many."""
    count = 4 * (k + 1) + 3 + 2 * (k + 2) ** 2
    return st.lists(VALUES, min_size=count - 1, max_size=count + 1)


def _values(position: Position) -> list[int]:
    tables = tables_for(position.geometry)
    return core.flat_values(line_values(tables, search_weights(position, "strong", None), 0))


@FUZZ
@given(name=st.sampled_from(BOARDS), x=ANY, o=ANY, to_move=ANY, misere=st.booleans(),
       values=st.one_of(st.just(None), st.just("shaped"), JUNK), data=st.data(),
       calls=st.lists(st.tuples(st.integers(0, 8), ANY, ANY, CELL_LISTS), max_size=8))
def test_search(module: ModuleType, name: str, x: Any, o: Any, to_move: Any, misere: bool,
                values: Any, data: st.DataObject,
                calls: list[tuple[int, Any, Any, list[Any]]]) -> None:
    if data.draw(st.booleans()):
        x, o, to_move = _tidy(name, x, o, to_move)
    position = Position("", name)
    if values is None:
        values = _values(position)
    elif values == "shaped":
        values = data.draw(_line_values(position.geometry.k))
    search = _clean(lambda: module.Search(_tables(name), x, o, to_move, values, misere))
    if search is None:
        search = module.Search(_tables(name), 0, 0, 0, _values(position), misere)
    methods: list[Callable[[Any, Any, list[Any]], Any]] = [
        lambda a, b, cells: search.threat_cells(a),
        lambda a, b, cells: search.empty_count(),
        lambda a, b, cells: search.ordered_moves(a, b),
        lambda a, b, cells: search.safe_moves(),
        lambda a, b, cells: search.root(a, cells, _limit(3_000) if b is None else b),
        lambda a, b, cells: search.move_value(a, b, _limit(3_000)),
        lambda a, b, cells: search.principal_variation(a, b),
        lambda a, b, cells: setattr(search, "nodes", a),
        lambda a, b, cells: search.root(a, cells, _limit(search.nodes + 3_000)),
    ]
    for kind, a, b, cells in calls:
        _clean(methods[kind], a, b, cells)


@FUZZ
@given(name=st.sampled_from(BOARDS), limit=st.one_of(st.just(None), JUNK),
       calls=st.lists(st.tuples(st.integers(0, 5), ANY, ANY, ANY, CELL_LISTS), max_size=6))
def test_threat_search(module: ModuleType, name: str, limit: Any,
                       calls: list[tuple[int, Any, Any, Any, list[Any]]]) -> None:
    tables = _tables(name)
    search = module.ThreatSearch(tables)
    junk = _limit(5_000) if limit is None else limit  # (a junk limit: a clean error)
    methods: list[Callable[[Any, Any, Any, list[Any]], Any]] = [
        lambda a, b, c, cells: search.find(a, b, c, _limit(5_000)),
        lambda a, b, c, cells: search.refute(a, b, c, junk),
        lambda a, b, c, cells: search.exhausted(),
        lambda a, b, c, cells: module.defences(tables, a, b, cells),
        lambda a, b, c, cells: module.chain_survives(tables, a, b, c, cells),
        lambda a, b, c, cells: setattr(search, "nodes", a),
    ]
    for kind, a, b, c, cells in calls:
        _clean(methods[kind], a, b, c, cells)


@FUZZ
@given(name=st.sampled_from(BOARDS), x=ANY, o=ANY, to_move=ANY, attacker=ANY, tidy=st.booleans(),
       leaf=st.one_of(st.integers(-2, 300), JUNK), threats=st.one_of(st.integers(-2, 30), JUNK),
       calls=st.lists(st.tuples(st.integers(0, 10), ANY, ANY), max_size=10))
def test_proof_search(module: ModuleType, name: str, x: Any, o: Any, to_move: Any,
                      attacker: Any, tidy: bool, leaf: Any, threats: Any,
                      calls: list[tuple[int, Any, Any]]) -> None:
    if tidy:
        x, o, to_move = _tidy(name, x, o, to_move)
        attacker = attacker & 1 if type(attacker) is int else attacker
    tables = _tables(name)
    table = module.ProofTable()
    search = _clean(lambda: module.ProofSearch(tables, x, o, to_move, attacker, table, leaf,
                                               threats))
    if search is None:
        search = module.ProofSearch(tables, 0, 0, 0, 0, table, 50, 6)
    methods: list[Callable[[Any, Any], Any]] = [
        lambda a, b: search.run(_limit(2_000), nodes=a),
        lambda a, b: search.run(_limit(2_000), thresholds=(a, b)),
        lambda a, b: search.play(a),
        lambda a, b: search.undo(a),
        lambda a, b: search.moves(),
        lambda a, b: search.best_move(),
        lambda a, b: search.children(),
        lambda a, b: search.defence_chain(),
        lambda a, b: search.proof(None if b else set()),
        lambda a, b: search.plies(),
        lambda a, b: search.resisting_move(),
    ]
    for kind, a, b in calls:
        _clean(methods[kind], a, b)
    _clean(lambda: (len(table), table.clear()))


@FUZZ
@given(name=st.sampled_from(BOARDS), order=st.one_of(st.just(None), CELL_LISTS),
       win_score=st.one_of(st.just(1000), INTS), canonical_marks=st.integers(-2, 10),
       book_marks=st.integers(-2, 10), book=st.lists(st.tuples(INTS, st.integers(-99, 99)),
                                                       max_size=4),
       max_entries=st.one_of(st.integers(-1, 50), INTS), dynamic=st.integers(-2, 70),
       calls=st.lists(st.tuples(st.integers(0, 4), ANY, ANY, ANY, ANY), max_size=6))
def test_exact(module: ModuleType, name: str, order: Any, win_score: Any, canonical_marks: int,
               book_marks: int, book: list[tuple[int, int]], max_entries: Any, dynamic: int,
               calls: list[tuple[int, Any, Any, Any, Any]]) -> None:
    game = variant(name)
    cells = game.cells
    order = tuple(range(cells)) if order is None else order
    perms = tables_for(game.geometry).perms
    keys = _clean(lambda: struct.pack(f"<{len(book)}Q", *sorted(k for k, _ in book)))
    scores = struct.pack(f"<{len(book)}h", *(s for _, s in book))
    exact = _clean(lambda: module.Exact(_tables(name), order, win_score,
                                        game.misere, perms, canonical_marks, book_marks,
                                        None if keys is None else memoryview(keys).cast("Q"),
                                        None if keys is None else memoryview(scores).cast("h"),
                                        max_entries, dynamic))
    if exact is None:
        exact = module.Exact(_tables(name), tuple(range(cells)), 1000,
                             game.misere, perms, -1, -1, None, None, 1_000, 4)
    methods: list[Callable[[Any, Any, Any, Any], Any]] = [
        lambda a, b, c, d: exact.search(a, b, c, d, _limit(3_000), 0),
        lambda a, b, c, d: exact.search(0, 0, c, d, _limit(3_000) if a is None else a, b),
        lambda a, b, c, d: exact.get(a),
        lambda a, b, c, d: exact.items(),
        lambda a, b, c, d: (exact.clear(), len(exact)),
    ]
    for kind, a, b, c, d in calls:
        _clean(methods[kind], a, b, c, d)


@FUZZ
@given(name=st.sampled_from(BOARDS), records=st.one_of(st.binary(max_size=23 * 6), JUNK),
       x=ANY, o=ANY, x_moves=st.booleans(), legal=ANY, depth=st.one_of(st.integers(-2, 6), JUNK),
       positions=st.lists(st.tuples(ANY, ANY, st.booleans(), ANY), max_size=4))
def test_strategy_checker(module: ModuleType, name: str, records: Any, x: Any, o: Any,
                          x_moves: bool, legal: Any, depth: Any,
                          positions: list[tuple[Any, Any, bool, Any]]) -> None:
    tables = _tables(name)
    _clean(lambda: module.verify_strategy(tables, records, x, o, x_moves, legal, depth, None))
    _clean(lambda: module.check_entries(tables, records, positions, depth))


def test_the_fuzzing_reaches_the_searches(module: ModuleType) -> None:
    # (the fuzz tests above must not stop at argument parsing: valid calls answer)
    search = module.Search(_tables("3x3"), 0, 0, 0, _values(Position("", "3x3")), False)
    assert search.root(2, search.ordered_moves(-1, 0), None)[1] in range(9)
    assert _clean(lambda: search.root(2, [9], None)) is None
    with pytest.raises(SystemError):
        _clean(lambda: (_ for _ in ()).throw(SystemError("a C bug")))


@pytest.mark.parametrize("tables", [None, 3, "3x3", object()])
def test_every_entry_point_wants_real_tables(module: ModuleType, tables: object) -> None:
    calls: list[Callable[[], Any]] = [
        lambda: module.Search(tables, 0, 0, 0, None, False),
        lambda: module.ThreatSearch(tables),
        lambda: module.defences(tables, 0, 0, []),
        lambda: module.chain_survives(tables, 0, 0, 0, []),
        lambda: module.ProofSearch(tables, 0, 0, 0, 0, module.ProofTable(), 10, 12),
        lambda: module.verify_strategy(tables, b"", 0, 0, True, 0, 1, None),
        lambda: module.check_entries(tables, b"", [], 1),
    ]
    for call in calls:
        with pytest.raises(TypeError):
            call()

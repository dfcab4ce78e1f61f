"""Inputs checked at the border of the compiled core: every search type reads a position
through one reader (the side to move, marks that overlap or leave the board), the
board's tables refuse lines, line lists and symmetries that do not fit the board, and
node and time limits past their bounds get one clear line, the same on both cores."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import pytest

from noughts.budget import MAX_NODES, MAX_SECONDS, BudgetExhausted, Limit
from noughts.engine import choose_move
from noughts.errors import NoughtsError
from noughts.exact.negamax import ExactSearch
from noughts.position import Position
from noughts.search import core
from noughts.search.board import tables_for
from noughts.search.core import Core, anytime_search, proof_search, proof_table, threat_search
from noughts.search.evaluate import search_weights
from noughts.variants import variant

CORES: tuple[Core, Core] = ("compiled", "python")
MARKS = "on the board, on different cells"


@pytest.fixture
def compiled_core() -> ModuleType:
    module = core.built()
    assert module is not None, "noughts.search._core is not built"
    return module


@contextmanager
def running(name: Core) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(core, "compiled", core.built if name == "compiled" else lambda: None)
        yield


def _tables(compiled_core: ModuleType, name: str = "3x3") -> object:
    return core._compiled_tables(tables_for(variant(name).geometry))


# -- one position reader ----------------------------------------------------------------
def _search_args(name: str = "3x3") -> tuple[object, list[int]]:
    from noughts.search.board import line_values

    position = Position("", name)
    tables = tables_for(position.geometry)
    values = line_values(tables, search_weights(position, "strong", None), 0)
    return core._compiled_tables(tables), core.flat_values(values)


@pytest.mark.parametrize(("x", "o", "to_move", "message"), [
    (0b1, 0b1, 0, "share a cell"),
    (1 << 9, 0, 0, "leave the board"),
    (-1, 0, 0, "leave the board"),
    (0, 1 << 70, 0, "leave the board"),
    (0b1, 0b10, 2, "the side to move is 0"),
    (0b1, 0b10, -1, "the side to move is 0"),
])
def test_every_search_type_reads_a_position_alike(compiled_core: ModuleType, x: int, o: int,
                                                  to_move: int, message: str) -> None:
    tables, values = _search_args()
    with pytest.raises(ValueError, match=message):
        compiled_core.Search(tables, x, o, to_move, values, False)
    with pytest.raises(ValueError, match=message):
        compiled_core.ProofSearch(tables, x, o, to_move, 0, compiled_core.ProofTable(), 10, 12)
    if to_move in (0, 1):  # (the others take two sides, not a side to move)
        with pytest.raises(ValueError, match=message):
            compiled_core.ThreatSearch(tables).find(x, o)
        with pytest.raises(ValueError, match=message):
            compiled_core.defences(tables, x, o, [])
        with pytest.raises(ValueError, match=message):
            compiled_core.check_entries(tables, b"", [(x, o, True, 0)], 1)


@pytest.mark.parametrize("name", CORES)
def test_the_exact_and_threat_searches_give_the_same_messages(name: Core) -> None:
    exact = ExactSearch(variant("4x4"), core=name)
    with pytest.raises(ValueError, match=f"share a cell: they must lie {MARKS}"):
        exact.search(0b11, 0b10, -1, 1)
    with pytest.raises(ValueError, match=f"leave the board: they must lie {MARKS}"):
        exact.search(-1, 0, -1, 1)
    threats = threat_search(variant("4x4"), core=name)
    with pytest.raises(ValueError, match=f"share a cell: they must lie {MARKS}"):
        threats.find(0b11, 0b10)


def test_the_tables_refuse_what_does_not_fit_the_board(compiled_core: ModuleType) -> None:
    tables = tables_for(variant("3x3").geometry)
    args = [tables.cells, tables.k, tables.lines, tables.through, tables.perms, *tables.base]

    def make(index: int, value: object) -> object:
        changed = list(args)
        changed[index] = value
        return compiled_core.Tables(*changed)

    make(0, 9)  # (as given: they fit)
    with pytest.raises(ValueError, match="off the board"):
        make(2, (*tables.lines[:-1], 0b111 << 9))  # a line's bits at or past the cells
    with pytest.raises(ValueError, match="off the board or of another length"):
        make(2, (*tables.lines[:-1], 0b11))
    through = [list(row) for row in tables.through]
    through[0].append(through[0][0])  # a line listed twice
    with pytest.raises(ValueError, match="not through the cell"):
        make(3, through)
    through = [list(row) for row in tables.through]
    through[0].append(next(i for i, line in enumerate(tables.lines) if not line & 1))
    with pytest.raises(ValueError, match="not through the cell"):
        make(3, through)
    through = [list(row) for row in tables.through]
    through[4].pop()
    with pytest.raises(ValueError, match="missing"):
        make(3, through)
    with pytest.raises(ValueError, match="not a permutation"):
        make(4, [(0,) * 9])
    with pytest.raises(ValueError, match="1 to 64 cells, k of 1 to 16"):
        make(1, 17)


def test_the_exact_search_takes_a_permutation_as_its_order(compiled_core: ModuleType) -> None:
    tables = core._compiled_tables(tables_for(variant("3x3").geometry))
    args = [tables, tuple(range(9)), 1000, False, ((*range(9),),), -1, -1, None, None, 100, 4]
    compiled_core.Exact(*args)
    args[1] = (0,) * 9
    with pytest.raises(ValueError, match="order: not a permutation"):
        compiled_core.Exact(*args)


# -- the limits' bounds -------------------------------------------------------------------
@pytest.mark.parametrize("name", CORES)
def test_out_of_range_limits_get_one_clear_line_on_both_cores(name: Core) -> None:
    position = Position("", "5x5k4")
    with running(name):
        with pytest.raises(NoughtsError, match=r"^node budget of 9,223,372,036,854,775,808 "
                                               r"is more than the limit of 1,000,000,000,000$"):
            choose_move(position, nodes=2**63)
        with pytest.raises(NoughtsError, match=r"^time limit of 1e\+300 seconds is more than "
                                               r"the limit of 86400 \(a day\)$"):
            choose_move(position, time_limit=1e300)
        for bad in (float("inf"), float("nan"), -1.0, 0):
            with pytest.raises(NoughtsError, match="positive number of seconds"):
                choose_move(position, time_limit=bad)
        choose_move(position, nodes=MAX_NODES, time_limit=0.05)  # the bounds themselves
    assert MAX_SECONDS == 86_400


@pytest.mark.parametrize("node_limit", [2**63, 2**200, -(2**70)])
def test_a_limit_past_64_bits_reads_as_the_python_core_reads_it(node_limit: int) -> None:
    # a Limit made by hand skips the bounds: the compiled core takes it as the Python
    # core does (a limit no search reaches, or one reached at once), not an OverflowError
    position = Position("X" + "." * 15, "4x4")
    answers = []
    for name in CORES:
        search = anytime_search(position, core=name)
        try:
            answers.append((*search.root(2, search.ordered_moves(-1, 0),
                                         Limit(node_limit=node_limit))[:2], search.nodes))
        except BudgetExhausted:
            answers.append(("stopped", search.nodes))
        proof = proof_search(position, 0, table=proof_table(name), core=name)
        answers.append(proof.run(Limit(node_limit=10), nodes=node_limit))
    assert answers[:2] == answers[2:]


def test_the_anytime_search_bounds_its_values_and_depths(compiled_core: ModuleType) -> None:
    # line values past 2**52 could overflow the board's 64-bit sums; a depth past the
    # killers' rows has no meaning on a board of at most 64 cells
    tables, values = _search_args()
    with pytest.raises(ValueError, match="past 2\\*\\*52"):
        compiled_core.Search(tables, 0, 0, 0, [*values[:-1], 2**53], False)
    with pytest.raises(ValueError, match="69 line values, not 68"):
        compiled_core.Search(tables, 0, 0, 0, values[:-1], False)
    search = compiled_core.Search(tables, 0, 0, 0, values, False)
    with pytest.raises(ValueError, match="depth 67: 0 to 66"):
        search.root(67, [0], None)
    with pytest.raises(ValueError, match="depth -1"):
        search.move_value(0, -1, None)
    assert search.root(9, search.ordered_moves(-1, 0), None)[0] == 0  # 3x3: a draw, whole

"""The compiled threat and proof-number searches against their Python references.

On many positions of every board the compiled core takes (3x3, 4x4k3, 4x4, 5x4k4,
3x3x3, Qubic), both sides as attacker, at fixed node budgets (some that stop a search
midway), both cores must give the same answers and count the same nodes: the threat
search's lines, hints and tables of failed positions over several calls of one search;
the defences of a chain; the proof search's numbers, moves, children, best moves,
plies, proof walks and table sizes, resumed and with tables shared between searches;
``prove``, ``find_win`` and the proof checks of ``ProofDefence``. A difference is a bug
in one of them. These tests need the compiled core: where it is not built they fail.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import random
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.errors import NoughtsError
from noughts.position import Position
from noughts.search import core
from noughts.search.board import tables_for
from noughts.search.core import (
    PURE_PYTHON_VARIABLE,
    Core,
    ProofSearcher,
    proof_search,
    proof_table,
    threat_search,
)
from noughts.search.defence import ProofDefence
from noughts.search.proof import find_win, prove
from noughts.search.proof_search import ProofSearch
from noughts.search.threat_search import ThreatSearch, chain_survives, defences
from test_proof import QUIET_WIN
from test_solver import random_position

MARKS = {"3x3": (0, 5), "4x4k3": (0, 7), "4x4": (1, 9), "5x4k4": (1, 11), "3x3x3": (0, 7),
         "qubic": (2, 14)}
"""The boards the compiled core takes, and how many marks their positions hold."""
BOARDS = list(MARKS)
CORES: tuple[Core, Core] = ("python", "compiled")


@pytest.fixture(scope="module", autouse=True)
def compiled_core() -> Iterator[ModuleType]:
    """The compiled module, with both cores selectable whatever the environment says
    (these tests compare them); a failure, not a skip, where it is not built."""
    try:
        module = importlib.import_module("noughts.search._core")
    except ImportError as error:
        pytest.fail(f"the compiled search core is not built ({error}): build it with "
                    "`python -c 'from setuptools import setup; setup()' build_ext --inplace`")
    saved = os.environ.pop(PURE_PYTHON_VARIABLE, None)
    core.compiled.cache_clear()
    yield module
    if saved is not None:
        os.environ[PURE_PYTHON_VARIABLE] = saved
    core.compiled.cache_clear()


@contextlib.contextmanager
def running(name: Core) -> Iterator[None]:
    """Every search made meanwhile by a factory's default runs on ``name``."""
    saved = os.environ.get(PURE_PYTHON_VARIABLE)
    os.environ[PURE_PYTHON_VARIABLE] = "1" if name == "python" else "0"
    core.compiled.cache_clear()
    try:
        assert core.name() == name
        yield
    finally:
        if saved is None:
            del os.environ[PURE_PYTHON_VARIABLE]
        else:
            os.environ[PURE_PYTHON_VARIABLE] = saved
        core.compiled.cache_clear()


def positions(board: str, count: int, seed: int) -> list[Position]:
    """``count`` unfinished positions of ``board`` after random moves, seeded."""
    rng = random.Random(f"{board}:{seed}")
    low, high = MARKS[board]
    return [random_position(board, rng.randint(low, high), rng) for _ in range(count)]


def sides(position: Position, attacker: int) -> tuple[int, int]:
    return (position.x, position.o) if attacker == 0 else (position.o, position.x)


def outcome(call: Callable[[], Any]) -> Any:
    """What a call gives: its value, or the kind of error it raised."""
    try:
        return call()
    except (ValueError, KeyError, BudgetExhausted) as error:
        return type(error).__name__


# -- the threat search ---------------------------------------------------------------------
def threat_record(name: Core, position: Position, attacker: int, nodes: int | None) -> list[Any]:
    """One search's calls in turn (its table of failed positions and its hint carry
    over), and what it holds after each."""
    mine, theirs = sides(position, attacker)
    limit = Limit(node_limit=nodes if nodes is not None else 300_000)
    search = threat_search(position.game, core=name)
    record: list[Any] = []
    calls = [lambda: search.find(mine, theirs, limit=limit),
             lambda: search.refute(theirs, mine, 4, limit),
             lambda: search.refute(mine, theirs, limit=limit),
             lambda: search.find(theirs, mine, 3, limit)]
    for call in calls:
        record.append(call())
        record.append((search.nodes, search.exhausted(), search.hint, search.failed_entries))
    # a new limit, stopping it midway
    record.append(search.find(theirs, mine, limit=Limit(node_limit=search.nodes + 40)))
    record.append((search.nodes, search.exhausted()))
    return record


@pytest.mark.parametrize("board", BOARDS)
def test_the_threat_searches_find_the_same_lines_with_the_same_nodes(board: str) -> None:
    found = 0
    for index, position in enumerate(positions(board, 80, 1)):
        for attacker in (0, 1):
            for limit in (None, 60, 700):
                python, compiled = (threat_record(name, position, attacker, limit)
                                    for name in CORES)
                assert python == compiled, (board, index, position.board, attacker, limit)
                found += python[0] is not None
    assert found > 10  # the positions hold chains to find


@pytest.mark.parametrize("board", BOARDS)
def test_the_defences_of_a_chain_are_the_same(board: str, compiled_core: ModuleType) -> None:
    game = Position("", board).game
    tables = core._compiled_tables(tables_for(game.geometry))
    checked = 0
    for position in positions(board, 120, 2):
        for attacker in (0, 1):
            mine, theirs = sides(position, attacker)
            line = ThreatSearch(game).refute(mine, theirs)
            if line is None:
                continue
            assert defences(game, mine, theirs, line) == compiled_core.defences(
                tables, mine, theirs, line)
            for cell in range(game.cells):
                if (mine | theirs) >> cell & 1:
                    continue
                after = theirs | 1 << cell
                assert chain_survives(game, mine, after, cell, line) == (
                    compiled_core.chain_survives(tables, mine, after, cell, line))
            checked += 1
    assert checked > 5


def test_bad_threat_search_input_gets_the_same_clear_errors() -> None:
    game = Position("", "qubic").game
    for name in CORES:
        search = threat_search(game, core=name)
        with pytest.raises(ValueError, match="on the board, on different cells"):
            search.find(1, 1)
        with pytest.raises(ValueError, match="on the board, on different cells"):
            search.refute(1 << 64, 2)
        with pytest.raises(ValueError, match="max_threats"):
            search.find(1, 2, -1)


# -- the proof search --------------------------------------------------------------------------
def reading(search: ProofSearcher) -> list[Any]:
    """What the search's table says of the position it stands at."""
    return [search.best_move(), search.children(), search.defence_chain(), len(search.table)]


def proof_record(name: Core, position: Position, attacker: int, limit: int,
                 **options: int) -> list[Any]:
    search = proof_search(position, attacker, core=name, **options)
    record: list[Any] = [search.run(nodes=limit), search.nodes, *reading(search)]
    record.append(outcome(search.moves))
    record.append(search.run(nodes=limit, thresholds=(50, 40)))  # resumed, thresholds
    numbers = search.run(nodes=limit)
    record += [numbers, search.nodes, *reading(search)]
    for move, _, _ in search.children()[:3]:  # the children's own tables, and proofs
        search.play(move)
        record += [move, *reading(search), outcome(search.plies), outcome(search.proof)]
        search.undo(move)
    if numbers[0] == 0:
        record += [search.plies(), search.proof(), search.nodes, len(search.table)]
        if position.to_move != "XO"[attacker]:
            record.append(search.resisting_move())
    return record


@pytest.mark.parametrize("board", BOARDS)
def test_the_proof_searches_agree_node_for_node(board: str) -> None:
    proven = 0
    for index, position in enumerate(positions(board, 24, 3)):
        for attacker in (0, 1):
            for limit in (37, 400, 5_000):
                python, compiled = (proof_record(name, position, attacker, limit)
                                    for name in CORES)
                assert python == compiled, (board, index, position.board, attacker, limit)
                proven += python[0][0] == 0
    assert proven > 5


@pytest.mark.parametrize("board", ["4x4k3", "4x4", "3x3x3", "qubic"])
def test_the_proof_searches_agree_with_the_leaf_chains_cut_short(board: str) -> None:
    """Leaf chains of few positions and threats leave the proof search the threats'
    work: forced blocks, double threats, defences, walked and counted."""
    for index, position in enumerate(positions(board, 10, 7)):
        for attacker in (0, 1):
            for leaf_threat_nodes, max_threats in ((0, 0), (1, 12), (30, 2)):
                python, compiled = (
                    proof_record(name, position, attacker, 3_000,
                                 leaf_threat_nodes=leaf_threat_nodes, max_threats=max_threats)
                    for name in CORES)
                assert python == compiled, (board, index, position.board, attacker,
                                            leaf_threat_nodes, max_threats)


@pytest.mark.parametrize("board", ["4x4", "5x4k4", "qubic"])
def test_searches_sharing_a_table_agree_over_many_runs(board: str) -> None:
    """Sibling positions searched in turn on one table (as the defence's checks and the
    strategy builder's jobs share theirs)."""
    for position in positions(board, 6, 4)[:4]:
        if len(position.legal_moves) < 4:
            continue
        attacker = 1 if position.to_move == "X" else 0  # the opponent, after each move
        records = []
        for name in CORES:
            table = proof_table(core=name)
            record: list[Any] = []
            for move in list(position.legal_moves)[:8]:
                after = position.play(move)
                if after.is_over:
                    continue
                search = proof_search(after, attacker, table=table, core=name)
                assert search.table is table
                record += [move, search.run(nodes=600), search.nodes, *reading(search)]
            table.clear()
            record.append(len(table))
            records.append(record)
        assert records[0] == records[1], (board, position.board)


def test_a_quiet_qubic_win_s_proof_is_the_same_walk() -> None:
    position = Position(QUIET_WIN, "qubic")
    walks = []
    for name in CORES:
        search = proof_search(position, 0, core=name)
        assert search.run(nodes=200_000)[0] == 0
        seen: set[int] = set()
        first = search.proof(seen)
        walks.append((search.nodes, first, search.proof(seen), sorted(seen), search.plies(),
                      len(search.table)))
    assert walks[0] == walks[1]
    assert len(walks[0][1]) > 1 and walks[0][2] == []  # the second walk skips the first's


def test_prove_and_find_win_give_the_same_results_on_both_cores() -> None:
    cases = [(board, position) for board in BOARDS for position in positions(board, 10, 5)]
    cases.append(("qubic", Position(QUIET_WIN, "qubic")))
    for board, position in cases:
        results = []
        for name in CORES:
            with running(name):
                result = prove(position, nodes=30_000)
                results.append((result.status, result.move, result.nodes, result.proof_size,
                                result.plies, result.proof_number, result.disproof_number,
                                find_win(position, limit=Limit(node_limit=5_000))))
        assert results[0] == results[1], (board, position.board)


def test_the_defence_s_proof_checks_agree() -> None:
    start = Position(QUIET_WIN, "qubic")
    quiet_loss = start.play(find_win(start, limit=Limit(node_limit=200_000))[0])  # type: ignore[index]
    for position in [quiet_loss, *positions("qubic", 6, 6), *positions("4x4", 4, 6)]:
        if position.is_over:
            continue
        records = []
        for name in CORES:
            with running(name):
                defence = ProofDefence(position, Limit(node_limit=400_000), check_nodes=3_000)
                moves = list(position.legal_moves)[:10]
                choice = defence.choose(moves)
                records.append((choice, defence.refuted, defence.effort,
                                sorted(defence.unrefuted), defence.nodes))
        assert records[0] == records[1], position.board


def test_a_cancelled_or_spent_limit_stops_both_alike() -> None:
    position = Position("", "qubic").play(0).play(21)
    for limit in (1, 2, 5):
        runs = []
        for name in CORES:
            cancelled = Limit()
            cancelled.cancel()
            search = proof_search(position, 0, core=name)
            runs.append((search.run(cancelled), search.nodes,
                         search.run(Limit(node_limit=limit)), search.nodes,
                         len(search.table)))
        assert runs[0] == runs[1]


# -- the one interface ---------------------------------------------------------------------
def test_the_factories_run_the_compiled_core_up_to_64_cells(compiled_core: ModuleType) -> None:
    with running("compiled"):
        qubic = Position("", "qubic")
        assert isinstance(proof_search(qubic, 0), compiled_core.ProofSearch)
        assert isinstance(threat_search(qubic.game), compiled_core.ThreatSearch)
        assert isinstance(proof_table(), compiled_core.ProofTable)
        big = Position("", "5x5x5")
        assert isinstance(proof_search(big, 0), ProofSearch)
        assert isinstance(threat_search(big.game), ThreatSearch)
        with pytest.raises(NoughtsError, match="up to 64 cells"):
            proof_search(big, 0, table=proof_table())
        with pytest.raises(NoughtsError, match="cannot serve"):
            proof_search(qubic, 0, table={}, core="compiled")
    with running("python"):
        assert isinstance(proof_search(Position("", "qubic"), 0), ProofSearch)
        assert isinstance(proof_table(), dict)


def test_a_compiled_table_serves_one_board(compiled_core: ModuleType) -> None:
    table = proof_table(core="compiled")
    proof_search(Position("", "4x4"), 0, table=table, core="compiled")
    with pytest.raises(ValueError, match="another board"):
        proof_search(Position("", "qubic"), 0, table=table, core="compiled")


def test_bad_proof_search_input_gets_the_same_clear_errors() -> None:
    position = Position("XO./.X./...")
    for name in CORES:
        search = proof_search(position, 0, core=name)
        with pytest.raises(ValueError, match="not an empty cell"):
            search.play(0)
        with pytest.raises(ValueError, match="not an empty cell"):
            search.play(9)
        with pytest.raises(ValueError, match="not the last move"):
            search.undo(8)
        search.play(8)
        with pytest.raises(ValueError, match="not the last move"):
            search.undo(7)
        search.undo(8)
        with pytest.raises(ValueError, match="not proven"):
            search.proof()
        with pytest.raises(ValueError, match=r"attacker|side"):
            proof_search(position, 2, core=name)


def test_a_compiled_search_runs_no_python_while_it_searches() -> None:
    """A compiled search polls its limit as plain values (its deadline, node limit and
    cancel switch's byte): no Python code runs inside a search, so none can call into it
    or clear its table meanwhile (a limit's properties are read once, when it is set)."""
    position = Position("", "qubic").play(0).play(21)
    table = proof_table(core="compiled")
    search = proof_search(position, 0, table=table, core="compiled")
    threats = threat_search(position.game, core="compiled")
    asked: list[str] = []

    class Watched(Limit):
        """A limit that notes each time its cancel switch is asked for by name."""

        @property
        def cancelled(self) -> bool:
            asked.append("cancelled")
            return False

    search.run(Watched(), nodes=50)  # (its limit, polled as plain values)
    search.moves()  # O's moves: X's threat chain is looked for first
    threats.find(position.x, position.o, limit=Watched())
    assert asked == []
    watched = Watched()
    watched.cancel()  # the switch itself is what a poll reads
    before = search.nodes
    search.run(watched, nodes=500)
    assert search.nodes - before <= 1 and asked == []  # (the root looked at, no more)
    assert search.run(nodes=500) and len(table) > 1  # both work on afterwards

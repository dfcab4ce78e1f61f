"""The compiled threat search against its Python reference.

On many positions of every board the compiled core takes (3x3, 4x4k3, 4x4, 5x4k4,
3x3x3, Qubic), both sides as attacker, at fixed node budgets (some that stop a search
midway), both cores must give the same answers and count the same nodes: the threat
search's lines, hints and tables of failed positions over several calls of one search;
the defences of a chain. A difference is a bug in one of them. These tests need the
compiled core: where it is not built they fail.
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
from noughts.position import Position
from noughts.search import core
from noughts.search.board import tables_for
from noughts.search.core import (
    PURE_PYTHON_VARIABLE,
    Core,
    threat_search,
)
from noughts.search.threat_search import ThreatSearch, chain_survives, defences
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
def threat_record(name: Core, position: Position, attacker: int, budget: int | None) -> list[Any]:
    """One search's calls in turn (its table of failed positions and its hint carry
    over), and what it holds after each."""
    mine, theirs = sides(position, attacker)
    limit = Limit(node_limit=budget if budget is not None else 300_000)
    search = threat_search(position.game, limit=limit, core=name)
    record: list[Any] = []
    calls = [lambda: search.find(mine, theirs), lambda: search.refute(theirs, mine, 4),
             lambda: search.refute(mine, theirs), lambda: search.find(theirs, mine, 3)]
    for call in calls:
        record.append(call())
        record.append((search.nodes, search.exhausted(), search.hint, search.failed_entries))
    search.limit = Limit(node_limit=search.nodes + 40)  # a new limit, stopping it midway
    record.append(search.find(theirs, mine))
    record.append((search.nodes, search.exhausted()))
    return record


@pytest.mark.parametrize("board", BOARDS)
def test_the_threat_searches_find_the_same_lines_with_the_same_nodes(board: str) -> None:
    found = 0
    for index, position in enumerate(positions(board, 80, 1)):
        for attacker in (0, 1):
            for budget in (None, 60, 700):
                python, compiled = (threat_record(name, position, attacker, budget)
                                    for name in CORES)
                assert python == compiled, (board, index, position.board, attacker, budget)
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

"""The compiled strategy checker against the Python one: the same Report.

``noughts verify-book`` checks a strategy with code of its own; the compiled core
ports that checker (``builders/csrc/check.c``). On the whole shipped Qubic strategy, on parts of
it from other roots, on damaged copies of it (a wrong move, an illegal one, one off the
board, a missing entry, a move that lets a reply end the game, an open entry under a
proven one, records out of order), on strategies the builder and the proof search make,
on random strategies of other boards (both players first) and on the threat checker
alone over random positions, both cores must give equal reports: every count, every
failure in order, the positions by plies, and the reports ``progress`` hears. A
difference is a bug in one of them. These tests need the compiled core: where it is not
built they fail.
"""

from __future__ import annotations

import ast
import copy
import importlib
import os
import random
import re
import struct
import sys
import zlib
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

import pytest

from noughts.builders import strategy_check
from noughts.builders.strategy_build import build_strategy
from noughts.builders.strategy_check import Report, check_entries, verify_strategy
from noughts.cli import main
from noughts.errors import NoughtsError
from noughts.knowledge.strategy import Entry, Strategy, shipped_strategy
from noughts.position import Position
from noughts.search import core
from noughts.search.core import PURE_PYTHON_VARIABLE, Core
from noughts.search.proof_search import ProofSearch
from test_proof import QUIET_WIN
from test_solver import random_position

CORES: tuple[Core, Core] = ("python", "compiled")
CSRC = Path(core.__file__).parent / "csrc"
CHECKER = Path(strategy_check.__file__).parent / "csrc" / "check.c"
"""The checker's C lives with the builders (compiled into the same module)."""


@pytest.fixture(scope="module", autouse=True)
def compiled_core() -> Iterator[ModuleType]:
    """The compiled module, with both cores selectable whatever the environment says;
    a failure, not a skip, where it is not built."""
    try:
        module = importlib.import_module("noughts.search._core")
    except ImportError as error:
        pytest.fail(f"the compiled search core is not built ({error}): build it with "
                    "`python -c 'from setuptools import setup; setup()' build_ext --inplace`")
    assert hasattr(module, "verify_strategy"), "the compiled core predates the checker"
    saved = os.environ.pop(PURE_PYTHON_VARIABLE, None)
    core.compiled.cache_clear()
    yield module
    if saved is not None:
        os.environ[PURE_PYTHON_VARIABLE] = saved
    core.compiled.cache_clear()


@pytest.fixture(scope="module")
def shipped() -> Strategy:
    strategy = shipped_strategy()
    assert strategy is not None, "the package ships a Qubic strategy"
    return strategy


def both(strategy: Strategy, root: Position | None = None) -> Report:
    """Verify on both cores; the reports must be equal. The Python core's report."""
    python, compiled = (verify_strategy(strategy, root, core=name) for name in CORES)
    assert asdict(compiled) == asdict(python)
    assert list(compiled.by_plies) == list(python.by_plies)  # met in the same order
    return python


def copy_of(strategy: Strategy) -> Strategy:
    """An unpacked copy of ``strategy`` to damage."""
    damaged = Strategy(strategy.variant)
    damaged.entries.update(strategy.entries)
    return damaged


def stored_below(strategy: Strategy, root: Position) -> Iterator[Position]:
    """The stored positions the walk from ``root`` meets, root first (each class once)."""
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        position = stack.pop()
        key = strategy.key(position)[0]
        found = strategy.lookup(position)
        if key in seen or found is None:
            continue
        seen.add(key)
        yield position
        after = position.play(found.move)
        if not after.is_over:
            stack.extend(after.play(reply) for reply in after.legal_moves
                         if not after.play(reply).is_over)


# -- the shipped strategy ----------------------------------------------------------------
def test_the_whole_shipped_strategy_gives_one_report(shipped: Strategy) -> None:
    report = both(shipped)
    assert report.ok and report.root_proven and report.checked > 10_000
    assert report.open_entries == report.unsolved == 0


ROOTS = [(2097153, 96), (35651584, 3), (274877911040, 65568), (572522496, 135200),
         (1153203117089619968, 4297097224)]
"""Stored positions of the shipped strategy after 4, 6 and 8 plies (X to move): roots
of parts of 1 to 161 stored positions."""


@pytest.mark.parametrize("key", ROOTS)
def test_parts_of_the_shipped_strategy_from_other_roots(shipped: Strategy,
                                                        key: tuple[int, int]) -> None:
    root = Position.from_bitboards(*key, "qubic").transform(7)  # in another orientation
    report = both(shipped, root)
    assert report.ok and report.root_proven and report.checked >= 1


def test_roots_the_strategy_does_not_store(shipped: Strategy) -> None:
    rng = random.Random(11)
    leaves = unsolved = 0
    for _ in range(12):
        report = both(shipped, random_position("qubic", 2 * rng.randrange(5, 12), rng))
        leaves += report.threat_leaves
        unsolved += report.unsolved
    finished = Position("XXXX/OOO./..../....|" + "|".join(["..../..../..../...."] * 3), "qubic")
    assert finished.winner == "X"
    both(shipped, finished)  # (O to move, the game over)
    assert leaves and unsolved


# -- damaged strategies ------------------------------------------------------------------
DAMAGE_ROOT = Position.from_bitboards(2097153, 96, "qubic")
"""A part of the shipped strategy of 47 stored positions and some 2,000 threat leaves."""


def test_a_wrong_move(shipped: Strategy) -> None:
    damaged = copy_of(shipped)
    key, symmetry = damaged.key(DAMAGE_ROOT)
    stored = damaged.entries[key]
    wrong = next(move for move in DAMAGE_ROOT.legal_moves
                 if damaged.geometry.symmetries[symmetry][move] != stored.move)
    damaged.add(DAMAGE_ROOT, wrong, proven=True, plies=stored.plies)
    report = both(damaged, DAMAGE_ROOT)
    assert not report.ok and report.unsolved


def test_an_illegal_move_and_one_off_the_board(shipped: Strategy) -> None:
    damaged = copy_of(shipped)
    key = damaged.key(DAMAGE_ROOT)[0]  # (the root is in its key's orientation)
    stored = damaged.entries[key]
    taken = (key[0] | key[1]).bit_length() - 1
    damaged.store(key, Entry(taken, True, stored.plies))
    report = both(damaged, DAMAGE_ROOT)
    assert report.failures == [f"{DAMAGE_ROOT.board}: stored move {taken} is illegal"]
    # a move byte past the board (a damaged file): reported, not a crash
    damaged.store(key, Entry(200, True, stored.plies))
    report = both(Strategy.from_bytes(damaged.to_bytes()), DAMAGE_ROOT)
    assert report.failures == [f"{DAMAGE_ROOT.board}: stored move 200 is illegal"]


def test_a_missing_entry_and_an_open_entry_under_a_proven_one(shipped: Strategy) -> None:
    below = list(stored_below(shipped, DAMAGE_ROOT))[1:]
    assert len(below) >= 10
    for position in below[:: len(below) // 5]:
        key = shipped.key(position)[0]
        missing = copy_of(shipped)
        del missing.entries[key]
        report = both(missing, DAMAGE_ROOT)
        assert report.checked < 47
        opened = copy_of(shipped)
        opened.store(key, Entry(shipped.entries[key].move, False, 0))
        report = both(opened, DAMAGE_ROOT)
        assert report.open_entries == 1


def test_a_move_that_lets_a_reply_end_the_game(shipped: Strategy) -> None:
    k, cases = 4, 0
    for position in stored_below(shipped, DAMAGE_ROOT):
        them = position.marks(position.last_mover)
        mine = position.marks(position.to_move)
        threats = [line for line in position.geometry.lines
                   if not line & mine and (line & them).bit_count() == k - 1]
        if not threats:
            continue
        block = (threats[0] & ~them).bit_length() - 1
        careless = next(move for move in position.legal_moves
                        if move != block and not position.play(move).is_over)
        damaged = copy_of(shipped)
        damaged.add(position, careless, proven=True, plies=3)
        report = both(damaged, DAMAGE_ROOT)
        assert any("ends the game" in failure for failure in report.failures)
        cases += 1
        if cases == 3:
            break
    assert cases == 3


def test_records_out_of_order_are_searched_alike(shipped: Strategy) -> None:
    """A file whose records are not sorted: both cores search them as the Python
    strategy's lookups do (a binary search), and miss the same entries."""
    part = Strategy("qubic")
    for position in stored_below(shipped, DAMAGE_ROOT):
        key = part.key(position)[0]
        part.store(key, shipped.entries[key])
    size = struct.calcsize("<QQBBBI")
    body = part.records()
    records = [body[i:i + size] for i in range(0, len(body), size)]
    random.Random(3).shuffle(records)
    data = part.to_bytes()
    header = data[: len(b"NQS1") + 1 + data[len(b"NQS1")]]  # the magic and the name
    shuffled = Strategy.from_bytes(header + zlib.compress(b"".join(records)))
    assert asdict(both(shuffled, DAMAGE_ROOT)) != asdict(both(part, DAMAGE_ROOT))


# -- other strategies, other boards ------------------------------------------------------
@pytest.mark.parametrize("variant", ["4x4k3", "3x3x3"])
def test_strategies_the_builder_makes(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "strategy.bin"
    assert build_strategy(path, variant, seconds=60, job_seconds=5, opening=None).complete
    report = both(Strategy.load(path))
    assert report.ok and report.root_proven


def test_a_partial_qubic_strategy_with_open_entries(tmp_path: Path) -> None:
    path = tmp_path / "qubic.bin"
    build_strategy(path, "qubic", seconds=3, job_seconds=1)
    report = both(Strategy.load(path))
    assert report.open_entries and report.unsolved and not report.root_proven


def test_a_strategy_from_the_proof_search() -> None:
    position = Position(QUIET_WIN, "qubic")
    search = ProofSearch(position, 0)
    assert search.run(nodes=200_000)[0] == 0
    strategy = Strategy("qubic")
    for x, o, move, chain, plies in search.proof():
        if not chain:
            strategy.add(Position.from_bitboards(x, o, "qubic"), move, proven=True, plies=plies)
    report = both(strategy, position)
    assert report.ok and report.root_proven


def random_strategy(root: Position, rng: random.Random, size: int) -> Strategy:
    """Up to ``size`` entries along the games from ``root``: at a position with the
    root's player to move, a random legal move, proven or open at random (a wrong move
    as often as not: failures of every kind)."""
    strategy = Strategy(root.variant)
    stack = [root]
    while stack and len(strategy) < size:
        position = stack.pop(rng.randrange(len(stack)))
        if position.is_over or strategy.lookup(position) is not None:
            continue
        move = rng.choice(list(position.legal_moves))
        strategy.add(position, move, proven=rng.random() < 0.7, plies=3)
        after = position.play(move)
        if not after.is_over:
            replies = [after.play(reply) for reply in after.legal_moves]
            stack.extend(rng.sample(replies, min(4, len(replies))))
    return strategy


@pytest.mark.parametrize("variant", ["3x3", "4x4k3", "4x4", "5x4k4", "7x6k4", "3x3x3", "qubic"])
def test_random_strategies_of_every_board(variant: str) -> None:
    rng = random.Random(variant)
    failed = 0
    for first in ("X", "O"):
        for _ in range(4):
            root = Position("", variant, first=first)
            for _ in range(rng.randrange(3)):
                root = root.play(rng.choice([m for m in root.legal_moves
                                             if not root.play(m).is_over]))
            strategy = random_strategy(root, rng, 60)
            failed += len(both(strategy, root).failures)
            if first == "X":  # (check_entries reads an entry as a game X began)
                python, compiled = (check_entries(strategy, 10, seed=5, core=name)
                                    for name in CORES)
                assert asdict(compiled) == asdict(python)
    assert failed


def test_the_random_strategies_meet_every_kind_of_failure() -> None:
    rng = random.Random(1)
    kinds: set[str] = set()
    for _ in range(30):
        strategy = random_strategy(Position("", "3x3"), rng, 40)
        kinds |= {re.sub(r"^\S+: |\d+", "", failure) for failure in both(strategy).failures}
    assert kinds == {"not stored and no threat win", "stored move  draws",
                     "after ,  ends the game", "stored as proven, but not every reply is won"}


# -- check_entries, progress, the threat checker -----------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_check_entries_on_the_shipped_and_a_damaged_strategy(shipped: Strategy,
                                                             seed: int) -> None:
    python, compiled = (check_entries(shipped, 40, seed=seed, core=name) for name in CORES)
    assert asdict(compiled) == asdict(python) and python.ok and python.checked == 40
    damaged = copy_of(shipped)
    rng = random.Random(seed)
    for key in rng.sample(sorted(damaged.entries), 3000):
        del damaged.entries[key]
    python, compiled = (check_entries(damaged, 60, seed=seed, core=name) for name in CORES)
    assert asdict(compiled) == asdict(python) and not python.ok


def test_progress_hears_the_same_reports(shipped: Strategy) -> None:
    root = Position.from_bitboards(281474976710657, 4104, "qubic")  # 106 stored positions
    heard: dict[str, list[dict[str, object]]] = {}
    for name in CORES:
        reports: list[dict[str, object]] = []
        verify_strategy(shipped, root, core=name,
                        progress=lambda report, kept=reports: kept.append(
                            copy.deepcopy(asdict(report))))
        heard[name] = reports
    assert heard["compiled"] == heard["python"]
    assert [report["checked"] for report in heard["python"]] == [100] * 5  # (as the walk
    # unwinds from the hundredth, each stored position it leaves has checked 100)


MOST_MARKS = {"4x4k3": 8, "5x4k4": 12, "7x6k4": 20, "3x3x3": 8, "qubic": 24}
"""Random positions of these boards with up to this many marks (more and a game with no
line yet grows rare: 3x3x3 has no draw)."""


@pytest.mark.parametrize("variant", list(MOST_MARKS))
def test_the_threat_checker_on_random_positions(variant: str) -> None:
    """An empty strategy: the root is a threat leaf or unsolved, as the threat checker
    finds (both sides to move, positions of few to many marks)."""
    rng = random.Random(variant)
    empty = Strategy(variant)
    won = 0
    for _ in range(150):
        position = random_position(variant, rng.randrange(2, MOST_MARKS[variant] + 1), rng)
        won += both(empty, position).threat_leaves
    assert 0 < won < 150


# -- which core, and what the checker leans on -------------------------------------------
def test_the_default_core_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                  shipped: Strategy) -> None:
    ran: list[str] = []
    real = strategy_check._Walk.walk

    def counted(self: strategy_check._Walk, *args: object, **kwargs: object) -> bool:
        ran.append("python")
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(strategy_check._Walk, "walk", counted)
    root = Position.from_bitboards(*ROOTS[-1], "qubic")
    verify_strategy(shipped, root)
    assert ran == []  # the compiled checker ran
    monkeypatch.setenv(PURE_PYTHON_VARIABLE, "1")
    core.compiled.cache_clear()
    try:
        verify_strategy(shipped, root)
    finally:
        monkeypatch.delenv(PURE_PYTHON_VARIABLE)
        core.compiled.cache_clear()
    assert ran


def test_asking_for_a_compiled_checker_that_is_not_there(monkeypatch: pytest.MonkeyPatch,
                                                         shipped: Strategy,
                                                         compiled_core: ModuleType) -> None:
    root = Position.from_bitboards(*ROOTS[-1], "qubic")
    try:
        monkeypatch.setattr(core, "built", lambda: None)
        with pytest.raises(NoughtsError, match="not built"):
            verify_strategy(shipped, core="compiled")
        older = ModuleType("an older build")  # the board limits, but no checker
        for limit in ("MAX_CELLS", "MAX_K", "MAX_LINES", "MAX_THROUGH"):
            setattr(older, limit, getattr(compiled_core, limit))
        monkeypatch.setattr(core, "built", lambda: older)
        core.compiled.cache_clear()
        with pytest.raises(NoughtsError, match="without the strategy checker"):
            check_entries(shipped, 3, core="compiled")
        assert verify_strategy(shipped, root).ok  # by default, the Python checker then
    finally:
        monkeypatch.undo()
        core.compiled.cache_clear()


def test_the_checker_leans_on_none_of_the_searches() -> None:
    """The checker shares the compiled core's plumbing (tables, maps, conversions) and
    the choice of core, not the searches it checks: check.c calls no function that
    threats.c, proof.c or pvs.c define, and the Python checker imports no search."""
    definition = re.compile(r"^(?:static\s+|inline\s+)*[A-Za-z_]\w*[\s*]+(\w+)\(", re.M)
    source = CHECKER.read_text()
    searches = {name for file in ("threats.c", "proof.c", "pvs.c")
                for name in definition.findall((CSRC / file).read_text())}
    assert {"threats_chain", "search", "deepen"} <= searches  # (the pattern finds them)
    called = set(re.findall(r"\b(\w+)\(", source)) - set(definition.findall(source))
    assert not called & searches
    tree = ast.parse(Path(strategy_check.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {name for name in imported if name and name.startswith("noughts.search")} == {
        "noughts.search.core"}


def test_verify_book_reports_a_move_off_the_board(tmp_path: Path, shipped: Strategy,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    damaged = copy_of(shipped)
    key = damaged.key(Position("", "qubic"))[0]
    damaged.store(key, Entry(99, True, 57))
    path = tmp_path / "damaged.bin"
    damaged.save(path)
    for pure in ("1", "0"):
        monkeypatch.setenv(PURE_PYTHON_VARIABLE, pure)
        core.compiled.cache_clear()
        try:
            status = main(["verify-book", "qubic", "--file", str(path)])
        finally:
            core.compiled.cache_clear()
        out = capsys.readouterr().out
        assert status == 1
        assert f"FAILED {Position('', 'qubic').board}: stored move 99 is illegal" in out


def test_a_core_built_from_older_sources_is_left_for_python(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """An extension built before the core exported its board limits (a stale in-place
    build) would fail in the first search that asks them: the loader leaves it, with
    one warning, and the searches run on Python."""
    stale = ModuleType("noughts.search._core")
    stale.Search = object  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "noughts.search._core", stale)
    monkeypatch.setattr(sys.modules["noughts.search"], "_core", stale, raising=False)
    with caplog.at_level("WARNING", logger="noughts.search"):
        assert core._load_built() is None
    assert "built from older sources" in caplog.text

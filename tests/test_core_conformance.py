"""Every board on every core, in the manner of a game registry's conformance tests: for
every variant name the registry can form (:func:`noughts.variants.every_name`, normal
and misère), both search cores give the same answer at a node limit (move, value, node
count, the plan's stage) or the same clear :class:`NoughtsError`, and the move service
answers a fixed large sample of them with 200 or 4xx, never 5xx.

The parity sweep covers every name of at most 64 cells (3,292 names): the boards the
compiled core could be handed at all (beyond :func:`~noughts.search.core.fits_compiled`
they play on the Python core, so both cores are then one). Two positions a name: the
empty board and one random position of it (seeded by its name).
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator

import pytest

from noughts.budget import Limit
from noughts.engine import choose_move
from noughts.errors import NoughtsError
from noughts.exact import solver
from noughts.position import Position
from noughts.runtime.lru import LRU
from noughts.search import core
from noughts.search.proof_search import ProofSearch
from noughts.search.pvs import AnytimeSearch
from noughts.search.threat_search import ThreatSearch
from noughts.variants import ALIASES, MISERE_SUFFIX, every_name, variant

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx
from fastapi.testclient import TestClient  # noqa: E402

from noughts.service.app import create_app  # noqa: E402
from noughts.service.settings import Settings  # noqa: E402

NODES = 200
"""The node limit of each answer (small: the sweep is of boards, not of depth)."""

SMALL = every_name(64)
"""Every name of a board the compiled core could take (at most 64 cells)."""


def _positions(name: str) -> list[Position]:
    """The empty board and one random position of it, if the game is not over there."""
    rng = random.Random(name)
    empty = Position("", name)
    position = empty
    marks = rng.randint(1, max(1, empty.geometry.cells // 2))
    while position.ply < marks and not position.is_over:
        position = position.play(rng.choice(list(position.legal_moves)))
    return [empty] + ([position] if not position.is_over else [])


def _answer(position: Position, monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    # new exact solvers: each picks its core when made
    monkeypatch.setattr(solver, "_SOLVERS", LRU(solver.MAX_KEPT_SOLVERS))
    try:
        choice = choose_move(position, Limit.within(nodes=NODES), seed=0)
    except NoughtsError as error:
        return ("error", type(error).__name__, str(error))
    return (choice.move, choice.value, choice.estimate, choice.pv, choice.nodes, choice.method)


def _first_rows() -> list[str]:
    """The sweep's parts: the names by their board's first side (20 parts)."""
    return sorted({name.split("x")[0] for name in SMALL}, key=int)


def test_the_sweep_is_of_every_small_name() -> None:
    assert len(SMALL) == 3_292
    assert len(set(SMALL)) == len(SMALL)
    assert all(variant(name).name == name for name in SMALL[::7])
    # the other spellings name these records: default k, aliases, the misère suffix
    assert variant("4x4k4") is variant("4x4")
    for alias, name in ALIASES.items():
        assert variant(alias + MISERE_SUFFIX).name == name + MISERE_SUFFIX


@pytest.fixture
def both_cores(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    assert core.built() is not None, "noughts.search._core is not built"
    # the solver's misère limit is the compiled core's to widen (the plans then differ
    # by design): the same limit on both
    monkeypatch.setattr(solver, "MAX_EMPTY_CELLS_MISERE_COMPILED",
                        solver.MAX_EMPTY_CELLS_MISERE)
    yield monkeypatch


@pytest.mark.parametrize("rows", _first_rows())
def test_both_cores_answer_alike_on_every_board(rows: str,
                                                both_cores: pytest.MonkeyPatch) -> None:
    names = [name for name in SMALL if name.split("x")[0] == rows]
    compiled, python = core.built, (lambda: None)
    differences = []
    for name in names:
        for position in _positions(name):
            both_cores.setattr(core, "compiled", compiled)
            on_compiled = _answer(position, both_cores)
            both_cores.setattr(core, "compiled", python)
            on_python = _answer(position, both_cores)
            if on_compiled != on_python:
                differences.append((name, position.ply, on_compiled, on_python))
    assert not differences, f"{len(differences)} positions differ: {differences[:5]}"


def test_the_boards_past_the_limits_run_on_the_python_core() -> None:
    module = core.built()
    assert module is not None
    for name in ("3x19k17", "1x17k17", "2x19k19-misere", "4x4x4k2", "5x5x5"):
        game = variant(name)
        assert not core.fits_compiled(game), name
        assert isinstance(core.anytime_search(Position("", name)), AnytimeSearch)
        assert isinstance(core.threat_search(game), ThreatSearch)
        assert isinstance(core.proof_search(Position("", name), 0), ProofSearch)
        assert core.exact_search(game.geometry, misere=False, order=tuple(range(game.cells)),
                                 perms=((*range(game.cells),),), canonical_marks=-1,
                                 book=None, book_marks=-1, max_entries=10,
                                 dynamic_empties=4) is None
        assert isinstance(core.proof_table(game=game), dict)
    qubic = variant("qubic")
    assert core.fits_compiled(qubic)
    assert len(qubic.lines) <= module.MAX_LINES and qubic.k <= module.MAX_K
    assert len(variant("4x4x4k2").lines) > module.MAX_LINES  # 468 lines
    assert "up to 64 cells" in core.compiled_limits()


# -- the service -----------------------------------------------------------------------
LARGEST = ["19x19", "19x19k19-misere", "5x5x5k2"]
"""The largest boards the service plays (19x19: its limit of 361 cells)."""
API_SAMPLE = (SMALL[::12] + [name for name in every_name() if name not in set(SMALL)][::60]
              + LARGEST)
"""A fixed sample of the names the service accepts (every 12th of at most 64 cells, every
60th larger one, the largest): 382 requests."""

TIME_MS = 20
"""Each request's budget."""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    settings = Settings(min_time_ms=1, warmup=False, queue_wait_ms=5_000)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_the_sample_reaches_the_service_limit() -> None:
    assert len(API_SAMPLE) == 382
    assert variant(LARGEST[0]).cells == Settings().max_cells == 361


def test_the_service_answers_every_board_without_a_server_error(client: TestClient) -> None:
    failures = []
    for name in API_SAMPLE:
        body = {"variant": name, "time_ms": TIME_MS}
        response = client.post("/api/v1/move", json=body)
        if response.status_code == 503 and "no move within the budget" in response.text:
            # a cold board can spend a tiny budget on its tables: the same request,
            # warm, with a real budget, must be answered
            response = client.post("/api/v1/move", json={**body, "time_ms": 1_000})
        if response.status_code >= 500 or response.status_code not in (200, *range(400, 500)):
            failures.append((name, response.status_code, response.text[:120]))
    assert not failures, f"{len(failures)} names got a server error: {failures[:5]}"

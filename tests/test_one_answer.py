"""One position, one answer: the library, the command line and the service (cache hit or
miss, in a thread or a worker process) give the same move at a node limit, and every
symmetric image of the board gets that move mapped (:mod:`noughts.orientation`); a game
seed picks among equally good moves, the same in every orientation."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx

from fastapi.testclient import TestClient  # noqa: E402

from noughts.budget import Limit  # noqa: E402
from noughts.engine import choose_move, evaluate_moves  # noqa: E402
from noughts.knowledge.shipped import SHIPPED  # noqa: E402
from noughts.orientation import Orientation  # noqa: E402
from noughts.position import Position  # noqa: E402
from noughts.results import MoveChoice  # noqa: E402
from noughts.search.ties import tie_margin  # noqa: E402
from noughts.service.app import create_app  # noqa: E402
from noughts.service.cache import build_symmetries  # noqa: E402
from noughts.service.moves import MoveService  # noqa: E402
from noughts.service.settings import Settings  # noqa: E402
from waiting import wait_until  # noqa: E402

QUBIC = Position("...X...X.............................O....O.....X...............", "qubic")
"""The issue's position: X on 3, 7 and 48, O on 37 and 42, O to move."""

FAMILIES = [  # (position with no symmetry of its own, nodes)
    (Position("XO./.../..."), None),  # 3x3, exact (its table)
    (Position("X.../..O./..../....", "4x4k3"), None),  # exact (negamax)
    (Position("XO../..../..X./....", "4x4"), None),  # exact (its book)
    (Position("X.../..O./....", "3x4k3"), None),  # rectangular: four symmetries
    (Position("X.O/.../...", "3x3-misere"), None),  # misère, exact
    (Position("X.../..O./..../....", "4x4k3-misere"), 4_000),  # misère, anytime
    (QUBIC, 20_000),  # anytime, a fixed sample of its 192 symmetries
]
IDS = [position.game.name for position, _ in FAMILIES]


def symmetries(position: Position) -> list[int]:
    """Every symmetry of a board with at most 8, else the identity and a fixed sample."""
    count = position.geometry.symmetry_group.count
    return [0, *random.Random(50).sample(range(1, count), 7)] if count > 8 else list(
        range(count))


def stabiliser(position: Position) -> int:
    """How many symmetries of the board leave ``position`` as it is."""
    count = position.geometry.symmetry_group.count
    return sum(position.transform(s) == position for s in range(count))


def answer(position: Position, nodes: int | None, **kwargs: Any) -> MoveChoice:
    limit = None if nodes is None else Limit.within(nodes=nodes)
    return choose_move(position, limit, **kwargs)


def assert_mapped(position: Position, move: int, symmetry: int, image_move: int) -> None:
    """``image_move`` on the image of ``position`` under ``symmetry`` is ``move`` mapped."""
    assert image_move == position.geometry.symmetry_group.perms[symmetry][move], (
        f"{position.game.name} {position.board}: symmetry {symmetry} answered {image_move}, "
        f"not the image of {move}")


# -- the library, in every orientation ---------------------------------------------------------
@pytest.mark.parametrize(("position", "nodes"), FAMILIES, ids=IDS)
def test_every_orientation_gets_the_mapped_move(position: Position, nodes: int | None) -> None:
    assert stabiliser(position) == 1  # (so "the mapped move" is one cell)
    base = answer(position, nodes)
    for symmetry in symmetries(position):
        image = position.transform(symmetry)
        found = answer(image, nodes)
        assert_mapped(position, base.move, symmetry, found.move)
        perm = position.geometry.symmetry_group.perms[symmetry]
        assert found.pv == tuple(perm[c] for c in base.pv)
        assert found.value == base.value and found.estimate == base.estimate


@pytest.mark.parametrize(("position", "nodes"), FAMILIES, ids=IDS)
def test_seeded_and_level_play_map_too(position: Position, nodes: int | None) -> None:
    base = answer(position, nodes, seed=11)
    weak = answer(position, nodes or 2_000, level=5, seed=4)
    for symmetry in symmetries(position)[:4]:
        image = position.transform(symmetry)
        assert_mapped(position, base.move, symmetry, answer(image, nodes, seed=11).move)
        assert_mapped(position, weak.move, symmetry,
                      answer(image, nodes or 2_000, level=5, seed=4).move)


@pytest.mark.parametrize("name", ["4x4k3", "4x4k3-misere"])
def test_every_moves_value_maps(name: str) -> None:
    position = Position("X.../..O./..../....", name)
    limit = Limit.within(nodes=3_000)
    values = {e.move: (e.value, e.estimate) for e in evaluate_moves(position, limit)}
    for symmetry in symmetries(position):
        perm = position.geometry.symmetry_group.perms[symmetry]
        image = evaluate_moves(position.transform(symmetry), Limit.within(nodes=3_000))
        assert [e.move for e in image] == sorted(e.move for e in image)
        assert {e.move: (e.value, e.estimate) for e in image} == {
            perm[move]: value for move, value in values.items()}


def test_orientation_maps_both_ways() -> None:
    view = Orientation.of(QUBIC.transform(symmetries(QUBIC)[1]))
    assert view.canonical == Orientation.of(QUBIC).canonical
    for cell in range(64):
        assert view.to_original(view.to_canonical(cell)) == cell
    assert Orientation.of(Position("X" + "." * 99, "10x10k5")).identity


# -- the command line --------------------------------------------------------------------------
def _cli(*args: str) -> dict[str, Any]:
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run([sys.executable, "-m", "noughts", *args, "--json"], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_command_line_gives_the_librarys_move_in_any_orientation() -> None:
    symmetry = symmetries(QUBIC)[2]
    image = QUBIC.transform(symmetry)
    library = answer(QUBIC, 20_000).move
    for position in (QUBIC, image):
        cli = _cli("move", position.board, "--variant", "qubic", "--nodes", "20000",
                   "--time", "60")
        assert cli["move"] == answer(position, 20_000).move
    assert_mapped(QUBIC, library, symmetry, cli["move"])
    position = Position("X.../..O./..../....", "4x4k3").transform(5)
    analysis = _cli("analyze", position.board, "--variant", "4x4k3")
    assert [(m["move"], m["outcome"], m["plies"]) for m in analysis["moves"]] == [
        (e.move, e.outcome, e.plies) for e in evaluate_moves(position)]


# -- the service --------------------------------------------------------------------------------
def test_the_api_gives_the_librarys_move_cache_hit_or_miss() -> None:
    with TestClient(create_app(Settings(warmup=False))) as client:
        for position, _ in FAMILIES[:5]:  # (boards answered exactly: any budget)
            for seed in (None, 1, 2):
                for symmetry in symmetries(position):
                    image = position.transform(symmetry)
                    body = {"variant": image.game.name, "board": image.board, "seed": seed}
                    got = client.post("/api/v1/move", json=body).json()
                    assert got["move"] == choose_move(image, seed=seed).move, (body, got)
                    assert got["cached"] == (symmetry != 0)  # one entry for them all
            for symmetry in symmetries(position)[:3]:  # a level's mistakes (never cached)
                image = position.transform(symmetry)
                body = {"variant": image.game.name, "board": image.board, "level": 4,
                        "seed": 5}
                got = client.post("/api/v1/move", json=body).json()
                assert got["move"] == choose_move(image, level=4, seed=5).move, (body, got)
            analysis = client.post("/api/v1/analyze", json={
                "variant": position.game.name, "board": position.transform(1).board}).json()
            assert [(m["move"], m["outcome"]) for m in analysis["moves"]] == [
                (e.move, e.outcome) for e in evaluate_moves(position.transform(1))]


class NodeLimited(MoveService):
    """The service with a node limit on each request (the API bounds time only)."""

    nodes = 20_000

    def _budget(self, time_ms: int | None, arrived: float | None) -> tuple[Limit, int]:
        _, budget_ms = super()._budget(time_ms, arrived)
        return Limit.within(seconds=60, nodes=self.nodes, since=arrived), budget_ms


@pytest.mark.parametrize(("processes", "cache_size"), [(0, 0), (0, 100), (1, 100)],
                         ids=["thread, no cache", "thread", "worker process"])
def test_the_service_at_a_node_limit_answers_as_the_library(processes: int,
                                                            cache_size: int) -> None:
    build_symmetries(QUBIC.game)  # (else the cache waits for the warm-up to key Qubic)
    service = NodeLimited(Settings(warmup=False, search_processes=processes,
                                   cache_size=cache_size, max_time_ms=60_000))
    if service.pool is not None:
        service.pool.start()
    try:
        if service.pool is not None:
            wait_until(lambda: service.pool is not None and service.pool.ready == 1, 60)
        expected = choose_move(QUBIC, Limit.within(seconds=60, nodes=NodeLimited.nodes))
        for index, symmetry in enumerate(symmetries(QUBIC)[:3]):
            image = QUBIC.transform(symmetry)
            found = asyncio.run(service.move(image, level=10, time_ms=60_000, seed=None))
            assert_mapped(QUBIC, expected.move, symmetry, found.result.move)
            assert found.cached == (index > 0 and cache_size > 0)  # a miss, then hits
        seeded = choose_move(QUBIC, Limit.within(seconds=60, nodes=NodeLimited.nodes), seed=9)
        symmetry = symmetries(QUBIC)[4]
        found = asyncio.run(service.move(QUBIC.transform(symmetry), level=10, time_ms=60_000,
                                         seed=9))
        assert_mapped(QUBIC, seeded.move, symmetry, found.result.move)
    finally:
        if service.pool is not None:
            service.pool.close()


# -- the game seed ------------------------------------------------------------------------------
def test_seeds_pick_among_equally_good_moves_never_a_worse_value() -> None:
    for position in (Position(), Position("X../.O./..."), Position("", "4x4k3")):
        best = max(e.score or 0 for e in evaluate_moves(position))
        picked = {choose_move(position, seed=seed).move for seed in range(12)}
        values = {e.move: e.score for e in evaluate_moves(position)}
        assert all(values[move] == best for move in picked)
        assert len(picked) > 1, position
    assert len({choose_move(position, seed=None).move for _ in range(3)}) == 1


NEAR_TIE = Position("...X/.O../...X/...O|..../..../...O/....|..../..../..X./....|"
                    "..../..../.X../....", "qubic")
"""O to move: at 30,000 nodes the search values two moves within a line of one mark."""


def test_a_qubic_seed_picks_among_near_ties_and_keeps_a_proven_win() -> None:
    base = answer(NEAR_TIE, 30_000)
    assert base.estimate is not None
    margin = tie_margin(NEAR_TIE, learned=SHIPPED.learned_for(NEAR_TIE.game))
    picks = {seed: answer(NEAR_TIE, 30_000, seed=seed) for seed in range(8)}
    assert len({pick.move for pick in picks.values()}) > 1
    for seed, pick in picks.items():
        assert pick.estimate is not None and pick.depth == base.depth
        assert base.estimate.score - margin <= pick.estimate.score <= base.estimate.score
        symmetry = symmetries(QUBIC)[1 + seed % 6]
        image = answer(NEAR_TIE.transform(symmetry), 30_000, seed=seed)
        assert_mapped(NEAR_TIE, pick.move, symmetry, image.move)
    won = Position("XXX./OOO./..../....|" + "|".join(["..../..../..../...."] * 3), "qubic")
    assert {answer(won, 2_000, seed=seed).move for seed in range(6)} == {3}

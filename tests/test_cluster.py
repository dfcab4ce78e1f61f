"""The arena and plain jobs on a real local Ray cluster (2 CPUs on 127.0.0.1).

Ray takes seconds to start, so one executor serves every test here; it stops when the
module ends (a cluster left running would load the machine under later timing tests).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from noughts.arena.match import run_arena, run_match
from noughts.builders.strategy_build import build_strategy
from noughts.builders.strategy_check import verify_strategy
from noughts.cli import main
from noughts.knowledge.strategy import Strategy
from noughts.players.game import Failure
from noughts.position import Position
from noughts.runtime.cluster import RayExecutor

ray = pytest.importorskip("ray")
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # test players travel by value


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayExecutor]:
    executor = RayExecutor(None, num_cpus=2)
    yield executor
    executor.shutdown()
    assert not ray.is_initialized()


def first_free(position: Position) -> int:
    return next(iter(position.legal_moves))


class Raiser:
    name = "raiser"

    def move(self, position: Position) -> int:
        raise RuntimeError("my evaluation blew up")


class Illegal:
    name = "illegal"

    def move(self, position: Position) -> int:
        return 99


class Slow:
    name = "slow"

    def move(self, position: Position) -> int:
        time.sleep(0.3)
        return first_free(position)


class Hanger:
    name = "hanger"

    def move(self, position: Position) -> int:
        time.sleep(3600)
        return 0


class WorkerKiller:
    """Kills the cluster worker that runs its first game (once, across every worker)."""

    name = "killer"

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def move(self, position: Position) -> int:
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return first_free(position)
        os.kill(os.getppid(), signal.SIGKILL)  # the guarded game's parent: the Ray worker
        os._exit(1)


def comparable(result: object) -> list[tuple[object, ...]]:
    return [
        (r.index, r.players["X"], r.moves, r.result, r.failure, r.reason.split(":")[0])
        for r in result.records  # type: ignore[attr-defined]
    ]


def test_node_budgeted_games_are_the_same_as_local(cluster: RayExecutor) -> None:
    options = {"variant": "4x4", "games": 4, "seed": 3, "openings": 2, "nodes": 300}
    local = run_match("level:10", "level:6", workers=2, **options)
    remote = run_match("level:10", "level:6", executor=cluster, **options)
    assert comparable(remote) == comparable(local)
    assert remote.reruns == []


def test_failures_are_recorded_as_locally(cluster: RayExecutor) -> None:
    players = [Raiser(), Illegal(), Slow(), Hanger()]
    options = {"variant": "3x3", "games": 2, "seed": 1, "move_limit": 0.2, "kill_grace": 0.5}
    local = run_arena([*players, "random"], workers=2, **options)
    remote = run_arena([*players, "random"], executor=cluster, **options)
    assert comparable(remote) == comparable(local)
    kinds = {r.failure for r in remote.records}
    assert {Failure.RAISED, Failure.ILLEGAL, Failure.OVERRAN, Failure.KILLED} <= kinds


def test_a_lost_worker_has_its_game_rerun(cluster: RayExecutor, tmp_path: Path) -> None:
    result = run_match(
        WorkerKiller(tmp_path / "killed"), "random", variant="3x3", games=4, executor=cluster
    )
    assert len(result.reruns) == 1
    assert sorted(r.index for r in result.records) == [0, 1, 2, 3]
    assert all(r.failure is None for r in result.records)


def test_interrupt_cancels_the_jobs(cluster: RayExecutor) -> None:
    def interrupt() -> None:
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_match(Hanger(), "random", games=2, executor=cluster, move_limit=60, on_tick=interrupt)
    # the hanging games' workers were stopped: both CPUs take a new job at once
    futures = [cluster.submit(pow, 2, n) for n in range(2)]
    assert [f.result(timeout=30) for f in futures] == [1, 2]
    assert time.monotonic() - started < 40


def test_the_strategy_builder_runs_its_jobs_on_ray(cluster: RayExecutor, tmp_path: Path) -> None:
    """The proof build hands its jobs to the cluster: the 4x4k3 strategy comes out proven,
    as it does with local processes."""
    path = tmp_path / "4x4k3.bin"
    state = build_strategy(path, "4x4k3", seconds=120, job_seconds=5, opening=None,
                           executor=cluster, workers=2)
    assert state.complete
    report = verify_strategy(Strategy.load(path))
    assert report.ok and report.root_proven
    with pytest.raises(ZeroDivisionError):  # a job's own error comes back as itself
        cluster.submit(divmod, 1, 0).result()


def test_cli_arena_on_ray(cluster: RayExecutor, capsys: pytest.CaptureFixture[str]) -> None:
    # the CLI joins the running cluster (Ray is initialised) and leaves it running
    code = main(["arena", "level:10", "random", "--games", "4", "--cluster", "ray", "--quiet"])
    assert code == 0 and "level:10 v random on 3x3, 4 games" in capsys.readouterr().out
    assert ray.is_initialized()
    assert main(["arena", "a", "b", "--cluster", "dask"]) == 2
    assert "unknown cluster 'dask'" in capsys.readouterr().err

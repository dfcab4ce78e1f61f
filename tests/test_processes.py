"""Searches in worker processes: answers, errors, cancels, and workers that die or hang.

The jobs are the misbehaving ones of ``faulty_jobs``; each test drives a
:class:`ProcessRunner` of one worker from its own event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from faulty_jobs import Exit, Hang, Raise, SpinUntilStopped, WorkerPid
from noughts.budget import Limit
from noughts.runtime.executor import HANG_S, WorkerLostError
from noughts.service.processes import ProcessRunner
from noughts.service.runner import ClientGoneError, DeadlineExceededError
from waiting import wait_until


@pytest.fixture
def runner() -> Iterator[ProcessRunner]:
    pool = ProcessRunner(1, queue_wait_s=5.0)
    pool.start()
    try:
        wait_until(lambda: pool.ready == 1, 30)
        yield pool
    finally:
        pool.close()


def _pid(runner: ProcessRunner) -> int:
    pid: int = asyncio.run(runner.run(WorkerPid(), Limit.within(seconds=5)))
    return pid


def test_a_job_runs_in_the_worker_and_its_error_comes_back(runner: ProcessRunner) -> None:
    pid = _pid(runner)
    assert pid == runner.pids()[0]
    with pytest.raises(RuntimeError, match="injected fault") as raised:
        asyncio.run(runner.run(Raise("injected fault"), Limit.within(seconds=5)))
    note = raised.value.__notes__[0]  # where it happened, for the server's log
    assert note.startswith(f"in the worker (process {pid})") and "faulty_jobs" in note
    assert _pid(runner) == pid and runner.replaced == 0  # the worker lives on
    assert runner.running == 0 and runner.started == 3


def test_a_search_whose_client_has_gone_is_cancelled_in_its_worker(
    runner: ProcessRunner,
) -> None:
    pid = _pid(runner)
    began = time.monotonic()

    async def gone() -> bool:
        return time.monotonic() - began > 0.2

    with pytest.raises(ClientGoneError):
        asyncio.run(runner.run(SpinUntilStopped(), Limit.within(seconds=30), client_gone=gone))
    wait_until(lambda: runner.running == 0, 2)  # the worker stopped the search...
    assert time.monotonic() - began < 2
    assert _pid(runner) == pid and runner.replaced == 0  # ...and was not killed
    assert runner.cancelled == 1


def test_a_worker_that_dies_is_replaced_and_the_next_job_answered(
    runner: ProcessRunner,
) -> None:
    pid = _pid(runner)
    began = time.monotonic()
    with pytest.raises(WorkerLostError, match="exit code 3"):
        asyncio.run(runner.run(Exit(), Limit.within(seconds=10)))
    assert time.monotonic() - began < 2  # at once, not at the deadline
    wait_until(lambda: runner.ready == 1, 30)
    assert _pid(runner) != pid and runner.replaced == 1 and runner.running == 0


def test_a_worker_that_hangs_past_its_deadline_is_replaced(runner: ProcessRunner) -> None:
    pid = _pid(runner)
    began = time.monotonic()
    with pytest.raises(DeadlineExceededError):
        asyncio.run(runner.run(Hang(60.0), Limit.within(seconds=0.3)))
    assert time.monotonic() - began < 1.0  # answered at the deadline, not after the hang
    assert runner.deadline_misses == 1
    wait_until(lambda: runner.replaced == 1, 0.3 + HANG_S + 5)
    wait_until(lambda: runner.ready == 1, 30)
    assert _pid(runner) != pid and runner.running == 0


def test_a_request_that_cannot_get_a_worker_in_time_is_turned_away_at_once(
    runner: ProcessRunner,
) -> None:
    from noughts.service.admission import EngineBusyError

    async def scenario() -> float:
        holder = asyncio.ensure_future(runner.run(SpinUntilStopped(), Limit.within(seconds=1)))
        give_up = time.monotonic() + 10
        while runner.running == 0:  # until the job holds the worker
            assert time.monotonic() < give_up, "the first job never took the worker"
            await asyncio.sleep(0.005)
        asked = time.monotonic()
        with pytest.raises(EngineBusyError):
            await runner.run(WorkerPid(), Limit.within(seconds=0.5))
        waited = time.monotonic() - asked
        with pytest.raises(DeadlineExceededError):  # its budget ran out in the worker
            await holder
        return waited

    assert asyncio.run(scenario()) < 0.1
    assert runner.rejected == 1

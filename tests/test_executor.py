"""The one executor: jobs in worker processes, dead and hung workers replaced, budgets
cancelled in the worker, progress reports, chosen workers, and shutting down."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest

from faulty_jobs import Exit, Hang, SpinUntilStopped, WorkerPid
from noughts.budget import BudgetExhausted, Limit
from noughts.runtime.cluster import executor_for
from noughts.runtime.executor import ProcessExecutor, WorkerLostError, report


def count_to(n: int) -> int:
    """Reports 1..n, then answers n."""
    for i in range(1, n + 1):
        report(i)
    return n


def quiet(seconds: float) -> None:
    """Sleeps without a word (a hanging player, say)."""
    time.sleep(seconds)


def announce_then_wait(seconds: float) -> None:
    """Says it has started, then sleeps."""
    report("started")
    time.sleep(seconds)


def table_size(key: str) -> int:
    """Grows a table kept by the worker between jobs; its size."""
    _kept.append(key)
    return len(_kept)


_kept: list[str] = []


@pytest.fixture
def executor() -> Iterator[ProcessExecutor]:
    with ProcessExecutor(2) as pool:
        yield pool


def test_jobs_run_in_the_workers_and_their_errors_come_back(executor: ProcessExecutor) -> None:
    assert executor.submit(pow, 3, 4).result(10) == 81
    pid = executor.submit(os.getpid).result(10)
    assert pid in executor.pids() and pid != os.getpid()
    with pytest.raises(ZeroDivisionError) as raised:
        executor.submit(divmod, 1, 0).result(10)
    assert raised.value.__notes__[0].startswith("in the worker (process")
    assert executor.replaced == 0


def test_a_worker_that_dies_is_replaced_and_its_job_fails_as_lost(
    executor: ProcessExecutor,
) -> None:
    began = time.monotonic()
    with pytest.raises(WorkerLostError, match="exit code 3") as raised:
        executor.run(Exit(), limit=Limit.within(seconds=30)).result(10)
    assert not raised.value.hung and time.monotonic() - began < 5
    assert executor.replaced == 1
    assert executor.submit(pow, 2, 5).result(30) == 32  # the pool carries on


def test_a_silent_job_is_hung_and_its_worker_killed(executor: ProcessExecutor) -> None:
    heard: list[object] = []
    assert executor.run(count_to, (3,), silence_s=5, on_progress=heard.append).result(10) == 3
    assert heard == [1, 2, 3]
    began = time.monotonic()
    with pytest.raises(WorkerLostError) as raised:
        executor.run(quiet, (60,), silence_s=0.3).result(10)
    assert raised.value.hung and "hung" in str(raised.value)
    assert time.monotonic() - began < 3 and executor.replaced == 1


def test_a_job_past_its_deadline_is_hung() -> None:
    with ProcessExecutor(1, hang_s=0.2) as pool:
        with pytest.raises(WorkerLostError) as raised:
            pool.run(Hang(60.0), limit=Limit.within(seconds=0.2)).result(10)
        assert raised.value.hung


def test_a_cancelled_job_stops_at_its_next_poll_and_its_worker_lives_on(
    executor: ProcessExecutor,
) -> None:
    started = threading.Event()
    running = executor.run(SpinUntilStopped(), limit=Limit.within(seconds=60), slot=0,
                           on_progress=lambda _: started.set())
    assert started.wait(10)  # the job runs in its worker now
    pid = executor.pids()[0]
    executor.cancel(running)
    with pytest.raises(BudgetExhausted):
        running.result(5)
    assert executor.run(WorkerPid(), limit=Limit.within(seconds=5), slot=0).result(5) == pid
    assert executor.replaced == 0


def test_a_job_cancelled_before_it_starts_stops_as_soon_as_it_does(
    executor: ProcessExecutor,
) -> None:
    busy = executor.run(quiet, (0.5,), slot=0)
    later = executor.run(SpinUntilStopped(), limit=Limit.within(seconds=60), slot=0)
    executor.cancel(later)
    assert not later.cancelled()  # it still runs, to answer that it was stopped
    busy.result(10)
    began = time.monotonic()
    with pytest.raises(BudgetExhausted):
        later.result(10)
    assert time.monotonic() - began < 2 and executor.replaced == 0


def test_jobs_go_to_the_worker_asked_for_and_it_keeps_its_state(
    executor: ProcessExecutor,
) -> None:
    first = [executor.run(table_size, (str(i),), slot=0).result(10) for i in range(3)]
    other = executor.run(table_size, ("x",), slot=1).result(10)
    assert first == [1, 2, 3] and other == 1
    pids = executor.pids()
    assert executor.run(os.getpid, slot=1).result(10) == pids[1]
    with pytest.raises(ValueError, match="slot 2"):
        executor.run(os.getpid, slot=2)


def test_shutting_down_fails_or_cancels_the_jobs_left() -> None:
    pool = ProcessExecutor(1)
    started = threading.Event()
    running = pool.run(announce_then_wait, (60,), on_progress=lambda _: started.set())
    waiting = pool.submit(quiet, 60)
    assert started.wait(10)  # the first job runs, the second waits for the worker
    pool.shutdown(cancel_futures=True)
    assert waiting.cancelled()
    with pytest.raises(WorkerLostError, match="shut down"):
        running.result(1)
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(pow, 2, 2)


def test_local_cluster_jobs_run_on_the_executor() -> None:
    with executor_for("none", workers=1) as pool:
        assert isinstance(pool, ProcessExecutor)
        with pytest.raises(WorkerLostError):
            pool.submit(os._exit, 1).result(10)
        assert pool.submit(pow, 2, 3).result(10) == 8


def test_a_program_that_never_shuts_its_executor_down_still_exits() -> None:
    """Workers ignore SIGTERM (their parent drains first); the interpreter's exit stops
    them instead of waiting for them for ever (a test run hung at its end this way)."""
    import subprocess
    import sys

    program = (
        "from noughts.runtime.executor import ProcessExecutor\n"
        "pool = ProcessExecutor(2)\n"
        "print(pool.submit(sum, [1, 2, 3]).result(timeout=60))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, "6"), done.stderr


def test_a_worker_replaced_while_the_executor_shuts_down_does_not_outlive_it() -> None:
    """A worker dies and its replacement starts just as the executor shuts down: the
    replacement is stopped too (one left behind kept the interpreter from exiting)."""
    import multiprocessing

    for round_ in range(20):
        pool = ProcessExecutor(1, name=f"noughts-replaced-{round_}")
        with pytest.raises(WorkerLostError):
            pool.run(Exit(), (), {}, limit=Limit()).result(timeout=30)
        pool.shutdown()
    time.sleep(0.5)  # (a replacement that slipped through would be started by now)
    left = [p for p in multiprocessing.active_children() if p.name.startswith("noughts-replaced")]
    assert left == []

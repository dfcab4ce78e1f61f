"""Searches in worker processes: a small pool, one search per worker, and a watchdog.

Searches in threads share one interpreter with the event loop; on a busy machine the
loop then waits its turn behind them, and answers and 429s go out late. Here each search
runs in a worker process of its own (a :class:`~noughts.runtime.executor.ProcessExecutor`
started with ``spawn``, its tables warmed at start by :func:`prepare_worker`), and the
event loop only waits for the answer.

- **Admission** (:class:`~noughts.service.admission.Admission`): a worker is a slot,
  expected back by its search's deadline; a request that could not get a worker with
  :data:`~noughts.service.moves.MIN_SEARCH_S` of its budget left is answered 429 at once.
- **Deadlines and cancelling**: the worker gets the request's budget (its deadline and
  start); a search whose client has gone, or whose deadline + 80 ms passed, is cancelled
  inside the worker by a message (the process lives on). The worker is not given
  another job until it reports the cancelled one done.
- **Memory**: the workers share the exact solver's table bounds (each holds
  ``1 / processes`` of them), so the server's bound does not grow with its workers.
- **Faults** (the executor's watchdog): a worker that dies is replaced at once and its
  request answered with :class:`~noughts.runtime.executor.WorkerLostError` (HTTP 429 with
  Retry-After: nothing wrong with the request); one still busy
  :data:`~noughts.runtime.executor.HANG_S` after its job's deadline is killed and replaced the
  same way. A replacement holds its slot until it is ready.

Workers never outlive their server (even one killed with SIGKILL).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from noughts.budget import Limit
from noughts.runtime.executor import ProcessExecutor, WorkerLostError
from noughts.service.admission import Admission
from noughts.service.runner import Job, SearchRunner, deliver

__all__ = ["ProcessRunner", "prepare_worker", "SWITCH_INTERVAL_S"]

T = TypeVar("T")

SWITCH_INTERVAL_S = 0.001
"""A worker's thread switch interval: a cancel is read within about this long."""


def prepare_worker(warm: tuple[str, ...], table_share: float) -> None:
    """A search worker's start: quick thread switches (for cancels), its share of the
    exact solver's table bounds (the workers of one server share one memory bound), and
    the variants ``warm`` warmed. Imports only the engine (no web stack)."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    from noughts.exact.solver import share_tables
    from noughts.service.warmup import warm as warm_variant
    from noughts.variants import variant

    share_tables(table_share)
    for name in warm:
        warm_variant(variant(name))


class ProcessRunner(SearchRunner):
    """Runs search jobs in ``processes`` worker processes, one job per worker at a time."""

    def __init__(
        self,
        processes: int,
        queue_wait_s: float,
        *,
        min_search_s: float = 0.0,
        warm: tuple[str, ...] = (),
    ) -> None:
        super().__init__(Admission(processes, queue_wait_s=queue_wait_s, min_search_s=min_search_s))
        self.warm = warm
        self.executor = ProcessExecutor(
            processes,
            start="spawn",
            initializer=prepare_worker,
            initargs=(warm, 1 / processes),
            name="noughts-search",
            on_starting=self.admission.hold,  # a starting worker's slot is held...
            on_idle=self.admission.release,  # ...until it is ready
        )

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers and the watchdog (once; later calls do nothing)."""
        self.executor.start()

    def close(self) -> None:
        """Stop the workers (they exit at once, searches or not) and the watchdog."""
        self.executor.shutdown()

    async def started_and_warm(self, timeout_s: float) -> bool:
        """Start the workers and wait (up to ``timeout_s``) until every one is warm."""
        self.start()
        loop = asyncio.get_running_loop()
        give_up = loop.time() + timeout_s
        while self.ready < self.processes:
            if loop.time() > give_up:
                return False
            await asyncio.sleep(0.02)
        return True

    @property
    def processes(self) -> int:
        return self.admission.slots

    @property
    def ready(self) -> int:
        """Workers started and warm."""
        return self.executor.ready

    @property
    def replaced(self) -> int:
        """Workers replaced because they died or hung."""
        return self.executor.replaced

    @property
    def warm_s(self) -> float:
        """How long the last worker took to start (its expected start-up)."""
        return self.executor.warm_s

    def pids(self) -> list[int]:
        """The workers' process ids."""
        return self.executor.pids()

    # -- running a job ----------------------------------------------------------------------
    def _start(
        self, job: Job[T], limit: Limit, slot: int, future: asyncio.Future[T]
    ) -> Callable[[], None]:
        """Send ``job`` (it must pickle) to the worker of ``slot`` (the workers start with
        the first job, if :meth:`start` was not called); cancelling it sends a cancel. A
        worker that dies or hangs meanwhile fails it with :class:`WorkerLostError`."""
        loop = future.get_loop()

        def finished(done: Future[T]) -> None:
            self._ended()
            if done.cancelled():  # not by this runner: it cancels budgets, not futures
                return
            error = done.exception()
            if not isinstance(error, WorkerLostError):  # a replacement holds a lost slot
                self.admission.release(slot)  # free before the answer goes out
            value: Any = None if error is not None else done.result()
            deliver(loop, future, value, error)

        running = self.executor.run(job, slot=slot, limit=limit)
        running.add_done_callback(finished)
        return lambda: self.executor.cancel(running)

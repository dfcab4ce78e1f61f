"""Searches in worker processes: a small pool, one search per worker, and a watchdog.

Searches in threads share one interpreter with the event loop; on a busy machine the
loop then waits its turn behind them, and answers and 429s go out late. Here each search
runs in a worker process of its own (:mod:`noughts.service.worker`, started with
``spawn``, its tables warmed at start), and the event loop only waits for the answer.

- **Admission** (:class:`~noughts.service.admission.Admission`): a worker is a slot,
  expected back by its search's deadline; a request that could not get a worker with
  :data:`~noughts.service.moves.MIN_SEARCH_S` of its budget left is answered 429 at once.
- **Deadlines and cancelling**: the worker gets the request's budget (its deadline and
  start); a search whose client has gone, or whose deadline + 80 ms passed, is cancelled
  inside the worker by a message (the process lives on). The worker is not given
  another job until it reports the cancelled one done.
- **Memory**: the workers share the exact solver's table bounds (each holds
  ``1 / processes`` of them), so the server's bound does not grow with its workers.
- **Faults**: a worker that dies (its connection closes) is replaced at once and its
  request answered with :class:`WorkerLostError` (HTTP 429 with Retry-After: nothing
  wrong with the request); one still busy :data:`HANG_S` after its job's deadline is
  killed and replaced the same way. A worker that dies before it was ever ready is
  started again after a pause that doubles, up to :data:`MAX_RESTART_PAUSE_S`.

A worker reads the parent's messages in a thread of its own and exits when its
connection closes, so workers never outlive their server (even one killed with SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from noughts.budget import Budget
from noughts.service.admission import Admission
from noughts.service.runner import Job, SearchRunner, deadline_of, deliver
from noughts.service.worker import serve

__all__ = ["ProcessRunner", "WorkerLostError", "HANG_S", "MAX_RESTART_PAUSE_S"]

T = TypeVar("T")

logger = logging.getLogger("noughts.service")

HANG_S = 1.5
"""A worker still busy this long after its job's deadline is killed and replaced."""

FIRST_WARM_S = 1.0
"""How long a worker is expected to take to start, until one has been measured."""

STARTUP_LIMIT_S = 60.0
"""A worker not ready this long after it was started is killed and replaced."""

MAX_RESTART_PAUSE_S = 30.0
"""The longest pause before starting again a worker that keeps dying at start."""

_WATCH_S = 0.1
"""How often the watchdog looks at the workers."""


class WorkerLostError(Exception):
    """The search's worker process died or hung and is being replaced (HTTP 429)."""


@dataclass(eq=False)
class _Task:
    id: int
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    deadline: float


@dataclass(eq=False)
class _Worker:
    index: int
    process: BaseProcess
    connection: Connection
    child_end: Connection
    started: float
    """When it was (or will be) started: a ``perf_counter`` value."""
    task: _Task | None = None
    ready: bool = False
    failed_starts: int = 0
    """Workers before this one on its slot that died before they were ready."""
    killed: bool = False
    """Killed by the watchdog (hung)."""

    def send(self, message: object) -> None:
        """Send ``message``; nothing if the worker has gone (its reader notices)."""
        with contextlib.suppress(OSError, ValueError):
            self.connection.send(message)


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
        super().__init__(
            Admission(processes, queue_wait_s=queue_wait_s, min_search_s=min_search_s)
        )
        self.warm = warm
        self.replaced = 0
        """Workers replaced because they died or hung."""
        self.warm_s = FIRST_WARM_S
        """How long the last worker took to start (its expected start-up)."""
        self._context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._ids = itertools.count(1)
        self._state = threading.Lock()
        self._stop = threading.Event()
        self._started = False

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers and the watchdog (once; later calls do nothing)."""
        with self._state:
            if self._started:
                return
            self._started = True
            self._workers = [self._spawn(index) for index in range(self.admission.slots)]
        for worker in self._workers:
            self._launch(worker)
        threading.Thread(target=self._watch, name="noughts-watchdog", daemon=True).start()

    def close(self) -> None:
        """Stop the workers (they exit at once, searches or not) and the watchdog."""
        with self._state:
            self._stop.set()
            workers = list(self._workers)
        for worker in workers:
            worker.send(None)
        for worker in workers:
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=2)
            worker.connection.close()

    async def started_and_warm(self, timeout_s: float) -> bool:
        """Start the workers and wait (up to ``timeout_s``) until every one is warm."""
        self.start()
        give_up = time.perf_counter() + timeout_s
        while self.ready < self.processes:
            if time.perf_counter() > give_up:
                return False
            await asyncio.sleep(0.02)
        return True

    @property
    def processes(self) -> int:
        return self.admission.slots

    @property
    def ready(self) -> int:
        """Workers started and warm."""
        with self._state:
            return sum(1 for worker in self._workers if worker.ready)

    def pids(self) -> list[int]:
        """The workers' process ids."""
        with self._state:
            return [worker.process.pid or 0 for worker in self._workers]

    def _spawn(self, index: int, *, failed_starts: int = 0, pause_s: float = 0.0) -> _Worker:
        """A new worker for slot ``index``, not started yet (the slot is held until it is
        ready); :meth:`_launch` starts it."""
        parent_end, child_end = self._context.Pipe(duplex=True)
        share = 1 / self.admission.slots  # the workers share the solver tables' bound
        process = self._context.Process(
            target=serve,
            args=(child_end, self.warm, share),
            name=f"noughts-search-{index}",
            daemon=True,
        )
        began = time.perf_counter() + pause_s
        self.admission.hold(index, began + self.warm_s)
        return _Worker(index, process, parent_end, child_end, began, failed_starts=failed_starts)

    def _launch(self, worker: _Worker) -> None:
        """Start ``worker``'s process (after its pause) and the thread that reads it."""
        pause = worker.started - time.perf_counter()
        if pause > 0:
            threading.Timer(pause, self._launch, args=(worker,)).start()
            return
        if self._stop.is_set():
            return
        try:
            worker.process.start()
        except Exception:
            logger.exception("search worker %d could not be started", worker.index)
            self._lost(worker)
            return
        finally:
            worker.child_end.close()
        threading.Thread(
            target=self._read, args=(worker,), name=f"noughts-reader-{worker.index}", daemon=True
        ).start()

    # -- running a job ----------------------------------------------------------------------
    def _start(
        self, job: Job[T], budget: Budget, slot: int, future: asyncio.Future[T]
    ) -> Callable[[], None]:
        """Send ``job`` (it must pickle) to the worker of ``slot`` (the workers start with
        the first job, if :meth:`start` was not called); cancelling it sends a cancel. A
        worker that dies or hangs meanwhile fails it with :class:`WorkerLostError`."""
        self.start()
        task = _Task(next(self._ids), future, future.get_loop(), deadline_of(budget))
        with self._state:
            worker = self._workers[slot]
            worker.task = task
        try:
            worker.send(("run", task.id, job, task.deadline, budget.start))
        except Exception as error:  # the job does not pickle
            self._done(worker, task.id, False, error)

        def cancel() -> None:
            with self._state:
                if worker.task is not task:
                    return
            worker.send(("cancel", task.id))

        return cancel

    # -- what the workers say ----------------------------------------------------------------
    def _read(self, worker: _Worker) -> None:
        """A worker's messages, until its connection closes (then it is lost)."""
        while True:
            try:
                data = worker.connection.recv_bytes()
            except (EOFError, OSError):
                break
            try:
                kind, job_id, ok, value = pickle.loads(data)
            except Exception as error:
                kind, job_id, ok = "done", None, False
                value = RuntimeError(f"an answer from the search worker could not be read: {error}")
            if kind == "ready":
                self._ready(worker)
            else:
                self._done(worker, job_id, ok, value)
        self._lost(worker)

    def _ready(self, worker: _Worker) -> None:
        with self._state:
            worker.ready = True
            self.warm_s = max(0.05, time.perf_counter() - worker.started)
            idle = worker.task is None
        if idle:
            self.admission.release(worker.index)

    def _done(self, worker: _Worker, job_id: int | None, ok: bool, value: Any) -> None:
        with self._state:
            task = worker.task
            if task is None or (job_id is not None and job_id != task.id):
                return
            worker.task = None
            ready = worker.ready
        self._ended()
        if ready:  # free before the answer goes out: its request may ask again at once
            self.admission.release(worker.index)
        deliver(task.loop, task.future, value if ok else None, None if ok else value)

    def _lost(self, worker: _Worker) -> None:
        """The worker's connection closed: fail its task and start a replacement."""
        if worker.process.pid is not None:
            worker.process.join(timeout=1.0)
        code = worker.process.exitcode
        with self._state:
            if self._stop.is_set() or self._workers[worker.index] is not worker:
                return
            task, worker.task = worker.task, None
            failed = 0 if worker.ready else worker.failed_starts + 1
            pause = 0.0 if not failed else min(MAX_RESTART_PAUSE_S, 0.5 * 2**failed)
            replacement = self._spawn(worker.index, failed_starts=failed, pause_s=pause)
            self._workers[worker.index] = replacement
            self.replaced += 1
        self._launch(replacement)
        worker.connection.close()
        what = "hung and was stopped" if worker.killed else f"stopped (exit code {code})"
        logger.warning("search worker %d (process %s) %s; replaced", worker.index,
                       worker.process.pid, what)
        if task is not None:
            self._ended()
            error = WorkerLostError(
                f"the search worker {what} during this request and is being replaced; "
                "try again shortly"
            )
            deliver(task.loop, task.future, None, error)

    def _watch(self) -> None:
        """Kill workers that hang past their job's deadline, or never get ready."""
        while not self._stop.wait(_WATCH_S):
            now = time.perf_counter()
            with self._state:
                stuck = [
                    worker
                    for worker in self._workers
                    if worker.process.pid is not None
                    and (
                        (worker.task is not None and now > worker.task.deadline + HANG_S)
                        or (not worker.ready and now > worker.started + STARTUP_LIMIT_S)
                    )
                ]
            for worker in stuck:
                worker.killed = True
                worker.process.kill()

"""Worker processes that run picklable jobs, with a watchdog: the one executor.

A :class:`ProcessExecutor` is a :class:`concurrent.futures.Executor` whose workers are
processes of their own, one job per worker at a time. What every pool of the package
needs is here, once:

- **Jobs**: ``fn(*args, **kwargs)`` for any picklable ``fn`` and arguments (with a
  ``fork`` start, the ``initializer`` and its arguments are not even pickled: a worker
  can be handed players that do not pickle once, and then jobs that name them).
- **Deadlines and cancelling**: a job may carry a :class:`~noughts.budget.Limit`; the
  worker calls it with a copy of that budget as its last argument, and :meth:`cancel`
  cancels the copy, so the search stops at its next poll and the worker lives on.
- **Progress**: a job calls :func:`report` to send a value to its ``on_progress``
  callback in the parent; each report is a sign of life.
- **Faults**: a worker whose process dies is replaced at once and its job fails with
  :class:`WorkerLostError`. A job still running :attr:`ProcessExecutor.hang_s` after its
  budget's deadline, or silent longer than its ``silence_s``, is hung: its worker is
  killed and replaced the same way. A worker not ready :data:`STARTUP_LIMIT_S` after it
  was started is killed too; one that keeps dying before it is ready is started again
  after a pause that doubles, up to :data:`MAX_RESTART_PAUSE_S`.
- **Life**: a worker ignores Ctrl-C (its parent stops it), exits when its connection
  closes or its parent goes away (even one killed with SIGKILL, even in a hanging job).

Ray, the other place jobs run, is behind the same :class:`~concurrent.futures.Executor`
interface in :mod:`noughts.runtime.cluster`; a lost Ray worker fails its job with the same
:class:`WorkerLostError`.

>>> with ProcessExecutor(2) as executor:
...     executor.submit(pow, 2, 10).result()
1024
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
import traceback
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future, InvalidStateError
from dataclasses import dataclass, field
from multiprocessing.connection import Connection  # imports multiprocessing.util first
from multiprocessing.process import BaseProcess
from typing import Any, Literal, ParamSpec, TypeVar

from noughts.budget import Limit

__all__ = ["ProcessExecutor", "WorkerLostError", "report", "HANG_S", "STARTUP_LIMIT_S",
           "MAX_RESTART_PAUSE_S"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

logger = logging.getLogger("noughts.runtime.executor")

HANG_S = 1.5
"""A job still running this long after its budget's deadline is hung (the default)."""

FIRST_WARM_S = 1.0
"""How long a worker is expected to take to start, until one has been measured."""

STARTUP_LIMIT_S = 60.0
"""A worker not ready this long after it was started is killed and replaced."""

MAX_RESTART_PAUSE_S = 30.0
"""The longest pause before starting again a worker that keeps dying at start."""

_running: weakref.WeakSet[ProcessExecutor] = weakref.WeakSet()
"""Executors started and not shut down (stopped at the interpreter's exit)."""


@atexit.register  # after multiprocessing's own exit handler, so it runs before it
def _shut_down_at_exit() -> None:
    """Stop the workers of every executor left running when the interpreter exits.

    A worker ignores SIGTERM (its parent drains first), so the terminate-and-join that
    multiprocessing does to daemon children at exit would wait for it for ever.
    """
    for executor in list(_running):
        executor.shutdown(wait=False)

_WATCH_S = 0.1
"""How often the watchdog looks at the workers."""

_ORPHAN_POLL_S = 0.5
"""How often a worker checks that its parent is still there."""


class WorkerLostError(RuntimeError):
    """A job's worker process (or machine) went away, or hung and was killed, before the
    job finished; the job itself may be sound, and may be submitted again."""

    def __init__(self, message: str, *, hung: bool = False) -> None:
        super().__init__(message)
        self.hung = hung
        """The worker was killed because the job hung (else it died by itself)."""


# -- inside a worker -----------------------------------------------------------------------
_reporter: Callable[[object], None] | None = None
"""Sends a progress report of the running job (set inside a worker only)."""


def report(value: object) -> None:
    """Send ``value`` to the running job's ``on_progress`` in the parent (a sign of life).

    Outside a worker process it does nothing, so a job can be run in-process as well.

    >>> report("a move")
    """
    if _reporter is not None:
        _reporter(value)


def _serve(
    connection: Connection,
    parent: int,
    initializer: Callable[..., object] | None,
    initargs: tuple[Any, ...],
) -> None:
    """A worker's main: run ``initializer``, say it is ready, then run jobs until told to
    stop (``None``), its connection closes, or its parent goes away."""
    global _reporter
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A stop sent to the whole process group (a service manager, a session's end) is
    # its parent's to handle: the parent saves or drains, then shuts its workers down
    # (a worker whose parent is gone exits by itself). A forked worker would otherwise
    # run its parent's handler (the proof build's: a traceback from every worker).
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    sending = threading.Lock()

    def send(message: tuple[str, int | None, Any]) -> None:
        with sending:
            connection.send(message)

    jobs: queue.SimpleQueue[tuple[int, Any, tuple[Any, ...], dict[str, Any]]] = queue.SimpleQueue()
    budgets: dict[int, Limit] = {}
    threading.Thread(
        target=_listen, args=(connection, jobs, budgets), name="noughts-listener", daemon=True
    ).start()
    if initializer is not None:
        initializer(*initargs)
    send(("ready", None, None))
    while True:
        job_id, fn, args, kwargs = jobs.get()
        limit = budgets.get(job_id)
        _reporter = lambda value, job_id=job_id: send(("progress", job_id, value))  # noqa: E731
        try:
            value = fn(*args, limit, **kwargs) if limit is not None else fn(*args, **kwargs)
            outcome: tuple[bool, Any] = (True, value)
        except Exception as error:
            outcome = (False, _portable(error))
        finally:
            _reporter = None
            budgets.pop(job_id, None)
        try:
            send(("done", job_id, outcome))
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            send(("done", job_id, (False, RuntimeError(f"unsendable result: {error}"))))


def _listen(
    connection: Connection,
    jobs: queue.SimpleQueue[tuple[int, Any, tuple[Any, ...], dict[str, Any]]],
    budgets: dict[int, Limit],
) -> None:
    """Read the parent's messages (so a cancel arrives while a job runs); exit the
    process at once when the parent says so or goes away."""
    try:
        while True:
            message = connection.recv()
            if message is None:
                break
            if message[0] == "run":
                _, job_id, fn, args, kwargs, limits = message
                if limits is not None:
                    deadline, node_limit, start = limits
                    budgets[job_id] = Limit(deadline=deadline, node_limit=node_limit, start=start)
                jobs.put((job_id, fn, args, kwargs))
            elif message[0] == "cancel":
                limit = budgets.get(message[1])
                if limit is not None:
                    limit.cancel()
    except (EOFError, OSError):
        pass
    os._exit(0)  # at once, even in the middle of a job


def _exit_when_orphaned(parent: int) -> None:
    """End this worker once its parent is gone (a forked sibling may hold the parent's
    end of the connection open, so its closing is not enough)."""
    while os.getppid() == parent:
        time.sleep(_ORPHAN_POLL_S)
    os._exit(1)


def _portable(error: Exception) -> Exception:
    """``error`` with the worker's traceback as a note (the parent's log shows it), if it
    survives pickling; else a RuntimeError naming it."""
    where = "".join(traceback.format_exception(error))
    try:
        error.add_note(f"in the worker (process {os.getpid()}):\n{where}")
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}\n{where}")
    return error


# -- in the parent -------------------------------------------------------------------------
@dataclass(eq=False)
class _Job:
    id: int
    future: Future[Any]
    message: tuple[Any, ...]
    deadline: float | None
    silence_s: float | None
    on_progress: Callable[[object], None] | None
    budgeted: bool = False
    cancelled: bool = False
    """Cancelled before it started: its budget is cancelled as soon as it does."""
    watch: float = float("inf")
    """When the running job counts as hung (a ``perf_counter`` value)."""


@dataclass(eq=False)
class _Worker:
    index: int
    started: float
    """When it was (or will be) started: a ``perf_counter`` value."""
    process: BaseProcess | None = None
    connection: Connection | None = None
    job: _Job | None = None
    launched: bool = False
    ready: bool = False
    failed_starts: int = 0
    """Workers before this one on its slot that died before they were ready."""
    killed: bool = False
    """Killed by the watchdog (hung, or never ready)."""
    waiting: deque[_Job] = field(default_factory=deque)
    """Jobs asked for on this worker's slot, waiting for it."""
    sending: threading.Lock = field(default_factory=threading.Lock)
    """Held while a message is written: threads never interleave theirs."""

    def send(self, message: object) -> None:
        """Send ``message``; nothing if the worker has gone (its reader notices)."""
        with contextlib.suppress(OSError, ValueError):
            self.send_or_raise(message)

    def send_or_raise(self, message: object) -> None:
        """Send ``message``; one that does not pickle raises, and nothing is sent."""
        if self.connection is not None:
            with self.sending:
                self.connection.send(message)


class ProcessExecutor(Executor):
    """``workers`` worker processes, one job each at a time, with a watchdog.

    ``start`` is the multiprocessing start method (``fork``: fast, the workers inherit
    the parent's modules and tables; ``spawn``: fresh interpreters). ``initializer(*initargs)``
    runs in each worker before it takes jobs (warm-up). ``hang_s`` is how long a job may
    run past its budget's deadline. ``on_starting(slot, expected_ready)`` hears of each
    worker started (with when it should be ready, by the last start measured) and
    ``on_idle(slot)`` of each that became ready with no job waiting for it.
    """

    def __init__(
        self,
        workers: int,
        *,
        start: Literal["fork", "spawn", "forkserver"] = "fork",
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
        hang_s: float = HANG_S,
        name: str = "noughts-worker",
        on_starting: Callable[[int, float], None] | None = None,
        on_idle: Callable[[int], None] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.size = workers
        self.hang_s = hang_s
        self.replaced = 0
        """Workers replaced because they died or hung."""
        self.warm_s = FIRST_WARM_S
        """How long the last worker took to get ready (the next one's expected start)."""
        self._context: Any = multiprocessing.get_context(start)  # its Process and Pipe
        self._initializer = initializer
        self._initargs = initargs
        self._name = name
        self._on_starting = on_starting
        self._on_idle = on_idle
        self._workers: list[_Worker] = []
        self._queue: deque[_Job] = deque()
        self._ids = itertools.count(1)
        self._state = threading.RLock()
        self._stop = threading.Event()
        self._started = False

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers and the watchdog (once; the first job starts them too)."""
        if self._started:
            return
        with self._state:
            if self._started:
                return
            if self._stop.is_set():
                raise RuntimeError("cannot start an executor that was shut down")
            self._started = True
            self._workers = [self._new_worker(index) for index in range(self.size)]
            _running.add(self)
        for worker in list(self._workers):
            self._launch(worker)
        threading.Thread(target=self._watch, name=f"{self._name}-watchdog", daemon=True).start()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the workers (at once, jobs or not) and the watchdog; jobs not finished
        fail with :class:`WorkerLostError` (or are cancelled, if asked)."""
        with self._state:
            self._stop.set()
            _running.discard(self)
            workers = list(self._workers)
            left = [*self._queue, *(job for w in workers for job in (*w.waiting, w.job) if job)]
            self._queue.clear()
        for worker in workers:
            worker.send(None)
        for worker in workers:
            if worker.process is not None and worker.launched:
                worker.process.join(timeout=2 if wait else 0.1)
                if worker.process.is_alive():
                    worker.process.kill()
                    worker.process.join(timeout=2)
            if worker.connection is not None:
                worker.connection.close()
        for job in left:
            if cancel_futures:
                job.future.cancel()
            _settle(job.future, WorkerLostError("the executor was shut down"))

    @property
    def ready(self) -> int:
        """Workers started and ready for jobs."""
        with self._state:
            return sum(1 for worker in self._workers if worker.ready)

    def pids(self) -> list[int]:
        """The workers' process ids (0 for one not started yet)."""
        with self._state:
            return [
                0 if worker.process is None else worker.process.pid or 0 for worker in self._workers
            ]

    def _new_worker(self, index: int, *, failed_starts: int = 0, pause_s: float = 0.0) -> _Worker:
        """A worker for slot ``index``, to be started after ``pause_s`` by :meth:`_launch`."""
        began = time.perf_counter() + pause_s
        if self._on_starting is not None:
            self._on_starting(index, began + self.warm_s)
        return _Worker(index, began, failed_starts=failed_starts)

    def _launch(self, worker: _Worker) -> None:
        """Start ``worker``'s process (after its pause), the thread that reads it, and
        hand it the jobs waiting for it."""
        pause = worker.started - time.perf_counter()
        if pause > 0:
            timer = threading.Timer(pause, self._launch, args=(worker,))
            timer.daemon = True
            timer.start()
            return
        if self._stop.is_set():
            return
        parent_end, child_end = self._context.Pipe(duplex=True)  # made now: no sibling holds it
        process = self._context.Process(
            target=_serve,
            args=(child_end, os.getpid(), self._initializer, self._initargs),
            name=f"{self._name}-{worker.index}",
            daemon=True,
        )
        worker.process = process
        try:
            process.start()
        except Exception:
            logger.exception("worker %s-%d could not be started", self._name, worker.index)
            parent_end.close()
            self._lost(worker)
            return
        finally:
            child_end.close()
        with self._state:
            stopped = self._stop.is_set()  # shut down while it started: shutdown() missed it
            if not stopped:
                worker.connection = parent_end
                worker.launched = True
        if stopped:
            parent_end.close()
            process.kill()
            process.join(timeout=2)
            return
        threading.Thread(
            target=self._read,
            args=(worker,),
            name=f"{self._name}-reader-{worker.index}",
            daemon=True,
        ).start()
        self._dispatch()

    # -- jobs -------------------------------------------------------------------------------
    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Run ``fn(*args, **kwargs)`` in the first free worker; its future holds the result."""
        return self.run(fn, args, kwargs)

    def run(
        self,
        fn: Callable[..., _T],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        *,
        slot: int | None = None,
        limit: Limit | None = None,
        silence_s: float | None = None,
        on_progress: Callable[[object], None] | None = None,
    ) -> Future[_T]:
        """Run ``fn(*args, **kwargs)``; with a ``limit``, ``fn(*args, limit, **kwargs)``
        with the worker's copy of it (:meth:`cancel` cancels it).

        ``slot`` picks the worker (else the first free one); ``silence_s`` is the longest
        the job may go without a :func:`report` before it counts as hung;
        ``on_progress`` hears its reports (in a thread of the executor).
        """
        if slot is not None and not 0 <= slot < self.size:
            raise ValueError(f"slot {slot} is not one of the {self.size} workers")
        self.start()
        future: Future[_T] = Future()
        job_id = next(self._ids)
        limits = None if limit is None else (limit.deadline, limit.node_limit, limit.start)
        message = ("run", job_id, fn, args, kwargs or {}, limits)
        deadline = None if limit is None else limit.deadline
        job = _Job(job_id, future, message, deadline, silence_s, on_progress, limit is not None)
        with self._state:
            if self._stop.is_set():
                raise RuntimeError("cannot run a job on an executor that was shut down")
            if slot is None:
                self._queue.append(job)
            else:
                self._workers[slot].waiting.append(job)
        self._dispatch()
        return future

    def cancel(self, future: Future[Any]) -> None:
        """Cancel a job. One with a budget has it cancelled in its worker (the job stops at
        its next poll and answers; the worker lives on), at once if it runs, else as soon
        as it starts; one without is cancelled if it has not started (as
        :meth:`Future.cancel`)."""
        with self._state:
            jobs = [*self._queue, *(j for w in self._workers for j in (*w.waiting, w.job) if j)]
            job = next((job for job in jobs if job.future is future), None)
            if job is not None and job.budgeted:
                job.cancelled = True
            worker = next((w for w in self._workers if job and w.job is job), None)
        if job is None or not job.budgeted:
            future.cancel()
        elif worker is not None:
            worker.send(("cancel", job.id))

    def _dispatch(self) -> None:
        """Hand waiting jobs to the free workers (cancelled ones are dropped)."""
        while True:
            with self._state:
                chosen = self._next_pair()
                if chosen is None:
                    return
                worker, job = chosen
                now = time.perf_counter()
                watches = [float("inf")]
                if job.deadline is not None:
                    watches.append(job.deadline + self.hang_s)
                if job.silence_s is not None:
                    watches.append(now + job.silence_s)
                job.watch = min(watches)
                worker.job = job
            try:
                worker.send_or_raise(job.message)
                if job.cancelled:  # before it started, or while it was being sent
                    worker.send(("cancel", job.id))
            except (OSError, ValueError):
                pass  # the worker has gone: its reader fails the job
            except Exception as error:  # the job does not pickle
                self._done(worker, job.id, (False, error))

    def _next_pair(self) -> tuple[_Worker, _Job] | None:
        """A free, started worker and the job it takes next (lock held)."""
        for worker in self._workers:
            if worker.job is not None or not worker.launched:
                continue
            for jobs in (worker.waiting, self._queue):
                while jobs:
                    job = jobs.popleft()
                    if job.future.set_running_or_notify_cancel():
                        return worker, job
        return None

    # -- what the workers say ----------------------------------------------------------------
    def _read(self, worker: _Worker) -> None:
        """A worker's messages, until its connection closes (then it is lost)."""
        assert worker.connection is not None
        while True:
            try:
                data = worker.connection.recv_bytes()
            except (EOFError, OSError):
                break
            try:
                kind, job_id, value = pickle.loads(data)
            except Exception as error:
                kind, job_id = "done", None
                unread = RuntimeError(f"an answer from the worker could not be read: {error}")
                value = (False, unread)
            if kind == "ready":
                self._ready(worker)
            elif kind == "progress":
                self._progress(worker, job_id, value)
            else:
                self._done(worker, job_id, value)
        self._lost(worker)

    def _ready(self, worker: _Worker) -> None:
        with self._state:
            worker.ready = True
            self.warm_s = max(0.05, time.perf_counter() - worker.started)
            idle = worker.job is None
        if idle and self._on_idle is not None:
            self._on_idle(worker.index)

    def _progress(self, worker: _Worker, job_id: int, value: object) -> None:
        with self._state:
            job = worker.job
            if job is None or job.id != job_id:
                return
            if job.silence_s is not None:
                job.watch = time.perf_counter() + job.silence_s
        if job.on_progress is not None:
            job.on_progress(value)

    def _done(self, worker: _Worker, job_id: int | None, outcome: tuple[bool, Any]) -> None:
        with self._state:
            job = worker.job
            if job is None or (job_id is not None and job_id != job.id):
                return
            worker.job = None
            waiting = bool(self._queue or worker.waiting)
        ok, value = outcome
        if ok:
            _settle(job.future, None, value)
        else:
            _settle(job.future, value)
        if waiting:
            self._dispatch()

    def _lost(self, worker: _Worker) -> None:
        """The worker's connection closed: fail its job and start a replacement."""
        process = worker.process
        if process is not None and process.pid is not None:
            process.join(timeout=1.0)
        code = None if process is None else process.exitcode
        with self._state:
            if self._stop.is_set() or self._workers[worker.index] is not worker:
                return
            job, worker.job = worker.job, None
            failed = 0 if worker.ready else worker.failed_starts + 1
            pause = 0.0 if not failed else min(MAX_RESTART_PAUSE_S, 0.5 * 2**failed)
            replacement = self._new_worker(worker.index, failed_starts=failed, pause_s=pause)
            replacement.waiting = worker.waiting
            self._workers[worker.index] = replacement
            self.replaced += 1
        if worker.connection is not None:
            worker.connection.close()
        what = "hung and was stopped" if worker.killed else f"stopped (exit code {code})"
        logger.warning(
            "worker %s-%d (process %s) %s; replaced",
            self._name,
            worker.index,
            None if process is None else process.pid,
            what,
        )
        if job is not None:
            error = WorkerLostError(
                f"the worker {what} during this job and is being replaced; try again shortly",
                hung=worker.killed,
            )
            _settle(job.future, error)
        self._launch(replacement)

    def _watch(self) -> None:
        """Kill workers whose job hangs, or that never get ready."""
        while not self._stop.wait(_WATCH_S):
            now = time.perf_counter()
            with self._state:
                stuck = [
                    worker
                    for worker in self._workers
                    if worker.launched
                    and not worker.killed
                    and (
                        (worker.job is not None and now > worker.job.watch)
                        or (not worker.ready and now > worker.started + STARTUP_LIMIT_S)
                    )
                ]
                for worker in stuck:
                    worker.killed = True
            for worker in stuck:
                if worker.process is not None:
                    worker.process.kill()


def _settle(future: Future[Any], error: BaseException | None, value: Any = None) -> None:
    """Settle ``future`` (nothing if it was cancelled or settled meanwhile)."""
    with contextlib.suppress(InvalidStateError):
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

"""Engine work off the event loop: search slots, deadlines, and searches in threads.

A request hands a search job (a callable of a :class:`~noughts.budget.Limit`) to a
runner with its budget. The runner gets it a slot through
:class:`~noughts.service.admission.Admission` (429 at once if none comes free in time),
runs it, and waits for it until the budget's deadline plus :data:`HARD_MARGIN_S`. When
that passes, or the request's client goes away, the request gives up at once and the
budget is cancelled: the search stops at its next poll and unwinds by itself. A slot
stays taken until its search has really stopped, so abandoned work counts against the
bound and can never pile up.

:class:`EngineRunner` runs each search in a thread of this process (the Lambda handler,
in-process test clients); :mod:`noughts.service.processes` runs them in worker
processes with the same admission, waiting and counting (:class:`SearchRunner`);
:class:`Inline` runs a job that takes microseconds (a 3x3 answer from its table) on the
spot.

>>> import asyncio
>>> runner = EngineRunner(max_searches=1, queue_wait_s=0.0)
>>> asyncio.run(runner.run(lambda limit: 6 * 7, Limit.within(seconds=1.0)))
42
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from noughts.budget import BudgetExhausted, Limit
from noughts.service.admission import Admission, EngineBusyError

__all__ = [
    "EngineRunner",
    "Inline",
    "SearchRunner",
    "EngineBusyError",
    "DeadlineExceededError",
    "ClientGoneError",
    "ClientCheck",
    "Job",
    "HARD_MARGIN_S",
    "deliver",
    "deadline_of",
]

T = TypeVar("T")

Job = Callable[[Limit], T]
"""A search job: called with the request's budget, polls it."""

ClientCheck = Callable[[], Awaitable[bool]]
"""An awaitable check that the request's client has gone away."""

HARD_MARGIN_S = 0.08
"""A search still running this long after its budget's deadline is given up on (the
rest of the service's 100 ms grace is for the reply)."""

_DISCONNECT_POLL_S = 0.05
"""How often a waiting request checks that its client is still there."""


class DeadlineExceededError(Exception):
    """The search did not finish by its deadline; its budget has been cancelled."""


class ClientGoneError(Exception):
    """The client went away before the search finished; its budget has been cancelled."""


def deadline_of(limit: Limit) -> float:
    """The budget's deadline (a runner needs one)."""
    if limit.deadline is None:
        raise ValueError("a search handed to a runner needs a budget with a deadline")
    return limit.deadline


def deliver(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], value: Any, error: Any
) -> None:
    """Settle ``future`` on its loop from any thread with ``value`` or ``error`` (an
    exception; a :class:`BudgetExhausted` becomes :class:`DeadlineExceededError`).
    Nothing happens if the request stopped waiting or its loop has closed."""

    def settle() -> None:
        if future.done():
            return
        if isinstance(error, BudgetExhausted):
            future.set_exception(DeadlineExceededError("the search was stopped by its budget"))
        elif error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
        loop.call_soon_threadsafe(settle)


class SearchRunner:
    """Search slots, counters, and the wait for a running search: what the runners share.

    A runner starts a job in its slot with :meth:`_start` (in a thread, in a worker).
    """

    def __init__(self, admission: Admission) -> None:
        self.admission = admission
        self._lock = threading.Lock()
        self.running = 0
        self.started = 0
        self.deadline_misses = 0
        self.cancelled = 0
        """Searches cancelled because their client went away."""

    @property
    def max_searches(self) -> int:
        return self.admission.slots

    @property
    def rejected(self) -> int:
        return self.admission.rejected

    def _began(self) -> None:
        with self._lock:
            self.running += 1
            self.started += 1

    def _ended(self) -> None:
        with self._lock:
            self.running -= 1

    async def run(
        self,
        job: Job[T],
        limit: Limit,
        *,
        client_gone: ClientCheck | None = None,
        expected_s: float | None = None,
    ) -> T:
        """``job(limit)`` in a search slot, its result by the budget's deadline.

        Raises :class:`EngineBusyError` (no slot in time), :class:`DeadlineExceededError`
        (still running at the deadline + :data:`HARD_MARGIN_S`, or stopped by its budget)
        and :class:`ClientGoneError` once ``client_gone()`` says so. ``expected_s`` is how
        long the job is expected to hold its slot, if less than its whole budget.
        """
        deadline = deadline_of(limit)
        expected_end = None if expected_s is None else time.perf_counter() + expected_s
        slot = await self.admission.acquire(deadline, expected_end)
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._began()
        cancel = self._start(job, limit, slot, future)
        return await self._wait(future, deadline, client_gone, cancel)

    def _start(
        self, job: Job[T], limit: Limit, slot: int, future: asyncio.Future[T]
    ) -> Callable[[], None]:
        """Start ``job`` in ``slot``, its outcome to ``future``; how to cancel it."""
        raise NotImplementedError

    async def _wait(
        self,
        future: asyncio.Future[T],
        deadline: float,
        client_gone: ClientCheck | None,
        cancel: Callable[[], None],
    ) -> T:
        """The search's result by ``deadline`` + :data:`HARD_MARGIN_S`; else (or when the
        client goes) ``cancel()`` it and raise."""
        hard = deadline + HARD_MARGIN_S
        try:
            while True:
                left = hard - time.perf_counter()
                if left <= 0:
                    await asyncio.sleep(0)  # an answer handed over meanwhile is taken
                    if future.done():
                        return future.result()
                    raise DeadlineExceededError("the search did not finish by its deadline")
                step = left if client_gone is None else min(left, _DISCONNECT_POLL_S)
                done, _ = await asyncio.wait({future}, timeout=step)
                if done:
                    return future.result()
                if client_gone is not None and await client_gone():
                    with self._lock:
                        self.cancelled += 1
                    raise ClientGoneError("the client went away")
        except BaseException as error:
            if isinstance(error, DeadlineExceededError):
                with self._lock:
                    self.deadline_misses += 1
            if not future.done():
                future.cancel()
                cancel()
            raise


class EngineRunner(SearchRunner):
    """Runs search jobs in threads of this process: at most ``max_searches`` at once."""

    def __init__(
        self, max_searches: int, queue_wait_s: float, *, min_search_s: float = 0.0
    ) -> None:
        super().__init__(
            Admission(max_searches, queue_wait_s=queue_wait_s, min_search_s=min_search_s)
        )

    def _start(
        self, job: Job[T], limit: Limit, slot: int, future: asyncio.Future[T]
    ) -> Callable[[], None]:
        """``job(limit)`` in a thread of its own."""
        loop = future.get_loop()

        def main() -> None:
            value: Any = None
            error: BaseException | None = None
            try:
                value = job(limit)
            except BaseException as raised:  # handed to the waiting request
                error = raised
            finally:
                self._ended()
                self.admission.release(slot)
            deliver(loop, future, value, error)

        try:
            threading.Thread(target=main, name="noughts-search", daemon=True).start()
        except BaseException:
            self._ended()
            self.admission.release(slot)
            raise
        return limit.cancel


class Inline:
    """Runs a job on the event loop itself: for answers that take microseconds (read from
    a complete table), where a trip to a thread or a worker would cost more than the
    answer. Not a search slot: nothing to admit, wait for or count."""

    async def run(self, job: Job[T], limit: Limit, **_: object) -> T:
        """``job(limit)``, now (the options of :meth:`SearchRunner.run` do not apply)."""
        return job(limit)

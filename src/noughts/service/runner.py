"""Engine work off the event loop: one thread per search, a bound on searches, deadlines.

Each search runs in its own daemon thread with a :class:`~noughts.budget.Budget` that
it polls. When the request's deadline passes, or its client goes away, the waiting
request gives up at once and cancels that budget: the search stops at its next poll
(within about a thousand nodes) and unwinds by itself. A search slot stays taken until
its thread has really stopped, so abandoned work counts against the bound and can
never pile up.

>>> import asyncio
>>> runner = EngineRunner(max_searches=1, queue_wait_s=0.0)
>>> asyncio.run(runner.run(lambda budget: 6 * 7, deadline=_now() + 1.0))
42
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

from noughts.budget import Budget, BudgetExhausted

__all__ = ["EngineRunner", "EngineBusyError", "DeadlineExceededError", "ClientGoneError"]

T = TypeVar("T")

_POLL_S = 0.005
"""How often a request waiting for a search slot looks again."""


def _now() -> float:
    return time.monotonic()


class EngineBusyError(Exception):
    """Every search slot stayed busy for as long as the request could wait (HTTP 429)."""


class DeadlineExceededError(Exception):
    """The search did not finish by its deadline; its budget has been cancelled."""


class ClientGoneError(Exception):
    """The client went away before the search finished; its budget has been cancelled."""


_DISCONNECT_POLL_S = 0.05
"""How often a waiting request checks that its client is still there."""


class _Search(Generic[T]):
    """One search in its own thread; ``future`` gets its result or its exception."""

    def __init__(self, work: Callable[[Budget], T], on_exit: Callable[[], None]) -> None:
        self.future: Future[T] = Future()
        self.budget = Budget()
        self._work = work
        self._on_exit = on_exit
        self._thread = threading.Thread(target=self._main, name="noughts-search", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _main(self) -> None:
        try:
            result = self._work(self.budget)
        except BudgetExhausted:
            self._finish(DeadlineExceededError("the search was stopped at its deadline"))
        except BaseException as error:  # handed to the waiting request
            self._finish(error)
        else:
            self._finish(None, result)

    def _finish(self, error: BaseException | None, result: T | None = None) -> None:
        """Free the search's slot and hand over its outcome."""
        self._on_exit()
        future = self.future
        if future.done() or not (future.running() or future.set_running_or_notify_cancel()):
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def cancel(self) -> None:
        """Ask the search to stop: it does at its next poll of the budget."""
        self.budget.cancel()


class EngineRunner:
    """Runs engine calls in threads: at most ``max_searches`` at once, each with a deadline."""

    def __init__(self, max_searches: int, queue_wait_s: float) -> None:
        self.max_searches = max_searches
        self.queue_wait_s = queue_wait_s
        self._lock = threading.Lock()
        self.running = 0
        self.started = 0
        self.rejected = 0
        self.deadline_misses = 0

    def _try_acquire(self, admit: bool) -> bool:
        with self._lock:
            if admit and self.running >= self.max_searches:
                return False
            self.running += 1
            self.started += 1
            return True

    def _release(self) -> None:
        with self._lock:
            self.running -= 1

    async def _acquire(self, wait_until: float) -> None:
        while not self._try_acquire(admit=True):
            if _now() >= wait_until:
                with self._lock:
                    self.rejected += 1
                raise EngineBusyError(
                    f"the server is busy: no search slot (of {self.max_searches}) came free "
                    "in time for this request's budget; try again shortly"
                )
            await asyncio.sleep(_POLL_S)

    async def run(
        self,
        work: Callable[[Budget], T],
        *,
        deadline: float,
        admit: bool = True,
        client_gone: Callable[[], Awaitable[bool]] | None = None,
        min_search_s: float = 0.0,
    ) -> T:
        """``work(budget)`` in a search thread, its result by ``deadline`` (a ``time.monotonic``).

        With ``admit`` (the default) the call waits up to ``queue_wait_s`` for a free slot,
        and never so long that less than ``min_search_s`` would be left before ``deadline``
        (time spent queueing is the request's own), then raises :class:`EngineBusyError`
        (HTTP 429): a request that cannot start in time is turned away at once. Without it the
        slot is taken regardless (for a short fallback of a request that already holds one).
        Raises :class:`DeadlineExceededError` if the work has not finished by ``deadline``
        and :class:`ClientGoneError` once ``client_gone()`` says so; either way the work's
        budget is cancelled, and the work stops at its next poll.
        """
        if admit:
            await self._acquire(min(_now() + self.queue_wait_s, deadline - min_search_s))
        else:
            self._try_acquire(admit=False)
        search: _Search[T] = _Search(work, self._release)
        try:
            search.start()
        except BaseException:
            self._release()
            raise
        waiting = asyncio.wrap_future(search.future)
        try:
            while True:
                left = deadline - _now()
                if left <= 0:
                    with self._lock:
                        self.deadline_misses += 1
                    raise DeadlineExceededError("the search did not finish by its deadline")
                step = left if client_gone is None else min(left, _DISCONNECT_POLL_S)
                done, _ = await asyncio.wait({waiting}, timeout=step)
                if done:
                    return waiting.result()
                if client_gone is not None and await client_gone():
                    raise ClientGoneError("the client went away")
        except BaseException:
            waiting.cancel()
            search.cancel()
            raise

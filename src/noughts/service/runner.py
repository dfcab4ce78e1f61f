"""Engine work off the event loop: one thread per search, a bound on searches, deadlines.

The engine is pure Python, so a search cannot be interrupted from outside by ordinary
means. Each search runs in its own daemon thread; when its deadline passes, the waiting
request gives up at once and the thread is stopped by raising :class:`SearchCancelled`
inside it (``PyThreadState_SetAsyncExc``), which unwinds the search between two Python
bytecodes. A search slot stays taken until its thread has really stopped, so abandoned
work counts against the bound and can never pile up.

>>> import asyncio
>>> runner = EngineRunner(max_searches=1, queue_wait_s=0.0)
>>> asyncio.run(runner.run(lambda: 6 * 7, deadline=_now() + 1.0))
42
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

__all__ = [
    "EngineRunner",
    "SearchCancelled",
    "EngineBusyError",
    "DeadlineExceededError",
]

T = TypeVar("T")

_POLL_S = 0.005
"""How often a request waiting for a search slot looks again."""


def _now() -> float:
    return time.monotonic()


class SearchCancelled(BaseException):  # a signal, not an error
    """Raised inside a search thread to stop it (a BaseException: engine code won't catch it)."""


class EngineBusyError(Exception):
    """Every search slot stayed busy for as long as the request could wait (HTTP 429)."""


class DeadlineExceededError(Exception):
    """The search did not finish by its deadline; it has been told to stop."""


class _Search(Generic[T]):
    """One search in its own thread; ``future`` gets its result or its exception."""

    def __init__(self, work: Callable[[], T], on_exit: Callable[[], None]) -> None:
        self.future: Future[T] = Future()
        self._work = work
        self._on_exit = on_exit
        self._lock = threading.Lock()
        self._finished = False
        self._cancelled = False
        self._thread = threading.Thread(target=self._main, name="noughts-search", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _main(self) -> None:
        outcome: tuple[bool, object]
        try:
            outcome = (True, self._work())
        except SearchCancelled:
            outcome = (False, DeadlineExceededError("the search was stopped at its deadline"))
        except BaseException as error:  # handed to the waiting request
            outcome = (False, error)
        attempts = (1, 2, 3)
        for _ in attempts:
            try:
                self._finish(outcome)
                return
            except SearchCancelled:  # a stop signal landing late, after the work: retry
                continue

    def _finish(self, outcome: tuple[bool, object]) -> None:
        """Mark the search finished, free its slot, hand over the outcome (idempotent)."""
        with self._lock:
            if not self._finished:
                self._finished = True
                self._on_exit()
        future = self.future
        if future.done() or not (future.running() or future.set_running_or_notify_cancel()):
            return
        ok, value = outcome
        if ok:
            future.set_result(value)  # type: ignore[arg-type]
        elif isinstance(value, BaseException):
            future.set_exception(value)

    def cancel(self) -> None:
        """Stop the search at its next bytecode (once; nothing happens if it has ended)."""
        with self._lock:
            if self._finished or self._cancelled or self._thread.ident is None:
                return
            self._cancelled = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self._thread.ident), ctypes.py_object(SearchCancelled)
            )


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
                    f"the server is busy: all {self.max_searches} search slots are in use; "
                    "try again shortly"
                )
            await asyncio.sleep(_POLL_S)

    async def run(self, work: Callable[[], T], *, deadline: float, admit: bool = True) -> T:
        """``work()`` in a search thread, its result by ``deadline`` (a ``time.monotonic``).

        With ``admit`` (the default) the call waits up to ``queue_wait_s`` (and never past
        ``deadline``) for a free slot, then raises :class:`EngineBusyError`. Without it the
        slot is taken regardless (for a short fallback of a request that already holds one).
        Raises :class:`DeadlineExceededError` if the work has not finished by ``deadline``.
        """
        if admit:
            await self._acquire(min(_now() + self.queue_wait_s, deadline))
        else:
            self._try_acquire(admit=False)
        search: _Search[T] = _Search(work, self._release)
        try:
            search.start()
        except BaseException:
            self._release()
            raise
        waiting = asyncio.wrap_future(search.future)
        timeout = max(0.0, deadline - _now())
        done, _ = await asyncio.wait({waiting}, timeout=timeout)
        if not done:
            waiting.cancel()
            search.cancel()
            with self._lock:
                self.deadline_misses += 1
            raise DeadlineExceededError("the search did not finish by its deadline")
        return waiting.result()

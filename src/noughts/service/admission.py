"""Search slots and who gets one: admission that knows when each slot comes free.

A slot is a search thread or a worker process. A request asks for one with its deadline
(the end of its :class:`~noughts.budget.Limit`). A busy slot is expected back by the
deadline of the search on it (a search ends by its budget), and the requests already
queued are expected to take the slots in turn, each until its own deadline. A request
that by that reckoning could not start with ``min_search_s`` of its budget left, or not
within ``queue_wait_s``, is turned away at once (:class:`EngineBusyError`, HTTP 429);
one that queues gets the first slot that really comes free (often sooner), or is turned
away when its latest start passes. So every 429 goes out before the request's budget
ends, and time spent queueing is the request's own.

Thread-safe: slots are released from search threads and worker readers; a queued
request is woken on its own event loop. Times are :func:`time.perf_counter` values,
the clock of :class:`~noughts.budget.Limit`.

>>> import asyncio, time
>>> admission = Admission(1, queue_wait_s=1.0, min_search_s=0.03)
>>> async def two_requests() -> str:
...     first = await admission.acquire(deadline=time.perf_counter() + 5.0)
...     try:
...         await admission.acquire(deadline=time.perf_counter() + 0.5)
...     except EngineBusyError:
...         return f"slot {first} busy for 5 s: the second request is turned away at once"
...     return "admitted"
>>> asyncio.run(two_requests())
'slot 0 busy for 5 s: the second request is turned away at once'
"""

from __future__ import annotations

import asyncio
import heapq
import threading
import time
from collections import deque
from dataclasses import dataclass, field

__all__ = ["Admission", "EngineBusyError"]


class EngineBusyError(Exception):
    """Every search slot stays busy for as long as the request could wait (HTTP 429)."""


@dataclass(eq=False)
class _Waiter:
    deadline: float
    end: float
    """When its search is expected to give the slot back (at the latest its deadline)."""
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[int] = field(init=False)

    def __post_init__(self) -> None:
        self.future = self.loop.create_future()


class Admission:
    """``slots`` search slots, each free or busy until an expected time."""

    def __init__(self, slots: int, *, queue_wait_s: float, min_search_s: float) -> None:
        self.slots = slots
        self.queue_wait_s = queue_wait_s
        self.min_search_s = min_search_s
        self.rejected = 0
        self._busy_until: list[float | None] = [None] * slots
        self._waiters: deque[_Waiter] = deque()
        self._lock = threading.Lock()

    # -- asking for a slot --------------------------------------------------------------
    async def acquire(self, deadline: float, expected_end: float | None = None) -> int:
        """A free slot's index for a request whose budget ends at ``deadline``.

        The slot counts as busy until ``expected_end`` (default: ``deadline``) for the
        requests that come after. Raises :class:`EngineBusyError` at once if the request
        could not start in time, or later if it queued and its latest start passed.
        """
        now = time.perf_counter()
        latest = min(now + self.queue_wait_s, deadline - self.min_search_s)
        end = deadline if expected_end is None else min(deadline, expected_end)
        waiter = _Waiter(deadline, end, asyncio.get_running_loop())
        with self._lock:
            if not self._waiters:
                for index, busy in enumerate(self._busy_until):
                    if busy is None:
                        self._busy_until[index] = end
                        return index
            if self._predicted_start(now) > latest:
                raise self._busy()
            self._waiters.append(waiter)
        try:
            await asyncio.wait({waiter.future}, timeout=max(0.0, latest - now))
            with self._lock:
                if waiter in self._waiters:  # never handed a slot: its time is up
                    self._waiters.remove(waiter)
                    raise self._busy()
            return await waiter.future
        except BaseException:
            self._abandon(waiter)
            raise

    def _abandon(self, waiter: _Waiter) -> None:
        """A queued request gave up (cancelled): drop it, or pass on a slot handed to it."""
        with self._lock:
            if waiter in self._waiters:
                self._waiters.remove(waiter)
                return
        future = waiter.future
        if not future.done():
            future.cancel()  # the hand-over, when it runs, passes the slot on
        elif not future.cancelled() and future.exception() is None:
            self.release(future.result())

    def _busy(self) -> EngineBusyError:
        self.rejected += 1
        return EngineBusyError(
            f"the server is busy: no search slot (of {self.slots}) comes free in time "
            "for this request's budget; try again shortly"
        )

    def _predicted_start(self, now: float) -> float:
        """When a request queued now would get a slot, by the expected ends (lock held)."""
        frees = [now if busy is None else max(now, busy) for busy in self._busy_until]
        heapq.heapify(frees)
        for waiter in self._waiters:
            heapq.heapreplace(frees, max(frees[0], waiter.end))
        return frees[0]

    # -- giving slots back ----------------------------------------------------------------
    def hold(self, index: int, until: float) -> None:
        """Mark slot ``index`` busy until about ``until`` (a worker starting up)."""
        with self._lock:
            self._busy_until[index] = until

    def release(self, index: int) -> None:
        """Slot ``index`` is free: hand it to the first queued request that can still
        start in time (turning away those that cannot), else mark it free."""
        with self._lock:
            now = time.perf_counter()
            while self._waiters:
                waiter = self._waiters.popleft()
                if waiter.deadline - self.min_search_s < now:
                    error = self._busy()
                    waiter.loop.call_soon_threadsafe(_refuse, waiter.future, error)
                    continue
                self._busy_until[index] = waiter.end
                waiter.loop.call_soon_threadsafe(self._hand_over, waiter.future, index)
                return
            self._busy_until[index] = None

    def _hand_over(self, future: asyncio.Future[int], index: int) -> None:
        if future.done():  # its request gave up meanwhile
            self.release(index)
        else:
            future.set_result(index)

    @property
    def queued(self) -> int:
        """Requests waiting for a slot."""
        return len(self._waiters)


def _refuse(future: asyncio.Future[int], error: EngineBusyError) -> None:
    if not future.done():
        future.set_exception(error)

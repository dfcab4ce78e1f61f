"""A search worker process: runs the service's search jobs, one at a time, until told to stop.

The parent (:mod:`noughts.service.processes`) talks to it over one duplex connection:

- ``("run", job_id, job, deadline, start)``: run ``job`` (a :mod:`~noughts.service.jobs`
  value) with a :class:`~noughts.budget.Budget` of that deadline and start (both
  :func:`time.perf_counter` values: on Linux, macOS and Windows that clock is the
  system's monotonic clock, the same moment in every process);
- ``("cancel", job_id)``: cancel that job's budget, so the search stops at its next poll
  (the process lives on);
- ``None``, or the connection closing (the parent has gone): exit at once.

It answers ``("ready", None, None, None)`` once its tables are warm, then
``("done", job_id, ok, value)`` for each job (``value`` is the job's result, or the
exception it raised). A listener thread reads the connection, so a cancel arrives while a
search runs. Imports only the engine and the jobs (no web stack). Ctrl-C in the
terminal goes to the parent, which stops its workers.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import sys
import threading
import traceback
from multiprocessing.connection import Connection
from typing import Any

from noughts.budget import Budget

__all__ = ["serve", "SWITCH_INTERVAL_S"]

SWITCH_INTERVAL_S = 0.001
"""The worker's thread switch interval: a cancel is read within about this long."""


def serve(connection: Connection, warm: tuple[str, ...], table_share: float = 1.0) -> None:
    """The worker's main: warm ``warm`` (variant names), then run jobs until stopped.

    ``table_share`` is this worker's share of the exact solver's table bounds (the
    workers of one server share one memory bound).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    from noughts.exact.solver import share_tables

    share_tables(table_share)
    jobs: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
    budgets: dict[int, Budget] = {}
    threading.Thread(
        target=_listen, args=(connection, jobs, budgets), name="noughts-listener", daemon=True
    ).start()
    _warm(warm)
    connection.send(("ready", None, None, None))
    while True:
        job_id, job = jobs.get()
        budget = budgets[job_id]
        try:
            message = ("done", job_id, True, job(budget))
        except Exception as error:
            message = ("done", job_id, False, _portable(error))
        finally:
            budgets.pop(job_id, None)
        try:
            connection.send(message)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            connection.send(("done", job_id, False, RuntimeError(f"unsendable result: {error}")))


def _listen(
    connection: Connection, jobs: queue.SimpleQueue[tuple[int, Any]], budgets: dict[int, Budget]
) -> None:
    """Read the parent's messages; exit the process when it says so or goes away."""
    try:
        while True:
            message = connection.recv()
            if message is None:
                break
            if message[0] == "run":
                _, job_id, job, deadline, start = message
                budgets[job_id] = Budget(deadline=deadline, start=start)
                jobs.put((job_id, job))
            elif message[0] == "cancel":
                budget = budgets.get(message[1])
                if budget is not None:
                    budget.cancel()
    except (EOFError, OSError):
        pass
    os._exit(0)  # at once, even in the middle of a search


def _warm(names: tuple[str, ...]) -> None:
    from noughts.service.warmup import warm
    from noughts.variants import variant

    for name in names:
        warm(variant(name))


def _portable(error: Exception) -> Exception:
    """``error`` with the worker's traceback as a note (the parent's log shows it), if it
    survives pickling; else a RuntimeError naming it."""
    where = "".join(traceback.format_exception(error))
    try:
        error.add_note(f"in the search worker (process {os.getpid()}):\n{where}")
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}\n{where}")
    return error

"""Search jobs that misbehave, for the worker-process tests (on pytest's path via
``pythonpath``, so a spawned worker imports them too)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from noughts.budget import Limit
from noughts.runtime.executor import report


@dataclass(frozen=True)
class WorkerPid:
    """Answers the worker's process id."""

    def __call__(self, limit: Limit) -> int:
        return os.getpid()


@dataclass(frozen=True)
class Raise:
    """Raises an error of its own."""

    message: str

    def __call__(self, limit: Limit) -> None:
        raise RuntimeError(self.message)


@dataclass(frozen=True)
class Exit:
    """Ends its worker process at once, as a crash would."""

    def __call__(self, limit: Limit) -> None:
        os._exit(3)


@dataclass(frozen=True)
class Hang:
    """Sleeps, never polling its budget (a search that hangs)."""

    seconds: float

    def __call__(self, limit: Limit) -> None:
        time.sleep(self.seconds)


@dataclass(frozen=True)
class SpinUntilStopped:
    """Polls its budget until it is cancelled or runs out; answers the worker's pid."""

    def __call__(self, limit: Limit) -> int:
        report("spinning")  # (to on_progress: the job is running in its worker)
        while True:
            limit.check()
            time.sleep(0.001)

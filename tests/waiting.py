"""Waiting in tests on a condition, never for a fixed time: ``wait_until(condition, s)``."""

from __future__ import annotations

import time
from collections.abc import Callable

POLL_S = 0.02


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    """True once ``condition()`` holds, False if it still does not after ``seconds``.

    >>> wait_for(lambda: False, 0.05)
    False
    """
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)
    return True


def wait_until(condition: Callable[[], bool], seconds: float, what: str = "the condition"
               ) -> None:
    """Return once ``condition()`` holds; fail the test if it does not within ``seconds``.

    >>> wait_until(lambda: True, 1)
    """
    assert wait_for(condition, seconds), f"timed out after {seconds} s waiting for {what}"

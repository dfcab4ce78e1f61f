"""How long searches of each kind hold their slot, for admission's reckoning.

An anytime search uses nearly all of its budget; an exact solve on a small board a
fraction of a millisecond of it; a level below 10 anything in between. Admission
(:mod:`noughts.service.admission`) turns a request away at once when no slot is expected
back in time for it, so it needs to know roughly when each search will end: this keeps,
per kind of search, a moving average of the share of its budget a search took. A guess
too long turns requests away that could have waited; too short makes a queued request
wait, at most its queue wait, before its 429 (never past its budget).

>>> durations = Durations()
>>> durations.expected_s(("move", "4x4k3", 10), budget_s=1.0, first_share=1.0)
1.0
>>> for _ in range(20):
...     durations.record(("move", "4x4k3", 10), seconds=0.0004, budget_s=1.0)
>>> durations.expected_s(("move", "4x4k3", 10), budget_s=1.0, first_share=1.0) < 0.01
True
"""

from __future__ import annotations

import threading
from collections.abc import Hashable

from noughts.runtime.lru import LRU

__all__ = ["Durations", "MAX_KINDS", "MIN_EXPECTED_S"]

MAX_KINDS = 256
"""Kinds of search remembered (least recently used first out)."""

MIN_EXPECTED_S = 0.002
"""No search is expected to take less than this (the trip to its slot and back)."""

_WEIGHT = 0.3
"""The weight of the latest search in the moving average."""

_MARGIN = 1.5
"""Expected: this many times the average share (capped at the whole budget)."""


class Durations:
    """Moving averages of the share of their budget that searches of each kind took."""

    def __init__(self) -> None:
        self._shares: LRU[Hashable, float] = LRU(MAX_KINDS)
        self._lock = threading.Lock()

    def expected_s(self, kind: Hashable, budget_s: float, *, first_share: float) -> float:
        """How long a search of ``kind`` with ``budget_s`` seconds is expected to take
        (``first_share`` of its budget until one has been measured)."""
        with self._lock:
            share = self._shares.get(kind)
        if share is None:
            share = first_share
        return min(budget_s, max(MIN_EXPECTED_S, share * _MARGIN * budget_s))

    def record(self, kind: Hashable, *, seconds: float, budget_s: float) -> None:
        """A search of ``kind`` took ``seconds`` of its ``budget_s``."""
        share = min(1.0, seconds / budget_s) if budget_s > 0 else 1.0
        with self._lock:
            old = self._shares.get(kind)
            new = share if old is None else old + _WEIGHT * (share - old)
            self._shares.put(kind, new)

"""The compiled anytime search releases the GIL while it searches: the limit crosses into
C as plain values (its deadline, its node limit, its cancel switch's byte), so another
thread runs Python meanwhile, reads the node count, and a cancel from it stops the
search within milliseconds."""

from __future__ import annotations

import threading
import time

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.position import Position
from noughts.search import core
from noughts.search.core import Searcher, anytime_search


def _searching(limit: Limit) -> tuple[Searcher, threading.Thread, dict[str, float]]:
    """A deep compiled search of Qubic started in a thread (it runs until stopped)."""
    assert core.built() is not None, "noughts.search._core is not built"
    search = anytime_search(Position("X" + "." * 63, "qubic"), limit=limit, core="compiled")
    moves = search.ordered_moves(-1, 0)
    stopped: dict[str, float] = {}

    def run() -> None:
        try:
            search.root(20, moves)
        except BudgetExhausted:
            stopped["at"] = time.perf_counter()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return search, thread, stopped


def test_a_cancel_from_another_thread_stops_the_search_within_10_ms() -> None:
    delays = []
    for _ in range(3):
        limit = Limit()
        search, thread, stopped = _searching(limit)
        time.sleep(0.1)
        assert thread.is_alive() and search.nodes > 0
        cancelled = time.perf_counter()
        limit.cancel()
        thread.join(5)
        assert not thread.is_alive()
        delays.append(stopped["at"] - cancelled)
    assert min(delays) < 0.010, delays
    print(f"cancel to stop: {', '.join(f'{delay * 1000:.2f} ms' for delay in delays)}")


def test_python_runs_while_the_search_does() -> None:
    limit = Limit()
    search, thread, _ = _searching(limit)
    try:
        time.sleep(0.02)
        counts, seen, end = 0, [], time.perf_counter() + 0.2
        while time.perf_counter() < end:  # (with the GIL held by the search: no turns)
            counts += 1
            if counts % 10_000 == 0:
                seen.append(search.nodes)  # read as it grows
        assert counts > 10_000
        assert thread.is_alive() and seen == sorted(seen) and seen[-1] > seen[0]
        with pytest.raises(RuntimeError, match="busy"):
            search.ordered_moves(-1, 0)
        with pytest.raises(RuntimeError, match="busy"):
            search.limit = Limit()
    finally:
        limit.cancel()
        thread.join(5)
    assert search.ordered_moves(-1, 0)  # idle again


def test_a_deadline_and_a_node_limit_stop_it_without_python() -> None:
    for limit in (Limit.within(seconds=0.05), Limit(node_limit=20_000)):
        search, thread, stopped = _searching(limit)
        thread.join(5)
        assert "at" in stopped and not thread.is_alive()
        if limit.node_limit is not None:  # (a frontier node counts its moves at once)
            assert 20_000 - 1 <= search.nodes < 20_000 + 64

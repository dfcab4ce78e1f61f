"""The compiled searches release the GIL while they search: the limit crosses into C as
plain values (its deadline, its node limit, its cancel switch's byte), so another thread
runs Python meanwhile, reads the node count, runs a search of its own, and a cancel from
it stops the search within milliseconds (run with ``-s`` to see the figures)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable

import pytest

from noughts.budget import BudgetExhausted, Limit
from noughts.exact.negamax import ExactSearch
from noughts.position import Position
from noughts.search import core
from noughts.search.core import Searcher, anytime_search, proof_search, threat_search
from noughts.variants import variant


def _searching(limit: Limit) -> tuple[Searcher, threading.Thread, dict[str, float]]:
    """A deep compiled search of Qubic started in a thread (it runs until stopped)."""
    assert core.built() is not None, "noughts.search._core is not built"
    search = anytime_search(Position("X" + "." * 63, "qubic"), core="compiled")
    moves = search.ordered_moves(-1, 0)
    stopped: dict[str, float] = {}

    def run() -> None:
        try:
            search.root(20, moves, limit)
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
            search.root(1, search.ordered_moves(-1, 0), None)
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


# -- every search type ----------------------------------------------------------------------
# Each starts a search of the compiled core, bounded only by the limit given, that runs
# far longer than a test (an empty 7x7k5 board).
def _exact(limit: Limit) -> Callable[[], object]:
    search = ExactSearch(variant("7x7k5"), core="compiled")
    assert search.core == "compiled"

    return lambda: search.value(0, 0, limit)


def _proof(limit: Limit) -> Callable[[], object]:
    search = proof_search(Position("", "7x7k5"), 0, core="compiled")
    return lambda: search.run(limit)


def _anytime(limit: Limit) -> Callable[[], object]:
    search = anytime_search(Position("", "7x7k5"), core="compiled")
    moves = search.ordered_moves(-1, 0)
    return lambda: search.root(30, moves, limit)


SEARCHES = {"anytime": _anytime, "exact": _exact, "proof": _proof}


def _in_thread(run: Callable[[], object]) -> tuple[threading.Thread, dict[str, float]]:
    """run started in a thread; the dict gets the time it ended ("at"), by its answer or
    by BudgetExhausted."""
    ended: dict[str, float] = {}

    def target() -> None:
        with contextlib.suppress(BudgetExhausted):
            run()
        ended["at"] = time.perf_counter()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, ended


@pytest.mark.parametrize("kind", sorted(SEARCHES))
def test_a_cancel_stops_every_search_within_milliseconds(kind: str) -> None:
    assert core.built() is not None, "noughts.search._core is not built"
    delays = []
    for _ in range(3):
        limit = Limit()
        thread, ended = _in_thread(SEARCHES[kind](limit))
        time.sleep(0.1)
        assert thread.is_alive()
        cancelled = time.perf_counter()
        limit.cancel()
        thread.join(5)
        assert not thread.is_alive()
        delays.append(ended["at"] - cancelled)
    print(f"{kind}: cancel to stop {', '.join(f'{delay * 1000:.2f} ms' for delay in delays)}")
    assert min(delays) < 0.010, delays  # (the best of three: the machine is shared)
    assert max(delays) < 0.5, delays


@pytest.mark.parametrize("kind", sorted(SEARCHES))
def test_two_threads_search_at_once(kind: str) -> None:
    """While one search runs (without the GIL, bounded only by its cancel), another
    search in another thread starts and ends: neither waits for the other."""
    assert core.built() is not None, "noughts.search._core is not built"
    endless = Limit()
    first, first_ended = _in_thread(SEARCHES[kind](endless))
    try:
        time.sleep(0.05)
        second, second_ended = _in_thread(SEARCHES[kind](Limit(node_limit=50_000)))
        second.join(5)
        assert "at" in second_ended and first.is_alive() and "at" not in first_ended
    finally:
        endless.cancel()
        first.join(5)
    assert "at" in first_ended


def test_a_cancel_stops_threat_searches() -> None:
    """The threat search polls the same cancel byte (every 128 positions) without the
    GIL: a cancel stops a run of them (each ends within a millisecond: no position found
    keeps one busy longer) at once."""
    assert core.built() is not None, "noughts.search._core is not built"
    game = variant("qubic")
    limit = Limit()
    positions = [(1 << 0 | 1 << 21 | 1 << 42, 1 << 5 | 1 << 63), (1 << 1 | 1 << 22, 1 << 3)]

    def run() -> None:
        while True:
            search = threat_search(game, core="compiled")
            for attacker, defender in positions:
                if search.find(attacker, defender, 30, limit) is None and search.exhausted():
                    return

    thread, ended = _in_thread(run)
    time.sleep(0.05)
    assert thread.is_alive()
    cancelled = time.perf_counter()
    limit.cancel()
    thread.join(5)
    print(f"threats: cancel to stop {(ended['at'] - cancelled) * 1000:.2f} ms")
    assert ended["at"] - cancelled < 0.5


def test_o_s_checks_run_alongside_its_deepening_and_a_cancel_stops_both(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (under the sanitizers too: the anytime search and the proof search at once)
    from noughts.engine import choose_move
    from noughts.knowledge.shipped import Knowledge

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1})  # two cores
    monkeypatch.setenv("NOUGHTS_CHECKS_ALONGSIDE", "1")
    position = Position("", "qubic")
    for move in [48, 37, 0, 21, 3, 5, 53, 17, 12]:  # past O's book
        position = position.play(move)
    threads = threading.active_count()
    answer = choose_move(position, time_limit=0.4, knowledge=Knowledge(learned=False))
    assert answer.move in position.legal_moves and answer.elapsed_ms < 1_000
    limit = Limit.within(5.0)
    timer = threading.Timer(0.2, limit.cancel)
    timer.start()
    started = time.perf_counter()
    cancelled = choose_move(position, limit=limit, knowledge=Knowledge(learned=False))
    assert cancelled.move in position.legal_moves
    assert time.perf_counter() - started < 1.0  # not the 5 s: the checks stopped too
    assert threading.active_count() == threads  # no thread of ours left running

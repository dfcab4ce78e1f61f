"""Warm-up: build a board's symmetry tables and the engine's tables outside any request.

The first search on a board pays one-off costs (Qubic's 192 symmetries and the anytime
search's tables take a good part of a second here). Paid inside a request, they would
eat its budget, and a search stopped at its deadline would throw the half-built tables
away and pay again next time. So they are built in a background thread that is never
stopped: at server start for the featured variants, and on first sight for any other.

>>> from noughts.variants import variant
>>> warm(variant("3x3"))
>>> is_warm(variant("3x3"))
True
"""

from __future__ import annotations

import threading

from noughts.engine import choose_move
from noughts.exact.solver import can_solve
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.service.cache import SymmetricView, shares_symmetries

__all__ = ["warm", "is_warm", "warm_in_background", "warmed_names", "WARMUP_SEARCH_S"]

WARMUP_SEARCH_S = 0.05
"""Budget of the tiny search that builds the anytime search's tables."""

_lock = threading.Lock()
_warm: set[Geometry] = set()
_started: set[Geometry] = set()


def is_warm(geometry: Geometry) -> bool:
    """True once ``geometry``'s tables have been built."""
    return geometry in _warm


def warmed_names() -> list[str]:
    """The variants warmed so far, by name."""
    with _lock:
        return sorted(g.name for g in _warm)


def warm(geometry: Geometry) -> None:
    """Build ``geometry``'s symmetry tables and run one tiny search (blocking)."""
    try:
        empty = Position("", geometry)
        if shares_symmetries(geometry):
            SymmetricView.of(empty)
        if not can_solve(empty):
            choose_move(empty, time_limit=WARMUP_SEARCH_S)
    except Exception:  # best effort: a request on this board meets the problem, and says so
        pass
    finally:
        with _lock:
            _warm.add(geometry)


def warm_in_background(*geometries: Geometry) -> threading.Thread | None:
    """Warm the geometries not yet warm or warming, one after another, in a daemon thread."""
    with _lock:
        todo = [g for g in geometries if g not in _started]
        _started.update(todo)
    if not todo:
        return None

    def run() -> None:
        for geometry in todo:
            warm(geometry)

    thread = threading.Thread(target=run, name="noughts-warmup", daemon=True)
    thread.start()
    return thread

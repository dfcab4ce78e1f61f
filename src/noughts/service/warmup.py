"""Warm-up: build a board's symmetry tables and the engine's tables outside any request.

The first search on a board pays one-off costs (Qubic's 192 symmetries and the anytime
search's tables take a good part of a second here). Paid inside a request, they would
eat its budget, and a search stopped at its deadline would throw the half-built tables
away and pay again next time. So they are built in a background thread that is never
stopped: at server start for the featured variants, and on first sight for any other.
Where searches run in worker processes, each worker warms the featured variants when it
starts (:func:`noughts.service.processes.prepare_worker`), and the serving process
builds only what it uses itself: the symmetry tables of its cache keys (``search=False``).

>>> from noughts.variants import variant
>>> warm(variant("3x3"))
>>> is_warm(variant("3x3"))
True
"""

from __future__ import annotations

import threading

from noughts.engine import answers_exactly, choose_move
from noughts.exact.solver import solver_for
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.runtime.lru import LRU
from noughts.service.cache import build_symmetries
from noughts.variants import MAX_KEPT_VARIANTS, Variant

__all__ = [
    "warm",
    "is_warm",
    "warm_in_background",
    "warmed_names",
    "WARMUP_SEARCH_S",
    "MAX_PENDING_WARMUPS",
]

WARMUP_SEARCH_S = 0.05
"""Limit of the tiny search that builds the anytime search's tables."""

MAX_PENDING_WARMUPS = 4
"""Warm-up threads started and not finished, at most."""

_lock = threading.Lock()
_one_at_a_time = threading.Lock()
_pending = 0
_warm: LRU[str, bool] = LRU(MAX_KEPT_VARIANTS)
_started: LRU[str, bool] = LRU(MAX_KEPT_VARIANTS)
"""Variant names, as many as the geometries kept (:data:`MAX_KEPT_VARIANTS`): a
geometry dropped and built again is warmed again."""


def is_warm(geometry: Variant | Geometry) -> bool:
    """True once ``geometry``'s tables have been built."""
    return geometry.name in _warm


def warmed_names() -> list[str]:
    """The variants warmed (of those kept), by name."""
    return sorted(_warm.keys())


def warm(geometry: Variant | Geometry, *, search: bool = True) -> None:
    """Build ``geometry``'s symmetry tables and, with ``search``, its solver (boards
    solved on the spot) or one tiny search (blocking)."""
    try:
        empty = Position("", geometry)
        build_symmetries(geometry)
        if search and answers_exactly(empty):
            solver_for(geometry)  # its table (3x3) or opening book
        elif search:
            choose_move(empty, time_limit=WARMUP_SEARCH_S)
    except Exception:  # best effort: a request on this board meets the problem, and says so
        pass
    finally:
        _warm.put(geometry.name, True)


def warm_in_background(
    *geometries: Variant | Geometry, search: bool = True
) -> threading.Thread | None:
    """Warm the geometries not yet warm or warming, one after another, in a daemon thread
    (``search``: as :func:`warm`).

    Warm-ups run one at a time (they are CPU work, and the searches come first), and at
    most :data:`MAX_PENDING_WARMUPS` wait: past that a geometry is left cold for now (a
    later request asks again), so a stream of new variants cannot pile up threads.
    """
    global _pending
    with _lock:
        todo = [g for g in geometries if g.name not in _started]
        if not todo or _pending >= MAX_PENDING_WARMUPS:
            return None
        for geometry in todo:
            _started.put(geometry.name, True)
        _pending += 1

    def run() -> None:
        global _pending
        try:
            with _one_at_a_time:
                for geometry in todo:
                    warm(geometry, search=search)
        finally:
            with _lock:
                _pending -= 1

    thread = threading.Thread(target=run, name="noughts-warmup", daemon=True)
    thread.start()
    return thread

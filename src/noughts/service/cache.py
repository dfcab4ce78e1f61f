"""The move cache: recent answers by canonical position, shared by symmetric positions.

The 4x4 backend seed kept "a cache of previous moves for a specified amount of time";
this is that cache, bounded in size and age (:class:`cachetools.TTLCache`). Keys are the
canonical image of a position under the board's symmetries, so the eight rotations and
reflections of a 3x3 position share one entry. The engine answers every position on
that image (:mod:`noughts.orientation`), so an entry is stored on the canonical board
and mapped back to each request's own board: a hit gives the move a search would.

>>> from noughts.position import Position
>>> view = Orientation.of(Position("..X/.../..."))
>>> view.canonical.board, view.to_original(0)
('X../.../...', 2)
>>> cache = MoveCache(maxsize=10, ttl_s=60)
>>> key = cache_key("move", view.canonical, level=10)
>>> cache.get(key, budget_ms=100) is None
True
>>> cache.put(key, "answer", searched_ms=100, exact=True)
>>> cache.get(key, budget_ms=5000), cache.hits, cache.misses
('answer', 1, 1)
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from cachetools import TTLCache

from noughts.geometry import Geometry
from noughts.orientation import Orientation
from noughts.position import Position
from noughts.variants import Variant, variant

__all__ = [
    "MoveCache",
    "ReplyCache",
    "Orientation",
    "cache_key",
    "shares_symmetries",
    "symmetries_ready",
    "build_symmetries",
    "CacheKey",
]

T = TypeVar("T")

CacheKey = tuple[Hashable, ...]

def shares_symmetries(geometry: Variant | Geometry) -> bool:
    """True if positions on ``geometry`` are answered, and cached, under their canonical
    image (the variant's symmetry policy, :attr:`SymmetryPolicy.canonical`).

    >>> shares_symmetries(variant("4x4x4")), shares_symmetries(variant("5x5k4"))
    (True, True)
    >>> shares_symmetries(variant("8x8")), shares_symmetries(variant("1x19"))
    (False, False)
    >>> shares_symmetries(variant("3x8k6"))
    False
    """
    return variant(geometry).symmetry.canonical


def symmetries_ready(geometry: Variant | Geometry) -> bool:
    """True if canonicalising on ``geometry`` is cheap now (its symmetry tables are built)."""
    if not shares_symmetries(geometry):
        return True
    return geometry.symmetry_group.ready


def build_symmetries(geometry: Variant | Geometry) -> None:
    """Build the symmetry tables that :func:`symmetries_ready` waits for (blocking; a
    large board's take a good part of a second)."""
    if shares_symmetries(geometry):
        Orientation.of(Position("", geometry))
        geometry.symmetry_group.transform(0, 0)  # (its image tables)


def cache_key(kind: str, canonical: Position, *, level: int,
              seed: int | None = None) -> CacheKey:
    """The key of an answer of ``kind`` ("move", "analyze") for a canonical position
    (and a game ``seed``: it picks among equally good moves)."""
    # The variant's name, not its geometry: an entry must not keep a dropped geometry
    # (and its tables) alive.
    return (kind, canonical.game.name, canonical.x, canonical.o, canonical.to_move, level,
            seed)


@dataclass(frozen=True)
class _Entry(Generic[T]):
    value: T
    searched_ms: int
    exact: bool


class MoveCache(Generic[T]):
    """A thread-safe TTL cache of engine answers with hit and miss counters.

    Exact answers serve every request. A time-bounded (not proven) answer serves only
    requests whose budget is no larger than the one it was searched with, so a cached
    answer is never weaker than a fresh search would be. ``maxsize=0`` turns caching off.
    """

    def __init__(self, maxsize: int, ttl_s: float) -> None:
        self.maxsize = maxsize
        self.ttl_s = ttl_s
        self._entries: TTLCache[CacheKey, _Entry[T]] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl_s) if maxsize > 0 else None
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: CacheKey, *, budget_ms: int) -> T | None:
        """The cached answer for ``key`` good enough for ``budget_ms``, counting the lookup."""
        with self._lock:
            entry = self._entries.get(key) if self._entries is not None else None
            if entry is not None and (entry.exact or entry.searched_ms >= budget_ms):
                self.hits += 1
                return entry.value
            self.misses += 1
            return None

    def put(self, key: CacheKey, value: T, *, searched_ms: int, exact: bool) -> None:
        """Store an answer; an exact one is never replaced by a time-bounded one."""
        if self._entries is None:
            return
        with self._lock:
            old = self._entries.get(key)
            if old is not None and (old.exact or old.searched_ms > searched_ms) and not exact:
                return
            self._entries[key] = _Entry(value, searched_ms, exact)

    def record_hit(self) -> None:
        """Count a hit served from a layer in front of this cache (:class:`ReplyCache`)."""
        with self._lock:
            self.hits += 1

    def __len__(self) -> int:
        with self._lock:
            if self._entries is None:
                return 0
            self._entries.expire()
            return len(self._entries)

    @property
    def hit_rate(self) -> float | None:
        """Hits over lookups, or ``None`` before the first lookup."""
        total = self.hits + self.misses
        return self.hits / total if total else None


class ReplyCache:
    """Finished response bodies by the request's own wording: the fast path for repeats.

    In front of :class:`MoveCache`: a request worded exactly like an earlier one (same
    fields, same budget) gets the earlier body back without being parsed into a position
    or mapped through a symmetry. Only bodies that the move cache itself would serve
    again are stored, with the same size and age bounds.

    >>> replies = ReplyCache(maxsize=2, ttl_s=60)
    >>> replies.put(("move", "3x3", "X../.../..."), b'{"move": 4}')
    >>> replies.get(("move", "3x3", "X../.../...")), replies.get(("move", "3x3", None))
    (b'{"move": 4}', None)
    """

    def __init__(self, maxsize: int, ttl_s: float) -> None:
        self._entries: TTLCache[CacheKey, bytes] | None = (
            TTLCache(maxsize=maxsize, ttl=ttl_s) if maxsize > 0 else None
        )
        self._lock = threading.Lock()

    def get(self, key: CacheKey) -> bytes | None:
        if self._entries is None:
            return None
        with self._lock:
            return self._entries.get(key)

    def put(self, key: CacheKey, body: bytes) -> None:
        if self._entries is None:
            return
        with self._lock:
            self._entries[key] = body

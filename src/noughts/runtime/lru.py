"""A small thread-safe least-recently-used map: the bound on per-variant tables.

Anything built per variant (geometries with their symmetry tables, exact solvers with
their transposition tables, the service's warm-up marks) lives in one of these, so a
stream of distinct variant names cannot grow the process without limit: past
``maxsize`` entries the least recently used one is dropped (and rebuilt if asked for
again). ``on_evict`` sees every dropped value.

>>> cache: LRU[str, int] = LRU(maxsize=2)
>>> cache.get_or_make("a", lambda: 1), cache.get_or_make("b", lambda: 2)
(1, 2)
>>> cache.get_or_make("a", lambda: 0)  # still there, and now the most recent
1
>>> cache.get_or_make("c", lambda: 3); sorted(cache.keys())  # "b" was the oldest
3
['a', 'c']
"""

from __future__ import annotations

from _thread import RLock  # threading's RLock itself; importing threading costs a cold start
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

__all__ = ["LRU"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``maxsize`` entries; the least recently used goes first."""

    def __init__(self, maxsize: int, on_evict: Callable[[V], None] | None = None) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, not {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = RLock()
        self._on_evict = on_evict

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recent), or ``None``."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made by ``make()`` and kept if it was missing."""
        with self._lock:
            value = self.get(key)
            if value is None:
                value = make()
                self.put(key, value)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` as the most recent entry, dropping the oldest."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                _, dropped = self._entries.popitem(last=False)
                if self._on_evict is not None:
                    self._on_evict(dropped)

    def evict_oldest(self, keep: K) -> bool:
        """Drop the least recently used entry other than ``keep``; False if there is none."""
        with self._lock:
            for key in self._entries:
                if key != keep:
                    dropped = self._entries.pop(key)
                    if self._on_evict is not None:
                        self._on_evict(dropped)
                    return True
            return False

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._entries)

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())

    def values(self) -> list[V]:
        with self._lock:
            return list(self._entries.values())

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

"""The move cache shared through Redis: every worker and instance reuses one answer.

``NOUGHTS_CACHE_URL=redis://HOST:PORT/DB`` (needs ``noughts[redis]``) puts a second
layer behind each process's own :class:`~noughts.service.cache.MoveCache`: a move missed
locally is looked up in Redis under its canonical key (so every symmetric position, on
every instance, shares it), and every new cacheable answer is stored there in the
background, with the cache's TTL and at most its size (the oldest entries go first).

Redis is a help, never a dependency: a lookup waits at most ``timeout_s`` for Redis (the
socket's own timeout, in a thread of the cache's own); an error or a slow answer from
Redis marks the shared cache unreachable for ``retry_s`` (lookups skip it, the service
answers from its own cache and searches), logs one warning and shows in
``/api/v1/stats``. A busy event loop is not Redis's fault: the time a lookup's answer
waits for the loop counts against nobody, and when :data:`LOOKUP_THREADS` lookups are
already waiting for Redis, another is skipped (counted in ``skipped``), not failed.
Entries are JSON, never pickles: whoever can write to Redis cannot
make the service run code.

>>> from noughts.position import Position
>>> from noughts.service.cache import Orientation, cache_key
>>> view = Orientation.of(Position("X../.../...", "3x3"))
>>> shared_key(cache_key("move", view.canonical, level=10))
'{noughts}:v4:move:3x3:O:1:0:10'
>>> shared_key(cache_key("move", view.canonical, level=10, seed=7))
'{noughts}:v4:move:3x3:O:1:0:10:s7'
>>> entry = encode_entry(CHOICE_EXAMPLE, searched_ms=1000, exact=False)
>>> decode_entry(entry, CHOICE_EXAMPLE.game)[0] == CHOICE_EXAMPLE
True
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from noughts.errors import NoughtsError
from noughts.results import Estimate, MoveChoice, Scale
from noughts.service.cache import CacheKey
from noughts.service.settings import redacted  # (re-exported: its earlier home)
from noughts.variants import Variant, variant

__all__ = [
    "SharedCache",
    "SharedEntry",
    "shared_key",
    "encode_entry",
    "decode_entry",
    "redacted",
    "PREFIX",
]

logger = logging.getLogger("noughts.service")

PREFIX = "{noughts}:v4"
"""Every key starts so; the braces keep them in one slot of a Redis Cluster. (``v4``: an
answer to a request with a game seed is keyed by the seed too; ``v3`` keys held seeded
exact answers under the seedless key. An entry is a choice's
:meth:`~noughts.results.MoveChoice.to_record`; ``v2`` entries held
the value and estimate as lists, ``v1`` ones did not say whether plies are exact; neither
is read.)"""

LOOKUP_THREADS = 4
"""Threads that wait for Redis's answers to lookups (apart from the default executor, so
lookups never queue behind other work handed to threads)."""

INDEX = f"{PREFIX}:index"
"""A sorted set of the stored keys by time stored: the size cap drops the oldest."""

SharedEntry = tuple[MoveChoice, int, bool]
"""A stored answer, the budget it was searched with (ms), and whether it is exact."""

_STORE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]) * 1000)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if excess > 0 then
    local oldest = redis.call('ZPOPMIN', KEYS[2], excess)
    for i = 1, #oldest, 2 do redis.call('DEL', oldest[i]) end
end
return excess
"""
"""Store an entry with its TTL, index it by the server's clock (microseconds), forget
expired keys, drop the oldest past the cap."""

CHOICE_EXAMPLE = MoveChoice(
    4, variant("3x3"), None, Estimate(0.5, Scale.SEARCH), 3, (4, 0), 120, 12.5, "anytime"
)


def shared_key(key: CacheKey) -> str:
    """The Redis key of a canonical cache key (kind, variant name, x, o, to move, level,
    seed)."""
    kind, variant_name, x, o, to_move, level, seed = key
    assert isinstance(variant_name, str) and isinstance(x, int) and isinstance(o, int)
    seeded = "" if seed is None else f":s{seed}"
    return f"{PREFIX}:{kind}:{variant_name}:{to_move}:{x:x}:{o:x}:{level}{seeded}"


def encode_entry(choice: MoveChoice, *, searched_ms: int, exact: bool) -> bytes:
    """An answer as the JSON stored in Redis: the choice's
    :meth:`~noughts.results.MoveChoice.to_record` (its per-move values left out), the
    budget it was searched with and whether it is exact."""
    data = {**choice.to_record(), "searched_ms": searched_ms, "exact": exact}
    return json.dumps(data, separators=(",", ":")).encode()


def decode_entry(raw: bytes, game: Variant) -> SharedEntry:
    """The answer stored as ``raw`` for a position of ``game``; ``ValueError`` if it is
    not one."""
    try:
        data = json.loads(raw)
        choice = MoveChoice.from_record(data, game)
        return choice, int(data["searched_ms"]), bool(data["exact"])
    except (KeyError, TypeError, IndexError, ValueError) as error:
        raise ValueError(f"not a cached answer: {error}") from None


class SharedCache:
    """Answers shared through Redis, bounded in time: a slow or absent Redis is skipped.

    ``lookup`` and ``store`` never raise for Redis's sake: a failure counts in ``errors``,
    sets ``last_error``, and keeps Redis out of the way for ``retry_s`` seconds.
    """

    def __init__(
        self, url: str, *, ttl_s: float, maxsize: int, timeout_s: float, retry_s: float
    ) -> None:
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError:
            raise NoughtsError(
                "NOUGHTS_CACHE_URL needs the redis package: pip install 'noughts[redis]'"
            ) from None
        self.url = redacted(url)
        self.ttl_s = ttl_s
        self.maxsize = maxsize
        self.timeout_s = timeout_s
        self.retry_s = retry_s
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError, TimeoutError)
        self._client: Any = redis.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry_on_timeout=False,
            retry=Retry(NoBackoff(), 0),  # one try: a lookup waits one timeout at most
            health_check_interval=0,
        )
        self._store = self._client.register_script(_STORE)
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="noughts-shared-cache")
        self._readers = ThreadPoolExecutor(LOOKUP_THREADS,
                                           thread_name_prefix="noughts-shared-lookup")
        self._waiting = 0  # lookups handed to the readers (changed on the event loop only)
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._status = "untried"
        self.hits = 0
        self.misses = 0
        self.stored = 0
        self.skipped = 0
        self.errors = 0
        self.last_error: str | None = None
        self._writer.submit(self._connect)  # so the first lookup finds a connection ready

    def _connect(self) -> None:
        try:
            self._client.ping()
        except self._errors as error:
            self._failed(error)
            return
        self._recovered()

    @property
    def status(self) -> str:
        """``untried`` before the first call, then ``ok`` or ``unreachable`` (the last call
        failed: lookups skip Redis until ``retry_s`` after it)."""
        return self._status

    async def lookup(self, key: CacheKey, *, budget_ms: int) -> SharedEntry | None:
        """The shared answer for ``key`` good enough for ``budget_ms``, within the timeout."""
        if self._skipping() or self._busy():
            return None
        name = shared_key(key)
        self._waiting += 1
        try:
            loop = asyncio.get_running_loop()
            raw = await loop.run_in_executor(self._readers, self._client.get, name)
        except self._errors as error:  # redis.TimeoutError: Redis itself too slow
            self._failed(error)
            return None
        finally:
            self._waiting -= 1
        self._recovered()
        entry = None
        if raw is not None:
            try:
                entry = decode_entry(raw, variant(str(key[1])))  # (the variant name)
            except ValueError as error:
                logger.warning("shared cache: ignoring %s: %s", name, error)
        with self._lock:
            if entry is not None and (entry[2] or entry[1] >= budget_ms):
                self.hits += 1
                return entry
            self.misses += 1
        return None

    def store(self, key: CacheKey, choice: MoveChoice, *, searched_ms: int, exact: bool) -> None:
        """Store an answer in the background (the reply does not wait for Redis)."""
        if self.maxsize <= 0 or self._skipping():
            return
        raw = encode_entry(choice, searched_ms=searched_ms, exact=exact)
        self._writer.submit(self._store_now, shared_key(key), raw)

    def _store_now(self, name: str, raw: bytes) -> None:
        try:
            self._store(keys=[name, INDEX], args=[raw, int(self.ttl_s * 1000), self.maxsize])
        except self._errors as error:
            self._failed(error)
            return
        self._recovered()
        with self._lock:
            self.stored += 1

    def flush(self, timeout_s: float = 5.0) -> None:
        """Wait for the stores handed to the background so far (for tests and benchmarks)."""
        self._writer.submit(lambda: None).result(timeout_s)

    def _busy(self) -> bool:
        """True (and counted as skipped) if every reader already waits for Redis."""
        if self._waiting < LOOKUP_THREADS:
            return False
        with self._lock:
            self.skipped += 1
        return True

    def _skipping(self) -> bool:
        if time.monotonic() < self._down_until:
            with self._lock:
                self.skipped += 1
            return True
        return False

    def _failed(self, error: BaseException) -> None:
        message = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        with self._lock:
            was_up = self._status != "unreachable"
            self._status = "unreachable"
            self.errors += 1
            self.last_error = message
            self._down_until = time.monotonic() + self.retry_s
        if was_up:
            logger.warning(
                "shared cache %s unreachable (%s); answering from the in-process cache, "
                "trying again in %g s",
                self.url,
                message,
                self.retry_s,
            )

    def _recovered(self) -> None:
        if self._status == "ok":
            return
        with self._lock:
            was_down = self._status == "unreachable"
            self._status = "ok"
        if was_down:
            logger.warning("shared cache %s reachable again", self.url)

    def as_json(self) -> dict[str, Any]:
        """The counters and state for ``/api/v1/stats``."""
        with self._lock:
            return {
                "url": self.url,
                "status": self._status,
                "hits": self.hits,
                "misses": self.misses,
                "stored": self.stored,
                "skipped": self.skipped,
                "errors": self.errors,
                "last_error": self.last_error,
                "timeout_ms": round(self.timeout_s * 1000),
                "maxsize": self.maxsize,
                "ttl_s": self.ttl_s,
            }

    def close(self) -> None:
        """Stop the background writer and close the connections."""
        self._writer.shutdown(wait=False, cancel_futures=True)
        self._readers.shutdown(wait=False, cancel_futures=True)
        self._client.close()

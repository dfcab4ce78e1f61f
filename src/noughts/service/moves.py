"""The service's engine calls: the cache first, then a bounded, deadlined search.

Each request gets one :class:`~noughts.budget.Limit` of ``B`` ms (its ``time_ms``,
capped by the server) from when it reached the app
(:class:`~noughts.service.middleware.ArrivalTime`); waiting for the event loop, queueing,
the search and its fallback all spend it.
The engine's plan answers (:func:`noughts.engine.choose_move`); the service only caches.

- The engine answers every position on its canonical image and maps the move back
  (:mod:`noughts.orientation`), so the service never changes an answer: it sends the
  board as asked and keys its cache by the canonical position (symmetric positions
  share the entry, stored on the canonical board and mapped to each request's board).
- Where the plan solves exactly (:func:`noughts.engine.answers_exactly`: level 10 on a
  board the exact solver can finish): cached, by the ``seed`` too (it picks among equally
  good moves). A solve too slow for ``B`` gives way to the anytime search in the reserve
  of the budget (:func:`noughts.engine.reserve_s`; ``method`` ``anytime``, counted as a
  fallback).
- Level 10 elsewhere (Qubic, big boards): the anytime search with the budget. Its answers
  are cached too, but serve only requests with a budget no larger than the one they were
  searched with. A request that gives a ``seed`` bypasses the cache there.
- Levels below 10 are never cached: their mistakes are random by design.
- With ``NOUGHTS_CACHE_URL`` set, a move missed by this process's cache is looked up in
  the shared cache (:mod:`noughts.service.shared_cache`, Redis) within its short timeout,
  and every new move answer is stored there too, for the other workers and instances.
- Searches run in worker processes when the settings ask for them
  (``NOUGHTS_SEARCH_PROCESSES``; :mod:`noughts.service.processes`), else in threads
  (:mod:`noughts.service.runner`). With worker processes, an exact 3x3 answer (read
  from its complete table in microseconds) is found on the spot instead
  (:attr:`Variant.in_process`): less than the trip to a worker, and never behind a long
  search there.
- Every answer comes by ``B`` + 100 ms; a search still running then is stopped. Time
  spent waiting for a search slot is part of ``B``: a request that could not start with
  :data:`MIN_SEARCH_S` left is answered 429 (Retry-After) at once.

>>> import asyncio
>>> from noughts.position import Position
>>> from noughts.service.settings import Settings
>>> service = MoveService(Settings())
>>> answer = asyncio.run(service.move(Position("XX./OO./..."), level=10, time_ms=None, seed=None))
>>> answer.result.move, answer.result.outcome, answer.cached
(2, 'win', False)
>>> again = asyncio.run(service.move(Position(".OX/.OX/..."), level=10, time_ms=None, seed=None))
>>> again.result.move, again.cached  # the same entry, mapped back through the rotation
(8, True)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from noughts.budget import Limit
from noughts.engine import answers_exactly, reserve_s
from noughts.position import Position
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval
from noughts.service import warmup
from noughts.service.cache import (
    MoveCache,
    Orientation,
    ReplyCache,
    build_symmetries,
    cache_key,
    symmetries_ready,
)
from noughts.service.durations import Durations
from noughts.service.jobs import AnalysisJob, Board, MoveJob
from noughts.service.processes import ProcessRunner
from noughts.service.runner import ClientCheck, DeadlineExceededError, EngineRunner, Inline
from noughts.service.settings import Settings
from noughts.variants import NAMED_VARIANTS, Variant

if TYPE_CHECKING:
    from noughts.service.shared_cache import SharedCache

__all__ = [
    "MoveService",
    "MoveAnswer",
    "Analysis",
    "EngineOverrunError",
    "GRACE_S",
    "MIN_SEARCH_S",
]

GRACE_S = 0.1
"""Every answer comes no later than the budget plus this."""

MIN_SEARCH_S = 0.03
"""A request still queueing for a search slot when less than this is left before its
deadline is turned away (429) instead of starting a search it cannot finish."""

FIRST_EXACT_SHARE = 0.05
"""Until measured, an exact solve is expected to take this share of its budget (most take
far less; an anytime search is expected to take all of it)."""


Runner = EngineRunner | ProcessRunner | Inline
"""Where a search job runs."""

_INLINE = Inline()


class EngineOverrunError(Exception):
    """The engine gave no answer within the budget plus the grace (HTTP 503)."""


@dataclass(frozen=True)
class MoveAnswer:
    """A move for ``position`` (in its own orientation) and how it was obtained."""

    position: Position
    result: MoveChoice
    cached: bool
    budget_ms: int
    reusable: bool = False
    """True if the move cache would give the same request this same answer again."""


@dataclass(frozen=True)
class Analysis:
    """Every legal move of ``position`` with its value."""

    position: Position
    moves: tuple[MoveEval, ...]
    nodes: int | None
    elapsed_ms: float
    cached: bool
    budget_ms: int


async def _view(position: Position) -> Orientation:
    """The position's canonical view, for its cache key: off the event loop where the
    variant's symmetry policy says it costs too much there (:attr:`SymmetryPolicy.cheap`)."""
    if position.game.symmetry.cheap:
        return Orientation.of(position)  # the identity, or a few symmetries
    return await asyncio.to_thread(Orientation.of, position)


class MoveService:
    """Moves and analyses for the HTTP routes: cache, search slots and deadlines."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.moves: MoveCache[MoveChoice] = MoveCache(settings.cache_size, settings.cache_ttl_s)
        self.analyses: MoveCache[tuple[MoveEval, ...]] = MoveCache(
            settings.cache_size, settings.cache_ttl_s
        )
        self.replies = ReplyCache(settings.cache_size, settings.cache_ttl_s)
        self.shared: SharedCache | None = None
        if settings.cache_url is not None:  # imported only then (a cold start skips it)
            from noughts.service.shared_cache import SharedCache

            self.shared = SharedCache(
                settings.cache_url,
                ttl_s=settings.cache_ttl_s,
                maxsize=settings.cache_size,
                timeout_s=settings.cache_timeout_ms / 1000,
                retry_s=settings.cache_retry_s,
            )
        queue_wait_s = settings.queue_wait_ms / 1000
        self.runner = EngineRunner(settings.max_searches, queue_wait_s, min_search_s=MIN_SEARCH_S)
        self.pool: ProcessRunner | None = None
        if settings.search_processes:
            warm = tuple(NAMED_VARIANTS) if settings.warmup else ()
            self.pool = ProcessRunner(
                settings.search_processes, queue_wait_s, min_search_s=MIN_SEARCH_S, warm=warm
            )
        self.durations = Durations()
        self.fallbacks = 0
        self.started_at = time.monotonic()

    def searches_here(self, game: Variant) -> bool:
        """True if (some) searches on ``game`` run in this process."""
        return self.pool is None or game.in_process

    def runner_for(self, position: Position, *, exact: bool) -> Runner:
        """Where a search on ``position`` runs: in a thread (no worker processes), on the
        spot (an exact answer from a table), else in a worker process."""
        if self.pool is None:
            return self.runner
        if exact and position.game.in_process:
            return _INLINE
        return self.pool

    def _budget(self, time_ms: int | None, arrived: float | None) -> tuple[Limit, int]:
        """The request's one limit, from its arrival (``None``: now), and its length in ms
        (``time_ms`` becomes a :class:`~noughts.budget.Limit` here, once)."""
        budget_ms = self.settings.budget_ms(time_ms)
        return Limit.within(seconds=budget_ms / 1000, since=arrived), budget_ms

    # -- moves ----------------------------------------------------------------------------
    async def move(
        self,
        position: Position,
        *,
        level: int,
        time_ms: int | None,
        seed: int | None,
        client_gone: ClientCheck | None = None,
        arrived: float | None = None,
    ) -> MoveAnswer:
        """The engine's move for ``position`` within the request's budget, counted from
        ``arrived`` (a ``perf_counter`` time; ``None``: now).

        ``client_gone`` (the request's disconnect check) stops the search when it says so.
        """
        limit, budget_ms = self._budget(time_ms, arrived)
        exact = answers_exactly(position, level)
        ready = self._ready(position)
        cacheable = level == MAX_LEVEL and (seed is None or exact) and ready
        view = await _view(position) if cacheable else None
        key = None if view is None else cache_key("move", view.canonical, level=level,
                                                  seed=seed)
        if key is not None and view is not None:
            hit = self.moves.get(key, budget_ms=budget_ms)
            if hit is None and self.shared is not None:
                shared = await self.shared.lookup(key, budget_ms=budget_ms)
                if shared is not None:
                    hit, searched_ms, exact_hit = shared
                    self.moves.put(key, hit, searched_ms=searched_ms, exact=exact_hit)
            if hit is not None:
                return MoveAnswer(position, view.original_choice(hit), True, budget_ms,
                                  reusable=True)
        job = MoveJob(Board.of(position), level=level, seed=seed, exact=exact)
        kind = ("move", position.game.name, level, exact)
        try:
            result, fell_back, seconds = await self.runner_for(position, exact=exact).run(
                job,
                limit,
                client_gone=client_gone,
                expected_s=self._expected_s(kind, budget_ms, exact),
            )
        except DeadlineExceededError:
            raise self._overrun(budget_ms) from None
        self.durations.record(kind, seconds=seconds, budget_s=budget_ms / 1000)
        self.fallbacks += fell_back
        result = result._replace(moves=())  # (the answer does not show per-move values)
        reusable = False
        if key is not None and view is not None:
            exact_answer = result.method == "exact"
            # a fallback searched only in the budget's reserve
            searched = round(reserve_s(limit) * 1000) if fell_back else budget_ms
            stored = view.canonical_choice(result)
            self.moves.put(key, stored, searched_ms=searched, exact=exact_answer)
            if self.shared is not None:
                self.shared.store(key, stored, searched_ms=searched, exact=exact_answer)
            reusable = exact_answer or searched >= budget_ms
        return MoveAnswer(position, result, False, budget_ms, reusable=reusable)

    # -- analyses -------------------------------------------------------------------------
    async def analyze(
        self,
        position: Position,
        *,
        time_ms: int | None,
        client_gone: ClientCheck | None = None,
        arrived: float | None = None,
    ) -> Analysis:
        """Every legal move's value for ``position`` within the request's budget (from
        ``arrived``, as :meth:`move`)."""
        limit, budget_ms = self._budget(time_ms, arrived)
        exact = answers_exactly(position)
        cacheable = exact and self._ready(position)
        view = await _view(position) if cacheable else None
        key = cache_key("analyze", view.canonical, level=MAX_LEVEL) if view is not None else None
        if key is not None and view is not None:
            hit = self.analyses.get(key, budget_ms=budget_ms)
            if hit is not None:
                moves = tuple(view.original_evals(hit))
                return Analysis(position, moves, 0, 0.0, True, budget_ms)
        job = AnalysisJob(Board.of(position), exact=exact)
        kind = ("analyze", position.game.name, exact)
        try:
            found = await self.runner_for(position, exact=exact).run(
                job,
                limit,
                client_gone=client_gone,
                expected_s=self._expected_s(kind, budget_ms, exact),
            )
        except DeadlineExceededError:
            raise self._overrun(budget_ms) from None
        self.durations.record(kind, seconds=found.seconds, budget_s=budget_ms / 1000)
        self.fallbacks += found.fell_back
        moves = tuple(sorted(found.moves, key=lambda m: m.move))
        if key is not None and view is not None and all(m.proven for m in moves):
            self.analyses.put(key, view.canonical_evals(moves), searched_ms=budget_ms,
                              exact=True)
        return Analysis(position, moves, found.nodes, found.elapsed_ms, False, budget_ms)

    # -- plumbing -------------------------------------------------------------------------
    def _ready(self, position: Position) -> bool:
        """True if the board's symmetry tables are built, so its cache key is cheap.

        Small boards build theirs on the spot (a few ms, once). A large one (Qubic) is
        warmed in the background and bypasses the cache until then, so a one-off table
        build never runs inside a request's budget on the service's account.
        """
        game = position.game
        if not warmup.is_warm(game):
            if game.cells <= game.symmetry.CACHE_MAX_CELLS:
                build_symmetries(game)
            warmup.warm_in_background(game, search=self.searches_here(game))
        return symmetries_ready(game)

    def _expected_s(self, kind: Hashable, budget_ms: int, exact: bool) -> float:
        """How long a search of ``kind`` is expected to hold its slot."""
        first = FIRST_EXACT_SHARE if exact else 1.0
        return self.durations.expected_s(kind, budget_ms / 1000, first_share=first)

    def _overrun(self, budget_ms: int) -> EngineOverrunError:
        return EngineOverrunError(
            f"the engine found no move within the budget of {budget_ms} ms; "
            "try again (work done so far is kept) or give a larger time_ms"
        )

    @property
    def uptime_s(self) -> float:
        return time.monotonic() - self.started_at

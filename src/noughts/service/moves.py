"""The service's engine calls: the cache first, then a bounded, deadlined search.

Policy, for a request with a budget of ``B`` ms (its ``time_ms``, capped by the server):

- Level 10 on a board the exact solver can finish: solve exactly, computed on the
  canonical position and cached (symmetric positions share the entry; the move is mapped
  back). If the solve is not done ``B`` minus a reserve (a quarter of ``B``, at most
  250 ms) after the request arrived, it is stopped and the anytime search answers in
  the reserve instead (``method`` ``anytime``, counted as a fallback). The solver's table
  keeps what the stopped solve learnt, so asking again gets further.
- Level 10 elsewhere (Qubic, big boards): the anytime search with the budget. Its answers
  are cached too, but serve only requests with a budget no larger than the one they were
  searched with. A request that gives a ``seed`` bypasses the cache there.
- Levels below 10 are never cached: their mistakes are random by design.
- With ``NOUGHTS_CACHE_URL`` set, a move missed by this process's cache is looked up in
  the shared cache (:mod:`noughts.service.shared_cache`, Redis) within its short timeout,
  and every new move answer is stored there too, for the other workers and instances.
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from noughts.budget import Budget
from noughts.engine import choose_move, evaluate_moves
from noughts.exact import solver
from noughts.notation import square_name
from noughts.position import Position
from noughts.results import MAX_LEVEL, MoveChoice, MoveEval
from noughts.service import warmup
from noughts.service.cache import (
    SYMMETRY_MAX_CELLS,
    MoveCache,
    ReplyCache,
    SymmetricView,
    cache_key,
    shares_symmetries,
    symmetries_ready,
)
from noughts.service.runner import DeadlineExceededError, EngineRunner
from noughts.service.settings import Settings
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

_HARD_MARGIN_S = 0.08
"""A search is stopped this long after the budget (the rest of the grace is for the reply)."""

_MAX_RESERVE_S = 0.25
"""At most this much of the budget is kept back for the fallback of a slow exact solve."""


MIN_SEARCH_S = 0.03
"""A request still queueing for a search slot when less than this is left before its
deadline is turned away (429) instead of starting a search it cannot finish."""


class EngineOverrunError(Exception):
    """The engine gave no answer within the budget plus the grace (HTTP 503)."""


_T = TypeVar("_T")

ClientCheck = Callable[[], Awaitable[bool]]
"""An awaitable check that the request's client has gone away."""


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


@dataclass(frozen=True)
class _Clock:
    start: float
    budget_ms: int

    @property
    def end(self) -> float:
        """When the budget runs out."""
        return self.start + self.budget_ms / 1000

    @property
    def hard_deadline(self) -> float:
        return self.end + _HARD_MARGIN_S

    @property
    def exact_deadline(self) -> float:
        """When a slow exact solve gives way to the anytime fallback."""
        return self.end - min(_MAX_RESERVE_S, self.budget_ms / 4000)

    def left(self) -> float:
        """Seconds of budget left (at least 1 ms, so a search can still answer)."""
        return max(0.001, self.end - time.monotonic())


_LOOP_SYMMETRIES = 8
"""Boards with more symmetries than this (Qubic: 192, about 1.5 ms in Python) find their
canonical view in a thread, so a burst of them does not hold up the event loop."""


async def _view(position: Position) -> SymmetricView:
    """The position's canonical view (see :data:`_LOOP_SYMMETRIES`)."""
    geometry = position.geometry
    if not shares_symmetries(geometry) or geometry.symmetry_group.count <= _LOOP_SYMMETRIES:
        return SymmetricView.of(position)  # the identity, or a few symmetries
    return await asyncio.to_thread(SymmetricView.of, position)


def _map_eval(evaluation: MoveEval, view: SymmetricView) -> MoveEval:
    cell = view.to_original(evaluation.move)
    geometry = view.original.geometry
    square = square_name(geometry, cell)
    return evaluation._replace(move=cell, coords=geometry.coords(cell), square=square)


def _map_result(result: MoveChoice, view: SymmetricView) -> MoveChoice:
    """``result`` for the canonical position, seen on the original board.

    The per-move values (``moves``) are dropped: the move answer does not show them, and
    ``/analyze`` maps its own.
    """
    if view.canonical is view.original:
        return result._replace(moves=())
    geometry = view.original.geometry
    cells = geometry.cells
    move = view.to_original(result.move)
    return result._replace(
        move=move,
        coords=geometry.coords(move),
        square=square_name(geometry, move),
        pv=tuple(view.to_original(c) if 0 <= c < cells else c for c in result.pv),
        moves=(),
    )


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
        if settings.cache_url is not None:
            self.shared = SharedCache(
                settings.cache_url,
                ttl_s=settings.cache_ttl_s,
                maxsize=settings.cache_size,
                timeout_s=settings.cache_timeout_ms / 1000,
                retry_s=settings.cache_retry_s,
            )
        self.runner = EngineRunner(settings.max_searches, settings.queue_wait_ms / 1000)
        self.fallbacks = 0
        self.started_at = time.monotonic()

    # -- moves ----------------------------------------------------------------------------
    async def move(
        self,
        position: Position,
        *,
        level: int,
        time_ms: int | None,
        seed: int | None,
        client_gone: ClientCheck | None = None,
    ) -> MoveAnswer:
        """The engine's move for ``position`` within the request's budget.

        ``client_gone`` (the request's disconnect check) stops the search when it says so.
        """
        clock = _Clock(time.monotonic(), self.settings.budget_ms(time_ms))
        exact = level == MAX_LEVEL and solver.can_solve(position)
        ready = self._ready(position)
        cacheable = level == MAX_LEVEL and (seed is None or exact) and ready
        view = await _view(position) if cacheable else None
        key = cache_key("move", view.canonical, level=level) if view is not None else None
        if key is not None and view is not None:
            hit = self.moves.get(key, budget_ms=clock.budget_ms)
            if hit is None and self.shared is not None:
                shared = await self.shared.lookup(key, budget_ms=clock.budget_ms)
                if shared is not None:
                    hit, searched_ms, exact_hit = shared
                    self.moves.put(key, hit, searched_ms=searched_ms, exact=exact_hit)
            if hit is not None:
                return MoveAnswer(
                    position, _map_result(hit, view), True, clock.budget_ms, reusable=True
                )
        target = view.canonical if view is not None else position

        def search(budget: Budget) -> MoveChoice:
            limit = None if exact else clock.left()
            return choose_move(target, level=level, time_limit=limit, seed=seed, budget=budget)

        deadline = clock.exact_deadline if exact else clock.hard_deadline
        try:
            result = await self._run(search, deadline, client_gone=client_gone)
        except DeadlineExceededError:
            if not exact:
                raise self._overrun(clock) from None
            self.fallbacks += 1
            result = await self._anytime_fallback(target, clock, seed, client_gone)
        reusable = False
        if key is not None and view is not None:
            exact_answer = result.method == "exact"
            searched = clock.budget_ms if exact_answer else self._searched_ms(clock, exact)
            self.moves.put(key, result, searched_ms=searched, exact=exact_answer)
            if self.shared is not None:
                self.shared.store(key, result, searched_ms=searched, exact=exact_answer)
            reusable = exact_answer or searched >= clock.budget_ms
            result = _map_result(result, view)
        return MoveAnswer(position, result, False, clock.budget_ms, reusable=reusable)

    async def _anytime_fallback(
        self, position: Position, clock: _Clock, seed: int | None, client_gone: ClientCheck | None
    ) -> MoveChoice:
        def search(budget: Budget) -> MoveChoice:
            # imported here, in the search thread: a first import must not block the loop
            from noughts.anytime.search import anytime_move

            return anytime_move(position, time_limit=clock.left(), seed=seed, budget=budget)

        try:
            found: MoveChoice = await self._run(
                search, clock.hard_deadline, admit=False, client_gone=client_gone
            )
        except DeadlineExceededError:
            raise self._overrun(clock) from None
        return found

    # -- analyses -------------------------------------------------------------------------
    async def analyze(
        self, position: Position, *, time_ms: int | None, client_gone: ClientCheck | None = None
    ) -> Analysis:
        """Every legal move's value for ``position`` within the request's budget."""
        clock = _Clock(time.monotonic(), self.settings.budget_ms(time_ms))
        exact = solver.can_solve(position)
        cacheable = exact and self._ready(position)
        view = await _view(position) if cacheable else None
        key = cache_key("analyze", view.canonical, level=MAX_LEVEL) if view is not None else None
        if key is not None and view is not None:
            hit = self.analyses.get(key, budget_ms=clock.budget_ms)
            if hit is not None:
                moves = tuple(sorted((_map_eval(m, view) for m in hit), key=lambda m: m.move))
                return Analysis(position, moves, 0, 0.0, True, clock.budget_ms)
        target = view.canonical if view is not None else position

        def search(budget: Budget) -> tuple[tuple[MoveEval, ...], int | None, float]:
            counter = solver.solver_for(target.geometry)
            nodes_before = counter.nodes
            began = time.perf_counter()
            limit = None if exact else clock.left()
            moves = tuple(evaluate_moves(target, time_limit=limit, budget=budget))
            elapsed = (time.perf_counter() - began) * 1000
            nodes = counter.nodes - nodes_before if exact else None
            return moves, nodes, elapsed

        deadline = clock.exact_deadline if exact else clock.hard_deadline
        try:
            moves, nodes, elapsed = await self._run(search, deadline, client_gone=client_gone)
        except DeadlineExceededError:
            if not exact:
                raise self._overrun(clock) from None
            self.fallbacks += 1
            moves, nodes, elapsed = await self._evaluate_fallback(target, clock, client_gone)
        if key is not None and view is not None:
            if all(m.proven for m in moves):
                self.analyses.put(key, moves, searched_ms=clock.budget_ms, exact=True)
            moves = tuple(_map_eval(m, view) for m in moves)
        moves = tuple(sorted(moves, key=lambda m: m.move))
        return Analysis(position, moves, nodes, elapsed, False, clock.budget_ms)

    async def _evaluate_fallback(
        self, position: Position, clock: _Clock, client_gone: ClientCheck | None
    ) -> tuple[tuple[MoveEval, ...], int | None, float]:
        def search(budget: Budget) -> tuple[tuple[MoveEval, ...], int | None, float]:
            from noughts.anytime.search import anytime_evaluate  # in the thread, as above

            began = time.perf_counter()
            moves = tuple(anytime_evaluate(position, time_limit=clock.left(), budget=budget))
            return moves, None, (time.perf_counter() - began) * 1000

        try:
            found: tuple[tuple[MoveEval, ...], int | None, float]
            found = await self._run(
                search, clock.hard_deadline, admit=False, client_gone=client_gone
            )
        except DeadlineExceededError:
            raise self._overrun(clock) from None
        return found

    # -- plumbing -------------------------------------------------------------------------
    def _ready(self, position: Position) -> bool:
        """True if the board's symmetry tables are built, so its cache key is cheap.

        Small boards build theirs on the spot (a few ms, once). A large one (Qubic) is
        warmed in the background and bypasses the cache until then, so a one-off table
        build never runs inside a request's budget on the service's account.
        """
        geometry = position.geometry
        if not warmup.is_warm(geometry):
            if geometry.cells <= SYMMETRY_MAX_CELLS:
                SymmetricView.of(Position("", geometry))
            warmup.warm_in_background(geometry)
        return symmetries_ready(geometry)

    async def _run(
        self,
        work: Callable[[Budget], _T],
        deadline: float,
        *,
        admit: bool = True,
        client_gone: ClientCheck | None = None,
    ) -> _T:
        return await self.runner.run(
            work,
            deadline=deadline,
            admit=admit,
            client_gone=client_gone,
            min_search_s=MIN_SEARCH_S,
        )

    @staticmethod
    def _searched_ms(clock: _Clock, exact: bool) -> int:
        """The budget a time-bounded answer was searched with (a fallback got the reserve)."""
        if not exact:
            return clock.budget_ms
        return int(max(0.0, clock.end - clock.exact_deadline) * 1000)

    def _overrun(self, clock: _Clock) -> EngineOverrunError:
        return EngineOverrunError(
            f"the engine found no move within the budget of {clock.budget_ms} ms; "
            "try again (work done so far is kept) or give a larger time_ms"
        )

    @property
    def uptime_s(self) -> float:
        return time.monotonic() - self.started_at

"""A search's limit: a deadline, a node limit, and a cancel switch, polled by the search.

One :class:`Limit` travels from the edge (the API's ``time_ms``, the CLI's ``--time``
and ``--nodes``, an arena player's allowance a move) through the engine's plan down to
every search (the exact solver, the threat search, the anytime search, the levels),
which polls it every so many nodes: :meth:`Limit.check` raises :class:`BudgetExhausted`
once the deadline has passed, the node limit is reached, or someone called
:meth:`Limit.cancel` (from any thread). So the caller owns the clock, and a search is
stopped by cancelling its limit, never from outside.

Deadlines are :func:`time.perf_counter` values. A limit's :meth:`~Limit.share` is a
part of it (an earlier deadline, fewer nodes) that a cancel of the whole still stops.

>>> limit = Limit(node_limit=100)
>>> limit.expired(nodes=99), limit.expired(nodes=100)
(False, True)
>>> part = Limit.within(seconds=10.0).share(0.5)
>>> part.expired(), part.cancel(), part.expired()
(False, None, True)
>>> Limit.within(seconds=-1)
Traceback (most recent call last):
...
noughts.errors.NoughtsError: time limit must be a positive number of seconds, not -1
>>> Limit.within(seconds=float("nan"))
Traceback (most recent call last):
...
noughts.errors.NoughtsError: time limit must be a positive number of seconds, not nan
"""

from __future__ import annotations

import math
import time
from typing import TypeVar

from noughts.errors import NoughtsError

__all__ = [
    "Limit",
    "BudgetExhausted",
    "one_limit",
    "check_seconds",
    "check_nodes",
    "DEFAULT_SECONDS",
    "EXPLAIN_SECONDS",
    "MAX_SECONDS",
    "MAX_NODES",
]

_T = TypeVar("_T", int, float)

DEFAULT_SECONDS = 1.0
"""The time an answer gets when its caller names none: the API's default ``time_ms``
and the command line's default ``--time`` for ``move`` and ``analyze``."""

EXPLAIN_SECONDS = 60.0
"""The time a traced search (the API's explain, ``noughts explain``) gets unless told."""

MAX_SECONDS = 86_400.0
"""The longest time limit a search takes (a day): a longer one is an error, not a
search that runs on and on (a whole proof attempt runs as many limited searches)."""

MAX_NODES = 10**12
"""The largest node limit a search takes (days of search on either core, and far inside
the compiled core's 64-bit counters)."""


def check_seconds(seconds: object, what: str = "time limit") -> float:
    """``seconds`` if it is a finite positive number of at most :data:`MAX_SECONDS`,
    else a :class:`NoughtsError` naming ``what`` (NaN, infinities and huge numbers would
    make a deadline that never comes).

    >>> check_seconds(0.5), check_seconds(2)
    (0.5, 2.0)
    >>> check_seconds(float("inf"), "move limit")
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: move limit must be a positive number of seconds, not inf
    >>> check_seconds(1e300)
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: time limit of 1e+300 seconds is more than the limit of 86400 ...
    """
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not math.isfinite(seconds)
        or seconds <= 0
    ):
        raise NoughtsError(f"{what} must be a positive number of seconds, not {seconds!r}")
    if seconds > MAX_SECONDS:
        raise NoughtsError(f"{what} of {seconds:g} seconds is more than the limit of "
                           f"{MAX_SECONDS:g} (a day)")
    return float(seconds)


def check_nodes(nodes: object, what: str = "node budget") -> int:
    """``nodes`` if it is a positive integer of at most :data:`MAX_NODES`, else a
    :class:`NoughtsError` naming ``what``.

    >>> check_nodes(1000)
    1000
    >>> check_nodes(-5)
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: node budget must be a positive integer, not -5
    >>> check_nodes(2**63)
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: node budget of 9,223,372,036,854,775,808 is more than the limit ...
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes <= 0:
        raise NoughtsError(f"{what} must be a positive integer, not {nodes!r}")
    if nodes > MAX_NODES:
        raise NoughtsError(f"{what} of {nodes:,} is more than the limit of {MAX_NODES:,}")
    return nodes


class BudgetExhausted(Exception):
    """The search's limit ran out (time, nodes) or was cancelled: stop and unwind."""


class Limit:
    """A deadline (``perf_counter`` seconds), a node limit, and a cancel switch; all optional.

    ``start`` is when the limit began (its shares are fractions of the time from there).
    """

    __slots__ = ("deadline", "node_limit", "start", "_switch")

    def __init__(
        self,
        *,
        deadline: float | None = None,
        node_limit: int | None = None,
        start: float | None = None,
        _switch: bytearray | None = None,
    ) -> None:
        self.deadline = deadline
        self.node_limit = node_limit
        self.start = time.perf_counter() if start is None else start
        self._switch = _switch if _switch is not None else bytearray(1)

    @classmethod
    def within(
        cls, seconds: float | None = None, nodes: int | None = None, *, since: float | None = None
    ) -> Limit:
        """A limit of ``seconds`` from ``since`` (a ``perf_counter`` time; default now)
        and/or ``nodes`` nodes (checked: both positive).

        >>> Limit.within(0.5, since=10.0).deadline
        10.5
        """
        if seconds is not None:
            seconds = check_seconds(seconds)
        if nodes is not None:
            nodes = check_nodes(nodes)
        start = time.perf_counter() if since is None else since
        deadline = None if seconds is None else start + seconds
        return cls(deadline=deadline, node_limit=nodes, start=start)

    @property
    def cancelled(self) -> bool:
        return self._switch[0] != 0

    @property
    def switch(self) -> bytearray:
        """The cancel switch: one byte, nonzero once cancelled, shared by this limit and
        its shares (the compiled core reads it as plain memory, with no Python call, so
        it sees a cancel from another thread while it searches without the GIL).

        >>> limit = Limit(); part = limit.share(0.5)
        >>> part.switch is limit.switch, limit.switch[0]
        (True, 0)
        """
        return self._switch

    def cancel(self) -> None:
        """Stop every search polling this limit or a share of it (thread-safe)."""
        self._switch[0] = 1

    def expired(self, nodes: int = 0) -> bool:
        """True when cancelled, at ``nodes`` >= the node limit, or past the deadline."""
        if self._switch[0]:
            return True
        if self.node_limit is not None and nodes >= self.node_limit:
            return True
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def check(self, nodes: int = 0) -> None:
        """Raise :class:`BudgetExhausted` if :meth:`expired`."""
        if self.expired(nodes):
            raise BudgetExhausted

    def seconds_left(self) -> float | None:
        """Seconds to the deadline (``None`` without one; never negative)."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    @property
    def seconds(self) -> float | None:
        """The limit's length in seconds, from ``start`` (``None`` without a deadline).

        >>> Limit(deadline=12.5, start=10.0).seconds, Limit().seconds
        (2.5, None)
        """
        return None if self.deadline is None else self.deadline - self.start

    def inner(self, seconds: float | None = None, nodes: int | None = None) -> Limit:
        """``seconds`` from now and ``nodes`` (checked, as :meth:`within`), inside this
        limit: the earlier deadline, the smaller node limit, the same cancel switch.

        >>> outer = Limit.within(seconds=60.0, nodes=10)
        >>> mine = outer.inner(seconds=1.0, nodes=50)
        >>> mine.node_limit, mine.deadline < outer.deadline
        (10, True)
        >>> outer.cancel(); mine.cancelled
        True
        """
        mine = Limit.within(seconds, nodes)
        return self.narrowed(deadline=mine.deadline, node_limit=mine.node_limit, start=mine.start)

    def share(self, fraction: float, *, node_offset: int = 0) -> Limit:
        """The first ``fraction`` of this limit: its time from ``start``, its nodes.

        ``node_offset`` is added to the share's node limit, for a search whose node
        counter already stands there. Cancelling this limit cancels the share too.
        """
        deadline = None
        if self.deadline is not None:
            deadline = self.start + (self.deadline - self.start) * fraction
        node_limit = None
        if self.node_limit is not None:
            node_limit = node_offset + max(int(self.node_limit * fraction), 1)
        return Limit(
            deadline=deadline, node_limit=node_limit, start=self.start, _switch=self._switch
        )

    def limited(self, *, deadline: float | None, node_limit: int | None) -> Limit:
        """This limit with another deadline and node limit, sharing its cancel switch."""
        return Limit(
            deadline=deadline, node_limit=node_limit, start=self.start, _switch=self._switch
        )

    def narrowed(
        self, *, deadline: float | None, node_limit: int | None, start: float | None = None
    ) -> Limit:
        """A limit inside this one: the earlier deadline, the smaller node limit, the
        same cancel switch; ``start`` (default now) begins its shares.

        >>> outer = Limit(node_limit=10)
        >>> inner = outer.narrowed(deadline=None, node_limit=50)
        >>> inner.node_limit, inner.deadline
        (10, None)
        """
        return Limit(
            deadline=_earlier(self.deadline, deadline),
            node_limit=_earlier(self.node_limit, node_limit),
            start=start,
            _switch=self._switch,
        )

    def __repr__(self) -> str:
        state = " cancelled" if self.cancelled else ""
        return f"<Limit deadline={self.deadline} node_limit={self.node_limit}{state}>"


def one_limit(
    limit: Limit | None, seconds: float | None = None, nodes: int | None = None
) -> Limit | None:
    """A call's one limit from the keywords the engine's functions also take: ``limit``
    narrowed to ``seconds`` from now and ``nodes`` (``None`` when nothing limits the
    call).

    >>> one_limit(None) is None, one_limit(None, nodes=5).node_limit
    (True, 5)
    >>> one_limit(Limit.within(nodes=50), nodes=5).node_limit
    5
    """
    if seconds is None and nodes is None:
        return limit
    return Limit.within(seconds, nodes) if limit is None else limit.inner(seconds, nodes)


def _earlier(a: _T | None, b: _T | None) -> _T | None:
    if a is None:
        return b
    return a if b is None else min(a, b)

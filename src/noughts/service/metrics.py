"""The service's metrics for Prometheus (``GET /metrics``, text exposition format).

Requests are counted by method, route, variant and status, with a histogram of their
time in the app, by plain counting on the event loop (microseconds a request, nothing
imported); the cache, search and worker counters the service keeps anyway are read when
Prometheus scrapes. The exposition is made by the official ``prometheus_client``,
imported on the first scrape only, so a Lambda cold start never loads it.

>>> metrics = RequestMetrics()
>>> metrics.record("POST", "/api/v1/move", "qubic", 200, 0.012)
>>> metrics.record("GET", "/no/such/page", None, 404, 0.001)
>>> sorted(metrics.counts)
[('GET', 'other', '', '404'), ('POST', '/api/v1/move', '4x4x4', '200')]
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from noughts.errors import NoughtsError
from noughts.variants import ALIASES, MISERE_SUFFIX, NAMED_VARIANTS

if TYPE_CHECKING:
    from noughts.service.moves import MoveService
    from noughts.service.readiness import Lifecycle

__all__ = ["RequestMetrics", "exposition", "ROUTES", "BUCKETS_S", "CONTENT_TYPE"]

ROUTES = frozenset({
    "/", "/api/v1/move", "/api/v1/analyze", "/api/v1/explain", "/api/v1/variants",
    "/api/v1/stats", "/healthz", "/readyz", "/metrics", "/docs", "/redoc", "/openapi.json",
})
"""Paths counted under their own name; ``/static/...`` counts as ``/static``, any other
path as ``other`` (a scanner's random paths must not grow the series)."""

BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Upper bounds (seconds) of the latency histogram's buckets."""

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The Prometheus text format's media type."""

_VARIANTS = frozenset(
    [*NAMED_VARIANTS, *(name + MISERE_SUFFIX for name in NAMED_VARIANTS)]
)


def _route(path: str) -> str:
    if path in ROUTES:
        return path
    return "/static" if path.startswith("/static/") else "other"


def _variant(name: str | None) -> str:
    """A variant label: the featured variants (and their misère games) by canonical
    name, any other as ``other``, none as empty."""
    if name is None:
        return ""
    base, misere, _ = name.lower().partition(MISERE_SUFFIX)
    canonical = ALIASES.get(base, base) + (MISERE_SUFFIX if misere else "")
    return canonical if canonical in _VARIANTS else "other"


class RequestMetrics:
    """Request counts and latency histograms, by (method, route, variant[, status])."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, str, str], int] = {}
        self.latency: dict[tuple[str, str, str], list[float]] = {}
        """Per series: a count per bucket (and one past the last), then the sum."""

    def record(self, method: str, path: str, variant: str | None, status: int,
               seconds: float) -> None:
        """Count one answered request (on the event loop: no lock)."""
        series = (method, _route(path), _variant(variant))
        key = (*series, str(status))
        self.counts[key] = self.counts.get(key, 0) + 1
        histogram = self.latency.get(series)
        if histogram is None:
            histogram = self.latency[series] = [0.0] * (len(BUCKETS_S) + 2)
        histogram[bisect.bisect_left(BUCKETS_S, seconds)] += 1.0
        histogram[-1] += seconds


def exposition(metrics: RequestMetrics, service: MoveService, lifecycle: Lifecycle) -> bytes:
    """The metrics in Prometheus's text format (imports ``prometheus_client``, the
    ``metrics`` extra; :class:`~noughts.errors.NoughtsError` naming it if missing)."""
    try:
        from prometheus_client import CollectorRegistry, generate_latest
    except ImportError:
        raise NoughtsError(
            "/metrics needs the prometheus-client package: pip install 'noughts[metrics]'"
        ) from None
    from prometheus_client.registry import Collector

    class Snapshot(Collector):
        def collect(self) -> Iterator[Any]:
            yield from _families(metrics, service, lifecycle)

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Snapshot())
    return generate_latest(registry)


def _families(metrics: RequestMetrics, service: MoveService, lifecycle: Lifecycle
              ) -> Iterator[Any]:
    from prometheus_client.core import (
        CounterMetricFamily,
        GaugeMetricFamily,
        HistogramMetricFamily,
    )

    requests = CounterMetricFamily(
        "noughts_requests", "HTTP requests answered.",
        labels=["method", "route", "variant", "status"])
    for key, count in sorted(metrics.counts.items()):
        requests.add_metric(list(key), count)
    yield requests
    latency = HistogramMetricFamily(
        "noughts_request_duration_seconds",
        "Time from a request reaching the app to its answer.",
        labels=["method", "route", "variant"])
    for series, histogram in sorted(metrics.latency.items()):
        total, buckets = 0.0, []
        for bound, in_bucket in zip((*BUCKETS_S, float("inf")), histogram, strict=False):
            total += in_bucket
            buckets.append((_bound(bound), total))
        latency.add_metric(list(series), buckets, histogram[-1])
    yield latency

    cache = {"local": (service.moves.hits + service.analyses.hits,
                       service.moves.misses + service.analyses.misses, 0, 0)}
    if service.shared is not None:
        shared = service.shared.as_json()
        cache["shared"] = (shared["hits"], shared["misses"], shared["errors"], shared["skipped"])
    for name, index, text in (("hits", 0, "Move-cache lookups answered."),
                              ("misses", 1, "Move-cache lookups not answered."),
                              ("errors", 2, "Shared-cache calls that failed or timed out."),
                              ("skipped", 3, "Shared-cache lookups skipped while it was "
                                             "unreachable or busy.")):
        family = CounterMetricFamily(f"noughts_cache_{name}", text, labels=["layer"])
        for layer, values in cache.items():
            family.add_metric([layer], values[index])
        yield family

    pool = service.pool
    runner = service.runner if pool is None else pool
    yield CounterMetricFamily("noughts_searches_started", "Engine searches started.",
                              value=runner.started)
    yield GaugeMetricFamily("noughts_searches_running", "Engine searches running now.",
                            value=runner.running)
    yield CounterMetricFamily(
        "noughts_admission_rejections",
        "Requests turned away (429) because no search slot came free in time.",
        value=runner.rejected)
    yield CounterMetricFamily("noughts_deadline_misses",
                              "Searches given up at their deadline (503).",
                              value=runner.deadline_misses)
    yield CounterMetricFamily("noughts_search_worker_restarts",
                              "Search worker processes replaced (died or hung).",
                              value=0 if pool is None else pool.replaced)
    yield GaugeMetricFamily("noughts_search_workers_ready", "Search worker processes ready.",
                            value=0 if pool is None else pool.ready)
    yield GaugeMetricFamily("noughts_ready", "1 while /readyz says ready.",
                            value=int(lifecycle.not_ready(pool) is None))


def _bound(bound: float) -> str:
    return "+Inf" if bound == float("inf") else repr(bound)

"""Per-variant tables stay bounded under a stream of distinct variant names."""

from __future__ import annotations

import itertools
import json
import time
import warnings

import pytest

from serving import request, serving

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx

from fastapi.testclient import TestClient  # noqa: E402

from noughts.exact import solver  # noqa: E402
from noughts.search.board import tables_for  # noqa: E402
from noughts.service import warmup  # noqa: E402
from noughts.service.app import create_app  # noqa: E402
from noughts.service.memory import resident_mb  # noqa: E402
from noughts.service.settings import Settings  # noqa: E402
from noughts.variants import MAX_KEPT_VARIANTS, NAMED_VARIANTS, kept_variants  # noqa: E402

ANSWERED = (200, 429, 503)
"""A move, or busy: on a loaded machine (the tests share two cores) a search can miss
its budget; these tests are about memory."""


def _names(count: int) -> list[str]:
    """Distinct small variants, degenerate ones (k longer than the short side) included."""
    names = []
    for rows, cols in itertools.product(range(3, 9), repeat=2):
        for k in range(3, max(rows, cols) + 1):
            names.append(f"{rows}x{cols}k{k}")
    return names[:count]


def test_many_distinct_variants_keep_the_caches_bounded() -> None:
    names = _names(90)
    with TestClient(create_app(Settings(warmup=False, max_searches=4))) as client:
        for index, name in enumerate(names):
            level = 10 if index % 3 == 0 else 0
            body = {"variant": name, "level": level, "time_ms": 200}
            response = client.post("/api/v1/move", json=body)
            assert response.status_code in ANSWERED, (name, response.text)
    # pinned: the featured boards and their misère games; kept: at most MAX_KEPT_VARIANTS
    assert len(kept_variants()) <= 2 * len(NAMED_VARIANTS) + MAX_KEPT_VARIANTS
    assert len(solver._SOLVERS) <= solver.MAX_KEPT_SOLVERS
    assert len(warmup._started) <= MAX_KEPT_VARIANTS and len(warmup._warm) <= MAX_KEPT_VARIANTS
    assert tables_for.cache_info().currsize <= 16


def _wait_for_the_warm_up(base: str) -> None:
    """Until the start-up warm-up (Qubic's tables) is done: it shares the interpreter."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        stats = json.loads(request(f"{base}/api/v1/stats")[2])
        if set(NAMED_VARIANTS) <= set(stats["engine"]["warmed"]):
            return
        time.sleep(0.2)
    raise AssertionError("the warm-up did not finish within 60 s")


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="needs /proc")
def test_a_server_fed_distinct_variants_stays_under_its_memory_bound() -> None:
    with serving() as server:
        _wait_for_the_warm_up(server.base)
        began = time.monotonic()
        worst = 0.0
        for name in [*_names(45), "3x8k6", "4x6k5", "8x3k8", "19x19k5", "5x5x5", "4x4x4"]:
            body = json.dumps({"variant": name, "time_ms": 200}).encode()
            status, _, raw = request(f"{server.base}/api/v1/move", body)
            assert status in ANSWERED, (name, raw)
            worst = max(worst, resident_mb(server.process.pid) or 0.0)  # with its workers
        assert worst < 400, f"resident memory reached {worst:.0f} MB"
        assert time.monotonic() - began < 60

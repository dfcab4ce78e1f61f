"""Choosing where jobs run, and the optional extras' absence, without Ray or Redis."""

from __future__ import annotations

import sys

import pytest

from noughts.cli import main
from noughts.errors import NoughtsError
from noughts.runtime.cluster import LOCAL, ClusterError, executor_for, parse_cluster
from noughts.service.shared_cache import SharedCache


def test_cluster_values() -> None:
    assert parse_cluster(" ray://head.example:10001 ") == "ray://head.example:10001"
    assert parse_cluster("Local") == parse_cluster("") == LOCAL
    for bad in ("ray://", "dask", "ray://host", "ray://host:port"):
        with pytest.raises(ClusterError, match="unknown cluster"):
            parse_cluster(bad)
    with pytest.raises(ClusterError, match="at least 1"):
        executor_for("ray", workers=0)


def test_missing_ray_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if not installed
    with pytest.raises(ClusterError, match=r"pip install 'noughts\[cluster\]'"):
        executor_for("ray", workers=2)
    assert main(["arena", "random", "random", "--cluster", "auto", "--quiet"]) == 2
    assert "noughts: error: Ray is not installed" in capsys.readouterr().err


def test_missing_redis_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(NoughtsError, match=r"noughts\[redis\]"):
        SharedCache("redis://127.0.0.1:1/0", ttl_s=1, maxsize=1, timeout_s=0.05, retry_s=1)


def test_the_local_executor_runs_jobs() -> None:
    with executor_for("none", workers=2) as executor:
        assert sorted(executor.map(abs, [-2, 1, -3])) == [1, 2, 3]

"""A pytest plugin: under the test command a missing dependency fails, it does not skip.

``scripts/test.sh`` installs everything the tests need (the extras, Chromium, Node.js,
redis-server), so a test skipped there because one of them is missing means the set-up
broke, and a green run would hide it. With ``CI=true`` or ``NOUGHTS_STRICT_SKIPS=1``
(the test command sets it) a skip whose reason says something is missing fails instead,
naming it: ``pytest.importorskip``'s "could not import 'ray'", or a reason of the form
"needs WHAT ...". What no extra installs may still be skipped for (:data:`ALLOWED`).
Loaded by ``tests/conftest.py``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from typing import Any

import pytest

ALLOWED = frozenset({"torch", "/proc"})
"""Missing things a run may skip for: torch is in no extra; /proc is Linux's."""

_MISSING = re.compile(r"could not import '([^']+)'|^needs (\S+)")


def strict() -> bool:
    """True under the test command or in CI."""
    return os.environ.get("CI", "").lower() == "true" or os.environ.get(
        "NOUGHTS_STRICT_SKIPS"
    ) == "1"


def missing_dependency(reason: str) -> str | None:
    """What a skip's reason says is missing (``None``: another kind of skip, or allowed).

    >>> missing_dependency("could not import 'ray': No module named 'ray'")
    'ray'
    >>> missing_dependency("needs redis-server (apt-get install)")
    'redis-server'
    >>> missing_dependency("could not import 'torch': No module named 'torch'") is None
    True
    """
    found = _MISSING.search(reason.removeprefix("Skipped: "))
    if found is None:
        return None
    name = found.group(1) or found.group(2)
    top = name.split(".")[0].rstrip(":,")
    return None if top in ALLOWED or name in ALLOWED else top


def _reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _failure(what: str, reason: str) -> str:
    return (f"{what} is missing ({reason.removeprefix('Skipped: ')}): the test set-up "
            "installs it (scripts/test.sh), so under the test command this fails "
            "instead of skipping")


def _fail_if_missing(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Turn ``report``'s skip for a missing dependency into a failure naming it."""
    if report.skipped and strict():
        reason = _reason(report.longrepr)
        what = missing_dependency(reason)
        if what is not None:
            report.outcome = "failed"
            report.longrepr = _failure(what, reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, Any, None]:
    outcome = yield
    _fail_if_missing(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    _fail_if_missing(outcome.get_result())

"""A test run that leaves a child process alive fails, and names it, instead of waiting
for it at the interpreter's exit (multiprocessing joins its children then, and a worker
that ignores SIGTERM would keep the run from ever ending)."""

from __future__ import annotations

import multiprocessing

import pytest


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = multiprocessing.active_children()
    if not left:
        return
    names = ", ".join(f"{child.name} (process {child.pid})" for child in left)
    for child in left:
        child.kill()
        child.join(timeout=5)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"child processes left running after the tests: {names}", red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED

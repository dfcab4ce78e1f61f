"""A test run that leaves a child process running fails at its end, naming the process,
instead of waiting for it for ever at the interpreter's exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LEAKS = """
import multiprocessing
import signal
import time

def _stubborn():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as an executor's worker does
    time.sleep(600)

def test_leaves_a_worker_behind():
    multiprocessing.get_context("fork").Process(target=_stubborn, name="left-behind",
                                                daemon=True).start()
"""


def test_a_child_process_left_running_fails_the_run(tmp_path: Path) -> None:
    (tmp_path / "test_leaks.py").write_text(LEAKS)
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).parent), environment.get("PYTHONPATH", "")])
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "leftover_processes", "-p", "no:cacheprovider",
         "-q", "-c", os.devnull, str(tmp_path)],
        capture_output=True, text=True, timeout=120, env=environment, cwd=tmp_path,
    )
    assert run.returncode == 1, run.stdout
    assert "1 passed" in run.stdout
    assert "child processes left running after the tests: left-behind" in run.stdout

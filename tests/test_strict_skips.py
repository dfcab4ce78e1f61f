"""Under the test command a test skipped for a missing dependency fails, naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = """
import pytest

def test_needs_a_missing_module():
    pytest.importorskip("noughts_surely_missing_module")

def test_needs_a_missing_program():
    pytest.skip("needs redis-server (apt-get install)")

def test_needs_torch():  # (as importorskip words it where torch is missing)
    pytest.skip("could not import 'torch': No module named 'torch'")

def test_skipped_for_another_reason():
    pytest.skip("not on this board")
"""

MODULE = "import pytest\npytest.importorskip('noughts_surely_missing_module')\n\n" \
         "def test_never_collected():\n    pass\n"


def _run(tmp_path: Path, strict: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_skips.py").write_text(TESTS)
    (tmp_path / "test_module_skip.py").write_text(MODULE)
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("CI", "NOUGHTS_STRICT_SKIPS")}
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).parent), environment.get("PYTHONPATH", "")])
    environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a bare pytest: quick to start
    if strict:
        environment["NOUGHTS_STRICT_SKIPS"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "strict_skips", "-p", "no:cacheprovider",
         "-q", "-rfEs", "-c", os.devnull, "--continue-on-collection-errors", str(tmp_path)],
        capture_output=True, text=True, timeout=120, env=environment, cwd=tmp_path,
    )


def test_a_missing_dependency_fails_under_the_test_command(tmp_path: Path) -> None:
    run = _run(tmp_path, strict=True)
    assert run.returncode == 1, run.stdout  # failures, not an interrupted run
    assert "noughts_surely_missing_module is missing" in run.stdout
    assert "redis-server is missing" in run.stdout
    assert "2 failed, 2 skipped, 1 error" in run.stdout  # (the module's skip: an error)


def test_elsewhere_it_skips(tmp_path: Path) -> None:
    run = _run(tmp_path, strict=False)
    assert run.returncode == 0, run.stdout
    assert "5 skipped" in run.stdout and "failed" not in run.stdout

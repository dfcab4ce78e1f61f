"""The PPO example runs (tiny: a few updates), where PyTorch is installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "ppo_vector.py"


def test_the_ppo_example_trains_evaluates_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("ppo_vector", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(
        [
            "--num-envs",
            "16",
            "--num-steps",
            "4",
            "--total-steps",
            "192",
            "--eval-every",
            "2",
            "--eval-games",
            "10",
        ]
    )
    out = capsys.readouterr().out
    assert "as X (" in out and "as O (" in out
    assert "stopped after" in out and "judged again over 10 games" in out

"""The examples of docs/rl.md run as written."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "rl.md"


def test_rl_guide_examples_run() -> None:
    failures, tried = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert tried > 10 and failures == 0

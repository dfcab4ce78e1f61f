"""Stable-Baselines3 makes a log folder at every ``learn()`` not given one: ``SB3-<date>``
in the system's temporary directory, left behind. The tests' go to one folder under
pytest's temporary directory instead (``SB3_LOGDIR``, which SB3 reads first; child
processes inherit it), which pytest clears with its other runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def sb3_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder every SB3 logger of the run writes in."""
    folder = tmp_path_factory.mktemp("sb3-logs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(folder))
        yield folder
